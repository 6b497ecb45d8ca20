// `npm run bench [-- --vehicles N --duration S --connections C]`: seeds N vehicles (default 100,000)
// into a scratch database (DATABASE_URL's server if set, else a throw-away embedded PostgreSQL),
// then drives the same filtered, sorted page of 25 through REST, GraphQL and, as the floor,
// one hand-written SQL query over plain node:http + pg. Prints requests/s, p50, p99 and the ratio.
import http from 'node:http';
import pg from 'pg';
import { seedDealerGroup } from '../src/seed/demo';
import { drive, loadOptions, startBenchApp } from './bench-app';

const {
  size: vehicles,
  duration,
  connections,
} = loadOptions(
  { name: 'vehicles', default: '100000' },
  `
usage: npm run bench -- [--vehicles N] [--duration S] [--connections C]
  Seeds N vehicles (default 100000) into a scratch database (DATABASE_URL's server if set, else an embedded
  one), then drives the same inventory page through the hand-written SQL floor, REST and GraphQL for S
  seconds each (default 10) with C connections (default 10), and the conflicts list.`,
);

const bench = await startBenchApp();
const { app } = bench;
console.log(`seeding ${vehicles.toLocaleString('en-US')} vehicles on ${bench.engine}…`);
const seedStarted = Date.now();
const groupId = await seedDealerGroup(app.database.pool, {
  name: 'Benchmark',
  slug: `bench-${Date.now()}`,
  vehicles,
  seed: 42,
});
// A freshly bulk-loaded table: vacuum as autovacuum soon would, so index-only scans can apply.
await app.database.pool.query('VACUUM ANALYZE');
console.log(`seeded in ${((Date.now() - seedStarted) / 1000).toFixed(1)} s`);
const auth = await bench.grantAndLogin(groupId);

// The floor: the same page as one hand-written statement, no GraphQL, no ORM.
const floorPool = new pg.Pool({ connectionString: app.databaseUrl, max: 10 });
const DAYS_ON_LOT = `((COALESCE(v.sold_at, now()) AT TIME ZONE 'UTC')::date - v.date_in_stock)`;
const FLOOR_SQL = `WITH page AS (
    SELECT v.id, ${DAYS_ON_LOT} AS days_on_lot, count(*) OVER () AS total FROM vehicles v
    WHERE v.dealer_group_id = $1 AND v.make = 'toyota' AND v.status = 'available'
    ORDER BY days_on_lot DESC, v.id LIMIT 25)
  SELECT v.id, v.vin, v.stock_number, v.year, v.make, v.model, v.trim, v.body_style, v.condition, v.mileage,
    v.exterior_color, v.interior_color, v.msrp::text, v.price::text, v.internet_price::text, v.status, v.date_in_stock, v.sold_at, v.photos,
    v.dealer_id, v.created_at, v.updated_at, page.days_on_lot, d.name AS dealer_name, page.total
  FROM page JOIN vehicles v ON v.id = page.id JOIN dealers d ON d.id = v.dealer_id
  ORDER BY page.days_on_lot DESC, v.id`;
const floor = http.createServer(async (_req, res) => {
  const { rows } = await floorPool.query(FLOOR_SQL, [groupId]);
  res
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ vehicles: rows, pagination: { total: Number(rows[0]?.total ?? 0), limit: 25, offset: 0 } }));
});
await new Promise<void>((resolve) => floor.listen(0, '127.0.0.1', resolve));
const floorUrl = `http://127.0.0.1:${(floor.address() as { port: number }).port}/`;

const graphqlBody = JSON.stringify({
  query: `query Page($make: [String!], $status: [String!]) { inventory(make: $make, status: $status, sort: "-days_on_lot", limit: 25) {
    pagination { total limit offset }
    vehicles { id vin stock_number year make model trim body_style condition mileage exterior_color interior_color msrp price internet_price
      status days_on_lot date_in_stock sold_at photos dealer_id created_at updated_at dealer { id name } } } }`,
  variables: { make: ['Toyota'], status: ['available'] },
});

const targets = [
  { name: 'floor: node:http + pg, one SQL statement', options: { url: floorUrl } },
  {
    name: 'REST GET /api/v1/inventory',
    options: {
      url: `${app.url}/api/v1/inventory?make=Toyota&status=available&sort=-days_on_lot&limit=25`,
      headers: auth,
    },
  },
  {
    name: 'GraphQL inventory query',
    options: {
      url: `${app.url}/graphql`,
      method: 'POST' as const,
      headers: { ...auth, 'content-type': 'application/json' },
      body: graphqlBody,
    },
  },
];

const results = await drive(targets, connections, duration);

const floorRps = results[0]!.rps;
console.log(
  `\n${vehicles.toLocaleString('en-US')} vehicles; filtered (make, status), sorted (-days_on_lot) page of 25 with its dealer and total; ${connections} connections, ${duration} s each; ${bench.engine}\n`,
);
console.log('| path | requests/s | p50 ms | p99 ms | vs floor | errors |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const row of results) {
  console.log(
    `| ${row.name} | ${row.rps.toFixed(0)} | ${row.p50} | ${row.p99} | ${(row.rps / floorRps).toFixed(2)} | ${row.errors} |`,
  );
}

// The conflicts and discrepancies list over the same vehicles (kept current by the writers, read through an index).
const {
  rows: [conflicts],
} = await app.database.pool.query<{ total: number }>(
  'SELECT count(*)::int AS total FROM vehicle_conflicts WHERE dealer_group_id = $1',
  [groupId],
);
const [conflictRow] = await drive(
  [
    {
      name: 'REST GET /api/v1/multi-source/conflicts',
      options: { url: `${app.url}/api/v1/multi-source/conflicts?limit=50`, headers: auth },
    },
  ],
  connections,
  duration,
);
console.log(
  `\nconflicts list (page of 50 of ${conflicts!.total.toLocaleString('en-US')} conflicts and discrepancies): ${conflictRow!.rps.toFixed(0)} requests/s, p50 ${conflictRow!.p50} ms, p99 ${conflictRow!.p99} ms, ${conflictRow!.errors} errors`,
);

floor.close();
await floorPool.end();
await bench.stop();
