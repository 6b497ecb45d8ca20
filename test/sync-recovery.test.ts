import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';
import { connect, deliver, syncNow } from './helpers/feeds';
import { generatedLine, generatedVin, writeGeneratedFeed } from './helpers/generated-feed';
import { createKey } from './helpers/keys';
import { BatchTurns, writeVehicleBatch, type FeedContext } from '../src/modules/multi-source/vehicle-writer';
import type { VehicleRecord } from '../src/modules/multi-source/merge';

// Transactions interleave only on a PostgreSQL server: the embedded engine runs one at a time.
const external = inject('externalDatabase');
if (!external) console.log('skipped: two batches written at once need a PostgreSQL server (DATABASE_URL; CI sets it)');

/** Long feeds: a process killed mid-run, duplicates split across batches, rows that fail but still list their vehicle. */
describe('sync runs over long feeds', () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;
  let directory: string;

  beforeAll(async () => {
    // On the embedded engine every client of a database shares one session: these loads (tens of
    // thousands of rows) get a database of their own, so other test files' statements never queue behind them.
    app = await startTestApp({ SYNC_SCHEDULER: 'false' }, { ownDatabase: !external });
    group = await seedGroup(app.database.prisma, { users: { admin: 'admin' } });
    admin = await group.login(app.client, 'admin');
    directory = mkdtempSync(path.join(tmpdir(), 'ddp-long-feeds-'));
  });
  afterAll(async () => {
    await app?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  const sourceRecordsOf = (integrationId: string) =>
    app.database.prisma.vehicleSourceRecord.count({ where: { integrationId } });
  const vehiclesOf = (dealerId: string) => app.database.prisma.vehicle.count({ where: { dealerId } });

  it('leaves committed batches whole when the process running a sync is killed, and the next run marks it failed and completes the load', async () => {
    const rows = 30_000;
    const dealerId = group.dealerIds[0]!;
    const file = path.join(directory, 'crash.csv');
    await writeGeneratedFeed(file, rows, { tag: 'CRASH' });
    const { integration } = await connect(app, admin, {
      plugin_key: 'homenet_inventory_csv',
      dealer_id: dealerId,
      source: 'crash_feed',
    });

    const cli = spawn('npx', ['tsx', 'scripts/sync.ts', file, '--integration', integration.id], {
      cwd: path.resolve(import.meta.dirname, '..'),
      env: {
        ...process.env,
        DATABASE_URL: app.databaseUrl,
        DATA_DIR: app.dataDir,
        DATABASE_PREPARED_STATEMENTS: 'false',
        LOG_LEVEL: 'error',
      },
      detached: true,
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => cli.once('exit', resolve));
    // Wait until the first batch has committed (the run reports its counts after each commit), then kill -9.
    let run = null;
    for (const until = Date.now() + 60_000; Date.now() < until;) {
      run = await app.database.prisma.syncRun.findFirst({ where: { integrationId: integration.id } });
      if (run && run.rowsRead >= 5_000) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    process.kill(-cli.pid!, 'SIGKILL');
    await exited;
    expect(run?.rowsRead).toBeGreaterThanOrEqual(5_000);

    const orphan = await app.database.prisma.syncRun.findFirstOrThrow({ where: { integrationId: integration.id } });
    expect(orphan.status).toBe('running');
    // Batches commit whole: the source records written are a whole number of 5,000-row batches,
    // each with its merged vehicle, and the killed batch left nothing behind.
    const written = await sourceRecordsOf(integration.id);
    expect(written % 5_000).toBe(0);
    expect(written).toBeGreaterThanOrEqual(5_000);
    expect(written).toBeLessThan(rows);
    expect(await vehiclesOf(dealerId)).toBe(written);
    const orphaned = await app.database.pool.query(
      `SELECT count(*)::int AS n FROM vehicles v WHERE v.dealer_id = $1 AND NOT EXISTS (SELECT 1 FROM vehicle_source_records r WHERE r.vehicle_id = v.id)`,
      [dealerId],
    );
    expect(orphaned.rows[0].n).toBe(0);

    // While its heartbeat is fresh, the run still counts as live.
    deliver(app, integration.id, file);
    expect((await app.client.post(`/integrations/${integration.id}/sync`, {}, admin)).status).toBe(409);
    // Two minutes without a heartbeat: the next run marks it failed and loads the whole file.
    await app.database.prisma.syncRun.update({
      where: { id: orphan.id },
      data: { heartbeatAt: new Date(Date.now() - 10 * 60_000) },
    });
    const next = await syncNow(app, admin, integration.id, 120_000);
    expect(next).toMatchObject({
      status: 'succeeded',
      counts: { read: rows, created: rows - written, unchanged: written, failed: 0 },
    });
    expect((await app.client.get(`/syncs/${orphan.id}`, admin)).body).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('interrupted'),
    });
    expect(await vehiclesOf(dealerId)).toBe(rows);
    expect(await sourceRecordsOf(integration.id)).toBe(rows);
  }, 180_000);

  it('catches a duplicate VIN whose first row was written by an earlier batch', async () => {
    const dealerId = group.dealerIds[1]!;
    const file = path.join(directory, 'dupes.csv');
    // Line numbers count the header as line 1: row index i is on line i + 2.
    await writeGeneratedFeed(file, 5_200, {
      tag: 'DUPES',
      line: (index) => (index === 5_150 ? generatedLine(3, 'DUPES', { Stock: 'DUP-1' }) : null),
    });
    const { integration } = await connect(app, admin, {
      plugin_key: 'homenet_inventory_csv',
      dealer_id: dealerId,
      source: 'dupes_feed',
    });
    deliver(app, integration.id, file);
    const run = await syncNow(app, admin, integration.id, 60_000);
    expect(run).toMatchObject({ status: 'succeeded', counts: { read: 5_200, created: 5_199, skipped: 1, failed: 0 } });
    const detail = (await app.client.get(`/syncs/${run.id}`, admin)).body;
    expect(detail.row_errors).toEqual([
      expect.objectContaining({ row: 5_152, message: expect.stringContaining('duplicate') }),
    ]);
    const kept = (await app.client.get(`/inventory/${generatedVin(3, 'DUPES')}`, admin)).body;
    expect(kept.stock_number).toBe('S3');
  }, 90_000);

  it('writes batches side by side, yet flags a stock number they share on every vehicle, and takes API writes to the rooftop meanwhile', async () => {
    // Three 5,000-row batches (two are written at once), a stock number on one row of each, while
    // a partner writes vehicles of the same rooftop: some the feed lists further down, some it does not.
    const fresh = await seedGroup(app.database.prisma, { users: { admin: 'admin' } });
    const token = await fresh.login(app.client, 'admin');
    const dealerId = fresh.dealerIds[0]!;
    const rows = 15_000;
    const shared = [10, 5_010, 10_010];
    const file = path.join(directory, 'side-by-side.csv');
    await writeGeneratedFeed(file, rows, {
      tag: 'SIDE',
      line: (index) => (shared.includes(index) ? generatedLine(index, 'SIDE', { Stock: 'SHARED-9' }) : null),
    });
    const { integration } = await connect(app, token, {
      plugin_key: 'homenet_inventory_csv',
      dealer_id: dealerId,
      source: 'side_feed',
    });
    const partner = await createKey(app.client, token, { name: 'Lot tools', scopes: ['inventory:write'] });
    deliver(app, integration.id, file);
    const started = await app.client.post(`/integrations/${integration.id}/sync`, {}, token);
    expect(started.status, JSON.stringify(started.body)).toBe(202);

    const listed = Array.from({ length: 10 }, (_, index) => generatedVin(12_000 + index * 250, 'SIDE'));
    const unlisted = Array.from({ length: 10 }, (_, index) => generatedVin(20_000 + index, 'SIDE'));
    // One write every 100 ms, so they land while the run's batches are written.
    for (const [index, vin] of [...listed, ...unlisted].entries()) {
      const response = await app.client.request('PUT', `/api/v1/inventory/${vin}`, {
        token: partner.key,
        body: {
          dealer_id: dealerId,
          year: 2025,
          make: 'Honda',
          model: 'Civic',
          condition: 'used',
          price: `${20_000 + index}`,
        },
      });
      expect([200, 201], JSON.stringify(response.body)).toContain(response.status);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    let run = started.body;
    for (const until = Date.now() + 150_000; run.status === 'running' && Date.now() < until;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      run = (await app.client.get(`/syncs/${started.body.id}`, token)).body;
    }
    expect(run).toMatchObject({ status: 'succeeded', counts: { read: rows, failed: 0, skipped: 0 } });
    expect(run.counts.created + run.counts.updated + run.counts.unchanged).toBe(rows);
    // Every feed row has its vehicle with the feed's record; the partner's vehicles are all there too.
    expect(await vehiclesOf(dealerId)).toBe(rows + unlisted.length);
    expect(await sourceRecordsOf(integration.id)).toBe(rows);
    for (const vin of listed) {
      const vehicle = (await app.client.get(`/inventory/${vin}`, token)).body;
      expect(vehicle.provenance.map((entry: { source: string }) => entry.source)).toContain('side_feed');
    }
    const flagged = (
      await app.client.get(`/multi-source/conflicts?kind=duplicate_stock_number&dealer_id=${dealerId}`, token)
    ).body.conflicts.map((entry: { vin: string; details: { other_vins: string[] } }) => [
      entry.vin,
      entry.details.other_vins,
    ]);
    const vins = shared.map((index) => generatedVin(index, 'SIDE')).sort();
    expect(flagged.sort()).toEqual(vins.map((vin) => [vin, vins.filter((other) => other !== vin)]));
  }, 180_000);

  it.skipIf(!external)(
    'lets the later of two batches written at once refresh conflicts only after the earlier commits, and keep the earlier row of a VIN both list',
    async () => {
      const fresh = await seedGroup(app.database.prisma, {});
      const feed: FeedContext = {
        dealerGroupId: fresh.groupId,
        dealerId: fresh.dealerIds[0]!,
        source: 'pair_feed',
        integrationId: null,
        syncRunId: randomUUID(),
        strategy: 'merge',
        trackHistory: false,
        priority: {},
      };
      const row = (index: number, stock: string): VehicleRecord => ({
        vin: generatedVin(index, 'PAIR'),
        data: {
          stock_number: stock,
          year: 2025,
          make: 'Honda',
          model: 'Civic',
          condition: 'used',
          price: `${20_000 + index}`,
        },
      });
      const batches = async (first: VehicleRecord, second: VehicleRecord[]) => {
        const turns = new BatchTurns();
        const [early, late] = [await app.database.pool.connect(), await app.database.pool.connect()];
        try {
          await early.query('BEGIN');
          await late.query('BEGIN');
          await writeVehicleBatch(early, feed, [first], [], new Date(), turns);
          let done = false;
          const later = writeVehicleBatch(late, feed, second, [], new Date(), turns).finally(() => (done = true));
          await new Promise((resolve) => setTimeout(resolve, 300));
          const waited = !done;
          await early.query('COMMIT');
          const outcome = await later;
          await late.query('COMMIT');
          return { waited, outcome };
        } finally {
          early.release();
          late.release();
        }
      };
      const pairs = async (stock: string) =>
        (
          await app.database.pool.query<{ vin: string; others: string[] }>(
            `SELECT v.vin, c.details -> 'other_vins' AS others FROM vehicle_conflicts c JOIN vehicles v ON v.id = c.vehicle_id
             WHERE c.dealer_id = $1 AND c.kind = 'duplicate_stock_number' AND c.details ->> 'stock_number' = $2 ORDER BY v.vin`,
            [feed.dealerId, stock],
          )
        ).rows.map((entry) => [entry.vin, entry.others]);

      // No VIN in common: the later batch inserts at once, then waits for the merge lock to see the earlier one's vehicle.
      const apart = await batches(row(1, 'PAIR-1'), [row(2, 'PAIR-1'), row(3, 'S3')]);
      expect(apart).toMatchObject({ waited: true, outcome: { created: 2, skipped: [] } });
      const [one, two] = [generatedVin(1, 'PAIR'), generatedVin(2, 'PAIR')].sort();
      expect(await pairs('PAIR-1')).toEqual([
        [one, [two]],
        [two, [one]],
      ]);

      // A VIN in both: the later row waits for the earlier one's insert and is reported as its duplicate.
      const both = await batches(row(31, 'PAIR-2'), [row(31, 'PAIR-3'), row(4, 'S4')]);
      expect(both.waited).toBe(true);
      expect(both.outcome).toMatchObject({ created: 1, skipped: [{ vin: generatedVin(31, 'PAIR') }] });
      expect(both.outcome.skipped[0]!.reason).toContain('listed earlier in this file');
      const kept = await app.database.pool.query(
        'SELECT stock_number FROM vehicles WHERE dealer_id = $1 AND vin = $2',
        [feed.dealerId, generatedVin(31, 'PAIR')],
      );
      expect(kept.rows).toEqual([{ stock_number: 'PAIR-2' }]);
    },
    30_000,
  );

  it('keeps a vehicle listed when its row fails validation, while a vehicle left out of the feed runs out its grace', async () => {
    const dealerId = group.dealerIds[2] ?? group.dealerIds[0]!;
    const { integration } = await connect(app, admin, {
      plugin_key: 'homenet_inventory_csv',
      dealer_id: dealerId,
      source: 'keeps_feed',
      sold_grace_syncs: 1,
    });
    const day1 = path.join(directory, 'keeps-day-1.csv');
    const day2 = path.join(directory, 'keeps-day-2.csv');
    await writeGeneratedFeed(day1, 10, { tag: 'KEEPS' });
    // Day 2: row 4 has a typo in its year (the row fails), row 9 is gone (the vehicle was sold).
    await writeGeneratedFeed(day2, 9, {
      tag: 'KEEPS',
      line: (index) => (index === 4 ? generatedLine(4, 'KEEPS', { Year: '2O26' }) : null),
    });
    deliver(app, integration.id, day1);
    expect(await syncNow(app, admin, integration.id)).toMatchObject({ status: 'succeeded', counts: { created: 10 } });
    deliver(app, integration.id, day2);
    const second = await syncNow(app, admin, integration.id);
    expect(second).toMatchObject({ status: 'succeeded', counts: { failed: 1, presumed_sold: 1 } });
    const detail = (await app.client.get(`/syncs/${second.id}`, admin)).body;
    expect(detail.row_errors).toEqual([expect.objectContaining({ row: 6, field: 'year' })]);
    expect((await app.client.get(`/inventory/${generatedVin(4, 'KEEPS')}`, admin)).body.status).toBe('available');
    expect((await app.client.get(`/inventory/${generatedVin(9, 'KEEPS')}`, admin)).body.status).toBe('presumed_sold');
  });
});
