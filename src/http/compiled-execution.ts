import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type Source,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../logger';

/** Operations of more fields than this (fragments expanded) are always interpreted: compiling one would hold the event loop for tens of milliseconds. */
export const MAX_COMPILED_FIELDS = 500;

/**
 * The run on which an operation of `fields` fields is compiled: its second, or a later one for a
 * larger operation, so that compiling it (about 40 µs a field) costs no more than its interpreted
 * runs before it did, and a caller cannot make the server compile much for a few requests.
 */
export function compileOnRun(fields: number): number {
  return Math.max(2, Math.ceil(fields / 25));
}

interface OperationRuns {
  operation: OperationDefinitionNode;
  /** Its fields with fragments expanded (see `shapeOf`). */
  fields: number;
  runs: number;
  /** Its compiled form once compiled; null when it never is (see below), undefined until then. */
  compiled?: CompiledQuery | null;
}

/**
 * Runs an operation run before through code compiled for it (`graphql-jit`) instead of the
 * field-by-field interpreter: every REST route and every repeated GraphQL query from its second run
 * on (later for a large one, see `compileOnRun`). The interpreter keeps what compiled code would
 * answer differently or gain nothing on:
 * - an operation's first runs (an analyst's one-off query does not pay for compiling);
 * - operations of more than MAX_COMPILED_FIELDS fields;
 * - subscriptions (their event streams stay with Yoga's executor);
 * - variables that do not fit their types, so the refusal names the variable and field as the
 *   GraphQL specification's coercion does;
 * - an operation the compiler refuses (logged; the interpreter answers it).
 * Runs before this plugin refuse what the operation limits refuse, so nothing refused is compiled.
 * Compiled operations live as long as their parsed document (the parser's cache holds it).
 */
export function useCompiledExecution(logger: Logger): Plugin {
  const byDocument = new WeakMap<DocumentNode, Map<string, OperationRuns>>();

  function compiledFor({ schema, document, operationName, variableValues }: ExecutionArgs) {
    let operations = byDocument.get(document);
    if (!operations) byDocument.set(document, (operations = new Map()));
    const name = operationName ?? '';
    let state = operations.get(name);
    if (!state) {
      // Decided once per operation: what is never compiled, and its size.
      const operation = getOperationAST(document, operationName);
      if (!operation) return null;
      const fields = fieldsOf(document, operation);
      const never = operation.operation === 'subscription' || fields > MAX_COMPILED_FIELDS;
      operations.set(name, (state = { operation, fields, runs: 0, ...(never ? { compiled: null } : {}) }));
    }
    state.runs += 1;
    if (state.compiled === null || (state.compiled === undefined && state.runs < compileOnRun(state.fields)))
      return null;
    const { variableDefinitions = [] } = state.operation;
    if (getVariableValues(schema, variableDefinitions, variableValues ?? {}, { maxErrors: 1 }).errors) return null;
    if (state.compiled === undefined) {
      const result = compileQuery(schema, document, operationName ?? undefined);
      if (isCompiledQuery(result)) {
        state.compiled = result;
        logger.debug('operation compiled', { operation: operationName ?? null, fields: state.fields });
      } else {
        state.compiled = null;
        logger.warn('operation left to the interpreter', { errors: result.errors?.map((error) => error.message) });
      }
    }
    return state.compiled;
  }

  return {
    onExecute({ args, setExecuteFn }) {
      const query = compiledFor(args);
      if (!query) return;
      setExecuteFn((args: ExecutionArgs) => {
        const source = args.document.loc?.source;
        const answer = query.query(args.rootValue, args.contextValue, args.variableValues);
        return answer instanceof Promise
          ? answer.then((result) => withPositions(result, source))
          : withPositions(answer, source);
      });
    },
  };
}

/**
 * The fields of `operation` as the compiled code would hold them (fragments expanded), counted up
 * to one past MAX_COMPILED_FIELDS. Validation has refused fragment cycles already.
 */
export function fieldsOf(document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  let fields = 0;
  const walk = (selections: SelectionSetNode): void => {
    for (const selection of selections.selections) {
      if (fields > MAX_COMPILED_FIELDS) return;
      if (selection.kind === Kind.FIELD) {
        fields += 1;
        if (selection.selectionSet) walk(selection.selectionSet);
      } else {
        const fragment = selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
        if (fragment) walk(fragment.selectionSet);
      }
    }
  };
  walk(operation.selectionSet);
  return fields;
}

/**
 * The compiler's errors name where they happened by line and column only; Yoga rebuilds an error
 * from its nodes or its source positions, so each becomes an error at the same positions in the
 * document's source (answered as the same locations the interpreter's errors have).
 */
function withPositions(result: ExecutionResult, source: Source | undefined): ExecutionResult {
  if (!result.errors?.length || !source) return result;
  // Line breaks as GraphQL's lexer counts them.
  const lineStarts = [0, ...Array.from(source.body.matchAll(/\r\n|[\n\r]/g), (m) => m.index + m[0].length)];
  const errors = result.errors.map((error) =>
    error.nodes || !error.locations
      ? error
      : new GraphQLError(error.message, {
          source,
          positions: error.locations.map(({ line, column }) => (lineStarts[line - 1] ?? 0) + column - 1),
          path: error.path,
          originalError: error.originalError,
          extensions: error.extensions,
        }),
  );
  // Errors first, as the interpreter's answers have them.
  const { data, extensions } = result;
  return extensions ? { errors, data, extensions } : { errors, data };
}
