// Sync throughput: a generated HomeNet-style feed of N rows (default 100,000) loaded through the full
// pipeline (streamed parse, mapping, rules, validation, batched upserts, merge, history, conflicts),
// then the same rows once more (every row unchanged), against the floor: the vehicles the first load
// wrote, COPYed into a copy of the vehicles table with the same indexes (and no foreign keys).
// Run: npm run bench:sync [-- --rows 100000]
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { writeGeneratedFeed } from '../test/helpers/generated-feed';
import { startBenchApp } from './bench-app';
import { startSync } from '../src/modules/syncs/syncs.service';

// The CPU seconds the whole machine ran (user, nice, system, irq, softirq), from /proc/stat; NaN
// where there is none. With PostgreSQL on this machine, what is not this process's is mostly its.
const machineCpuSeconds = () => {
  try {
    const [, user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8')
      .split('\n', 1)[0]!
      .trim()
      .split(/\s+/)
      .map(Number) as number[];
    return (user! + nice! + system! + irq! + softirq!) / 100;
  } catch {
    return Number.NaN;
  }
};

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' } } });
const rows = Number(values.rows);
const bench = await startBenchApp();
const { app } = bench;
const directory = mkdtempSync(path.join(tmpdir(), 'ddp-sync-bench-'));
const file = path.join(directory, 'feed.csv');

try {
  await writeGeneratedFeed(file, rows);
  const megabytes = statSync(file).size / 1e6;

  const db = app.database.prisma;
  const group = await db.dealerGroup.create({ data: { name: 'Bench group', slug: `bench-${Date.now()}` } });
  const dealer = await db.dealer.create({ data: { dealerGroupId: group.id, name: 'Bench rooftop', code: 'B1' } });
  const integration = await db.integration.create({
    data: {
      dealerGroupId: group.id,
      dealerId: dealer.id,
      pluginKey: 'homenet_inventory_csv',
      name: 'Bench feed',
      source: 'homenet',
    },
  });

  // Memory while a run streams the file: the resident set at its peak, and the live heap: what each
  // full collection the run made left (read when the collector reports it, so the run is not slowed by
  // collections forced for the measure; node --expose-gc, as bench:sync runs, only to start each pass
  // from a collected heap).
  // With the embedded engine the database lives in this process too; the figures mean most on a server.
  const megabytesOf = (bytes: number) => Math.round(bytes / 1e6);
  const timed = async () => {
    global.gc?.();
    const before = process.memoryUsage();
    let peak = before;
    let liveHeap = before.heapUsed;
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      if (now.rss > peak.rss) peak = now;
    }, 50);
    let fullCollections = 0;
    const collector = new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (
          (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind !==
          constants.NODE_PERFORMANCE_GC_MAJOR
        )
          continue;
        fullCollections += 1;
        liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed);
      }
    });
    collector.observe({ entryTypes: ['gc'] });
    const cpuBefore = process.cpuUsage();
    const machineBefore = machineCpuSeconds();
    const started = performance.now();
    const { runId, done } = await startSync(app.services, integration.id, 'cli', { file });
    await done;
    const ownCpu = process.cpuUsage(cpuBefore);
    const machineCpu = machineCpuSeconds() - machineBefore;
    clearInterval(sampler);
    collector.disconnect();
    const memory = {
      rssBefore: megabytesOf(before.rss),
      rssPeak: megabytesOf(peak.rss),
      heapBefore: megabytesOf(before.heapUsed),
      liveHeap: fullCollections ? megabytesOf(liveHeap) : null,
      fullCollections,
    };
    const run = await db.syncRun.findUniqueOrThrow({ where: { id: runId } });
    if (run.status !== 'succeeded') throw new Error(`run failed: ${run.error}`);
    const processCpu = (ownCpu.user + ownCpu.system) / 1e6;
    return {
      seconds: (performance.now() - started) / 1000,
      run,
      memory,
      processCpu,
      otherCpu: machineCpu - processCpu,
    };
  };
  const first = await timed();
  // What the first load found to flag: a feed's VINs carry their make's manufacturer code, but for
  // one generated row in a hundred (see the generated feed), so about 1,000 VIN/make conflicts.
  const conflicts = await app.database.pool.query<{ kind: string; count: number }>(
    'SELECT kind, count(*)::int AS count FROM vehicle_conflicts WHERE dealer_id = $1 GROUP BY kind ORDER BY kind',
    [dealer.id],
  );
  const second = await timed();

  // The floor: the rows the first load wrote, COPYed as text into a copy of the vehicles table with
  // its indexes (LIKE … INCLUDING ALL copies indexes and defaults, not foreign keys): what writing
  // these vehicles costs with no parsing, merging or history. The embedded engine's wire bridge
  // does not carry COPY, so the floor needs a PostgreSQL server.
  let copySeconds = Number.NaN;
  if (bench.engine === 'PostgreSQL') {
    const client = await app.database.pool.connect();
    const dump = path.join(directory, 'vehicles.copy');
    try {
      await pipeline(
        client.query(copyTo(`COPY (SELECT * FROM vehicles WHERE dealer_id = '${dealer.id}') TO STDOUT`)),
        createWriteStream(dump),
      );
      // The pool bounds request statements; a COPY of a large file may outrun that bound.
      await client.query('SET statement_timeout = 0');
      await client.query('CREATE TABLE vehicles_floor (LIKE vehicles INCLUDING ALL)');
      const started = performance.now();
      await pipeline(createReadStream(dump), client.query(copyFrom('COPY vehicles_floor FROM STDIN')));
      copySeconds = (performance.now() - started) / 1000;
      await client.query('DROP TABLE vehicles_floor');
      await client.query('RESET statement_timeout');
    } finally {
      client.release();
    }
  }

  // The goals of the ingestion issue, in rows per second of the whole pipeline.
  const goals = { first: 50_000, unchanged: 100_000 };
  const perSecond = (seconds: number) => rows / seconds;
  const rate = (seconds: number) => Math.round(perSecond(seconds)).toLocaleString('en-US');
  const ofFloor = (seconds: number) => (Number.isFinite(copySeconds) ? `${(copySeconds / seconds).toFixed(2)}` : 'n/a');
  const verdict = (seconds: number, goal: number) =>
    `${perSecond(seconds) >= goal ? 'pass' : 'FAIL'} (goal ${goal.toLocaleString('en-US')})`;
  console.log(
    `\nSync benchmark on ${bench.engine}: ${rows.toLocaleString('en-US')} rows (${megabytes.toFixed(1)} MB)\n`,
  );
  console.log('| pass | seconds | rows/s | of floor | goal | created | updated | unchanged |');
  console.log('|---|---:|---:|---:|---|---:|---:|---:|');
  console.log(
    `| first load (all new) | ${first.seconds.toFixed(1)} | ${rate(first.seconds)} | ${ofFloor(first.seconds)} | ${verdict(first.seconds, goals.first)} | ${first.run.created} | ${first.run.updated} | ${first.run.unchanged} |`,
  );
  console.log(
    `| same file again (all unchanged) | ${second.seconds.toFixed(1)} | ${rate(second.seconds)} | ${ofFloor(second.seconds)} | ${verdict(second.seconds, goals.unchanged)} | ${second.run.created} | ${second.run.updated} | ${second.run.unchanged} |`,
  );
  if (Number.isFinite(copySeconds))
    console.log(
      `| floor: COPY of the loaded vehicles into a copy of the vehicles table with its indexes | ${copySeconds.toFixed(1)} | ${rate(copySeconds)} | 1.00 | | | | |`,
    );
  else console.log('\n(the COPY floor needs a PostgreSQL server: run with DATABASE_URL set)');
  console.log(
    `\nconflicts the first load found: ${conflicts.rows.map((row) => `${row.count.toLocaleString('en-US')} ${row.kind}`).join(', ') || 'none'}`,
  );
  console.log('');
  for (const [label, pass] of [
    ['first load', first],
    ['same file again', second],
  ] as const) {
    console.log(
      `CPU, ${label}: this process ${pass.processCpu.toFixed(1)} s` +
        (Number.isFinite(pass.otherCpu)
          ? `, the rest of the machine (the database, when it runs here) ${pass.otherCpu.toFixed(1)} s`
          : '') +
        ` over ${pass.seconds.toFixed(1)} s`,
    );
    console.log(
      `memory, ${label}: resident ${pass.memory.rssBefore} MB before, ${pass.memory.rssPeak} MB at peak (a ${megabytes.toFixed(0)} MB file); ` +
        (pass.memory.liveHeap === null
          ? `heap ${pass.memory.heapBefore} MB before; no full collection during the run`
          : `live heap ${pass.memory.heapBefore} MB before, at most ${pass.memory.liveHeap} MB after the run's ${pass.memory.fullCollections} full collection${pass.memory.fullCollections === 1 ? '' : 's'}`),
    );
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
  await bench.stop();
}
