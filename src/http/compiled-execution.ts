import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type Source,
} from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from '../logger';

/**
 * Runs a document seen before through code compiled for it (`graphql-jit`) instead of the
 * field-by-field interpreter: every REST route and every repeated GraphQL query after its first
 * run. The interpreter keeps what compiled code would answer differently or gain nothing on:
 * - a document's first run (an analyst's one-off query does not pay for compiling);
 * - subscriptions (their event streams stay with Yoga's executor);
 * - variables that do not fit their types, so the refusal names the variable and field as the
 *   GraphQL specification's coercion does;
 * - an operation the compiler refuses (logged; the interpreter answers it).
 * Compiled operations live as long as their parsed document (the parser's cache holds it).
 */
export function useCompiledExecution(logger: Logger): Plugin {
  /** Per document, by operation name: its compiled form, or null once it would not compile. */
  const compiled = new WeakMap<DocumentNode, Map<string, CompiledQuery | null>>();

  function compiledFor({ schema, document, operationName, variableValues }: ExecutionArgs) {
    const operations = compiled.get(document);
    if (!operations) {
      compiled.set(document, new Map());
      return null;
    }
    const operation = getOperationAST(document, operationName);
    if (!operation || operation.operation === 'subscription') return null;
    const { errors } = getVariableValues(schema, operation.variableDefinitions ?? [], variableValues ?? {}, {
      maxErrors: 1,
    });
    if (errors) return null;
    const name = operationName ?? '';
    let query = operations.get(name);
    if (query === undefined) {
      const result = compileQuery(schema, document, operationName ?? undefined);
      if (isCompiledQuery(result)) {
        query = result;
        logger.debug('operation compiled', { operation: operationName ?? null });
      } else {
        query = null;
        logger.warn('operation left to the interpreter', { errors: result.errors?.map((error) => error.message) });
      }
      operations.set(name, query);
    }
    return query;
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
