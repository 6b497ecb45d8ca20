// `npm run bench:calls [-- --calls N --duration S --connections C]`: seeds N calls (default 1,000,000),
// with leads and deals, across 50 rooftops into a scratch database (DATABASE_URL's server if set, else
// a throw-away embedded PostgreSQL), then drives GET /calls/stats (last 30 days, and all time), the
// same 30-day stats as hand-written SQL (the floor), and a nested GraphQL dashboard over 50 dealers.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { seedDealerGroup } from '../src/seed/demo';
import { drive, loadOptions, startBenchApp } from './bench-app';
import { resolveAndLink, seedActivity } from '../src/seed/activity';

const {
  size: calls,
  duration,
  connections,
} = loadOptions(
  { name: 'calls', default: '1000000' },
  `
usage: npm run bench:calls -- [--calls N] [--duration S] [--connections C]
  Seeds N calls (default 1000000) with leads and deals across 50 rooftops into a scratch database
  (DATABASE_URL's server if set, else an embedded one), then drives the calls stats and the dashboard
  query for S seconds each (default 10) with C connections (default 10).`,
);

const bench = await startBenchApp();
const { app } = bench;

console.log(`seeding ${calls.toLocaleString('en-US')} calls on ${bench.engine}…`);
let started = Date.now();
const groupId = await seedDealerGroup(app.database.pool, {
  name: 'Benchmark',
  slug: `bench-${Date.now()}`,
  vehicles: 2000,
  seed: 42,
});
for (let index = 0; index < 46; index += 1) {
  await app.database.pool.query(
    `INSERT INTO dealers (id, dealer_group_id, name, code, updated_at) VALUES ($1, $2, $3, $4, now())`,
    [randomUUID(), groupId, `Rooftop ${index + 5}`, `R${index + 5}`],
  );
}
await seedActivity(app.database.pool, {
  dealerGroupId: groupId,
  calls,
  leads: Math.round(calls / 4),
  sales: Math.round(calls / 20),
});
console.log(`seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
started = Date.now();
await resolveAndLink(app.database.prisma, groupId);
await app.database.pool.query('VACUUM ANALYZE');
console.log(`enriched, linked and analysed in ${((Date.now() - started) / 1000).toFixed(1)} s`);

const auth = await bench.grantAndLogin(groupId);
const from = new Date(Date.now() - 30 * 86_400_000).toISOString();

const floorPool = new pg.Pool({ connectionString: app.databaseUrl, max: 10 });
const MEASURES = `count(*)::int AS calls, count(*) FILTER (WHERE c.status = 'answered')::int AS answered, count(*) FILTER (WHERE c.status = 'missed')::int AS missed,
  count(*) FILTER (WHERE c.status = 'voicemail')::int AS voicemail, count(*) FILTER (WHERE c.first_time_caller)::int AS first_time_callers,
  round(avg(c.duration_seconds) FILTER (WHERE c.status = 'answered'), 1)::float8 AS average_duration_seconds`;
const floor = http.createServer(async (_req, res) => {
  const where = 'c.dealer_group_id = $1 AND c.started_at >= $2';
  const [totals, bySource, byDay] = await Promise.all([
    floorPool.query(`SELECT ${MEASURES} FROM calls c WHERE ${where}`, [groupId, from]),
    floorPool.query(
      `SELECT c.source_id, s.name, ${MEASURES} FROM calls c LEFT JOIN sources s ON s.id = c.source_id WHERE ${where} GROUP BY 1, 2`,
      [groupId, from],
    ),
    floorPool.query(
      `SELECT (c.started_at AT TIME ZONE 'UTC')::date AS day, ${MEASURES} FROM calls c WHERE ${where} GROUP BY 1 ORDER BY 1`,
      [groupId, from],
    ),
  ]);
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ ...totals.rows[0], by_source: bySource.rows, by_day: byDay.rows }));
});
await new Promise<void>((resolve) => floor.listen(0, '127.0.0.1', resolve));

const dashboard = JSON.stringify({
  query: `{ dealers(limit: 50) { dealers { name call_count lead_count sale_count
  calls(limit: 5) { started_at status duration_seconds source { name } } leads(limit: 5) { status source { name } } sales(limit: 5) { front_gross back_gross } } } }`,
});

const targets = [
  {
    name: 'floor: calls stats, last 30 days, three hand-written statements',
    options: { url: `http://127.0.0.1:${(floor.address() as { port: number }).port}/` },
  },
  {
    name: 'REST GET /api/v1/calls/stats, last 30 days',
    options: { url: `${app.url}/api/v1/calls/stats?from=${encodeURIComponent(from)}`, headers: auth },
  },
  { name: 'REST GET /api/v1/calls/stats, all time', options: { url: `${app.url}/api/v1/calls/stats`, headers: auth } },
  {
    name: 'GraphQL dashboard: 50 dealers with calls, leads, sales and counts',
    options: {
      url: `${app.url}/graphql`,
      method: 'POST' as const,
      headers: { ...auth, 'content-type': 'application/json' },
      body: dashboard,
    },
  },
];
const results = await drive(targets, connections, duration);

console.log(
  `\n${calls.toLocaleString('en-US')} calls, ${Math.round(calls / 4).toLocaleString('en-US')} leads, ${Math.round(calls / 20).toLocaleString('en-US')} deals, 50 rooftops; ${connections} connections, ${duration} s each; ${bench.engine}\n`,
);
console.log('| path | requests/s | p50 ms | p99 ms | errors |');
console.log('|---|---:|---:|---:|---:|');
for (const row of results)
  console.log(`| ${row.name} | ${row.rps.toFixed(1)} | ${row.p50} | ${row.p99} | ${row.errors} |`);

floor.close();
await floorPool.end();
await bench.stop();
