import { getIntrospectionQuery, type GraphQLResolveInfo } from 'graphql';
import { getGraphQLRateLimiter, InMemoryStore, type Store } from 'graphql-rate-limit';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKeyOf, startTestApp, type ApiResponse, type TestApp } from './helpers/app';
import { createKey } from './helpers/keys';
import { seedActivity, seedGroup, type SeededGroup } from './helpers/seed';
import { MemoryFieldCallStore, RedisFieldCallStore, type FieldCallStore } from '../src/http/field-rate-limit-store';
import { FieldRateLimiter } from '../src/http/field-rate-limits';
import { ConfigError, loadConfig } from '../src/config';
import { schema } from '../src/schema';

/**
 * GraphQL operation limits (depth, aliases, tokens, directives, cost) and the per-field rate limits,
 * over HTTP on GraphQL and REST alike; and the call store's atomicity.
 */

const redisUrl = process.env.REDIS_URL;
const MATCH_LIMIT = 5;
// Small limits for the fields under test; every other field keeps its declared default.
const LIMITS = {
  FIELD_RATE_LIMITS: `Query.matchDealers=${MATCH_LIMIT}/1m,Query.callStats=2/1m,Query.mergedCalls=2/1m`,
};

const expectRefused = (response: ApiResponse, code: string, message: RegExp) => {
  expect(response.status, JSON.stringify(response.body)).toBe(400);
  expect(response.body.errors).toHaveLength(1);
  expect(response.body.errors[0].extensions.code).toBe(code);
  expect(response.body.errors[0].message).toMatch(message);
  expect(response.body.data ?? null).toBeNull();
};

const expectRateLimited = (response: ApiResponse, graphql: boolean) => {
  expect(response.status, JSON.stringify(response.body)).toBe(429);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  const error = graphql ? response.body.errors[0] : response.body.error;
  expect(graphql ? error.extensions.code : error.code).toBe('RATE_LIMITED');
  const [, wait] = /^dealer matching is limited to 5 calls per minute; retry in (\d+) s$/.exec(error.message) ?? [];
  expect(error.message).toMatch(/^dealer matching is limited to 5 calls per minute; retry in \d+ s$/);
  // Several refused aliases each compute their wait: the header (the last one's) may differ from the first message by a second.
  expect(Math.abs(Number(wait) - retryAfter)).toBeLessThanOrEqual(1);
};

/** `{ dealer(id) { vehicles(limit: 1) { dealer { vehicles(limit: 1) … { id } } } } }`, `depth` fields deep. */
function nested(depth: number, dealerId: string): string {
  const fields = Array.from({ length: depth - 1 }, (_, index) =>
    index === 0 ? `dealer(id: "${dealerId}")` : index % 2 ? 'vehicles(limit: 1)' : 'dealer',
  );
  return `{ ${fields.map((field) => `${field} {`).join(' ')} id ${'}'.repeat(depth - 1)} }`;
}

const matchQuery = (aliases: number) =>
  `{ ${Array.from({ length: aliases }, (_, index) => `m${index}: matchDealers(name: "Rooftop") { candidates { score } }`).join(' ')} }`;

describe('GraphQL operation limits', () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;

  beforeAll(async () => {
    app = await startTestApp(LIMITS);
    group = await seedGroup(app.database.prisma, {
      users: { admin: 'admin', analyst: 'analyst' },
      vehicles: [{ make: 'Toyota' }, { make: 'Honda' }],
    });
    await seedActivity(app.database.prisma, group, {
      sources: [{ name: 'Google Ads' }],
      calls: [{}, {}],
      leads: [{}],
      sales: [{}],
    });
    admin = await group.login(app.client, 'admin');
  });
  afterAll(() => app?.stop());

  it('refuses a query 60 levels deep, naming the depth and the maximum', async () => {
    const response = await app.client.graphql(nested(60, group.dealerIds[0]!), {}, admin);
    expectRefused(response, 'DEPTH_LIMIT', /^query depth 60 exceeds the maximum of 12$/);
    expect(response.body.errors[0].extensions.details).toEqual({ limit: 'depth', maximum: 12, actual: 60 });
    expect((await app.client.graphql(nested(12, group.dealerIds[0]!), {}, admin)).status).toBe(200);
  });

  it('refuses too many aliases; 500 aliases of inventory(limit: 500) already fail on their tokens, before anything runs', async () => {
    const aliased = (count: number) =>
      `{ ${Array.from({ length: count }, (_, index) => `a${index}: inventory(limit: 500) { vehicles { vin } }`).join(' ')} }`;
    expectRefused(
      await app.client.graphql(aliased(30), {}, admin),
      'ALIAS_LIMIT',
      /^30 aliases exceed the maximum of 25$/,
    );
    const started = performance.now();
    const flood = await app.client.graphql(aliased(500), {}, admin);
    expectRefused(flood, 'TOKEN_LIMIT', /^7,002 tokens exceed the maximum of 3,000$/);
    expect(performance.now() - started).toBeLessThan(5000);
    expect((await app.client.graphql(aliased(3).replace(/limit: 500/g, 'limit: 5'), {}, admin)).status).toBe(200);
  });

  it('refuses a document over the token limit, counting all its tokens, whatever the client accepts', async () => {
    const query = `{ ${'__typename '.repeat(3100)}}`;
    expectRefused(
      await app.client.graphql(query, {}, admin),
      'TOKEN_LIMIT',
      /^3,102 tokens exceed the maximum of 3,000$/,
    );
    const plainJson = await app.client.request('POST', '/graphql', {
      token: admin,
      body: { query },
      headers: { accept: 'application/json' },
    });
    expectRefused(plainJson, 'TOKEN_LIMIT', /^3,102 tokens/);
  });

  it('refuses fragments that expand past 10,000 fields, though the document is short', async () => {
    const fragments = Array.from(
      { length: 16 },
      (_, index) => `fragment F${index + 1} on Query { ...F${index} ...F${index} }`,
    ).join(' ');
    const query = `{ ...F16 } fragment F0 on Query { me { role } } ${fragments}`;
    expectRefused(
      await app.client.graphql(query, {}, admin),
      'QUERY_TOO_COMPLEX',
      /^the query selects more than 10,000 fields with its fragments expanded, the maximum$/,
    );
  });

  it('refuses too many directives', async () => {
    const query = `{ me { ${Array.from({ length: 21 }, () => 'role @include(if: true)').join(' ')} } }`;
    expectRefused(
      await app.client.graphql(query, {}, admin),
      'DIRECTIVE_LIMIT',
      /^21 directives exceed the maximum of 20$/,
    );
  });

  it('refuses a costly nested list with its cost, computed with the variables; smaller pages pass', async () => {
    const costly = '{ inventory(limit: 500) { vehicles { dealer { vehicles(limit: 500) { vin } } } } }';
    // vin 1; Dealer.vehicles(limit: 500) 1 + 500; dealer 1 + 501; InventoryPage.vehicles 1 + 502; inventory(limit: 500) 1 + 500 × 503.
    const refused = await app.client.graphql(costly, {}, admin);
    expectRefused(refused, 'QUERY_TOO_COMPLEX', /^query cost 251,501 exceeds the limit of 50,000; /);
    expect(refused.body.errors[0].extensions.details).toEqual({ limit: 'cost', maximum: 50_000, actual: 251_501 });
    const withVariables =
      'query Page($page: Int, $nested: Int) { inventory(limit: $page) { vehicles { dealer { vehicles(limit: $nested) { vin } } } } }';
    expectRefused(
      await app.client.graphql(withVariables, { page: 500, nested: 500 }, admin),
      'QUERY_TOO_COMPLEX',
      /^query cost 251,501 /,
    );
    const small = await app.client.graphql(withVariables, { page: 20, nested: 20 }, admin);
    expect(small.status).toBe(200);
    expect(small.body.data.inventory.vehicles.length).toBeGreaterThan(0);
    // Bad variables are execution's to explain, not a cost.
    expect((await app.client.graphql(withVariables, { page: 'lots' }, admin)).body.errors[0].message).toMatch(
      /^Variable "\$page" got invalid value/,
    );
    // The same document asked again, its costs remembered: each set of variables keeps its own verdict.
    for (let round = 0; round < 3; round += 1) {
      expectRefused(
        await app.client.graphql(withVariables, { page: 500, nested: 500 }, admin),
        'QUERY_TOO_COMPLEX',
        /^query cost 251,501 /,
      );
      expect((await app.client.graphql(withVariables, { page: 20, nested: 20 }, admin)).status).toBe(200);
      expectRefused(
        await app.client.graphql(withVariables, { page: 500, nested: 99 }, admin),
        'QUERY_TOO_COMPLEX',
        /^query cost 51,001 /,
      );
    }
  });

  it("accepts the README's dashboards, the benchmark's dashboard and GraphiQL's introspection", async () => {
    const dashboards = [
      `query Dashboard {
        me { user { email } role dealer_groups { name dealers { name code } } }
        inventoryStats { total_vehicles total_value average_days_on_lot by_dealer { dealer_name count } }
        inventoryAging { buckets { bucket count total_value } }
        inventory(make: ["Toyota"], sort: "-days_on_lot", limit: 5) {
          pagination { total }
          vehicles { vin year model price days_on_lot dealer { name } provenance { field source alternatives { source value } } }
        }
      }`,
      `{ dealers(limit: 50) { dealers {
        name call_count lead_count sale_count
        calls(limit: 5, from: "2026-11-01T00:00:00Z") { started_at status source { name category } }
        leads(limit: 5) { status source { name } sale { deal_number front_gross } }
        sales(limit: 5) { salesperson front_gross back_gross }
      } } }`,
      `{ dealers(limit: 50) { dealers { name call_count lead_count sale_count
        calls(limit: 5) { started_at status duration_seconds source { name } } leads(limit: 5) { status source { name } } sales(limit: 5) { front_gross back_gross } } } }`,
      getIntrospectionQuery(),
    ];
    for (const query of dashboards) {
      const response = await app.client.graphql(query, {}, admin);
      expect(response.status, query).toBe(200);
      expect(response.body.errors, query).toBeUndefined();
    }
  });

  it('never refuses REST operations: their documents are fixed', async () => {
    const vehicle = await app.client.get(`/inventory/${group.vehicles[0]!.vin}`, admin);
    expect(vehicle.status, JSON.stringify(vehicle.body)).toBe(200);
    expect(vehicle.body.vin).toBe(group.vehicles[0]!.vin);
    expect((await app.client.get('/inventory?limit=500', admin)).status).toBe(200);
    expect((await app.client.get(`/dealers/${group.dealerIds[0]}`, admin)).status).toBe(200);
  });

  describe('per-field rate limits', () => {
    it('meters signed-in users: aliases count, and the call past the limit is a 429 with Retry-After on REST and GraphQL', async () => {
      const fresh = await seedGroup(app.database.prisma, { users: { admin: 'admin', colleague: 'admin' } });
      const user = await fresh.login(app.client, 'admin');
      const three = await app.client.graphql(matchQuery(3), {}, user);
      expect(three.status, JSON.stringify(three.body)).toBe(200);
      expect(three.body.errors).toBeUndefined();
      for (let call = 4; call <= MATCH_LIMIT; call += 1)
        expect((await app.client.post('/dealers/match', { name: 'Rooftop' }, user)).status).toBe(200);
      expectRateLimited(await app.client.post('/dealers/match', { name: 'Rooftop' }, user), false);
      expectRateLimited(await app.client.graphql(matchQuery(1), {}, user), true);
      // Clients that ask for plain JSON get the 429 too.
      const plainJson = await app.client.request('POST', '/graphql', {
        token: user,
        body: { query: matchQuery(1) },
        headers: { accept: 'application/json' },
      });
      expectRateLimited(plainJson, true);
      // The count is the user's own: a colleague in the same group still gets through.
      expect(
        (await app.client.post('/dealers/match', { name: 'Rooftop' }, await fresh.login(app.client, 'colleague')))
          .status,
      ).toBe(200);
    });

    it('meters API keys: one request with more aliases than the limit is refused with 429, and REST after it', async () => {
      const key = await createKey(app.client, admin, { name: 'matcher', scopes: ['dealers:read'] });
      const flood = await app.client.graphql(matchQuery(MATCH_LIMIT + 2), {}, key.key);
      expectRateLimited(flood, true);
      // The limit's worth of aliases ran and the rest were refused; the first refusal of a non-null root field nulls the data.
      expect(flood.body.data).toBeNull();
      expectRateLimited(await app.client.post('/dealers/match', { name: 'Rooftop' }, key.key), false);
      // The key's hourly budget counts requests, separately, and its headers still come along.
      expect(flood.headers.get('ratelimit-limit')).toBe('1000');
    });

    it('lets exactly the limit through 20 concurrent calls (memory store)', async () => {
      const fresh = await seedGroup(app.database.prisma);
      const user = await fresh.login(app.client);
      const statuses = (
        await Promise.all(
          Array.from({ length: 20 }, () => app.client.post('/dealers/match', { name: 'Rooftop' }, user)),
        )
      ).map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(MATCH_LIMIT);
      expect(statuses.filter((status) => status === 429)).toHaveLength(20 - MATCH_LIMIT);
    });

    it('counts stats calls only over long or open-ended ranges', async () => {
      const from = new Date(Date.now() - 30 * 86_400_000).toISOString();
      for (let call = 0; call < 4; call += 1)
        expect((await app.client.get(`/calls/stats?from=${from}`, admin)).status).toBe(200);
      expect((await app.client.get('/calls/stats', admin)).status).toBe(200);
      expect(
        (await app.client.get(`/calls/stats?from=${new Date(Date.now() - 200 * 86_400_000).toISOString()}`, admin))
          .status,
      ).toBe(200);
      const refused = await app.client.get('/calls/stats', admin);
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toMatch(
        /^asking for call stats over more than 90 days is limited to 2 calls per minute; retry in \d+ s$/,
      );
      expect((await app.client.get(`/calls/stats?from=${from}`, admin)).status).toBe(200);
    });

    it('counts merged-call pages only over long ranges filtered by what the calls are', async () => {
      // Read from the merged calls' first calls: as often as asked, whatever the range.
      for (let call = 0; call < 4; call += 1) expect((await app.client.get('/calls/merged', admin)).status).toBe(200);
      // A status filter changes which calls merge, so the calls are merged as they are read.
      expect((await app.client.get('/calls/merged?status=missed', admin)).status).toBe(200);
      expect((await app.client.get('/calls/merged?status=answered', admin)).status).toBe(200);
      const refused = await app.client.get('/calls/merged?status=missed', admin);
      expect(refused.status).toBe(429);
      expect(refused.body.error.message).toMatch(
        /^asking for merged calls over more than 90 days by status, source or other call fields/,
      );
      const from = new Date(Date.now() - 30 * 86_400_000).toISOString();
      expect((await app.client.get(`/calls/merged?status=missed&from=${from}`, admin)).status).toBe(200);
    });
  });
});

describe('limits set low', () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;

  beforeAll(async () => {
    app = await startTestApp({ GRAPHQL_MAX_DEPTH: '3', GRAPHQL_MAX_COST: '100', INTROSPECTION_ANONYMOUS: 'false' });
    group = await seedGroup(app.database.prisma, { vehicles: [{ make: 'Toyota' }] });
    admin = await group.login(app.client);
  });
  afterAll(() => app?.stop());

  it('apply to GraphQL documents only: REST runs its fixed documents, however costly', async () => {
    expectRefused(
      await app.client.graphql('{ inventory(limit: 500) { pagination { total } } }', {}, admin),
      'QUERY_TOO_COMPLEX',
      /^query cost 1,001 exceeds the limit of 100; /,
    );
    expectRefused(
      await app.client.graphql('{ inventory(limit: 1) { vehicles { dealer { name } } } }', {}, admin),
      'DEPTH_LIMIT',
      /^query depth 4 exceeds the maximum of 3$/,
    );
    const vehicle = await app.client.get(`/inventory/${group.vehicles[0]!.vin}`, admin);
    expect(vehicle.status, JSON.stringify(vehicle.body)).toBe(200);
    expect(vehicle.body.vin).toBe(group.vehicles[0]!.vin);
    expect((await app.client.get('/inventory?limit=500', admin)).status).toBe(200);
    expect((await app.client.get('/inventory/stats', admin)).status).toBe(200);
  });

  it('hide field suggestions where anonymous introspection is off', async () => {
    const response = await app.client.graphql('{ inventori { pagination { total } } }', {}, admin);
    expect(response.body.errors[0].message).toMatch(/^Cannot query field "inventori" on type "Query"\.?$/);
  });
});

describe('limit settings', () => {
  it('reads the GraphQL limits from the environment, with defaults, and refuses nonsense', () => {
    expect(loadConfig({}).graphqlLimits).toEqual({ maxDepth: 12, maxAliases: 25, maxTokens: 3000, maxCost: 50_000 });
    expect(
      loadConfig({
        GRAPHQL_MAX_DEPTH: '8',
        GRAPHQL_MAX_ALIASES: '10',
        GRAPHQL_MAX_TOKENS: '2000',
        GRAPHQL_MAX_COST: '20000',
      }).graphqlLimits,
    ).toEqual({ maxDepth: 8, maxAliases: 10, maxTokens: 2000, maxCost: 20_000 });
    expect(() => loadConfig({ GRAPHQL_MAX_DEPTH: '1' })).toThrow(/GRAPHQL_MAX_DEPTH must be between 2 and 100/);
    expect(() => loadConfig({ GRAPHQL_MAX_COST: 'lots' })).toThrow(ConfigError);
    expect(
      loadConfig({ FIELD_RATE_LIMITS: 'Query.matchDealers=60/1m, assistant-messages=10/10m' }).fieldRateLimits,
    ).toEqual({ 'Query.matchDealers': { max: 60, window: '1m' }, 'assistant-messages': { max: 10, window: '10m' } });
    expect(() => loadConfig({ FIELD_RATE_LIMITS: 'Query.matchDealers=60' })).toThrow(
      /FIELD_RATE_LIMITS entry "Query.matchDealers=60"/,
    );
    expect(() => loadConfig({ FIELD_RATE_LIMITS: 'Query.matchDealers=0/1m' })).toThrow(ConfigError);
  });

  it('declares these per-field limits by default, and refuses overrides of limits nobody declares', () => {
    const limiter = new FieldRateLimiter({ redis: null });
    limiter.apply(schema);
    const declared = Object.fromEntries(
      [...limiter.declared].map(([bucket, limit]) => [bucket, `${limit.operation}: ${limit.max}/${limit.window}`]),
    );
    expect(declared).toEqual({
      'Query.matchDealers': 'dealer matching: 120/1m',
      'assistant-messages': 'asking the assistant: 100/10m',
      'Mutation.testIntegration': 'testing connections: 10/1m',
      'Mutation.syncIntegration': 'starting syncs: 30/10m',
      'Query.testTransformationRules': 'dry-running rules: 60/1m',
      'Query.callStats': 'asking for call stats over more than 90 days: 30/1m',
      'Query.mergedCalls':
        'asking for merged calls over more than 90 days by status, source or other call fields: 30/1m',
      'lead-stats-long-range': 'asking for lead stats over more than 90 days: 30/1m',
      'sale-stats-long-range': 'asking for sale stats over more than 90 days: 30/1m',
    });
    limiter.close();
    const misnamed = new FieldRateLimiter({ redis: null, overrides: { 'Query.nothing': { max: 1, window: '1m' } } });
    expect(() => misnamed.apply(schema)).toThrow(/FIELD_RATE_LIMITS names Query.nothing, which no field declares/);
    misnamed.close();
  });
});

if (!redisUrl) console.log('skipped: the per-field limits through Redis need REDIS_URL (CI sets it)');
describe.skipIf(!redisUrl)('per-field rate limits shared through Redis', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    first = await startTestApp({ ...LIMITS, REDIS_URL: redisUrl! });
    second = await startTestApp({ ...LIMITS, REDIS_URL: redisUrl!, JWT_PRIVATE_KEY: signingKeyOf(first) });
  });
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
  });

  it('lets exactly the limit through 20 concurrent calls spread over two instances', async () => {
    const group = await seedGroup(first.database.prisma);
    const user = await group.login(first.client);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        (index % 2 ? first : second).client.post('/dealers/match', { name: 'Rooftop' }, user),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(MATCH_LIMIT);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20 - MATCH_LIMIT);
    expect(
      Number(responses.find((response) => response.status === 429)!.headers.get('retry-after')),
    ).toBeGreaterThanOrEqual(1);
  });
});

describe('the field call store', () => {
  const limit = { max: 5, windowMs: 60_000 };
  const identity = (caller: string) => ({ contextIdentity: caller, fieldIdentity: 'Query.matchDealers' });
  /** 20 concurrent calls through graphql-rate-limit with `store`: how many got through. */
  async function admittedThrough(store: Store, caller: string): Promise<number> {
    const limiter = getGraphQLRateLimiter({ identifyContext: () => caller, store });
    const info = { fieldName: 'Query.matchDealers' } as GraphQLResolveInfo;
    const verdicts = await Promise.all(
      Array.from({ length: 20 }, () =>
        limiter({ parent: null, args: {}, context: {}, info }, { max: limit.max, window: '1m', uncountRejected: true }),
      ),
    );
    return verdicts.filter((refusal) => refusal === undefined).length;
  }

  it("is atomic where the library's bundled store is not", async () => {
    const store = new MemoryFieldCallStore(() => limit);
    try {
      expect(await admittedThrough(store, 'user:a')).toBe(limit.max);
      expect(await admittedThrough(store, 'user:b')).toBe(limit.max);
      // The bundled store reads, then writes: concurrent calls all read the empty log.
      expect(await admittedThrough(new InMemoryStore(), 'user:a')).toBeGreaterThan(limit.max);
    } finally {
      store.close();
    }
  });

  it('records refused calls nowhere, reports the wait until the oldest call leaves, and forgets expired windows', async () => {
    const store = new MemoryFieldCallStore(() => limit);
    try {
      const start = Date.now();
      for (let call = 0; call < limit.max; call += 1)
        expect(store.admit(identity('user:c'), start + call)).toHaveLength(call);
      expect(store.admit(identity('user:c'), start + 10)).toEqual(Array(limit.max).fill(start + 10));
      const wait = await store.retryAfterMs(identity('user:c'));
      expect(wait).toBeGreaterThan(limit.windowMs - 1000);
      expect(wait).toBeLessThanOrEqual(limit.windowMs);
      // A window later the oldest call has left: one call fits again, and the refused one never counted.
      expect(store.admit(identity('user:c'), start + limit.windowMs)).toHaveLength(limit.max - 1);
      store.admit(identity('user:d'), start);
      expect(store.size).toBe(2);
      store.sweep(start + 3 * limit.windowMs);
      expect(store.size).toBe(0);
    } finally {
      store.close();
    }
  });

  it.skipIf(!redisUrl)('is atomic in Redis, with keys under ddp:fl: that expire with their window', async () => {
    const redis = new Redis(redisUrl!);
    const store: FieldCallStore = new RedisFieldCallStore(redis, () => limit);
    const caller = `user:store-test-${Date.now()}-${Math.random()}`;
    try {
      expect(await admittedThrough(store, caller)).toBe(limit.max);
      const key = `ddp:fl:Query.matchDealers:${caller}`;
      expect(await redis.zcard(key)).toBe(limit.max);
      const ttl = await redis.pttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(limit.windowMs);
      expect(await store.retryAfterMs(identity(caller))).toBeGreaterThan(limit.windowMs - 5000);
      await redis.del(key);
    } finally {
      store.close();
      redis.disconnect();
    }
  });
});
