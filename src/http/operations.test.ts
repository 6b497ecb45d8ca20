import { GraphQLObjectType, GraphQLSchema, GraphQLString, type GraphQLFieldConfig } from 'graphql';
import { describe, expect, it } from 'vitest';
import { GRAPHQL_ONLY, operationAccess, restOperations, restRoutes } from './operations';

const dealers = restOperations('Dealers');
const health = restOperations('Administration');

/** A schema whose root fields carry only the given options, as Pothos would pass them on. */
function schemaWith(
  query: Record<string, { extensions?: object }>,
  mutation: Record<string, { extensions?: object }> = {},
) {
  const fields = (options: Record<string, { extensions?: object }>) =>
    Object.fromEntries(
      Object.entries(options).map(([name, { extensions }]) => [
        name,
        { type: GraphQLString, extensions } as GraphQLFieldConfig<unknown, unknown>,
      ]),
    );
  return new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: fields(query) }),
    ...(Object.keys(mutation).length
      ? { mutation: new GraphQLObjectType({ name: 'Mutation', fields: fields(mutation) }) }
      : {}),
  });
}

describe('operations: each REST route is declared on its field', () => {
  it('reads the routes back from the fields, in reference order across Query and Mutation', () => {
    const routes = restRoutes(
      schemaWith(
        {
          health: health('GET /health', 'Health', { public: true }),
          dealer: dealers('GET /dealers/:id', 'Get a dealer'),
          dealers: dealers('GET /dealers', 'List dealers'),
          matchDealers: dealers('POST /dealers/match', 'Match a dealer'),
          internal: GRAPHQL_ONLY,
        },
        {
          archiveDealer: dealers('DELETE /dealers/:id', 'Archive a dealer'),
          createDealer: dealers('POST /dealers', 'Create a dealer', { status: 201 }),
        },
      ),
    );
    expect(Object.entries(routes).map(([coordinate, route]) => `${coordinate} ${route.method} ${route.path}`)).toEqual([
      'Query.dealers GET /dealers',
      'Mutation.createDealer POST /dealers',
      'Query.matchDealers POST /dealers/match',
      'Query.dealer GET /dealers/:id',
      'Mutation.archiveDealer DELETE /dealers/:id',
      'Query.health GET /health',
    ]);
    expect(routes['Mutation.createDealer']).toEqual({
      summary: 'Create a dealer',
      method: 'POST',
      path: '/dealers',
      tags: ['Dealers'],
      responseStatus: 201,
    });
    expect(routes['Query.health']?.authenticated).toBe(false);
  });

  it('keeps a rate limit beside the route in one extensions object', () => {
    const limit = { operation: 'dealer matching', max: 120, window: '1m' };
    expect(dealers('POST /dealers/match', 'Match a dealer', { rateLimit: limit }).extensions).toEqual({
      rest: { summary: 'Match a dealer', method: 'POST', path: '/dealers/match', tags: ['Dealers'] },
      rateLimit: limit,
    });
  });

  it('reads who may call an operation from its scope rule, and a public route as public', () => {
    const withRule = (authScopes?: object) => ({
      extensions: { ...dealers('GET /dealers', 'List dealers').extensions, pothosOptions: { authScopes } },
    });
    const fields = schemaWith({
      scoped: withRule({ scope: 'dealers:read' }),
      either: withRule({ $any: { scope: 'dealers:read' } }),
      admin: withRule({ adminUser: true }),
      signedIn: withRule({ authenticated: true }),
      open: withRule(),
    })
      .getQueryType()!
      .getFields();
    expect(operationAccess(fields.scoped!)).toEqual({ kind: 'scope', scope: 'dealers:read' });
    expect(operationAccess(fields.either!)).toEqual({ kind: 'scope', scope: 'dealers:read' });
    expect(operationAccess(fields.admin!)).toEqual({ kind: 'adminUser' });
    expect(operationAccess(fields.signedIn!)).toEqual({ kind: 'signedIn' });
    expect(operationAccess(fields.open!)).toEqual({ kind: 'signedIn' });
    expect(operationAccess(fields.open!, { authenticated: false })).toEqual({ kind: 'public' });
  });

  it('refuses a root field with no route, with both a route and GRAPHQL_ONLY, or two fields on one endpoint', () => {
    expect(() => restRoutes(schemaWith({ dealers: {} }))).toThrow('Query.dealers has no REST route');
    const both = { extensions: { ...dealers('GET /dealers', 'List dealers').extensions, ...GRAPHQL_ONLY.extensions } };
    expect(() => restRoutes(schemaWith({ dealers: both }))).toThrow('declares a REST route and GRAPHQL_ONLY');
    expect(() =>
      restRoutes(
        schemaWith({
          dealers: dealers('GET /dealers', 'List dealers'),
          rooftops: dealers('GET /dealers', 'List rooftops'),
        }),
      ),
    ).toThrow('Query.rooftops and Query.dealers both declare GET /dealers');
  });
});
