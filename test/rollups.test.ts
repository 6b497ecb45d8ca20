import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { connect, deliver, syncNow } from './helpers/feeds';
import { seedActivity, seedGroup, type SeededGroup } from './helpers/seed';
import { recordStatements } from './helpers/statements';

/**
 * Rollups (call_daily, lead_daily, lead_deal_daily, sale_daily, dealer_activity) are kept by triggers in every
 * writer's transaction: after direct inserts, feed syncs (new and changed rows), enrichment,
 * re-mapping, deal linking, edits and deletes they equal the aggregates of the rows themselves, and
 * the stats that read them (whole days from the rollup, partial days from the rows) equal the same
 * stats computed from the rows alone for any range.
 */

const DAY = 86_400_000;
const START = Date.parse('2026-03-01T00:00:00Z');
const STATUSES = ['answered', 'missed', 'voicemail'] as const;
const LEAD_STATUSES = ['new', 'contacted', 'appointment', 'showed', 'sold', 'lost'] as const;
const LEAD_TYPES = ['new', 'used', 'service', 'finance', 'trade_in'] as const;
const RAW_SOURCES = ['Google Ads', 'google-ads', 'Cars.com', 'CARS COM', 'Facebook', null];
/** Names no rooftop: the rollups' rows for all rooftops together carry it, so a filter naming it must never read them. */
const NIL = '00000000-0000-0000-0000-000000000000';

/** A small deterministic generator, so the calls are the same on every run. */
function sequence(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % below;
  };
}

type Row = Record<string, unknown>;

/** The measures of stats rows (with their key, when given), in key order, to compare two answers. */
function figures(rows: Row[], key?: 'day' | 'source_id') {
  const measures = ['calls', 'answered', 'missed', 'voicemail', 'first_time_callers', 'average_duration_seconds'];
  return rows
    .map((row) => [...(key ? [row[key] ?? null] : []), ...measures.map((name) => row[name])])
    .sort((x, y) => String(x[0]).localeCompare(String(y[0])));
}

const span = { min: START - 2 * DAY, max: Date.parse('2026-11-21T00:00:00Z') };
// Instants near midnights and anywhere, so partial days at both ends and empty ranges are tried.
const instant = fc.oneof(
  fc.integer(span).map((ms) => new Date(ms)),
  fc
    .tuple(fc.integer({ min: -2, max: 12 }), fc.constantFrom(-1, 0, 1, 3_600_000))
    .map(([day, offset]) => new Date(START + day * DAY + offset)),
);

describe('rollups kept by every writer', () => {
  let app: TestApp;
  let group: SeededGroup;
  let other: SeededGroup;
  let admin: string;
  let sourceIds: Record<string, string>;

  const query = <T>(sql: string, values: unknown[] = []) =>
    app.database.pool.query(sql, values).then((result) => result.rows as T[]);

  /** call_daily (rows with anything in them) and dealer_activity equal the rows they summarise. */
  async function expectRollupsMatchRows() {
    // Other test files write calls into the shared database meanwhile: every read below sees one
    // snapshot, so the rollups and the rows are compared at the same moment.
    const client = await app.database.pool.connect();
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      await compareRollupsWithRows(<T>(sql: string) => client.query(sql).then((result) => result.rows as T[]));
    } finally {
      await client.query('ROLLBACK').catch(() => {});
      client.release();
    }
  }

  async function compareRollupsWithRows(query: <T>(sql: string) => Promise<T[]>) {
    const nonEmpty = `calls <> 0 OR answered <> 0 OR missed <> 0 OR voicemail <> 0 OR first_time_callers <> 0 OR answered_seconds <> 0`;
    const rollup = await query(
      `SELECT dealer_group_id, day::text, dealer_id, source_id, calls, answered, missed, voicemail, first_time_callers, answered_seconds::int
       FROM call_daily WHERE ${nonEmpty} ORDER BY 1, 2, 3, 4`,
    );
    const fromRows = await query(
      `SELECT dealer_group_id, day, coalesce(dealer_id, '00000000-0000-0000-0000-000000000000') AS dealer_id, source_key AS source_id, count(*)::int AS calls,
         count(*) FILTER (WHERE status = 'answered')::int AS answered, count(*) FILTER (WHERE status = 'missed')::int AS missed,
         count(*) FILTER (WHERE status = 'voicemail')::int AS voicemail, count(*) FILTER (WHERE first_time_caller)::int AS first_time_callers,
         coalesce(sum(duration_seconds) FILTER (WHERE status = 'answered'), 0)::int AS answered_seconds
       FROM (SELECT *, (started_at AT TIME ZONE 'UTC')::date::text AS day,
           coalesce(source_id, '00000000-0000-0000-0000-000000000000') AS source_key FROM calls) c
       GROUP BY GROUPING SETS ((dealer_group_id, day, dealer_id, source_key), (dealer_group_id, day, source_key)) ORDER BY 1, 2, 3, 4`,
    );
    expect(rollup).toEqual(fromRows);
    expect(rollup.length).toBeGreaterThan(0);
    const activity = await query(
      `SELECT d.id, coalesce(a.calls, 0) AS calls, coalesce(a.leads, 0) AS leads, coalesce(a.sales, 0) AS sales
       FROM dealers d LEFT JOIN dealer_activity a ON a.dealer_id = d.id ORDER BY d.id`,
    );
    const counted = await query(
      `SELECT d.id, (SELECT count(*)::int FROM calls c WHERE c.dealer_id = d.id) AS calls,
         (SELECT count(*)::int FROM leads l WHERE l.dealer_id = d.id) AS leads, (SELECT count(*)::int FROM sales s WHERE s.dealer_id = d.id) AS sales
       FROM dealers d ORDER BY d.id`,
    );
    expect(activity).toEqual(counted);
    const saleRollup = await query(
      `SELECT dealer_group_id, dealer_id, day::text, units, revenue::text, front_gross::text, back_gross::text FROM sale_daily
       WHERE units <> 0 OR revenue <> 0 OR front_gross <> 0 OR back_gross <> 0 ORDER BY 1, 2, 3`,
    );
    const saleRows = await query(
      `SELECT dealer_group_id, coalesce(dealer_id, '00000000-0000-0000-0000-000000000000') AS dealer_id, day, count(*)::int AS units,
         sum(sale_price)::numeric(16,2)::text AS revenue, sum(front_gross)::numeric(16,2)::text AS front_gross, sum(back_gross)::numeric(16,2)::text AS back_gross
       FROM (SELECT *, (sold_at AT TIME ZONE 'UTC')::date::text AS day FROM sales) s
       GROUP BY GROUPING SETS ((dealer_group_id, dealer_id, day), (dealer_group_id, day)) ORDER BY 1, 2, 3`,
    );
    expect(saleRollup).toEqual(saleRows);
    const leadRollup = await query(
      `SELECT dealer_group_id, dealer_id, day::text, source_id, leads, sold FROM lead_daily WHERE leads <> 0 OR sold <> 0 ORDER BY 1, 2, 3, 4`,
    );
    const leadRows = await query(
      `SELECT dealer_group_id, coalesce(dealer_id, '00000000-0000-0000-0000-000000000000') AS dealer_id, day, source_key AS source_id,
         count(*)::int AS leads, count(*) FILTER (WHERE sale_id IS NOT NULL OR status = 'sold')::int AS sold
       FROM (SELECT *, (received_at AT TIME ZONE 'UTC')::date::text AS day,
           coalesce(source_id, '00000000-0000-0000-0000-000000000000') AS source_key FROM leads) l
       GROUP BY GROUPING SETS ((dealer_group_id, dealer_id, day, source_key), (dealer_group_id, day, source_key)) ORDER BY 1, 2, 3, 4`,
    );
    expect(leadRollup).toEqual(leadRows);
    const stageRollup = await query(
      `SELECT dealer_group_id, dealer_id, day::text, status::text, type::text, leads, sold FROM lead_stage_daily
       WHERE leads <> 0 OR sold <> 0 ORDER BY 1, 2, 3, 4, 5`,
    );
    const stageRows = await query(
      `SELECT dealer_group_id, coalesce(dealer_id, '00000000-0000-0000-0000-000000000000') AS dealer_id, day, stage AS status, kind AS type,
         count(*)::int AS leads, count(*) FILTER (WHERE sale_id IS NOT NULL OR status = 'sold')::int AS sold
       FROM (SELECT *, (received_at AT TIME ZONE 'UTC')::date::text AS day, status::text AS stage, type::text AS kind FROM leads) l
       GROUP BY GROUPING SETS ((dealer_group_id, dealer_id, day, stage, kind), (dealer_group_id, day, stage, kind)) ORDER BY 1, 2, 3, 4, 5`,
    );
    expect(stageRollup).toEqual(stageRows);
    // Each deal once per source of the leads linked to it, at that source's first such lead (by time, then id).
    const firstTouches = `SELECT DISTINCT ON (l.sale_id, coalesce(l.source_id, '${NIL}')) l.sale_id, coalesce(l.source_id, '${NIL}') AS source_id,
         l.dealer_group_id, l.id AS lead_id, l.dealer_id, l.received_at, (d.front_gross + d.back_gross)::text AS gross
       FROM leads l JOIN sales d ON d.id = l.sale_id ORDER BY 1, 2, l.received_at, l.id`;
    const pairs = await query(
      `SELECT sale_id, source_id, dealer_group_id, lead_id, dealer_id, received_at, gross::text FROM lead_source_deals ORDER BY 1, 2`,
    );
    expect(pairs).toEqual(await query(firstTouches));
    const dealRollup = await query(
      `SELECT dealer_group_id, dealer_id, day::text, source_id, deals, gross::text FROM lead_deal_daily
       WHERE deals <> 0 OR gross <> 0 ORDER BY 1, 2, 3, 4`,
    );
    const dealRows = await query(
      `SELECT dealer_group_id, coalesce(dealer_id, '${NIL}') AS dealer_id, day, source_id, count(*)::int AS deals,
         sum(gross::numeric)::numeric(16,2)::text AS gross
       FROM (SELECT *, (received_at AT TIME ZONE 'UTC')::date::text AS day FROM (${firstTouches}) f) t
       GROUP BY GROUPING SETS ((dealer_group_id, dealer_id, day, source_id), (dealer_group_id, day, source_id)) ORDER BY 1, 2, 3, 4`,
    );
    expect(dealRollup).toEqual(dealRows);
    const conflictTotals = await query(
      `SELECT dealer_group_id, dealer_id, conflicts FROM vehicle_conflict_totals WHERE conflicts <> 0 ORDER BY 1, 2`,
    );
    const conflictRows = await query(
      `SELECT dealer_group_id, dealer_id, count(*)::int AS conflicts FROM vehicle_conflicts GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    expect(conflictTotals).toEqual(conflictRows);
  }

  /**
   * Asks `path` for the stats of a range (its ends in either order, either open), rooftops and
   * source, and returns the answer with the SQL condition (over `alias`, timed by `column`) that
   * picks the same rows.
   */
  async function askStats(
    path: string,
    alias: string,
    column: string,
    {
      a,
      b,
      dealers,
      source,
      statuses = [],
      types = [],
    }: { a?: Date; b?: Date; dealers: string[]; source?: string; statuses?: string[]; types?: string[] },
  ) {
    const [from, to] = a && b && a > b ? [b, a] : [a, b];
    const params = new URLSearchParams();
    const conditions = [`${alias}.dealer_group_id = $1`];
    const values: unknown[] = [group.groupId];
    // Each filter given: its query parameter and the same condition in SQL.
    const given: Array<[string, string | string[], string, unknown]> = [];
    if (from) given.push(['from', from.toISOString(), `${column} >= ?`, from]);
    if (to) given.push(['to', to.toISOString(), `${column} <= ?`, to]);
    if (dealers.length) given.push(['dealer_id', dealers, `${alias}.dealer_id = ANY(?::uuid[])`, dealers]);
    if (source)
      given.push(['source', source, `${alias}.source_id IN (SELECT id FROM sources WHERE name = ?::citext)`, source]);
    if (statuses.length) given.push(['status', statuses, `${alias}.status::text = ANY(?::text[])`, statuses]);
    if (types.length) given.push(['type', types, `${alias}.type::text = ANY(?::text[])`, types]);
    for (const [name, parameter, condition, value] of given) {
      for (const one of [parameter].flat()) params.append(name, one);
      conditions.push(condition.replace('?', `$${values.push(value)}`));
    }
    const response = await app.client.get(`${path}${path.includes('?') ? '&' : '?'}${params}`, admin);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return { response, where: conditions.join(' AND '), values };
  }

  beforeAll(async () => {
    // The property below asks for long ranges more often than the per-minute limit allows a person.
    app = await startTestApp({
      SYNC_SCHEDULER: 'false',
      FIELD_RATE_LIMITS: 'Query.callStats=10000/1m,sale-stats-long-range=10000/1m,lead-stats-long-range=10000/1m',
    });
    group = await seedGroup(app.database.prisma, { dealers: 3 });
    other = await seedGroup(app.database.prisma, { dealers: 1 });
    admin = await group.login(app.client);
    const next = sequence(7);
    await seedActivity(app.database.prisma, group, {
      calls: Array.from({ length: 160 }, () => ({
        dealer: next(3),
        startedAt: new Date(START + next(9) * DAY + next(DAY)),
        durationSeconds: next(600),
        status: STATUSES[next(3)],
        rawSource: RAW_SOURCES[next(RAW_SOURCES.length)] ?? null,
        firstTimeCaller: next(2) === 0,
      })),
      leads: Array.from({ length: 120 }, (_, index) => ({
        dealer: index % 3,
        receivedAt: new Date(START + next(9) * DAY + next(DAY)),
        type: LEAD_TYPES[index % LEAD_TYPES.length],
        status: LEAD_STATUSES[next(LEAD_STATUSES.length)],
        rawSource: RAW_SOURCES[next(RAW_SOURCES.length)] ?? null,
      })),
      sales: Array.from({ length: 60 }, (_, index) => ({
        dealer: index % 2,
        soldAt: new Date(START + next(9) * DAY + next(DAY)),
        salePrice: `${20_000 + next(20_000)}.${String(next(100)).padStart(2, '0')}`,
        frontGross: `${next(3_000)}.${String(next(100)).padStart(2, '0')}`,
        backGross: `${next(2_000)}.${String(next(100)).padStart(2, '0')}`,
      })),
    });
    // Another group's calls on the same days must never reach this group's figures.
    await seedActivity(app.database.prisma, other, {
      calls: Array.from({ length: 20 }, (_, index) => ({ startedAt: new Date(START + index * 10_000_000) })),
    });
  });

  afterAll(() => app?.stop());

  it('match the rows after direct inserts', async () => {
    await expectRollupsMatchRows();
  });

  it('match the rows after a feed sync writes new calls and then changes some', async () => {
    const feed = await connect(app, admin, {
      plugin_key: 'call_tracking_csv',
      dealer_id: group.dealerIds[1],
      config: { provider: 'callrail' },
    });
    deliver(app, feed.integration.id, 'callrail-calls.csv');
    expect((await syncNow(app, admin, feed.integration.id)).counts).toMatchObject({ created: 5 });
    await expectRollupsMatchRows();

    // The same calls again, one answered call now missed and another moved to the next day.
    const original = readFileSync(path.resolve('test/fixtures/feeds/callrail-calls.csv'), 'utf8');
    const changed = original
      .replace('CAL8812001,2026-11-18 09:14:22,245,Inbound,Answered', 'CAL8812001,2026-11-18 09:14:22,0,Inbound,Missed')
      .replace('CAL8812004,2026-11-18 13:30:00', 'CAL8812004,2026-11-19 13:30:00');
    expect(changed).not.toBe(original);
    const file = path.join(app.dataDir, 'callrail-changed.csv');
    writeFileSync(file, changed);
    deliver(app, feed.integration.id, file);
    expect((await syncNow(app, admin, feed.integration.id)).counts).toMatchObject({ updated: 2 });
    await expectRollupsMatchRows();
  });

  it('match the rows after enrichment and re-mapping change the calls sources', async () => {
    const created = async (name: string) =>
      (await app.client.post('/sources', { name, category: 'paid_search' }, admin)).body.id as string;
    sourceIds = { google: await created('Google Ads'), cars: await created('Cars.com') };
    const mapping = await app.client.post(
      '/sources/mappings',
      { source_id: sourceIds.google, raw_values: ['Google Ads', 'google-ads'] },
      admin,
    );
    expect(mapping.status, JSON.stringify(mapping.body)).toBe(201);
    await app.client.post('/sources/mappings', { source_id: sourceIds.cars, raw_values: ['Cars.com'] }, admin);
    await expectRollupsMatchRows();

    // Re-mapping: "google-ads" now means Cars.com, and the calls are enriched again over what they had.
    const google = await app.client.get('/sources/mappings?limit=100', admin);
    const dashed = google.body.mappings.find((row: { raw_value: string }) => row.raw_value === 'google-ads');
    expect((await app.client.request('DELETE', `/api/v1/sources/mappings/${dashed.id}`, { token: admin })).status).toBe(
      200,
    );
    await app.client.post('/sources/mappings', { source_id: sourceIds.cars, raw_values: ['google-ads'] }, admin);
    const enriched = await app.client.post('/calls/enrich', { overwrite: true }, admin);
    expect(enriched.status, JSON.stringify(enriched.body)).toBe(200);
    expect(enriched.body.enriched).toBeGreaterThan(0);
    await expectRollupsMatchRows();
  });

  it('match the rows after edits that move calls between days, rooftops and statuses, and after deletes', async () => {
    await query(
      `UPDATE calls SET started_at = started_at + interval '1 day 3 hours', status = 'answered', duration_seconds = duration_seconds + 7
       WHERE id IN (SELECT id FROM calls WHERE dealer_group_id = $1 ORDER BY id LIMIT 15)`,
      [group.groupId],
    );
    await query(
      `UPDATE calls SET dealer_id = $2, first_time_caller = NOT first_time_caller WHERE id IN (SELECT id FROM calls WHERE dealer_group_id = $1 ORDER BY external_id LIMIT 10)`,
      [group.groupId, group.dealerIds[2]],
    );
    await query(`UPDATE leads SET dealer_id = $2 WHERE dealer_group_id = $1 AND dealer_id = $3`, [
      group.groupId,
      group.dealerIds[2],
      group.dealerIds[0],
    ]);
    // Leads linked to deals (sold whatever their status), moved a day, sold by status, and deleted.
    await query(
      `UPDATE leads l SET sale_id = s.id FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM sales WHERE dealer_group_id = $1) s,
         (SELECT id, row_number() OVER (ORDER BY id) AS n FROM leads WHERE dealer_group_id = $1 AND status <> 'sold' LIMIT 20) pick
       WHERE l.id = pick.id AND s.n = pick.n`,
      [group.groupId],
    );
    // Several leads, of one source and of others, on one deal; a deal's gross changed; linked leads
    // moved to another source, and earlier or later than the first lead of their deal and source.
    await query(
      `UPDATE leads SET sale_id = (SELECT id FROM sales WHERE dealer_group_id = $1 ORDER BY id LIMIT 1)
       WHERE id IN (SELECT id FROM leads WHERE dealer_group_id = $1 AND sale_id IS NULL ORDER BY id LIMIT 8)`,
      [group.groupId],
    );
    await query(
      `UPDATE sales SET front_gross = front_gross + 500.25, back_gross = back_gross - 1
       WHERE id IN (SELECT sale_id FROM leads WHERE dealer_group_id = $1 AND sale_id IS NOT NULL ORDER BY id LIMIT 6)`,
      [group.groupId],
    );
    await query(
      `UPDATE leads SET source_id = NULL WHERE id IN (SELECT id FROM leads WHERE dealer_group_id = $1 AND sale_id IS NOT NULL ORDER BY id LIMIT 3)`,
      [group.groupId],
    );
    await query(
      `UPDATE leads SET received_at = received_at - interval '4 days 5 hours'
       WHERE id IN (SELECT id FROM leads WHERE dealer_group_id = $1 AND sale_id IS NOT NULL ORDER BY id DESC LIMIT 4)`,
      [group.groupId],
    );
    await query(
      `UPDATE leads SET received_at = received_at + interval '2 days', dealer_id = $2
       WHERE id IN (SELECT id FROM leads WHERE dealer_group_id = $1 AND sale_id IS NOT NULL ORDER BY external_id LIMIT 4)`,
      [group.groupId, group.dealerIds[1]],
    );
    await query(
      `UPDATE leads SET received_at = received_at + interval '1 day 2 hours', status = 'sold'
       WHERE id IN (SELECT id FROM leads WHERE dealer_group_id = $1 AND sale_id IS NULL ORDER BY external_id LIMIT 10)`,
      [group.groupId],
    );
    await query(
      `DELETE FROM leads WHERE id IN (SELECT id FROM leads WHERE dealer_group_id = $1 ORDER BY received_at LIMIT 8)`,
      [group.groupId],
    );
    await query(
      `DELETE FROM calls WHERE id IN (SELECT id FROM calls WHERE dealer_group_id = $1 ORDER BY started_at LIMIT 12)`,
      [group.groupId],
    );
    await query(
      `UPDATE sales SET sold_at = sold_at - interval '20 hours', sale_price = sale_price + 99.99, dealer_id = $2
       WHERE id IN (SELECT id FROM sales WHERE dealer_group_id = $1 ORDER BY deal_number LIMIT 12)`,
      [group.groupId, group.dealerIds[2]],
    );
    await query(
      `DELETE FROM sales WHERE id IN (SELECT id FROM sales WHERE dealer_group_id = $1 AND dealer_id = $2 ORDER BY id LIMIT 10)`,
      [group.groupId, group.dealerIds[1]],
    );
    // A rolled-back write leaves the rollups as they were.
    await app.database.pool
      .query(`BEGIN; DELETE FROM calls WHERE dealer_group_id = '${group.groupId}'; ROLLBACK`)
      .catch(() => undefined);
    await expectRollupsMatchRows();
    const dashboard = await app.client.graphql(
      `{ dealers(limit: 10) { dealers { id call_count lead_count sale_count } } }`,
      {},
      admin,
    );
    const counts = await query<{ id: string; calls: number; leads: number; sales: number }>(
      `SELECT d.id, (SELECT count(*)::int FROM calls c WHERE c.dealer_id = d.id) AS calls, (SELECT count(*)::int FROM leads l WHERE l.dealer_id = d.id) AS leads,
         (SELECT count(*)::int FROM sales s WHERE s.dealer_id = d.id) AS sales FROM dealers d WHERE d.dealer_group_id = $1`,
      [group.groupId],
    );
    expect(
      Object.fromEntries(
        dashboard.body.data.dealers.dealers.map(
          (row: { id: string; call_count: number; lead_count: number; sale_count: number }) => [
            row.id,
            [row.call_count, row.lead_count, row.sale_count],
          ],
        ),
      ),
    ).toEqual(Object.fromEntries(counts.map((row) => [row.id, [row.calls, row.leads, row.sales]])));
  });

  it('calls stats for any range and filters equal the same stats computed from the calls alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(instant, { nil: undefined }),
        fc.option(instant, { nil: undefined }),
        fc.subarray([...group.dealerIds, NIL]),
        fc.constantFrom(undefined, 'Google Ads', 'Cars.com', 'nobody'),
        async (a, b, dealers, source) => {
          const { response, where, values } = await askStats('/calls/stats', 'c', 'c.started_at', {
            a,
            b,
            dealers,
            source,
          });
          const measures = `count(*)::int AS calls, count(*) FILTER (WHERE c.status = 'answered')::int AS answered,
            count(*) FILTER (WHERE c.status = 'missed')::int AS missed, count(*) FILTER (WHERE c.status = 'voicemail')::int AS voicemail,
            count(*) FILTER (WHERE c.first_time_caller)::int AS first_time_callers,
            round(avg(c.duration_seconds) FILTER (WHERE c.status = 'answered'), 1)::float8 AS average_duration_seconds`;
          const [total] = await query<Row>(`SELECT ${measures} FROM calls c WHERE ${where}`, values);
          const byDay = await query<Row>(
            `SELECT to_char((c.started_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, ${measures} FROM calls c WHERE ${where} GROUP BY 1 ORDER BY 1`,
            values,
          );
          const bySource = await query<Row>(
            `SELECT c.source_id, ${measures} FROM calls c WHERE ${where} GROUP BY 1 ORDER BY 1 NULLS FIRST`,
            values,
          );
          expect(figures([response.body])).toEqual(figures([total!]));
          expect(figures(response.body.by_day, 'day')).toEqual(figures(byDay, 'day'));
          expect(figures(response.body.by_source, 'source_id')).toEqual(figures(bySource, 'source_id'));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('sales stats for any range and rooftops equal the same stats computed from the deals alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(instant, { nil: undefined }),
        fc.option(instant, { nil: undefined }),
        fc.subarray([...group.dealerIds, NIL]),
        async (a, b, dealers) => {
          const { response, where, values } = await askStats('/sales/stats', 'd', 'd.sold_at', { a, b, dealers });
          const measures = `count(*)::int AS units, COALESCE(sum(d.sale_price), 0)::numeric(14,2)::text AS revenue,
            COALESCE(sum(d.front_gross), 0)::numeric(14,2)::text AS front_gross, COALESCE(sum(d.back_gross), 0)::numeric(14,2)::text AS back_gross,
            COALESCE(sum(d.front_gross + d.back_gross), 0)::numeric(14,2)::text AS total_gross, avg(d.sale_price)::numeric(14,2)::text AS average_sale_price,
            avg(d.front_gross)::numeric(14,2)::text AS average_front_gross, avg(d.back_gross)::numeric(14,2)::text AS average_back_gross`;
          const [total] = await query<Row>(`SELECT ${measures} FROM sales d WHERE ${where}`, values);
          const byMonth = await query<Row>(
            `SELECT to_char(date_trunc('month', d.sold_at AT TIME ZONE 'UTC'), 'YYYY-MM') AS month, ${measures} FROM sales d WHERE ${where} GROUP BY 1 ORDER BY 1`,
            values,
          );
          expect({ ...response.body, by_month: undefined }).toEqual({ ...total, by_month: undefined });
          expect(response.body.by_month).toEqual(byMonth);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('lead stats by source for any range and filters equal the same stats computed from the leads alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(instant, { nil: undefined }),
        fc.option(instant, { nil: undefined }),
        fc.subarray([...group.dealerIds, NIL]),
        fc.constantFrom(undefined, 'Google Ads', 'Cars.com', 'nobody'),
        async (a, b, dealers, source) => {
          const { response, where, values } = await askStats('/leads/stats/by-source', 'l', 'l.received_at', {
            a,
            b,
            dealers,
            source,
          });
          const bySource = await query<Row>(
            `WITH counted AS (SELECT l.source_id, count(*)::int AS leads, count(*) FILTER (WHERE l.sale_id IS NOT NULL OR l.status = 'sold')::int AS sold
               FROM leads l WHERE ${where} GROUP BY 1),
             -- A deal counts once for each source of the leads linked to it, where that source's first such lead counts.
             converted AS (SELECT l.source_id, count(*)::int AS sales, sum(d.front_gross + d.back_gross)::numeric(14,2)::text AS gross
               FROM (SELECT DISTINCT ON (l.sale_id, l.source_id) l.* FROM leads l WHERE l.sale_id IS NOT NULL
                 ORDER BY l.sale_id, l.source_id, l.received_at, l.id) l
               JOIN sales d ON d.id = l.sale_id WHERE ${where} GROUP BY 1)
             SELECT c.source_id, c.leads, c.sold, coalesce(v.sales, 0) AS sales, coalesce(v.gross, '0.00') AS gross
             FROM counted c LEFT JOIN converted v ON v.source_id IS NOT DISTINCT FROM c.source_id ORDER BY 1 NULLS FIRST`,
            values,
          );
          const answered = (response.body.sources as Row[])
            .map(({ source_id, leads, sold, sales, gross }) => ({ source_id, leads, sold, sales, gross }))
            .sort((x, y) => String(x.source_id ?? '').localeCompare(String(y.source_id ?? '')));
          expect(answered).toEqual(bySource);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('lead stats by status and by type for any range and filters equal the same stats computed from the leads alone', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(instant, { nil: undefined }),
        fc.option(instant, { nil: undefined }),
        fc.subarray([...group.dealerIds, NIL]),
        fc.array(fc.constantFrom(...LEAD_STATUSES), { maxLength: 3 }),
        fc.array(fc.constantFrom(...LEAD_TYPES), { maxLength: 2 }),
        fc.constantFrom(undefined, 'Cars.com'),
        async (a, b, dealers, statuses, types, source) => {
          const filters = { a, b, dealers, statuses, types, source };
          const counted = (where: string, values: unknown[], key: 'status' | 'type') =>
            query<Row>(
              `SELECT l.${key}::text AS ${key}, count(*)::int AS leads, count(*) FILTER (WHERE l.sale_id IS NOT NULL OR l.status = 'sold')::int AS sold
               FROM leads l WHERE ${where} GROUP BY 1 ORDER BY 1`,
              values,
            );
          const byType = await askStats('/leads/stats/by-type', 'l', 'l.received_at', filters);
          const types_ = await counted(byType.where, byType.values, 'type');
          expect(
            (byType.response.body.types as Row[])
              .map(({ type, leads, sold }) => ({ type, leads, sold }))
              .sort((x, y) => String(x.type).localeCompare(String(y.type))),
          ).toEqual(types_);
          const byStatus = await askStats('/leads/stats/by-status', 'l', 'l.received_at', filters);
          const stages = new Map(
            (await counted(byStatus.where, byStatus.values, 'status')).map((row) => [row.status, row]),
          );
          const body = byStatus.response.body as { total: number; stages: Row[] };
          expect(body.total).toBe([...stages.values()].reduce((sum, row) => sum + Number(row.leads), 0));
          for (const stage of body.stages)
            expect([stage.status, stage.leads, stage.sold]).toEqual([
              stage.status,
              stages.get(stage.status)?.leads ?? 0,
              stages.get(stage.status)?.sold ?? 0,
            ]);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('list totals of calls, leads and deals for any range and filters equal the rows counted', async () => {
    const lists = [
      { path: '/calls?limit=1', alias: 'c', column: 'c.started_at', table: 'calls', sources: true, statuses: true },
      { path: '/leads?limit=1', alias: 'l', column: 'l.received_at', table: 'leads', sources: true, statuses: true },
      { path: '/sales?limit=1', alias: 'd', column: 'd.sold_at', table: 'sales', sources: false, statuses: false },
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.option(instant, { nil: undefined }),
        fc.option(instant, { nil: undefined }),
        fc.subarray([...group.dealerIds, NIL]),
        fc.constantFrom(undefined, 'Google Ads', 'Cars.com', 'nobody'),
        // A status may be named twice: it still counts once.
        fc.array(fc.constantFrom(...STATUSES), { maxLength: 4 }),
        fc.array(fc.constantFrom(...LEAD_STATUSES), { maxLength: 3 }),
        fc.array(fc.constantFrom(...LEAD_TYPES), { maxLength: 2 }),
        async (a, b, dealers, source, callStatuses, leadStatuses, types) => {
          for (const list of lists) {
            const leads = list.table === 'leads';
            const { response, where, values } = await askStats(list.path, list.alias, list.column, {
              a,
              b,
              dealers,
              source: list.sources ? source : undefined,
              statuses: list.statuses ? (leads ? leadStatuses : callStatuses) : [],
              types: leads ? types : [],
            });
            const [counted] = await query<{ total: number }>(
              `SELECT count(*)::int AS total FROM ${list.table} ${list.alias} WHERE ${where}`,
              values,
            );
            expect(response.body.pagination.total, `${list.path} ${where} ${JSON.stringify(values)}`).toBe(
              counted!.total,
            );
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('reads a list total from the rollup when it carries the filters, and counts the rows otherwise', async () => {
    const pageStatements = async (path: string, name: string) => {
      const statements = await recordStatements(app.database.pool, async () => {
        const response = await app.client.get(path, admin);
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        expect(response.body.pagination.total).toBeGreaterThan(0);
      });
      const page = statements.find((text) => text.includes(`/* ${name} */`));
      expect(page, statements.join('\n')).toBeDefined();
      return page!;
    };
    // Whole days from call_daily, the afternoon of the 2nd and the morning of the 6th from the calls.
    const ranged = await pageStatements(
      `/calls?from=2026-03-02T12:00:00Z&to=2026-03-06T05:00:00Z&status=answered,missed&limit=5`,
      'callPage',
    );
    expect(ranged.match(/FROM call_daily r/g)).toHaveLength(1);
    expect(ranged).not.toContain('count(*)');
    for (const [path, name, rollup] of [
      ['/calls?limit=5', 'callPage', 'call_daily'],
      ['/leads?limit=5', 'leadPage', 'lead_daily'],
      ['/sales?limit=5', 'salePage', 'sale_daily'],
    ] as const) {
      const page = await pageStatements(path, name);
      expect(page).toContain(`FROM ${rollup} r`);
      expect(page).not.toContain('count(*)');
    }
    // A filter the rollup does not carry: the calls are counted.
    const counted = await pageStatements('/calls?direction=inbound&limit=5', 'callPage');
    expect(counted).not.toContain('call_daily');
    expect(counted).toContain('count(*)');
  });

  it('reads whole days from lead_daily and lead_deal_daily and only the partial days from the leads', async () => {
    const statements = await recordStatements(app.database.pool, async () => {
      const stats = await app.client.get(
        `/leads/stats/by-source?from=2026-03-02T12:00:00Z&to=2026-03-06T05:00:00Z&dealer_id=${group.dealerIds[1]}`,
        admin,
      );
      expect(stats.status).toBe(200);
      expect(stats.body.sources.length).toBeGreaterThan(0);
    });
    const stats = statements.find((text) => text.includes('/* leadsBySource */'));
    expect(stats, statements.join('\n')).toBeDefined();
    expect(stats!.match(/FROM lead_daily r/g)).toHaveLength(1);
    expect(stats!.match(/FROM lead_deal_daily r/g)).toHaveLength(1);
    // Leads, and the deals their sources first brought, for the afternoon of the 2nd and the morning of the 6th.
    expect(stats!.match(/FROM leads l WHERE/g)).toHaveLength(2);
    expect(stats!.match(/FROM lead_source_deals t/g)).toHaveLength(2);
    const filtered = await recordStatements(app.database.pool, async () => {
      expect((await app.client.get('/leads/stats/by-source?status=lost&from=2026-03-02T12:00:00Z', admin)).status).toBe(
        200,
      );
    });
    // A filter lead_daily does not carry reads the leads for the whole range.
    expect(filtered.find((text) => text.includes('/* leadsBySource */'))).not.toContain('lead_daily');
    expect(filtered.find((text) => text.includes('/* leadsBySource */'))).not.toContain('lead_deal_daily');
    // By status and by type: whole days from lead_stage_daily, statuses and types included.
    const stages = await recordStatements(app.database.pool, async () => {
      for (const path of ['/leads/stats/by-status', '/leads/stats/by-type'])
        expect(
          (
            await app.client.get(
              `${path}?status=new,lost&type=used&from=2026-03-02T12:00:00Z&to=2026-03-06T05:00:00Z`,
              admin,
            )
          ).status,
        ).toBe(200);
    });
    for (const name of ['leadsByStatus', 'leadsByType']) {
      const stats = stages.find((text) => text.includes(`/* ${name} */`));
      expect(stats, stages.join('\n')).toBeDefined();
      expect(stats!.match(/FROM lead_stage_daily r/g)).toHaveLength(1);
      expect(stats!.match(/FROM leads l WHERE/g)).toHaveLength(2);
    }
  });

  it('reads whole days from call_daily and only the partial days from the calls', async () => {
    const statements = await recordStatements(app.database.pool, async () => {
      const stats = await app.client.get(
        `/calls/stats?from=2026-03-02T12:00:00Z&to=2026-03-06T05:00:00Z&dealer_id=${group.dealerIds[0]}`,
        admin,
      );
      expect(stats.status).toBe(200);
      expect(stats.body.calls).toBeGreaterThan(0);
    });
    const stats = statements.find((text) => text.includes('/* callStats */'));
    expect(stats, statements.join('\n')).toBeDefined();
    // One read of call_daily for 3 to 5 March, and two of calls: the afternoon of the 2nd, the morning of the 6th.
    expect(stats!.match(/FROM call_daily r/g)).toHaveLength(1);
    expect(stats!.match(/FROM calls c/g)).toHaveLength(2);

    const filtered = await recordStatements(app.database.pool, async () => {
      expect((await app.client.get('/calls/stats?status=missed&from=2026-03-02T12:00:00Z', admin)).status).toBe(200);
    });
    // A filter call_daily does not carry reads the calls for the whole range.
    expect(filtered.find((text) => text.includes('/* callStats */'))).not.toContain('call_daily');
  });
});

const external = inject('externalDatabase');
if (!external) console.log('skipped: concurrent links to one deal need a PostgreSQL server (DATABASE_URL; CI sets it)');

describe.skipIf(!external)('lead deals under concurrent writers', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ SYNC_SCHEDULER: 'false' });
  });
  afterAll(() => app?.stop());

  it('two transactions linking leads of one source to one deal both commit, and the deal counts at the first lead', async () => {
    const group = await seedGroup(app.database.prisma, { dealers: 1 });
    const seeded = await seedActivity(app.database.prisma, group, {
      leads: [
        { dealer: 0, receivedAt: new Date(START + DAY), rawSource: null },
        { dealer: 0, receivedAt: new Date(START + 3 * DAY), rawSource: null },
      ],
      sales: [{ dealer: 0, soldAt: new Date(START + 5 * DAY), frontGross: '1000.00', backGross: '250.50' }],
    });
    const [early, late] = seeded.leads;
    const [deal] = seeded.sales;
    const first = await app.database.pool.connect();
    const second = await app.database.pool.connect();
    try {
      await first.query('BEGIN');
      await first.query('UPDATE leads SET sale_id = $1 WHERE id = $2', [deal, late]);
      await second.query('BEGIN');
      // Waits for the first transaction, then reads what it committed.
      const linking = second.query('UPDATE leads SET sale_id = $1 WHERE id = $2', [deal, early]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      await first.query('COMMIT');
      await linking;
      await second.query('COMMIT');
    } finally {
      await first.query('ROLLBACK').catch(() => {});
      await second.query('ROLLBACK').catch(() => {});
      first.release();
      second.release();
    }
    const pairs = await app.database.pool.query(
      'SELECT lead_id, received_at, gross::text FROM lead_source_deals WHERE sale_id = $1',
      [deal],
    );
    expect(pairs.rows).toEqual([{ lead_id: early, received_at: new Date(START + DAY), gross: '1250.50' }]);
    const daily = await app.database.pool.query(
      `SELECT day::text, deals, gross::text FROM lead_deal_daily WHERE dealer_group_id = $1 AND dealer_id = $2 AND deals <> 0`,
      [group.groupId, NIL],
    );
    expect(daily.rows).toEqual([{ day: new Date(START + DAY).toISOString().slice(0, 10), deals: 1, gross: '1250.50' }]);
  });
});
