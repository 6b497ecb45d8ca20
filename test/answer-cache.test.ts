import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isObjectType } from 'graphql';
import { schema } from '../src/schema';
import { INVENTORY_ANSWERS } from '../src/modules/inventory/inventory.schema';
import { startTestApp, type ApiResponse, type TestApp } from './helpers/app';
import { createKey } from './helpers/keys';
import { seedGroup, testVin, type SeededGroup } from './helpers/seed';

/**
 * Repeated inventory reads are answered from the answer cache until the database announces a change
 * to the group's vehicles or rooftops, whoever makes it: an API write, an admin's edit, a statement
 * on another connection (another instance, a database tool). Checked over HTTP with the
 * `Cache-Status` header and against answers computed afresh (`Cache-Control: no-cache`).
 */
describe('the answer cache', () => {
  let app: TestApp;
  let group: SeededGroup;
  let other: SeededGroup;
  let admin: string;
  let otherAdmin: string;
  let outside: pg.Client;
  interface Listed {
    vin: string;
    price: string;
  }

  const PAGE = '/inventory?sort=price&limit=5';
  const GRAPHQL = `query Page($make: [String!]) { inventory(make: $make, sort: "price", limit: 5) {
    pagination { total } vehicles { vin price days_on_lot dealer { name } } } }`;
  const status = (response: ApiResponse) => response.headers.get('cache-status');
  const fresh = (path: string, token: string) =>
    app.client.request('GET', `/api/v1${path}`, { token, headers: { 'cache-control': 'no-cache' } });
  /**
   * Reads (never asking for a fresh answer, which would replace the kept one) until `done` holds: a
   * change on another connection arrives as a notification, a moment after its commit.
   */
  const settled = async (path: string, token: string, done: (body: { vehicles: Listed[] }) => boolean) => {
    let got = await app.client.get(path, token);
    for (let attempt = 0; attempt < 40 && !done(got.body); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      got = await app.client.get(path, token);
    }
    return got;
  };

  /** Asks twice, so the answer is kept: the next asking is served from the cache. */
  const warm = async (path: string, token: string) => {
    await app.client.get(path, token);
    return app.client.get(path, token);
  };

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma, {
      vehicles: [
        { make: 'Toyota', model: 'Camry', price: '21000.00' },
        { make: 'Toyota', model: 'Corolla', price: '18000.00' },
        { make: 'Honda', model: 'Civic', price: '19500.00', dealer: 1 },
      ],
    });
    other = await seedGroup(app.database.prisma, { vehicles: [{ make: 'Ford', price: '30000.00' }] });
    admin = await group.login(app.client);
    otherAdmin = await other.login(app.client);
    outside = new pg.Client({ connectionString: app.databaseUrl });
    await outside.connect();
  });
  afterAll(async () => {
    await outside?.end();
    await app?.stop();
  });

  it('keeps only fields the schema has, and none with a per-field rate limit', () => {
    for (const coordinate of INVENTORY_ANSWERS.fields) {
      const [typeName, fieldName] = coordinate.split('.') as [string, string];
      const type = schema.getType(typeName);
      const field = isObjectType(type) ? type.getFields()[fieldName] : undefined;
      expect(field, coordinate).toBeDefined();
      expect(field?.extensions?.rateLimit, coordinate).toBeUndefined();
    }
    for (const name of INVENTORY_ANSWERS.types ?? []) {
      const type = schema.getType(name);
      expect(isObjectType(type), name).toBe(true);
      if (isObjectType(type))
        for (const field of Object.values(type.getFields())) expect(field.extensions?.rateLimit).toBeUndefined();
    }
  });

  it('answers a repeated read from the cache from its third asking on, the same bytes and tag, REST and GraphQL alike', async () => {
    const answers = [];
    for (let run = 0; run < 4; run += 1) answers.push(await app.client.get(PAGE, admin));
    const [first, , third] = answers;
    expect(first!.status).toBe(200);
    // The first asking is not kept (a one-off question costs nothing), the second is.
    expect(answers.map(status)).toEqual(['ddp; fwd=miss', 'ddp; fwd=miss', 'ddp; hit', 'ddp; hit']);
    expect(third!.body).toEqual(first!.body);
    expect(third!.headers.get('etag')).toBe(first!.headers.get('etag'));
    for (const header of ['content-type', 'content-length', 'cache-control'])
      expect(third!.headers.get(header), header).toBe(first!.headers.get(header));
    // A kept answer the client already has: 304 without a body, its unit given back.
    const notModified = await app.client.request('GET', `/api/v1${PAGE}`, {
      token: admin,
      headers: { 'if-none-match': first!.headers.get('etag')! },
    });
    expect([notModified.status, status(notModified), notModified.body]).toEqual([304, 'ddp; hit', null]);
    const asked = await fresh(PAGE, admin);
    expect(status(asked)).toBe('ddp; fwd=request');
    expect(asked.body).toEqual(first!.body);

    const graphql = [];
    for (let run = 0; run < 3; run += 1) graphql.push(await app.client.graphql(GRAPHQL, { make: ['Toyota'] }, admin));
    expect(graphql.map(status)).toEqual(['ddp; fwd=miss', 'ddp; fwd=miss', 'ddp; hit']);
    expect(graphql[2]!.body).toEqual(graphql[0]!.body);
    expect(graphql[0]!.body.data.inventory.pagination.total).toBe(2);
    // Other variables are another answer.
    const hondas = await app.client.graphql(GRAPHQL, { make: ['Honda'] }, admin);
    expect(status(hondas)).toBe('ddp; fwd=miss');
    expect(hondas.body.data.inventory.pagination.total).toBe(1);
  });

  it('never shares an answer between callers, nor across groups', async () => {
    const partner = await createKey(app.client, admin, { name: 'cache partner' });
    await app.client.get(PAGE, admin);
    const asKey = await app.client.get(PAGE, partner.key);
    expect(status(asKey)).toBe('ddp; fwd=miss');
    const otherGroup = await app.client.get(PAGE, otherAdmin);
    expect(status(otherGroup)).toBe('ddp; fwd=miss');
    expect(otherGroup.body.vehicles.map((vehicle: { vin: string }) => vehicle.vin)).toEqual([other.vehicles[0]!.vin]);
  });

  it('forgets on an API write: the next read has the vehicle', async () => {
    const writer = await createKey(app.client, admin, {
      name: 'cache writer',
      scopes: ['inventory:read', 'inventory:write'],
    });
    await warm(PAGE, admin);
    expect(status(await app.client.get(PAGE, admin))).toBe('ddp; hit');
    const vin = testVin(9101, '5YJ');
    const put = await app.client.request('PUT', `/api/v1/inventory/${vin}`, {
      token: writer.key,
      body: {
        dealer_id: group.dealerIds[0],
        year: 2024,
        make: 'Tesla',
        model: 'Model 3',
        condition: 'used',
        price: '1000.00',
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(201);
    const after = await app.client.get(PAGE, admin);
    expect(status(after)).toBe('ddp; fwd=miss');
    expect(after.body.vehicles[0].vin).toBe(vin);
  });

  it('keeps the aggregates too, and forgets them on a change', async () => {
    const paths = ['/inventory/stats', '/inventory/aging', '/inventory/facets'];
    const before = [];
    for (const path of paths) before.push(await warm(path, admin));
    expect(before.map((answer) => answer.status)).toEqual([200, 200, 200]);
    for (const path of paths) expect(status(await app.client.get(path, admin)), path).toBe('ddp; hit');
    const { rows } = await app.database.pool.query(
      `UPDATE vehicles SET price = price + 1000 WHERE dealer_group_id = $1 AND price IS NOT NULL RETURNING id`,
      [group.groupId],
    );
    const stats = await app.client.get('/inventory/stats', admin);
    expect(status(stats)).toBe('ddp; fwd=miss');
    const valueOf = (body: { total_value: string }) => Number(body.total_value);
    expect(valueOf(stats.body) - valueOf(before[0]!.body)).toBe(1000 * rows.length);
    expect(status(await app.client.get('/inventory/aging', admin))).toBe('ddp; fwd=miss');
  });

  it("forgets on a rooftop's rename: the vehicles carry the new name", async () => {
    await app.client.get(PAGE, admin);
    const renamed = await app.client.request('PATCH', `/api/v1/dealers/${group.dealerIds[1]}`, {
      token: admin,
      body: { name: 'Renamed Civic Rooftop' },
    });
    expect(renamed.status).toBe(200);
    const after = await app.client.get(PAGE, admin);
    const civic = after.body.vehicles.find((vehicle: { model: string }) => vehicle.model === 'Civic');
    expect(civic.dealer.name).toBe('Renamed Civic Rooftop');
  });

  it('hears changes made on another connection: update, insert, delete', async () => {
    const vin = group.vehicles[1]!.vin;
    await app.client.get(PAGE, admin);
    await outside.query(`UPDATE vehicles SET price = 17000 WHERE vin = $1`, [vin]);
    const priceOf = (body: { vehicles: Listed[] }) => body.vehicles.find((vehicle) => vehicle.vin === vin)?.price;
    let after = await settled(PAGE, admin, (body) => priceOf(body) === '17000.00');
    expect(priceOf(after.body)).toBe('17000.00');

    const inserted = testVin(9102, '1FT');
    await outside.query(
      `INSERT INTO vehicles (id, dealer_group_id, dealer_id, vin, year, make, model, condition, price, date_in_stock, photos, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, 2020, 'Ford', 'F-150', 'used', 500, current_date, '{}', now())`,
      [group.groupId, group.dealerIds[0], inserted],
    );
    after = await settled(PAGE, admin, (body) => body.vehicles[0]?.vin === inserted);
    expect(after.body.vehicles[0].vin).toBe(inserted);

    await outside.query(`DELETE FROM vehicles WHERE vin = $1`, [inserted]);
    after = await settled(PAGE, admin, (body) => body.vehicles[0]?.vin !== inserted);
    expect(after.body.vehicles.map((vehicle: Listed) => vehicle.vin)).not.toContain(inserted);
  });

  it("keeps a group's answers when another group's vehicles change", async () => {
    await warm(PAGE, admin);
    expect(status(await app.client.get(PAGE, admin))).toBe('ddp; hit');
    await app.database.pool.query(`UPDATE vehicles SET price = price + 1 WHERE dealer_group_id = $1`, [other.groupId]);
    expect(status(await app.client.get(PAGE, admin))).toBe('ddp; hit');
    expect(status(await app.client.get(PAGE, otherAdmin))).toBe('ddp; fwd=miss');
  });

  it('still counts, limits and refuses: a served answer costs the key its unit; a revoked key gets 401', async () => {
    const limited = await createKey(app.client, admin, { name: 'cache limited', rateLimitPerHour: 3 });
    const answers = [];
    for (let run = 0; run < 4; run += 1) answers.push(await app.client.get(PAGE, limited.key));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((answer) => answer.headers.get('ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);

    const revoked = await createKey(app.client, admin, { name: 'cache revoked' });
    await warm(PAGE, revoked.key);
    expect(status(await app.client.get(PAGE, revoked.key))).toBe('ddp; hit');
    await app.client.request('DELETE', `/api/v1/api-keys/${revoked.id}`, { token: admin });
    expect((await app.client.get(PAGE, revoked.key)).status).toBe(401);
  });

  it('keeps answers while the pool rests: a connection of its own still listens', async () => {
    await warm(PAGE, otherAdmin);
    expect(status(await app.client.get(PAGE, otherAdmin))).toBe('ddp; hit');
    // The pool closes a connection idle for 10 s; the answers stay, since changes are still heard.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    expect(app.database.listening()).toBe(true);
    const kept = await app.client.get(PAGE, otherAdmin);
    expect(status(kept)).toBe('ddp; hit');
    await outside.query(`UPDATE vehicles SET price = price + 1 WHERE dealer_group_id = $1`, [other.groupId]);
    const want = (Number(kept.body.vehicles[0].price) + 1).toFixed(2);
    const after = await settled(PAGE, otherAdmin, (body) => body.vehicles[0]?.price === want);
    expect(after.body.vehicles[0].price).toBe(want);
  }, 30_000);

  it("never serves a kept answer past what its caller may now see: a partner's consent changes", async () => {
    const partner = await app.client.post('/partners', { name: 'Cache Syndicator', kind: 'vendor' }, admin);
    expect(partner.status, JSON.stringify(partner.body)).toBe(201);
    for (const dealerId of group.dealerIds) {
      const linked = await app.client.post(
        `/partners/${partner.body.id}/dealers`,
        { dealer_id: dealerId, relationship_type: 'inventory_syndication', data_permissions: ['inventory'] },
        admin,
      );
      expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    }
    const key = await createKey(app.client, admin, { name: 'cache syndicator', partnerId: partner.body.id });
    const dealersIn = (body: { vehicles: Array<{ dealer_id: string }> }) =>
      [...new Set(body.vehicles.map((vehicle) => vehicle.dealer_id))].sort();
    await warm(PAGE, key.key);
    const kept = await app.client.get(PAGE, key.key);
    expect(status(kept)).toBe('ddp; hit');
    expect(dealersIn(kept.body)).toEqual([...group.dealerIds].sort());
    const unlinked = await app.client.request(
      'DELETE',
      `/api/v1/partners/${partner.body.id}/dealers/${group.dealerIds[1]}`,
      {
        token: admin,
      },
    );
    expect(unlinked.status).toBe(200);
    const after = await app.client.get(PAGE, key.key);
    expect(status(after)).toBe('ddp; fwd=miss');
    expect(dealersIn(after.body)).toEqual([group.dealerIds[0]]);
  });

  it('keeps nothing it cannot vouch for: other tables, the source filter, errors, writes', async () => {
    const uncached = [
      await app.client.get(`/inventory/${group.vehicles[0]!.vin}`, admin),
      await app.client.get('/inventory?source=dms', admin),
      await app.client.get(`/inventory/${group.vehicles[0]!.vin}/history`, admin),
      await app.client.get('/inventory/stats?source=dms', admin),
      await app.client.graphql(`{ inventory(limit: 2) { vehicles { vin sources { source } } } }`, {}, admin),
      await app.client.graphql(
        `query Q($s: [String!]) { inventory(source: $s) { vehicles { vin } } }`,
        { s: ['dms'] },
        admin,
      ),
    ];
    // A question too long to remember (its variables): computed each time.
    const long = Array.from({ length: 80 }, (_, index) => `Make ${index}`.padEnd(40, 'x'));
    for (let run = 0; run < 3; run += 1) uncached.push(await app.client.graphql(GRAPHQL, { make: long }, admin));
    for (const answer of uncached) {
      expect(answer.status).toBe(200);
      expect(status(answer)).toBeNull();
    }
    // The same document without the source filter's value is kept.
    const query = `query Q($s: [String!]) { inventory(source: $s, limit: 1) { vehicles { vin } } }`;
    await app.client.graphql(query, {}, admin);
    await app.client.graphql(query, {}, admin);
    expect(status(await app.client.graphql(query, {}, admin))).toBe('ddp; hit');
    // A refused read is refused every time, never kept.
    const bad = [
      await app.client.get('/inventory?sort=colour', admin),
      await app.client.get('/inventory?sort=colour', admin),
    ];
    expect(bad.map((answer) => answer.status)).toEqual([400, 400]);
    expect(bad.map(status)).toEqual(['ddp; fwd=miss', 'ddp; fwd=miss']);
  });

  it('a kept answer always equals a computed one, whatever writes come between reads (property)', async () => {
    const vehicles = group.vehicles;
    const paths = [
      '/inventory?sort=price&limit=2',
      '/inventory?make=Toyota',
      '/inventory?status=available&sort=-price',
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.record({
              write: fc.constant(true),
              vehicle: fc.nat(vehicles.length - 1),
              price: fc.integer({ min: 1000, max: 90_000 }),
              status: fc.constantFrom('available', 'pending', 'sold'),
            }),
            fc.record({ write: fc.constant(false), path: fc.constantFrom(...paths) }),
          ),
          { minLength: 1, maxLength: 12 },
        ),
        async (steps) => {
          for (const step of steps) {
            if ('vehicle' in step) {
              // Through the server's own connections, as its writers do: heard before the write returns.
              await app.database.pool.query(
                `UPDATE vehicles SET price = $2, status = $3::vehicle_status,
                   sold_at = CASE WHEN $3 = 'sold' THEN now() END WHERE id = $1`,
                [vehicles[step.vehicle]!.id, step.price, step.status],
              );
            } else {
              const kept = await app.client.get(step.path, admin);
              const computed = await fresh(step.path, admin);
              expect(kept.body).toEqual(computed.body);
            }
          }
        },
      ),
      { numRuns: 15 },
    );
  }, 60_000);
});
