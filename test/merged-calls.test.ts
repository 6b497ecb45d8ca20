import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';

/**
 * GET /calls/merged against merging written out plainly: whatever calls are written, moved or removed
 * (through the API or straight in SQL), each page, its order and its total equal the calls of each
 * caller at each rooftop, filtered, ordered by time and cut wherever two follow each other by more
 * than two minutes.
 */

interface Merged {
  id: string;
  started_at: string;
  duration_seconds: number;
  status: string;
  providers: string[];
  record_count: number;
  call_ids: string[];
}

// The definition, in one plain statement: no table kept by triggers, no index to lean on.
const REFERENCE = `
  WITH filtered AS (
    SELECT c.*, COALESCE(c.caller_number, c.id::text) AS who FROM calls c
    WHERE c.dealer_group_id = $1 AND ($2::timestamptz IS NULL OR c.started_at >= $2) AND ($3::timestamptz IS NULL OR c.started_at <= $3)
      AND ($4::uuid IS NULL OR c.dealer_id = $4) AND ($5::call_status IS NULL OR c.status = $5)),
  numbered AS (
    SELECT f.*, count(*) FILTER (WHERE f.gap IS NULL OR f.gap > interval '120 seconds') OVER (PARTITION BY f.dealer_id, f.who ORDER BY f.started_at, f.id) AS part
    FROM (SELECT f.*, f.started_at - lag(f.started_at) OVER (PARTITION BY f.dealer_id, f.who ORDER BY f.started_at, f.id) AS gap FROM filtered f) f),
  merged AS (
    SELECT (array_agg(id ORDER BY duration_seconds DESC, started_at, id))[1] AS id, min(started_at) AS started_at,
      max(duration_seconds) AS duration_seconds, array_agg(DISTINCT provider ORDER BY provider) AS providers, count(*)::int AS record_count,
      array_agg(id::text ORDER BY id) AS call_ids,
      CASE WHEN bool_or(status = 'answered') THEN 'answered' WHEN bool_or(status = 'voicemail') THEN 'voicemail' ELSE 'missed' END AS status
    FROM numbered GROUP BY dealer_id, who, part)
  SELECT * FROM merged ORDER BY started_at DESC, id`;

const external = inject('externalDatabase');
if (!external)
  console.log('skipped: two writers changing calls at once need a PostgreSQL server (DATABASE_URL; CI sets it)');

describe('merged calls (GET /calls/merged)', () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;

  beforeAll(async () => {
    // The property asks for long ranges more often than a person may.
    app = await startTestApp({ FIELD_RATE_LIMITS: 'Query.mergedCalls=100000/1m' });
    group = await seedGroup(app.database.prisma, { dealers: 2, users: { admin: 'admin' } });
    admin = await group.login(app.client, 'admin');
  });
  afterAll(async () => {
    await app?.stop();
  });

  const asked = async (query: Record<string, string>): Promise<{ total: number; calls: Merged[] }> => {
    const response = await app.client.get(`/calls/merged?${new URLSearchParams(query)}`, admin);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return {
      total: response.body.pagination.total,
      calls: response.body.calls.map((call: Merged & { sources: Array<{ id: string }> }) => ({
        id: call.id,
        started_at: call.started_at,
        duration_seconds: call.duration_seconds,
        status: call.status,
        providers: call.providers,
        record_count: call.record_count,
        call_ids: call.sources.map((source) => source.id).sort(),
      })),
    };
  };
  const expected = async (filters: { from?: string; to?: string; dealer?: string; status?: string }) => {
    const { rows } = await app.database.pool.query<Merged & { started_at: Date }>(REFERENCE, [
      group.groupId,
      filters.from ?? null,
      filters.to ?? null,
      filters.dealer ?? null,
      filters.status ?? null,
    ]);
    return rows.map((row) => ({ ...row, started_at: row.started_at.toISOString() }));
  };
  // Which calls begin a merged call, worked out again from every call of the group.
  const firstCallsAgree = async () => {
    const { rows } = await app.database.pool.query(
      `SELECT (SELECT array_agg(c.id ORDER BY c.id) FROM calls c WHERE c.dealer_group_id = $1 AND (c.caller_number IS NULL OR NOT EXISTS (
           SELECT 1 FROM calls b WHERE b.dealer_group_id = c.dealer_group_id AND b.dealer_id = c.dealer_id AND b.caller_number = c.caller_number
             AND b.started_at BETWEEN c.started_at - interval '120 seconds' AND c.started_at AND (b.started_at, b.id) < (c.started_at, c.id)))) AS want,
         (SELECT array_agg(s.call_id ORDER BY s.call_id) FROM call_merge_starts s JOIN calls c ON c.id = s.call_id
           AND (s.dealer_group_id, s.dealer_id, s.caller_number, s.started_at) IS NOT DISTINCT FROM (c.dealer_group_id, c.dealer_id, c.caller_number, c.started_at)
           WHERE s.dealer_group_id = $1) AS got`,
      [group.groupId],
    );
    expect(rows[0].got).toEqual(rows[0].want);
    // And the merged calls per rooftop and day, counted again (the nil rooftop: all of them).
    const daily = await app.database.pool.query(
      `SELECT (SELECT jsonb_object_agg(k, n) FROM (SELECT coalesce(dealer_id, '00000000-0000-0000-0000-000000000000') || ' ' || day AS k, count(*) AS n
           FROM (SELECT dealer_id, (started_at AT TIME ZONE 'UTC')::date AS day FROM call_merge_starts WHERE dealer_group_id = $1) s
           GROUP BY GROUPING SETS ((dealer_id, day), (day))) c) AS want,
         (SELECT jsonb_object_agg(dealer_id || ' ' || day, merged_calls) FROM call_merge_daily WHERE dealer_group_id = $1 AND merged_calls <> 0) AS got`,
      [group.groupId],
    );
    expect(daily.rows[0].got).toEqual(daily.rows[0].want);
  };

  it('cuts a merged call at the start of the period asked for', async () => {
    const post = async (externalId: string, startedAt: string, provider: string) => {
      const response = await app.client.post(
        '/calls',
        {
          dealer_id: group.dealerIds[0],
          provider,
          external_id: externalId,
          started_at: startedAt,
          duration_seconds: 30,
          caller_number: '(303) 555-0199',
        },
        admin,
      );
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body.call.id as string;
    };
    const first = await post('cut-1', '2026-05-01T10:00:00Z', 'callrail');
    const second = await post('cut-2', '2026-05-01T10:01:00Z', 'ctm');
    const whole = await asked({ from: '2026-05-01T09:00:00Z', to: '2026-05-01T11:00:00Z' });
    expect(whole).toMatchObject({ total: 1, calls: [{ id: first, record_count: 2 }] });
    const cut = await asked({ from: '2026-05-01T10:00:30Z', to: '2026-05-01T11:00:00Z' });
    expect(cut).toMatchObject({ total: 1, calls: [{ id: second, record_count: 1, providers: ['ctm'] }] });
  });

  it('orders merged calls that begin at the same instant by their primary call, also where a page ends', async () => {
    // Written as any writer may (ids chosen): two callers' merged calls begin at 12:00; the one whose
    // first call has the lower id has the higher primary id (its longer second call).
    const id = (last: number) => `c0ffee00-0000-4000-8000-0000000000${String(last).padStart(2, '0')}`;
    const calls: Array<[number, string, string, number]> = [
      [1, '+13035550171', '2026-04-01T12:00:00Z', 10],
      [9, '+13035550171', '2026-04-01T12:01:00Z', 500],
      [2, '+13035550172', '2026-04-01T12:00:00Z', 300],
      [3, '+13035550172', '2026-04-01T12:01:00Z', 5],
    ];
    for (const [last, caller, startedAt, duration] of calls)
      await app.database.pool.query(
        `INSERT INTO calls (id, dealer_group_id, dealer_id, provider, external_id, started_at, duration_seconds, direction, status, caller_number, updated_at)
         VALUES ($1::uuid, $2, $3, 'callrail', $1::text, $4, $5, 'inbound', 'answered', $6, now())`,
        [id(last), group.groupId, group.dealerIds[1], startedAt, duration, caller],
      );
    const period = { from: '2026-04-01T11:00:00Z', to: '2026-04-01T13:00:00Z' };
    const ids = async (query: Record<string, string>) =>
      (await asked({ ...period, ...query })).calls.map((call) => call.id);
    expect(await ids({})).toEqual([id(2), id(9)]);
    expect(await ids({ limit: '1' })).toEqual([id(2)]);
    expect(await ids({ limit: '1', offset: '1' })).toEqual([id(9)]);
  });

  // Transactions interleave only on a PostgreSQL server: the embedded engine runs one at a time.
  it.skipIf(!external)('judges calls two writers change at once as if one came after the other', async () => {
    const insert = (client: { query: typeof app.database.pool.query }, externalId: string, startedAt: string) =>
      client.query(
        `INSERT INTO calls (id, dealer_group_id, dealer_id, provider, external_id, started_at, duration_seconds, direction, status, caller_number, updated_at)
           VALUES (gen_random_uuid(), $1, $2, 'ctm', $3, $4, 60, 'inbound', 'answered', '+13035550188', now()) RETURNING id`,
        [group.groupId, group.dealerIds[0], externalId, startedAt],
      );
    const moved = (await insert(app.database.pool, 'together-2', '2026-03-01T12:00:00Z')).rows[0].id;
    const first = await app.database.pool.connect();
    const second = await app.database.pool.connect();
    try {
      await first.query('BEGIN');
      await second.query('BEGIN');
      const earlier = (await insert(first, 'together-1', '2026-03-01T09:00:00Z')).rows[0].id;
      // The second writer moves the caller's later call to a minute after the first writer's, on the
      // same day and rooftop (so no rollup row makes it wait): it waits for the first writer's
      // commit before its call is judged.
      const moving = second.query(`UPDATE calls SET started_at = '2026-03-01T09:01:00Z' WHERE id = $1`, [moved]);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await first.query('COMMIT');
      await moving;
      await second.query('COMMIT');
      const starts = await app.database.pool.query(
        'SELECT call_id FROM call_merge_starts WHERE call_id = ANY($1::uuid[])',
        [[earlier, moved]],
      );
      expect(starts.rows.map((row) => row.call_id)).toEqual([earlier]);
      await firstCallsAgree();
    } finally {
      first.release();
      second.release();
    }
  });

  it.skipIf(!external)(
    "lets a writer that has its group's turn go on writing rollup rows another writer waits to lock",
    async () => {
      // A sync-like writer inserts a call, then (later in its transaction) gives it a source; meanwhile a
      // writer at the other rooftop inserts a call with that source the same day. The second must wait for
      // its turn before it locks the group's rollup row for that source and day, or the two deadlock.
      const source = (
        await app.database.pool.query(
          `INSERT INTO sources (id, dealer_group_id, name, category, updated_at) VALUES (gen_random_uuid(), $1, 'Turns', 'paid_search', now()) RETURNING id`,
          [group.groupId],
        )
      ).rows[0].id;
      const insert = (
        client: { query: typeof app.database.pool.query },
        dealer: number,
        externalId: string,
        sourceId: string | null,
      ) =>
        client.query(
          `INSERT INTO calls (id, dealer_group_id, dealer_id, provider, external_id, started_at, duration_seconds, direction, status, caller_number, source_id, updated_at)
           VALUES (gen_random_uuid(), $1, $2, 'ctm', $3, '2026-02-01T10:00:00Z', 60, 'inbound', 'answered', '+13035550177', $4, now()) RETURNING id`,
          [group.groupId, group.dealerIds[dealer], externalId, sourceId],
        );
      const first = await app.database.pool.connect();
      const second = await app.database.pool.connect();
      try {
        await first.query('BEGIN');
        await second.query('BEGIN');
        const call = (await insert(first, 0, 'turns-1', null)).rows[0].id;
        const waiting = insert(second, 1, 'turns-2', source).then(() => second.query('COMMIT'));
        await new Promise((resolve) => setTimeout(resolve, 200));
        await first.query('UPDATE calls SET source_id = $2 WHERE id = $1', [call, source]);
        await first.query('COMMIT');
        await waiting;
      } finally {
        first.release();
        second.release();
      }
      await firstCallsAgree();
    },
  );

  it('answers every page as merging the filtered calls does, after calls are written, moved and removed', async () => {
    let run = 0;
    let written = 0;
    const call = fc.record({
      dealer: fc.nat(1),
      caller: fc.constantFrom(null, '(303) 555-0101', '(303) 555-0102', '(303) 555-0101', '(303) 555-0102'),
      // Half-minute steps over six minutes: calls fall within and past two minutes of each other,
      // and merged calls of several callers begin at the same instant.
      second: fc.integer({ min: 0, max: 12 }).map((step) => step * 30),
      duration: fc.integer({ min: 0, max: 600 }),
      provider: fc.constantFrom('callrail', 'ctm', 'marchex'),
      status: fc.constantFrom('answered', 'missed', 'voicemail'),
    });
    const change = fc.record({
      pick: fc.nat(),
      kind: fc.constantFrom('move', 'recall', 'forget', 'remove'),
      seconds: fc.integer({ min: -200, max: 200 }),
    });
    // Bounds on and around the calls' instants, so merged calls are cut at either end; mostly
    // filters that keep a caller's calls whole, sometimes one that changes which calls merge.
    const bound = fc.oneof(
      fc.constant(null),
      fc.integer({ min: -1, max: 26 }).map((step) => step * 15),
    );
    const question = fc.record({
      from: bound,
      to: bound,
      dealer: fc.constantFrom(null, null, 0, 1),
      status: fc.constantFrom(null, null, null, 'answered', 'missed'),
      limit: fc.integer({ min: 1, max: 4 }),
      offset: fc.integer({ min: 0, max: 8 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(call, { minLength: 1, maxLength: 30 }),
        fc.array(change, { maxLength: 4 }),
        fc.array(question, { minLength: 1, maxLength: 6 }),
        async (calls, changes, questions) => {
          // Each run has an hour of its own; the group keeps the calls of earlier runs.
          const base = Date.parse('2026-06-01T00:00:00Z') + (run += 1) * 3_600_000;
          const at = (second: number) => new Date(base + second * 1000).toISOString();
          const ids: string[] = [];
          for (const entry of calls) {
            const response = await app.client.post(
              '/calls',
              {
                dealer_id: group.dealerIds[entry.dealer],
                provider: entry.provider,
                external_id: `merged-${(written += 1)}`,
                started_at: at(entry.second),
                duration_seconds: entry.duration,
                status: entry.status,
                ...(entry.caller ? { caller_number: entry.caller } : {}),
              },
              admin,
            );
            expect(response.status, JSON.stringify(response.body)).toBe(201);
            ids.push(response.body.call.id);
          }
          // Any writer, psql included: calls moved in time, given or stripped of a caller, removed.
          for (const { pick, kind, seconds } of changes) {
            const id = ids[pick % ids.length]!;
            if (kind === 'move')
              await app.database.pool.query(
                `UPDATE calls SET started_at = started_at + make_interval(secs => $2) WHERE id = $1`,
                [id, seconds],
              );
            else if (kind === 'recall')
              await app.database.pool.query(`UPDATE calls SET caller_number = '+13035550101' WHERE id = $1`, [id]);
            else if (kind === 'forget')
              await app.database.pool.query(`UPDATE calls SET caller_number = NULL WHERE id = $1`, [id]);
            else await app.database.pool.query(`DELETE FROM calls WHERE id = $1`, [id]);
          }
          await firstCallsAgree();
          for (const ask of questions) {
            const filters = {
              ...(ask.from === null ? {} : { from: at(ask.from) }),
              ...(ask.to === null ? {} : { to: at(Math.max(ask.to, ask.from ?? -30)) }),
              ...(ask.dealer === null ? {} : { dealer: group.dealerIds[ask.dealer] }),
              ...(ask.status === null ? {} : { status: ask.status }),
            };
            const want = await expected(filters);
            const query: Record<string, string> = { limit: String(ask.limit), offset: String(ask.offset) };
            if (filters.from) query.from = filters.from;
            if (filters.to) query.to = filters.to;
            if (filters.dealer) query.dealer_id = filters.dealer;
            if (filters.status) query.status = filters.status;
            const got = await asked(query);
            expect(got.total).toBe(want.length);
            expect(got.calls).toEqual(
              want
                .slice(ask.offset, ask.offset + ask.limit)
                .map((row) => ({ ...row, call_ids: [...row.call_ids].sort() })),
            );
          }
        },
      ),
      { numRuns: 40, endOnFailure: true },
    );
  });
});
