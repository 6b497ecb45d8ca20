import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { connect, deliver, syncNow } from './helpers/feeds';
import { feedSettled } from './helpers/events';
import { createKey } from './helpers/keys';
import { recordTimedEvents } from '../src/modules/events/timed-events';
import { seedActivity, seedGroup, type SeededGroup } from './helpers/seed';

/**
 * Events are recorded by the database in the transaction of each change (the outbox), and the
 * change feed (GET /events) hands them out in order after a cursor: every event exactly once to a
 * client that follows next_cursor, even while transactions commit out of order.
 */

// Transactions interleave only on a PostgreSQL server: the embedded engine runs one at a time.
const external = inject('externalDatabase');
if (!external)
  console.log('skipped: transactions committing out of order need a PostgreSQL server (DATABASE_URL; CI sets it)');

interface FeedEvent {
  id: string;
  type: string;
  dealer_id: string | null;
  subject_id: string | null;
  sync_run_id: string | null;
  data: Record<string, unknown>;
}

// On a server, the feed and the live tail show an event once every write transaction begun before it
// has ended, other test files' included: each test may wait for that.
vi.setConfig({ testTimeout: 120_000 });

/** An event's data: free-form JSON. */
type EventData = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- event data is free-form JSON

describe('events and the change feed', () => {
  let app: TestApp;
  let group: SeededGroup;
  let other: SeededGroup;
  let admin: string;
  let otherAdmin: string;

  beforeAll(async () => {
    app = await startTestApp({ SYNC_SCHEDULER: 'false' });
    group = await seedGroup(app.database.prisma, { dealers: 2 });
    other = await seedGroup(app.database.prisma, { dealers: 1 });
    admin = await group.login(app.client);
    otherAdmin = await other.login(app.client);
  });
  afterAll(async () => {
    await app?.stop();
  });

  /**
   * Follows the feed from `after` to its end, `limit` events a page; answers the events and the last
   * cursor. Settles first unless told not to (a test that holds a transaction open itself).
   */
  async function follow(token: string, query = '', after = '', limit = 3, settle = true) {
    if (settle) await feedSettled(app.database.pool);
    const events: FeedEvent[] = [];
    let cursor = after;
    for (let page = 0; page < 1000; page += 1) {
      const response = await app.client.get(`/events?limit=${limit}&after=${cursor}${query}`, token);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      events.push(...response.body.events);
      cursor = response.body.pagination.next_cursor;
      if (!response.body.pagination.has_more) return { events, cursor };
    }
    throw new Error('the feed did not end');
  }

  it('records what a feed sync changed, with the run that changed it, and hands it out in order', async () => {
    const start = (await follow(admin)).cursor;
    const feed = await connect(app, admin, { plugin_key: 'homenet_inventory_csv', dealer_id: group.dealerIds[0] });
    deliver(app, feed.integration.id, 'homenet-inventory.csv');
    const first = await syncNow(app, admin, feed.integration.id);
    expect(first.status).toBe('succeeded');

    const { events: created, cursor } = await follow(admin, '', start);
    const vehicles = created.filter((event) => event.type === 'vehicle.created');
    expect(vehicles).toHaveLength(first.counts.created);
    expect(vehicles.every((event) => event.sync_run_id === first.id && event.dealer_id === group.dealerIds[0])).toBe(
      true,
    );
    const tacoma = vehicles.find((event) => (event.data.vehicle as { vin: string }).vin === '2T3X4ZPC8TC100274')!;
    expect(tacoma.data.vehicle).toMatchObject({
      make: 'Toyota',
      model: 'Tacoma',
      price: '31995.00',
      status: 'available',
    });
    // The run's own end comes after the changes it made.
    expect(created.at(-1)).toMatchObject({ type: 'sync.succeeded', subject_id: first.id });
    expect((created.at(-1)!.data.sync_run as { created: number }).created).toBe(first.counts.created);

    // Next day: the Tacoma's price drops; vehicles the full feed no longer lists go on counting.
    deliver(app, feed.integration.id, 'homenet-inventory-next-day.csv');
    const second = await syncNow(app, admin, feed.integration.id);
    const { events: changed } = await follow(admin, '', cursor);
    const tacomaChanges = changed.filter((event) => event.subject_id === tacoma.subject_id);
    expect(tacomaChanges.map((event) => event.type)).toEqual(['vehicle.updated', 'vehicle.price_changed']);
    expect(tacomaChanges[0]!.data.changes).toEqual({
      price: { old: '31995.00', new: '27495.00', source: expect.any(String) },
    });
    expect(tacomaChanges[1]!.data).toMatchObject({
      vin: '2T3X4ZPC8TC100274',
      old_price: '31995.00',
      new_price: '27495.00',
    });
    expect(tacomaChanges.every((event) => event.sync_run_id === second.id)).toBe(true);
    // Nothing for the vehicles whose rows said the same again.
    const updated = changed.filter((event) => event.type === 'vehicle.updated');
    expect(updated).toHaveLength(second.counts.updated);

    // The whole feed again, page by page: each event once, in the order first seen.
    const again = await follow(admin, '', start, 2);
    expect(again.events.map((event) => event.id)).toEqual([...created, ...changed].map((event) => event.id));
  });

  it('records leads, calls and deals as they are written, and lead updates with what moved', async () => {
    const { cursor } = await follow(admin);
    await seedActivity(app.database.prisma, group, {
      calls: [{ dealer: 1 }],
      leads: [{ dealer: 1 }],
      sales: [{ dealer: 1, salePrice: '31250.50' }],
    });
    const { events } = await follow(admin, '', cursor);
    expect(events.map((event) => event.type).sort()).toEqual(['call.created', 'lead.created', 'sale.created']);
    const sale = events.find((event) => event.type === 'sale.created')!;
    expect(sale.data.sale).toMatchObject({ sale_price: '31250.50', dealer_id: group.dealerIds[1] });
    expect(sale.data.sale).not.toHaveProperty('dealer_group_id');

    const lead = events.find((event) => event.type === 'lead.created')!;
    await app.database.pool.query(`UPDATE leads SET status = 'contacted', updated_at = now() WHERE id = $1`, [
      lead.subject_id,
    ]);
    await app.database.pool.query(`UPDATE leads SET updated_at = now() WHERE id = $1`, [lead.subject_id]);
    // A row written back exactly as it was is no change either.
    await app.database.pool.query(`UPDATE leads SET status = status WHERE id = $1`, [lead.subject_id]);
    // Through the API, the event names the request.
    const patched = await app.client.request('PATCH', `/api/v1/leads/${lead.subject_id}`, {
      token: admin,
      body: { assignee: 'Sam Lee' },
    });
    expect(patched.status).toBe(200);
    const { events: updates } = await follow(admin, '', cursor);
    const leadUpdates = updates.filter((event) => event.type === 'lead.updated');
    expect(leadUpdates).toHaveLength(2);
    expect(leadUpdates[0]!.data).toEqual({
      lead_id: lead.subject_id,
      changes: { status: { old: 'new', new: 'contacted' } },
    });
    expect(leadUpdates[1]).toMatchObject({
      request_id: patched.headers.get('x-request-id'),
      data: { lead_id: lead.subject_id, changes: { assignee: { new: 'Sam Lee' } } },
    });
  });

  it('names the request whose mapping gave waiting leads their source', async () => {
    const seeded = await seedActivity(app.database.prisma, group, {
      leads: [{ dealer: 0, rawSource: 'Portal Zeta 9' }],
    });
    const source = await app.client.post('/sources', { name: 'Portal Zeta', category: 'third_party_listing' }, admin);
    expect(source.status, JSON.stringify(source.body)).toBe(201);
    const mapped = await app.client.post(
      '/sources/mappings',
      { source_id: source.body.id, raw_value: 'Portal Zeta 9' },
      admin,
    );
    expect(mapped.status, JSON.stringify(mapped.body)).toBe(201);
    const events = await app.database.pool.query<{ request_id: string | null; data: EventData }>(
      `SELECT request_id, data FROM events WHERE type = 'lead.updated' AND subject_id = $1`,
      [seeded.leads[0]],
    );
    expect(events.rows).toEqual([
      expect.objectContaining({
        request_id: mapped.headers.get('x-request-id'),
        data: expect.objectContaining({
          changes: expect.objectContaining({ source_id: { old: null, new: source.body.id } }),
        }),
      }),
    ]);
  });

  it.skipIf(!external)(
    'never lets a transaction that commits late slip in behind a cursor already handed out',
    async () => {
      const { cursor } = await follow(admin);
      const early = await app.database.pool.connect();
      const late = await app.database.pool.connect();
      try {
        // The early transaction writes first and commits last.
        await early.query('BEGIN');
        await early.query(
          `UPDATE vehicles SET price = price + 1 WHERE id = (SELECT id FROM vehicles WHERE dealer_id = $1 ORDER BY vin LIMIT 1)`,
          [group.dealerIds[0]],
        );
        await late.query('BEGIN');
        await late.query(
          `UPDATE vehicles SET price = price + 1 WHERE id = (SELECT id FROM vehicles WHERE dealer_id = $1 ORDER BY vin DESC LIMIT 1)`,
          [group.dealerIds[0]],
        );
        await late.query('COMMIT');
        // Committed, but not yet handed out: an earlier transaction is still open.
        const waiting = await follow(admin, '', cursor, 3, false);
        expect(waiting.events).toEqual([]);
        expect(waiting.cursor).toBe(cursor);
        await early.query('COMMIT');
      } finally {
        early.release();
        late.release();
      }
      const { events } = await follow(admin, '', cursor);
      expect(events.filter((event) => event.type === 'vehicle.price_changed')).toHaveLength(2);
    },
  );

  it('keeps nothing of a change rolled back', async () => {
    const { cursor } = await follow(admin);
    const client = await app.database.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`UPDATE vehicles SET status = 'sold', sold_at = now() WHERE dealer_id = $1`, [
        group.dealerIds[0],
      ]);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
    expect((await follow(admin, '', cursor)).events).toEqual([]);
  });

  it("shows each caller only its own groups' events, of the kinds its scopes read", async () => {
    const mine = await follow(admin);
    expect(mine.events.length).toBeGreaterThan(0);
    expect((await follow(otherAdmin)).events).toEqual([]);

    const leadsOnly = await createKey(app.client, admin, { scopes: ['leads:read'] });
    const seen = await follow(leadsOnly.key);
    expect(new Set(seen.events.map((event) => event.type))).toEqual(new Set(['lead.created', 'lead.updated']));
    const refused = await app.client.get('/events?types=vehicle.created', leadsOnly.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('inventory:read');

    const onlyPrices = await follow(admin, '&types=vehicle.price_changed');
    expect(onlyPrices.events.length).toBeGreaterThan(0);
    expect(onlyPrices.events.every((event) => event.type === 'vehicle.price_changed')).toBe(true);
    const oneRooftop = await follow(admin, `&dealer_id=${group.dealerIds[1]}`);
    expect(oneRooftop.events.every((event) => event.dealer_id === group.dealerIds[1])).toBe(true);
  });

  it('forgets events past the retention period, but none a webhook delivery still waits for', async () => {
    const old = await app.database.pool.query<{ id: string }>(
      `INSERT INTO events (type, dealer_group_id, data, occurred_at)
       VALUES ('lead.created', $1, '{}', now() - interval '31 days'), ('lead.created', $1, '{}', now() - interval '31 days'),
         ('lead.created', $1, '{}', now() - interval '29 days') RETURNING id`,
      [group.groupId],
    );
    const [gone, waited, kept] = old.rows.map((row) => row.id);
    const endpoint = await app.database.pool.query<{ id: string }>(
      `INSERT INTO webhook_endpoints (id, dealer_group_id, url, event_types, secret, updated_at)
       VALUES (gen_random_uuid(), $1, 'https://example.com/hook', '{lead.created}', 'sealed', now()) RETURNING id`,
      [group.groupId],
    );
    await app.database.pool.query(
      `INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, txid, position) VALUES ($1, $2::uuid, $2::text, 0, 0)`,
      [endpoint.rows[0]!.id, waited],
    );
    await app.webhooks.sweep(true);
    const left = await app.database.pool.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::uuid[])', [
      [gone, waited, kept],
    ]);
    expect(left.rows.map((row) => row.id).sort()).toEqual([waited, kept].sort());
    await app.database.pool.query('DELETE FROM webhook_endpoints WHERE id = $1', [endpoint.rows[0]!.id]);
  });

  /** A GraphQL subscription over server-sent events: what it has streamed so far, reading for up to `ms`. */
  async function subscribe(token: string, query: string) {
    const controller = new AbortController();
    const response = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query }),
      signal: controller.signal,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const reader = response.body!.getReader();
    let text = '';
    let ended = false;
    let pending: Promise<ReadableStreamReadResult<Uint8Array>> | null = null;
    return {
      /** Whether the server has ended the stream (seen by the last `streamed`). */
      ended: () => ended,
      streamed: async (ms: number): Promise<Array<{ type: string; dealer_id: string }>> => {
        for (const deadline = Date.now() + ms; Date.now() < deadline;) {
          pending ??= reader.read();
          const chunk = await Promise.race([
            pending,
            new Promise<null>((resolve) => setTimeout(() => resolve(null), 100)),
          ]);
          if (chunk) {
            pending = null;
            if (chunk.value) text += new TextDecoder().decode(chunk.value);
            if (chunk.done) {
              ended = true;
              break;
            }
          }
        }
        return [...text.matchAll(/event: next\ndata: (.*)\n/g)].map((match) => JSON.parse(match[1]!).data.events);
      },
      close: async () => {
        controller.abort();
        await reader.cancel().catch(() => {});
      },
    };
  }

  it('streams live events to a GraphQL subscription over server-sent events, of its own group only', async () => {
    const stream = await subscribe(
      admin,
      'subscription { events(types: ["lead.created"]) { type dealer_id subject_id } }',
    );
    // Another group's lead and one of ours (and a call, not asked for), until the stream, set at
    // the present once subscribed, shows ours.
    let events: Array<{ type: string; dealer_id: string }> = [];
    for (let round = 0; round < 60 && !events.length; round += 1) {
      await seedActivity(app.database.prisma, other, { leads: [{ dealer: 0 }] });
      await seedActivity(app.database.prisma, group, { leads: [{ dealer: 1 }], calls: [{ dealer: 1 }] });
      events = await stream.streamed(500);
    }
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.type === 'lead.created' && event.dealer_id === group.dealerIds[1])).toBe(true);
    await stream.close();
  });

  it("streams a partner's key only the events its partner's links allow", async () => {
    const partner = (await app.client.post('/partners', { name: 'Live Board', kind: 'agency' }, admin)).body.id;
    await app.client.post(
      `/partners/${partner}/dealers`,
      { dealer_id: group.dealerIds[1], relationship_type: 'analytics', data_permissions: ['leads'] },
      admin,
    );
    const key = (
      await createKey(app.client, admin, { name: 'board', scopes: ['leads:read', 'calls:read'], partnerId: partner })
    ).key;
    const stream = await subscribe(key, 'subscription { events { type dealer_id subject_id } }');
    // Leads at both rooftops and a call at the linked one (calls not allowed), until the stream shows a lead.
    let events: Array<{ type: string; dealer_id: string }> = [];
    for (let round = 0; round < 60 && !events.length; round += 1) {
      await seedActivity(app.database.prisma, group, {
        leads: [{ dealer: 0 }, { dealer: 1 }],
        calls: [{ dealer: 1 }],
      });
      events = await stream.streamed(500);
    }
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.type === 'lead.created' && event.dealer_id === group.dealerIds[1])).toBe(true);
    await stream.close();
  });

  it('ends a stream when its key is revoked, and holds each caller to a few open streams', async () => {
    const key = await createKey(app.client, admin, { name: 'live', scopes: ['leads:read'] });
    const query = 'subscription { events(types: ["lead.created"]) { type } }';
    const streams = [];
    for (let index = 0; index < 5; index += 1) streams.push(await subscribe(key.key, query));
    const sixth = await fetch(`${app.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query }),
    });
    expect(sixth.status).toBe(429);
    expect(await sixth.text()).toContain('at most 5 open subscriptions');
    const revoked = await app.client.request('DELETE', `/api/v1/api-keys/${key.id}`, { token: admin });
    expect(revoked.status).toBe(200);
    for (const stream of streams) {
      for (let round = 0; round < 120 && !stream.ended(); round += 1) await stream.streamed(250);
      expect(stream.ended()).toBe(true);
      await stream.close();
    }
  });

  it('records a feed falling behind and catching up, and a key due for rotation, once each', async () => {
    const { prisma, pool } = app.database;
    const scope = { dealerGroupIds: [group.groupId] };
    const integration = await prisma.integration.create({
      data: {
        dealerGroupId: group.groupId,
        dealerId: group.dealerIds[0]!,
        pluginKey: 'homenet_inventory_csv',
        name: 'Lot feed',
        source: 'homenet',
        expectedCadenceHours: 1,
        lastFileAt: new Date(Date.now() - 2 * 3_600_000),
      },
    });
    const lastFile = (hoursAgo: number) =>
      prisma.integration.update({
        where: { id: integration.id },
        data: { lastFileAt: new Date(Date.now() - hoursAgo * 3_600_000) },
      });
    expect(await recordTimedEvents(pool, scope)).toBe(1);
    expect(await recordTimedEvents(pool, scope)).toBe(0);
    await lastFile(4);
    // Two instances looking at once record the change once.
    const looks = await Promise.all([recordTimedEvents(pool, scope), recordTimedEvents(pool, scope)]);
    expect(looks[0] + looks[1]).toBe(1);
    await lastFile(0);
    expect(await recordTimedEvents(pool, scope)).toBe(1);

    const key = await createKey(app.client, admin, { name: 'old key', scopes: ['inventory:read'] });
    expect(await recordTimedEvents(pool, scope)).toBe(0);
    await pool.query(`UPDATE api_keys SET created_at = now() - interval '91 days' WHERE id = $1`, [key.id]);
    expect(await recordTimedEvents(pool, scope)).toBe(1);
    expect(await recordTimedEvents(pool, scope)).toBe(0);

    const types = 'feed.lagging,feed.silent,feed.recovered,api_key.rotation_due';
    // The feed shows an event once every transaction begun before it has ended (other suites' too).
    let mine: Array<{ type: string; subject_id: string; dealer_id: string | null; data: EventData }> = [];
    for (const deadline = Date.now() + 60_000; mine.length < 4 && Date.now() < deadline;) {
      const feed = await app.client.get(`/events?types=${types}&limit=500`, admin);
      expect(feed.status, JSON.stringify(feed.body)).toBe(200);
      mine = (feed.body.events as typeof mine).filter((event) => [integration.id, key.id].includes(event.subject_id));
      if (mine.length < 4) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(mine.map((event) => [event.type, event.data.previous_state ?? null, event.data.state ?? null])).toEqual([
      ['feed.lagging', 'fresh', 'lagging'],
      ['feed.silent', 'lagging', 'silent'],
      ['feed.recovered', 'silent', 'fresh'],
      ['api_key.rotation_due', null, null],
    ]);
    expect(mine[0]!.dealer_id).toBe(group.dealerIds[0]);
    expect(mine[0]!.data.integration).toMatchObject({
      id: integration.id,
      name: 'Lot feed',
      expected_cadence_hours: 1,
    });
    expect(mine[3]!.data.api_key).toMatchObject({ id: key.id, name: 'old key', age_days: 91 });
    expect(JSON.stringify(mine[3])).not.toContain(key.key);
    // The feed's events need integrations:read, the key's an admin.
    const reader = await createKey(app.client, admin, { name: 'reader', scopes: ['inventory:read'] });
    expect((await app.client.get('/events?types=feed.lagging', reader.key)).status).toBe(403);
  });

  it('answers bad arguments with a 400 naming them', async () => {
    for (const [query, field] of [
      ['after=bm90LWEtY3Vyc29y', 'after'],
      ['after=%00%01', 'after'],
      ['types=vehicle.exploded', 'types'],
      ['limit=0', 'limit'],
      ['dealer_id=42', 'dealer_id'],
    ]) {
      const response = await app.client.get(`/events?${query}`, admin);
      expect(response.status, query).toBe(400);
      expect(response.body.error.message, query).toContain(field);
    }
  });
});
