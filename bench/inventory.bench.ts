// `npm run bench [-- --vehicles N --duration S --connections C --shapes 1,3,conflicts]`: seeds N
// vehicles (default 100,000) into a scratch database (DATABASE_URL's server if set, else a throw-away
// embedded PostgreSQL), then asks five inventory questions (a page of 25 with the dealer's name and
// the exact total) of four targets each: the best hand-written SQL behind plain node:http + pg,
// PostGraphile 5 over the same database (a child process), our REST and our GraphQL. Then the
// conflicts list: the best SQL, the product's former query, and our REST. Prints requests/s, p50,
// p99, errors and the ratios per question, then the goals with pass or fail.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { seedDealerGroup } from '../src/seed/demo';
import { ask, drive, loadOptions, startBenchApp, type BenchRow, type BenchTarget } from './bench-app';
import { GRAPHQL_QUERY, inventoryShapes, PAGE, SHAPE_KEYS, type Shape, type Statement } from './inventory-shapes';
import { CONFLICTS_PAGE, conflictsStatements } from './conflicts-sql';

const USAGE = `
usage: npm run bench -- [--vehicles N] [--duration S] [--connections C] [--shapes 1,2,3,4,5,conflicts]
  Seeds N vehicles (default 100000) into a scratch database (DATABASE_URL's server if set, else an embedded
  one), then drives each inventory question for S seconds (default 10) with C connections (default 10)
  against the best hand-written SQL, PostGraphile 5, our REST and our GraphQL, and the conflicts list
  against the best SQL and the former product query. --shapes picks the questions (default all):
  1 filter and sort, 2 free text, 3 price range, 4 deep page, 5 updated since, conflicts.`;

const {
  size: vehicles,
  duration,
  connections,
  extra,
} = loadOptions({ name: 'vehicles', default: '100000' }, USAGE, {
  shapes: { default: [...SHAPE_KEYS, 'conflicts'].join(',') },
});
const picked = new Set(extra.shapes.split(',').map((key) => key.trim()));
for (const key of picked) {
  if (![...SHAPE_KEYS, 'conflicts'].includes(key)) {
    console.error(`--shapes: unknown "${key}"; use ${SHAPE_KEYS.join(', ')} or conflicts`);
    process.exit(2);
  }
}
const warmup = Math.max(1, Math.round(duration / 5));

const GOAL_VS_PEER = 1.5;
const GOAL_VS_BEST = 0.8;
const GOAL_VS_FORMER = 20;
/** Node time per request at most this many times PostGraphile's (main thread CPU ms per request). */
const GOAL_NODE_TIME = 1.5;
/** Asks for an answer computed afresh, not one the answer cache kept; and how its rows are named. */
const FRESH = { 'cache-control': 'no-cache' };
const COMPUTED = 'every answer computed (no-cache): ';

const bench = await startBenchApp();
const { app } = bench;
const bestPool = new pg.Pool({ connectionString: app.databaseUrl, max: 10 });
let best: http.Server | undefined;
let peer: ChildProcess | undefined;

/** Answers as the benchmark compares them: the total and the page's VINs in order. */
interface Answer {
  total: number;
  vins: string[];
}

type Reader = (body: unknown) => Answer;
const read = {
  rest: (body: unknown): Answer => {
    const page = body as { vehicles: Array<{ vin: string }>; pagination: { total: number } };
    return { total: Number(page.pagination.total), vins: page.vehicles.map((vehicle) => vehicle.vin) };
  },
  graphql: (body: unknown): Answer => {
    const answer = body as { data?: { inventory: unknown }; errors?: Array<{ message: string }> };
    if (!answer.data) throw new Error(answer.errors?.map((error) => error.message).join('; ') ?? 'no data');
    return read.rest(answer.data.inventory);
  },
  postgraphile: (body: unknown): Answer => {
    const answer = body as {
      data?: { allVehicles: { totalCount: number; nodes: Array<{ vin: string }> } };
      errors?: Array<{ message: string }>;
    };
    if (!answer.data) throw new Error(answer.errors?.map((error) => error.message).join('; ') ?? 'no data');
    return { total: answer.data.allVehicles.totalCount, vins: answer.data.allVehicles.nodes.map((node) => node.vin) };
  },
} satisfies Record<string, Reader>;

/** How an answer differs from the reference, or null when it is the same total and the same page. */
function difference(got: Answer, want: Answer): string | null {
  const problems: string[] = [];
  if (got.total !== want.total) problems.push(`total ${got.total} instead of ${want.total}`);
  const at = want.vins.findIndex((vin, index) => got.vins[index] !== vin);
  if (at === 0) problems.push(`first VIN ${got.vins[0] ?? 'none'} instead of ${want.vins[0]}`);
  else if (at > 0) problems.push(`same first VIN, page differs from row ${at + 1}`);
  else if (got.vins.length !== want.vins.length)
    problems.push(`${got.vins.length} rows instead of ${want.vins.length}`);
  return problems.length ? problems.join('; ') : null;
}

interface Checked {
  target: BenchTarget;
  /** How its answer differs from the reference, or null. */
  differs: string | null;
  /** It answered 2xx, so it can be driven. */
  answered: boolean;
}

/** Asks each target once and compares its answer with the reference before it is driven. */
async function check(targets: Array<{ target: BenchTarget; read: Reader }>, want: Answer): Promise<Checked[]> {
  const checked: Checked[] = [];
  for (const { target, read: reader } of targets) {
    const response = await ask(target);
    if (!response.ok) {
      const text = (await response.text()).slice(0, 200);
      checked.push({ target, differs: `answered ${response.status}: ${text}`, answered: false });
      continue;
    }
    let differs: string | null;
    try {
      differs = difference(reader(await response.json()), want);
    } catch (error) {
      differs = `no answer: ${(error as Error).message}`;
    }
    checked.push({ target, differs, answered: true });
  }
  return checked;
}

/** Drives the targets that answered, in order. */
const driveAnswered = (checked: Checked[]) =>
  drive(
    checked.filter(({ answered }) => answered).map(({ target }) => target),
    connections,
    duration,
    { warmup },
  );

const ratio = (rps: number, base: number | undefined) => (base ? (rps / base).toFixed(2) : '–');
const verdict = (rps: number, base: number | undefined, goal: number, differs: string | null) => {
  if (!base) return '–';
  const value = rps / base;
  return `${value.toFixed(2)} ${differs ? 'fail (answer differs)' : value >= goal ? 'pass' : 'fail'}`;
};

function printRows(rows: BenchRow[], bases: { best?: number; peer?: number; former?: number }) {
  const formerColumn = bases.former !== undefined;
  console.log(
    `| target | requests/s | p50 ms | p99 ms | errors | vs best SQL | ${formerColumn ? 'vs former' : 'vs PostGraphile'} | Node ms/request |`,
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    console.log(
      `| ${row.name} | ${row.rps.toFixed(1)} | ${row.p50} | ${row.p99} | ${row.errors} | ${ratio(row.rps, bases.best)} | ${ratio(row.rps, formerColumn ? bases.former : bases.peer)} | ${row.cpuPerRequest === null ? '–' : row.cpuPerRequest.toFixed(2)} |`,
    );
  }
}

/** One question: reference answer, check every target, drive each, print its table; returns its summary line. */
async function runShape(
  shape: Shape,
  urls: { bestUrl: string; peerUrl: string | null; auth: Record<string, string> },
): Promise<string> {
  const [count, page] = await Promise.all([
    app.database.pool.query<{ total: number }>(shape.reference.count, shape.reference.values),
    app.database.pool.query<{ vin: string }>(shape.reference.page, shape.reference.values),
  ]);
  const want = { total: count.rows[0]!.total, vins: page.rows.map((row) => row.vin) };
  const restQuery = new URLSearchParams({ ...shape.rest, limit: String(PAGE) }).toString();
  const json = { 'content-type': 'application/json' };
  const targets = [
    {
      target: {
        name: 'best SQL: node:http + pg, count and page in parallel',
        options: { url: `${urls.bestUrl}/inventory/${shape.key}` },
      },
      read: read.rest,
    },
    ...(urls.peerUrl
      ? [
          {
            target: {
              name: 'PostGraphile 5 (child process): allVehicles { totalCount nodes { … dealerByDealerIdAndDealerGroupId { rowId name } } }',
              options: {
                url: urls.peerUrl,
                method: 'POST' as const,
                headers: json,
                body: JSON.stringify({ query: shape.postgraphile.query, variables: shape.postgraphile.variables }),
              },
              servedBy: peer?.pid,
            },
            read: read.postgraphile,
          },
        ]
      : []),
    // Ours twice: as callers get it (a repeated question is answered from the answer cache until the
    // group's vehicles change), and with every answer computed (`Cache-Control: no-cache`).
    ...[{}, FRESH].flatMap((fresh) => [
      {
        target: {
          name: `${fresh === FRESH ? COMPUTED : ''}REST GET /api/v1/inventory?${restQuery}`,
          options: { url: `${app.url}/api/v1/inventory?${restQuery}`, headers: { ...urls.auth, ...fresh } },
        },
        read: read.rest,
      },
      {
        target: {
          name: `${fresh === FRESH ? COMPUTED : ''}GraphQL inventory(${Object.keys(shape.graphql).join(', ')}, limit: ${PAGE})`,
          options: {
            url: `${app.url}/graphql`,
            method: 'POST' as const,
            headers: { ...urls.auth, ...json, ...fresh },
            body: JSON.stringify({ query: GRAPHQL_QUERY, variables: shape.graphql }),
          },
        },
        read: read.graphql,
      },
    ]),
  ];
  const checked = await check(targets, want);
  const rows = await driveAnswered(checked);
  const row = (prefix: string) => rows.find((candidate) => candidate.name.startsWith(prefix));
  const differs = (prefix: string) => checked.find(({ target }) => target.name.startsWith(prefix))?.differs ?? null;
  const bestRps = row('best SQL')?.rps;
  const peerRps = row('PostGraphile')?.rps;

  console.log(
    `\nquestion ${shape.key}: ${shape.title}; ${want.total.toLocaleString('en-US')} match, page of ${PAGE} at offset ${shape.offset.toLocaleString('en-US')} with the dealer's name and the total; ${vehicles.toLocaleString('en-US')} vehicles, ${connections} connections, ${duration} s each; ${bench.engine}\n`,
  );
  printRows(rows, { best: bestRps, peer: peerRps });
  if (!urls.peerUrl)
    console.log('| warning: no PostGraphile (see above): no row and no ratio against it | | | | | | |');
  printWarnings(checked, (target) => (target.name.startsWith('PostGraphile') ? shape.postgraphile.note : null));
  console.log(`\nbest SQL: ${shape.bestNote}.`);
  if (urls.peerUrl) console.log(`PostGraphile: ${shape.postgraphile.note}.`);
  // Node time: ours over PostGraphile's, each its main thread's CPU per request (lower is better).
  const peerCpu = row('PostGraphile')?.cpuPerRequest ?? null;
  const nodeTime = (prefix: string) => {
    const ours = row(prefix)?.cpuPerRequest ?? null;
    if (ours === null || !peerCpu) return '–';
    const value = ours / peerCpu;
    return `${value.toFixed(2)} ${value <= GOAL_NODE_TIME ? 'pass' : 'fail'}`;
  };
  const line = (prefix: string, label: string) => {
    const rest = row(`${prefix}REST`)?.rps ?? 0;
    const graphql = row(`${prefix}GraphQL`)?.rps ?? 0;
    return `| ${shape.key}. ${label} | ${verdict(rest, peerRps, GOAL_VS_PEER, differs(`${prefix}REST`))} | ${verdict(graphql, peerRps, GOAL_VS_PEER, differs(`${prefix}GraphQL`))} | ${verdict(rest, bestRps, GOAL_VS_BEST, differs(`${prefix}REST`))} | ${verdict(graphql, bestRps, GOAL_VS_BEST, differs(`${prefix}GraphQL`))} | ${nodeTime(`${prefix}REST`)} | ${nodeTime(`${prefix}GraphQL`)} |`;
  };
  return `${line('', shape.label)}\n${line(COMPUTED, `${shape.label}, every answer computed`)}`;
}

/** A warning row under the table for each target whose answer is not the reference's, with why if known. */
function printWarnings(checked: Checked[], why: (target: BenchTarget) => string | null = () => null) {
  for (const { target, differs } of checked) {
    if (!differs) continue;
    const reason = why(target);
    console.log(
      `| warning: ${target.name.split(/[:(]/)[0]!.trim()} answers differently: ${differs}${reason ? ` (${reason})` : ''} | | | | | | |`,
    );
  }
}

/** The conflicts list: best SQL, the former product query and our REST; returns its goal line. */
async function runConflicts(groupId: string, urls: { bestUrl: string; auth: Record<string, string> }): Promise<string> {
  type Page = { conflicts?: ConflictRow[]; items?: ConflictRow[]; pagination: { total: number } };
  type ConflictRow = { vehicle_id: string; field: string };
  // Rows with the same instant, vehicle and field may come in either order of kind: compare vehicle and field.
  const readConflicts = (body: unknown): Answer => {
    const page = body as Page;
    const items = page.conflicts ?? page.items ?? [];
    return { total: Number(page.pagination.total), vins: items.map((item) => `${item.vehicle_id}/${item.field}`) };
  };
  const { rows: reference } = await app.database.pool.query<{ key: string; total: number }>(
    `SELECT vehicle_id::text || '/' || field AS key, count(*) OVER ()::int AS total FROM vehicle_conflicts
      WHERE dealer_group_id = $1 ORDER BY detected_at DESC, vehicle_id, field LIMIT ${CONFLICTS_PAGE}`,
    [groupId],
  );
  const want = { total: reference[0]?.total ?? 0, vins: reference.map((row) => row.key) };
  const checked = await check(
    [
      {
        target: {
          name: 'best SQL: node:http + pg, index-ordered page of 50, then the VINs',
          options: { url: `${urls.bestUrl}/conflicts/best` },
        },
        read: readConflicts,
      },
      {
        target: {
          name: 'former product query (= ANY, vehicles joined before the sort) over node:http + pg',
          options: { url: `${urls.bestUrl}/conflicts/former` },
        },
        read: readConflicts,
      },
      {
        target: {
          name: `REST GET /api/v1/multi-source/conflicts?limit=${CONFLICTS_PAGE}`,
          options: { url: `${app.url}/api/v1/multi-source/conflicts?limit=${CONFLICTS_PAGE}`, headers: urls.auth },
        },
        read: readConflicts,
      },
    ],
    want,
  );
  const rows = await driveAnswered(checked);
  console.log(
    `\nconflicts list: page of ${CONFLICTS_PAGE} of ${want.total.toLocaleString('en-US')} conflicts and discrepancies; ${connections} connections, ${duration} s each\n`,
  );
  const rps = (prefix: string) => rows.find((row) => row.name.startsWith(prefix))?.rps ?? 0;
  printRows(rows, { best: rps('best SQL'), former: rps('former') });
  printWarnings(checked);
  return `conflicts list: REST ÷ former query ${verdict(rps('REST'), rps('former'), GOAL_VS_FORMER, checked[2]!.differs)} (REST ÷ best SQL ${ratio(rps('REST'), rps('best SQL'))})`;
}

/**
 * PostGraphile in a child process: its own event loop and heap, so neither our server nor the load
 * generator shares them, and its Node 22 polyfill stays out of this process. Resolves to its GraphQL
 * URL, or null (with the reason) if it does not start.
 */
function startPostGraphile(databaseUrl: string): Promise<string | null> {
  const script = fileURLToPath(new URL('./postgraphile-server.ts', import.meta.url));
  const root = fileURLToPath(new URL('..', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: 'production' },
    // Its errors, if any, show on ours.
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  peer = child;
  let output = '';
  let settled = false;
  return new Promise((resolve) => {
    const give = (url: string | null, reason?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (reason) console.log(`PostGraphile ${reason}; the questions run without it`);
      resolve(url);
    };
    const timer = setTimeout(() => give(null, 'did not start within 60 s'), 60_000);
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const listening = /listening (\S+)/.exec(output);
      if (listening) give(listening[1]!);
    });
    child.on('exit', (code) => give(null, `exited with ${code}`));
  });
}

try {
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

  // updated_since: the instant that leaves the 3% most recently changed vehicles (3,000 of 100,000).
  const {
    rows: [recent],
  } = await app.database.pool.query<{ updated_at: Date }>(
    'SELECT updated_at FROM vehicles WHERE dealer_group_id = $1 ORDER BY updated_at DESC OFFSET $2 LIMIT 1',
    [groupId, Math.max(0, Math.round(vehicles * 0.03) - 1)],
  );
  const shapes = inventoryShapes(groupId, recent!.updated_at, Math.min(10_000, Math.floor(vehicles / 2))).filter(
    (shape) => picked.has(shape.key),
  );
  const conflicts = conflictsStatements(groupId);

  // The best SQL: count and page as two statements in parallel, behind plain node:http + pg.
  // Named statements are prepared once per connection; the embedded engine's connections share one
  // session, where the names would collide, so there each is sent unnamed.
  const prepared = bench.engine === 'PostgreSQL';
  const query = ({ text, values, ...named }: Statement | Omit<Statement, 'name'>) =>
    bestPool.query(prepared && 'name' in named ? { name: named.name, text, values } : { text, values });
  const answers = new Map<string, () => Promise<unknown>>();
  for (const shape of shapes) {
    answers.set(`/inventory/${shape.key}`, async () => {
      const [count, page] = await Promise.all([query(shape.best.count), query(shape.best.page)]);
      const totals = count.rows[0] as Record<string, unknown>;
      const { fallback } = shape.best;
      const rows = fallback?.when(totals, page.rows) ? (await query(fallback.statement)).rows : page.rows;
      return {
        vehicles: rows.map(({ dealer_name, ...vehicle }) => ({
          ...vehicle,
          dealer: { id: vehicle.dealer_id, name: dealer_name },
        })),
        pagination: { total: totals.total, limit: PAGE, offset: shape.offset },
      };
    });
  }
  const conflictsAnswer =
    (statements: { count: Omit<Statement, 'name'>; page: Omit<Statement, 'name'> }) => async () => {
      const [count, page] = await Promise.all([query(statements.count), query(statements.page)]);
      return { conflicts: page.rows, pagination: { total: count.rows[0].total, limit: CONFLICTS_PAGE, offset: 0 } };
    };
  answers.set('/conflicts/best', conflictsAnswer(conflicts.best));
  answers.set('/conflicts/former', conflictsAnswer(conflicts.former));
  best = http.createServer((req, res) => {
    const answer = answers.get(req.url ?? '');
    if (!answer) return void res.writeHead(404).end();
    answer().then(
      (body) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body)),
      (error: Error) => res.writeHead(500, { 'content-type': 'text/plain' }).end(error.message),
    );
  });
  await new Promise<void>((resolve) => best!.listen(0, '127.0.0.1', resolve));
  const bestUrl = `http://127.0.0.1:${(best.address() as { port: number }).port}`;

  // PostGraphile prepares its statements by name, which the embedded engine's shared session cannot hold.
  let peerUrl: string | null = null;
  if (shapes.length && bench.engine === 'PostgreSQL') peerUrl = await startPostGraphile(app.databaseUrl);
  else if (shapes.length)
    console.log('PostGraphile needs a PostgreSQL server (DATABASE_URL); the questions run without it');

  const summary: string[] = [];
  for (const shape of shapes) summary.push(await runShape(shape, { bestUrl, peerUrl, auth }));
  const conflictsGoal = picked.has('conflicts') ? await runConflicts(groupId, { bestUrl, auth }) : null;

  console.log(
    `\ngoals: REST and GraphQL at least ${GOAL_VS_PEER}× PostGraphile and ${GOAL_VS_BEST}× the best SQL on each question, their Node time per request at most ${GOAL_NODE_TIME}× PostGraphile's; the conflicts list at least ${GOAL_VS_FORMER}× the former query\n`,
  );
  if (summary.length) {
    console.log(
      "| question | REST ÷ PostGraphile | GraphQL ÷ PostGraphile | REST ÷ best SQL | GraphQL ÷ best SQL | REST Node time ÷ PostGraphile's | GraphQL Node time ÷ PostGraphile's |",
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const line of summary) console.log(line);
  }
  if (conflictsGoal) console.log(`\n${conflictsGoal}`);
} finally {
  peer?.kill('SIGTERM');
  best?.close();
  await bestPool.end();
  await bench.stop();
}
