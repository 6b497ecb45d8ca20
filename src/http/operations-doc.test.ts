import { GraphQLObjectType, GraphQLSchema, GraphQLString } from 'graphql';
import { describe, expect, it } from 'vitest';
import { operationsMarkdown } from './operations-doc';
import { GRAPHQL_ONLY, restOperations } from './operations';

const dealers = restOperations('Dealers');
const health = restOperations('Administration');

/** A field as Pothos passes it on: its route (or GRAPHQL_ONLY) and its scope rule in the extensions. */
const field = (options: { extensions: object }, authScopes?: object, description?: string) => ({
  type: GraphQLString,
  description,
  extensions: { ...options.extensions, pothosOptions: { authScopes } },
});

describe('docs/operations.md: the catalog of operations', () => {
  const markdown = operationsMarkdown(
    new GraphQLSchema({
      query: new GraphQLObjectType({
        name: 'Query',
        fields: {
          dealers: field(dealers('GET /dealers', 'List dealers | rooftops'), { scope: 'dealers:read' }),
          health: field(health('GET /health', 'Health', { public: true })),
          dealerGraph: field(GRAPHQL_ONLY, { adminUser: true }, 'Dealers with\nevery relation.'),
        },
      }),
      mutation: new GraphQLObjectType({
        name: 'Mutation',
        fields: {
          createDealer: field(dealers('POST /dealers', 'Create a dealer', { status: 201 }), { scope: 'dealers:write' }),
        },
      }),
    }),
  );

  it('lists each section that has operations, in reference order, with one row per route', () => {
    expect(markdown).toContain('npm run schema:print');
    expect(markdown).toContain('/api/v1/openapi.json');
    expect(markdown.indexOf('## Dealers')).toBeLessThan(markdown.indexOf('## Administration'));
    expect(markdown).not.toContain('## Inventory');
    expect(markdown).toContain(
      '| `GET /dealers` | `Query.dealers` | `dealers:read` | 200 | List dealers \\| rooftops |',
    );
    expect(markdown).toContain(
      '| `POST /dealers` | `Mutation.createDealer` | `dealers:write` | 201 | Create a dealer |',
    );
    expect(markdown).toContain('| `GET /health` | `Query.health` | none (public) | 200 | Health |');
  });

  it('lists the GraphQL-only root fields after the sections', () => {
    expect(markdown.indexOf('## GraphQL only')).toBeGreaterThan(markdown.indexOf('## Administration'));
    expect(markdown).toContain('| `Query.dealerGraph` | admin user (no API key) | Dealers with every relation. |');
  });
});
