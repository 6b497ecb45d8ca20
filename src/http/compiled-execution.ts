import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
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
  runs: number;
  /** Its fields with fragments expanded, counted up to MAX_COMPILED_FIELDS + 1. */
  fields: number;
  /** Its compiled form once compiled; null if the compiler refused it. */
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
    const operation = getOperationAST(document, operationName);
    if (!operation || operation.operation === 'subscription') return null;
    let operations = byDocument.get(document);
    if (!operations) byDocument.set(document, (operations = new Map()));
    const name = operationName ?? '';
    let state = operations.get(name);
    if (!state) operations.set(name, (state = { runs: 0, fields: fieldsOf(document, operation) }));
    state.runs += 1;
    if (state.compiled === null || state.fields > MAX_COMPILED_FIELDS) return null;
    if (state.compiled === undefined && state.runs < compileOnRun(state.fields)) return null;
    const { errors } = getVariableValues(schema, operation.variableDefinitions ?? [], variableValues ?? {}, {
      maxErrors: 1,
    });
    if (errors) return null;
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
 * The fields `operation` selects with its fragments expanded (as the compiled code will hold them),
 * counted up to one past MAX_COMPILED_FIELDS. Validation has refused fragment cycles already.
 */
export function fieldsOf(document: DocumentNode, operation: OperationDefinitionNode): number {
  const fragments = new Map<string, SelectionSetNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition.selectionSet);
  let fields = 0;
  const walk = (selections: SelectionSetNode | undefined): void => {
    for (const selection of selections?.selections ?? []) {
      if (fields > MAX_COMPILED_FIELDS) return;
      if (selection.kind === Kind.FIELD) {
        fields += 1;
        walk(selection.selectionSet);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) walk(selection.selectionSet);
      else walk(fragments.get(selection.name.value));
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
  return { ...result, errors };
}
