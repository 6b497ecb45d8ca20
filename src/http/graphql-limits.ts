import {
  GraphQLError,
  Lexer,
  Source,
  TokenKind,
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLSchema,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { MaxTokensParserWLexer } from '@escape.tech/graphql-armor-max-tokens';
import { blockFieldSuggestionsPlugin } from '@escape.tech/graphql-armor-block-field-suggestions';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { LIMIT_DEFAULT, LIMIT_MAX } from '../pagination';

/**
 * Limits on the shape and cost of one GraphQL operation sent to /graphql: tokens (while parsing),
 * depth, aliases and directives (while validating), and a list-aware cost once the variables are
 * known. REST operations are SOFA's fixed documents: they never reach the parse and validate
 * phases, and the cost check skips them. A refusal is a 400 that names the limit and the amount.
 */

export interface GraphqlLimits {
  maxDepth: number;
  maxAliases: number;
  maxTokens: number;
  maxCost: number;
  /** Also masks "Did you mean …?" in validation errors, which would leak the schema where introspection is closed. */
  hideFieldSuggestions?: boolean;
}

/** Directives per operation: @include/@skip a few times is plenty; hundreds are a parser attack. */
export const MAX_DIRECTIVES = 20;
/** How many items a list with no page size of its own (a rooftop's aliases, a vehicle's provenance) is assumed to hold. */
export const UNPAGED_LIST_SIZE = 10;
/** Fields evaluated by the cost walk, fragments expanded; more is refused as too complex. */
const MAX_COST_NODES = 10_000;

/** Costs remembered per document, at most this many (operations and variables) each. */
const COSTS_PER_DOCUMENT = 32;
/** Variables longer than this as JSON are not remembered by (the cost is computed each time). */
const MAX_REMEMBERED_VARIABLES = 1_024;

/**
 * The cost of each operation of a document, by its variables: a dashboard or a client asks the same
 * few questions over and over, and walking the document for its cost was a few percent of such a
 * request. The parsed document is cached by the parser, so its costs go with it; a cost that could
 * not be computed is not remembered.
 */
class KnownCosts {
  private readonly byDocument = new WeakMap<DocumentNode, Map<string, number>>();

  of(args: { document: DocumentNode; operationName?: string | null; variableValues?: unknown }, compute: () => number) {
    const variables = JSON.stringify(args.variableValues ?? {});
    if (variables.length > MAX_REMEMBERED_VARIABLES) return compute();
    const key = `${args.operationName ?? ''}\u0000${variables}`;
    let known = this.byDocument.get(args.document);
    const cost = known?.get(key);
    if (cost !== undefined) return cost;
    const computed = compute();
    if (!known) this.byDocument.set(args.document, (known = new Map()));
    if (known.size >= COSTS_PER_DOCUMENT) known.delete(known.keys().next().value!);
    known.set(key, computed);
    return computed;
  }
}

const number = (value: number) => value.toLocaleString('en-US');

const LIMIT_CODES = new Set(['DEPTH_LIMIT', 'ALIAS_LIMIT', 'TOKEN_LIMIT', 'DIRECTIVE_LIMIT', 'QUERY_TOO_COMPLEX']);

const limitError = (code: string, message: string, details: Record<string, unknown>) =>
  new GraphQLError(message, { extensions: { code, http: { status: 400 }, details } });

/** Tokens in the whole document (the armor parser stops counting at the limit). */
function countTokens(source: string | Source): number {
  const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source);
  let count = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) count += 1;
  } catch {
    // A syntax error ends the count; the tokens so far already exceed the limit.
  }
  return count;
}

/** "found 61." at the end of a graphql-armor message: how far over the limit the operation went. */
const found = (error: GraphQLError) => Number(/found (\d+)\.?$/.exec(error.message)?.[1] ?? NaN);

/** The argument that sizes a list: `limit`, or `<something>_limit` (`row_errors(errors_limit)`). */
function pageSizeArgument(field: GraphQLField<unknown, unknown>): GraphQLArgument | undefined {
  return field.args.find(
    (arg) => (arg.name === 'limit' || arg.name.endsWith('_limit')) && getNamedType(arg.type).name === 'Int',
  );
}

/** The default and maximum page size of a size argument: its default value, else its description ("1-500, default 50."), else the list convention's (pagination.ts). */
function pageSizeBounds(arg: GraphQLArgument): { fallback: number; max: number } {
  const description = arg.description ?? '';
  const fallback =
    typeof arg.defaultValue === 'number'
      ? arg.defaultValue
      : Number(/default (\d+)/.exec(description)?.[1] ?? LIMIT_DEFAULT);
  const max = Number(/max (\d+)/.exec(description)?.[1] ?? /\d+-(\d+)/.exec(description)?.[1] ?? LIMIT_MAX);
  return { fallback, max: Math.max(fallback, max) };
}

/**
 * Each field costs 1, plus its children's cost times how many times they are resolved: a field with a
 * page size (`limit`) multiplies by it (the default when absent; at most its maximum, past which the
 * resolver refuses anyway); a list inside a page the field's parent sized (`InventoryPage.vehicles`)
 * by 1; any other list by UNPAGED_LIST_SIZE. So the cost approximates the values in the answer.
 * Introspection costs nothing.
 */
export function listAwareEstimator(schema: GraphQLSchema): ComplexityEstimator {
  const pageTypes = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      if (pageSizeArgument(field) && !isListType(getNullableType(field.type)))
        pageTypes.add(getNamedType(field.type).name);
    }
  }
  const bounds = new Map<GraphQLArgument, { fallback: number; max: number }>();
  return ({ type, field, args, childComplexity }) => {
    // Introspection answers with the schema, whose size is ours and fixed; __typename is free.
    if (field.name.startsWith('__')) return 0;
    const size = pageSizeArgument(field);
    if (size) {
      let known = bounds.get(size);
      if (!known) bounds.set(size, (known = pageSizeBounds(size)));
      const requested = typeof args[size.name] === 'number' ? (args[size.name] as number) : known.fallback;
      return 1 + Math.min(Math.max(requested, 1), known.max) * childComplexity;
    }
    if (isListType(getNullableType(field.type)))
      return 1 + (pageTypes.has(type.name) ? 1 : UNPAGED_LIST_SIZE) * childComplexity;
    return 1 + childComplexity;
  };
}

/** Yoga plugin enforcing GraphqlLimits on operations sent to the GraphQL endpoint. */
export function useGraphqlLimits(limits: GraphqlLimits): Plugin {
  // Yoga's onParams runs for GraphQL-over-HTTP requests only, never for SOFA's REST routes.
  const graphqlRequests = new WeakSet<Request>();
  const costs = new KnownCosts();
  let estimator: { schema: GraphQLSchema; estimate: ComplexityEstimator } | null = null;
  const estimatorFor = (schema: GraphQLSchema) => {
    if (estimator?.schema !== schema) estimator = { schema, estimate: listAwareEstimator(schema) };
    return estimator.estimate;
  };
  const over =
    (code: string, limit: string, maximum: number, describe: (actual: number) => string) =>
    (_context: unknown, error: GraphQLError) => {
      const actual = found(error);
      throw limitError(
        code,
        Number.isFinite(actual) ? describe(actual) : `${limit} exceeds the maximum of ${number(maximum)}`,
        { limit, maximum, ...(Number.isFinite(actual) ? { actual } : {}) },
      );
    };

  return {
    onPluginInit({ addPlugin }) {
      addPlugin(
        maxDepthPlugin({
          n: limits.maxDepth,
          flattenFragments: true,
          onReject: [
            over(
              'DEPTH_LIMIT',
              'depth',
              limits.maxDepth,
              (depth) => `query depth ${depth} exceeds the maximum of ${limits.maxDepth}`,
            ),
          ],
        }),
      );
      addPlugin(
        maxAliasesPlugin({
          n: limits.maxAliases,
          onReject: [
            over(
              'ALIAS_LIMIT',
              'aliases',
              limits.maxAliases,
              (aliases) => `${number(aliases)} aliases exceed the maximum of ${number(limits.maxAliases)}`,
            ),
          ],
        }),
      );
      addPlugin(
        maxDirectivesPlugin({
          n: MAX_DIRECTIVES,
          onReject: [
            over(
              'DIRECTIVE_LIMIT',
              'directives',
              MAX_DIRECTIVES,
              (directives) => `${number(directives)} directives exceed the maximum of ${MAX_DIRECTIVES}`,
            ),
          ],
        }),
      );
      if (limits.hideFieldSuggestions) addPlugin(blockFieldSuggestionsPlugin({ mask: '' }));
    },
    onParams({ request }) {
      graphqlRequests.add(request);
    },
    onResultProcess({ result }) {
      // Yoga marks parse and validation errors as the GraphQL-over-HTTP spec's (http.spec), which it answers
      // with 200 to clients accepting application/json; a refused limit is a 400 for every client.
      if (Array.isArray(result) || !('errors' in result)) return;
      for (const error of result.errors ?? []) {
        const extensions = error.extensions as { code?: unknown; http?: { spec?: boolean } } | undefined;
        if (typeof extensions?.code === 'string' && LIMIT_CODES.has(extensions.code) && extensions.http)
          extensions.http.spec = false;
      }
    },
    onParse({ setParseFn }) {
      // graphql-armor's token-counting parser, refusing with our error and the document's full count.
      setParseFn((source, options) =>
        new MaxTokensParserWLexer(source, {
          ...options,
          n: limits.maxTokens,
          onReject: [
            () => {
              const tokens = countTokens(source);
              throw limitError(
                'TOKEN_LIMIT',
                `${number(tokens)} tokens exceed the maximum of ${number(limits.maxTokens)}`,
                { limit: 'tokens', maximum: limits.maxTokens, actual: tokens },
              );
            },
          ],
        }).parseDocument(),
      );
    },
    onExecute({ args, setResultAndStopExecution }) {
      const request = (args.contextValue as { request?: Request }).request;
      if (!request || !graphqlRequests.has(request)) return;
      let cost: number;
      try {
        cost = costs.of(args, () =>
          getComplexity({
            schema: args.schema,
            query: args.document,
            variables: (args.variableValues ?? {}) as Record<string, unknown>,
            operationName: args.operationName ?? undefined,
            estimators: [estimatorFor(args.schema)],
            maxQueryNodes: MAX_COST_NODES,
          }),
        );
      } catch (error) {
        // Variables that do not fit their types: execution refuses the whole operation with the reason.
        if (/^Variable "\$/.test((error as Error).message)) return;
        const nodes = /maximum allowed number of nodes/.test((error as Error).message);
        setResultAndStopExecution({
          errors: [
            limitError(
              'QUERY_TOO_COMPLEX',
              nodes
                ? `the query selects more than ${number(MAX_COST_NODES)} fields with its fragments expanded, the maximum`
                : `the query's cost could not be computed: ${(error as Error).message}`,
              { limit: 'cost' },
            ),
          ],
        });
        return;
      }
      if (cost > limits.maxCost) {
        setResultAndStopExecution({
          errors: [
            limitError(
              'QUERY_TOO_COMPLEX',
              `query cost ${number(cost)} exceeds the limit of ${number(limits.maxCost)}; request smaller pages (limit) or fewer nested lists`,
              { limit: 'cost', maximum: limits.maxCost, actual: cost },
            ),
          ],
        });
      }
    },
  };
}
