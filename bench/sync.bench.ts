// Sync throughput: a generated HomeNet-style feed of N rows (default 100,000) loaded through the full
// pipeline (streamed parse, mapping, rules, validation, batched upserts, merge, history), then the
// same rows once more (every row unchanged), against the floor: a plain COPY of the same rows into
// a bare table. Run: npm run bench:sync [-- --rows 100000]
import { createReadStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pipeline } from 'node:stream/promises';
import { from as copyFrom } from 'pg-copy-streams';
import { writeGeneratedFeed } from '../test/helpers/generated-feed';
import { startBenchApp } from './bench-app';
import { startSync } from '../src/modules/syncs/syncs.service';

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

  // Memory while a run streams the file: the resident set at its peak, and the live heap (what is
  // left after a full collection, sampled every 2 s; run with node --expose-gc, as bench:sync does).
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
    const collector = global.gc
      ? setInterval(() => {
          global.gc!();
          liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed);
        }, 2000)
      : null;
    const started = performance.now();
    const { runId, done } = await startSync(app.services, integration.id, 'cli', { file });
    await done;
    clearInterval(sampler);
    if (collector) clearInterval(collector);
    const memory = {
      rssBefore: megabytesOf(before.rss),
      rssPeak: megabytesOf(peak.rss),
      heapBefore: megabytesOf(before.heapUsed),
      liveHeap: global.gc ? megabytesOf(liveHeap) : null,
    };
    const run = await db.syncRun.findUniqueOrThrow({ where: { id: runId } });
    if (run.status !== 'succeeded') throw new Error(`run failed: ${run.error}`);
    return { seconds: (performance.now() - started) / 1000, run, memory };
  };
  const first = await timed();
  const second = await timed();

  // The floor: the same rows, COPYed as text into a table with no indexes, keys or logic. The
  // embedded engine's wire bridge does not carry COPY, so the floor needs a PostgreSQL server.
  const client = await app.database.pool.connect();
  let copySeconds = Number.NaN;
  if (bench.engine === 'PostgreSQL')
    try {
      await client.query(
        'CREATE TEMP TABLE feed_copy (vin text, stock text, type text, year int, make text, model text, trim text, body text, miles int, price text, msrp text, ext text, int text, date_in_stock date, images text)',
      );
      const started = performance.now();
      await pipeline(
        createReadStream(file),
        client.query(copyFrom('COPY feed_copy FROM STDIN WITH (FORMAT csv, HEADER true)')),
      );
      copySeconds = (performance.now() - started) / 1000;
    } finally {
      client.release();
    }
  else client.release();

  const rate = (seconds: number) => Math.round(rows / seconds).toLocaleString('en-US');
  console.log(
    `\nSync benchmark on ${bench.engine}: ${rows.toLocaleString('en-US')} rows (${megabytes.toFixed(1)} MB)\n`,
  );
  console.log('| pass | seconds | rows/s | created | updated | unchanged |');
  console.log('|---|---|---|---|---|---|');
  console.log(
    `| first load (all new) | ${first.seconds.toFixed(1)} | ${rate(first.seconds)} | ${first.run.created} | ${first.run.updated} | ${first.run.unchanged} |`,
  );
  console.log(
    `| same file again (all unchanged) | ${second.seconds.toFixed(1)} | ${rate(second.seconds)} | ${second.run.created} | ${second.run.updated} | ${second.run.unchanged} |`,
  );
  if (Number.isFinite(copySeconds)) {
    console.log(`| floor: plain COPY into a bare table | ${copySeconds.toFixed(1)} | ${rate(copySeconds)} | | | |`);
    console.log(`\nfirst load runs at ${(copySeconds / first.seconds).toFixed(2)} of the COPY floor`);
  } else console.log('\n(the COPY floor needs a PostgreSQL server: run with DATABASE_URL set)');
  for (const [label, pass] of [
    ['first load', first],
    ['same file again', second],
  ] as const) {
    console.log(
      `memory, ${label}: resident ${pass.memory.rssBefore} MB before, ${pass.memory.rssPeak} MB at peak (a ${megabytes.toFixed(0)} MB file); ` +
        (pass.memory.liveHeap === null
          ? 'run with node --expose-gc for the live heap'
          : `live heap ${pass.memory.heapBefore} MB before, at most ${pass.memory.liveHeap} MB during the run`),
    );
  }
} finally {
  rmSync(directory, { recursive: true, force: true });
  await bench.stop();
}
