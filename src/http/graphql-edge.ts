import { GraphQLError, Kind, visit, type DocumentNode, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { errorResponse } from './errors';
import { jsonProblem, textProblem } from './edge';
import type { Context } from '../context';

/**
 * The GraphQL endpoint's edge: only JSON (or GET) requests run, so a cross-site form cannot post an
 * operation; variables and string literals must be storable text; introspection needs credentials
 * unless configured open.
 */
export function useGraphqlEdge(options: { graphqlEndpoint: string; anonymousIntrospection: boolean }): Plugin<Context> {
  return {
    onRequest({ request, url, endResponse }) {
      if (url.pathname !== options.graphqlEndpoint || request.method !== 'POST') return;
      const type = request.headers.get('content-type') ?? '';
      if (!/^application\/(graphql-response\+json|json|graphql\+json)\b/i.test(type)) {
        endResponse(
          errorResponse(
            415,
            'UNSUPPORTED_MEDIA_TYPE',
            'POST GraphQL operations as JSON with Content-Type: application/json',
          ),
        );
      }
    },
    onParams({ params, setResult }) {
      const problem =
        jsonProblem(params.variables ?? null, 'variables') ??
        jsonProblem(params.operationName ?? null, 'operationName') ??
        jsonProblem(params.extensions ?? null, 'extensions') ??
        jsonProblem(params.query ?? null, 'query');
      if (problem) setResult({ errors: [inputError(`${problem.field}: ${problem.message}`, problem.field)] });
    },
    onValidate({ addValidationRule }) {
      addValidationRule(storableStringLiterals);
    },
    onExecute({ args }) {
      const context = args.contextValue as Context;
      if (options.anonymousIntrospection || context.session.isAuthenticated || !introspects(args.document)) return;
      throw new GraphQLError('introspection needs credentials here: send Authorization: Bearer <token>', {
        extensions: { code: 'UNAUTHENTICATED', http: { status: 401 } },
      });
    },
  };
}

const inputError = (message: string, field: string) =>
  new GraphQLError(message, { extensions: { code: 'INVALID_ARGUMENT', http: { status: 400 }, details: { field } } });

/** String literals in the document ("a\u0000b" is a NUL once parsed) must be storable text too. */
const storableStringLiterals: ValidationRule = (context) => ({
  StringValue(node) {
    const problem = textProblem(node.value);
    if (problem)
      context.reportError(
        new GraphQLError(`a string literal ${problem}`, { nodes: [node], extensions: { code: 'INVALID_ARGUMENT' } }),
      );
  },
});

function introspects(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    [Kind.FIELD](node) {
      if (node.name.value === '__schema' || node.name.value === '__type') found = true;
    },
  });
  return found;
}
