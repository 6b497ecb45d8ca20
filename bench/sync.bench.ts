// Sync throughput: a generated HomeNet-style feed of N rows (default 100,000) loaded through the full
// pipeline (streamed parse, mapping, rules, validation, batched upserts, merge, history), then the
// same rows once more (every row unchanged), against the floor: a plain COPY of the same rows into
// a bare table. Run: npm run bench:sync [-- --rows 100000]
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { from as copyFrom } from 'pg-copy-streams';
import { withCheckDigit } from '../src/modules/inventory/vin';
import { startBenchApp } from './bench-app';

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' } } });
const rows = Number(values.rows);
const bench = await startBenchApp();
const { app } = bench;
const directory = mkdtempSync(path.join(tmpdir(), 'ddp-sync-bench-'));
const file = path.join(directory, 'feed.csv');

try {
  const models = [['Toyota', 'RAV4', 'SUV'], ['Honda', 'Civic', 'Sedan'], ['Ford', 'F-150', 'Pickup'], ['Chevrolet', 'Equinox', 'SUV']];
  const out = createWriteStream(file);
  out.write('VIN,Stock,Type,Year,Make,Model,Trim,Body,Miles,SellingPrice,MSRP,ExteriorColor,InteriorColor,DateInStock,ImageList\n');
  const lines: string[] = [];
  for (let index = 0; index < rows; index += 1) {
    const [make, model, body] = models[index % models.length]!;
    const vin = withCheckDigit(`1HGBENCH0T${String.fromCharCode(65 + (index % 8))}${String(index).padStart(6, '0')}`);
    const used = index % 3 === 0;
    const line = `${vin},S${index},${used ? 'Used' : 'New'},${used ? 2021 : 2026},${make},${model},LX,${body},${used ? 30000 + (index % 9000) : 8},"$${(25000 + (index % 20000)).toLocaleString('en-US')}",,Black,Gray,${`2026-${String(1 + (index % 10)).padStart(2, '0')}-15`},https://img.example/${vin}/1.jpg\n`;
    lines.push(line);
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');

  const db = app.database.prisma;
  const group = await db.dealerGroup.create({ data: { name: 'Bench group', slug: `bench-${Date.now()}` } });
  const dealer = await db.dealer.create({ data: { dealerGroupId: group.id, name: 'Bench rooftop', code: 'B1' } });
  const integration = await db.integration.create({ data: { dealerGroupId: group.id, dealerId: dealer.id, pluginKey: 'homenet_inventory_csv', name: 'Bench feed', source: 'homenet' } });

  const timed = async () => {
    const started = performance.now();
    const { runId, done } = await app.services.syncs.start(integration.id, 'cli', { file });
    await done;
    const run = await db.syncRun.findUniqueOrThrow({ where: { id: runId } });
    if (run.status !== 'succeeded') throw new Error(`run failed: ${run.error}`);
    return { seconds: (performance.now() - started) / 1000, run };
  };
  const first = await timed();
  const second = await timed();

  // The floor: the same rows, COPYed as text into a table with no indexes, keys or logic. The
  // embedded engine's wire bridge does not carry COPY, so the floor needs a PostgreSQL server.
  const client = await app.database.pool.connect();
  let copySeconds = Number.NaN;
  if (bench.engine === 'PostgreSQL') try {
    await client.query('CREATE TEMP TABLE feed_copy (vin text, stock text, type text, year int, make text, model text, trim text, body text, miles int, price text, msrp text, ext text, int text, date_in_stock date, images text)');
    const started = performance.now();
    await pipeline(Readable.from(lines), client.query(copyFrom("COPY feed_copy FROM STDIN WITH (FORMAT csv)")));
    copySeconds = (performance.now() - started) / 1000;
  } finally {
    client.release();
  } else client.release();

  const rate = (seconds: number) => Math.round(rows / seconds).toLocaleString('en-US');
  console.log(`\nSync benchmark on ${bench.engine}: ${rows.toLocaleString('en-US')} rows (${(Buffer.byteLength(lines.join('')) / 1e6).toFixed(1)} MB)\n`);
  console.log('| pass | seconds | rows/s | created | updated | unchanged |');
  console.log('|---|---|---|---|---|---|');
  console.log(`| first load (all new) | ${first.seconds.toFixed(1)} | ${rate(first.seconds)} | ${first.run.created} | ${first.run.updated} | ${first.run.unchanged} |`);
  console.log(`| same file again (all unchanged) | ${second.seconds.toFixed(1)} | ${rate(second.seconds)} | ${second.run.created} | ${second.run.updated} | ${second.run.unchanged} |`);
  if (Number.isFinite(copySeconds)) {
    console.log(`| floor: plain COPY into a bare table | ${copySeconds.toFixed(1)} | ${rate(copySeconds)} | | | |`);
    console.log(`\nfirst load runs at ${(copySeconds / first.seconds).toFixed(2)} of the COPY floor`);
  } else console.log('\n(the COPY floor needs a PostgreSQL server: run with DATABASE_URL set)');
} finally {
  rmSync(directory, { recursive: true, force: true });
  await bench.stop();
}
