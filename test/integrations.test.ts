import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';
import { connect, deliver, FIXTURES, syncNow } from './helpers/feeds';
import { createKey } from './helpers/keys';

describe('integrations and syncs (Integrations section of docs/operations.md)', () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;
  let analyst: string;

  beforeAll(async () => {
    app = await startTestApp({ SYNC_SCHEDULER: 'false' });
    group = await seedGroup(app.database.prisma, { users: { admin: 'admin', analyst: 'analyst' } });
    admin = await group.login(app.client, 'admin');
    analyst = await group.login(app.client, 'analyst');
  });
  afterAll(() => app?.stop());

  const inventoryOf = async (dealerId: string) =>
    (await app.client.get(`/inventory?dealer_id=${dealerId}&limit=500`, admin)).body.vehicles as Array<
      Record<string, unknown>
    >;

  it('connects a feed to a rooftop, with an SFTP account for file feeds, and lists, reads, changes and disconnects it', async () => {
    const created = await connect(app, admin, {
      plugin_key: 'homenet_inventory_csv',
      dealer_id: group.dealerIds[1],
      config: { delimiter: 'auto' },
    });
    expect(created.integration).toMatchObject({
      plugin_key: 'homenet_inventory_csv',
      category: 'inventory',
      dealer_id: group.dealerIds[1],
      source: 'homenet',
      enabled: true,
      strategy: 'merge',
      sold_grace_syncs: 3,
      has_credentials: false,
      last_sync: null,
    });
    expect(created.sftp_account).toMatchObject({
      username: expect.stringMatching(/^feed_/),
      password: expect.any(String),
      path: '/',
    });
    const id = created.integration.id;
    expect((await app.client.get(`/integrations/${id}`, analyst)).body).not.toHaveProperty('sftp_account');
    const stored = await app.database.prisma.integration.findUniqueOrThrow({ where: { id } });
    expect(stored.sftpPasswordHash).toMatch(/^scrypt\$/);
    expect(stored.sftpPasswordHash).not.toContain(created.sftp_account!.password);

    const list = await app.client.get(`/integrations?dealer_id=${group.dealerIds[1]}`, analyst);
    expect(list.body.integrations.map((integration: { id: string }) => integration.id)).toContain(id);
    const patched = await app.client.request('PATCH', `/api/v1/integrations/${id}`, {
      token: admin,
      body: {
        strategy: 'overwrite',
        sold_grace_syncs: 2,
        sold_grace_hours: 48,
        track_history: false,
        expected_cadence_hours: 12,
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      strategy: 'overwrite',
      sold_grace_syncs: 2,
      sold_grace_hours: 48,
      track_history: false,
      expected_cadence_hours: 12,
    });

    const removed = await app.client.request('DELETE', `/api/v1/integrations/${id}`, { token: admin });
    expect(removed.body).toEqual({ id, deleted: true });
    expect((await app.client.get(`/integrations/${id}`, admin)).status).toBe(404);
    const audit = await app.client.get('/logs/audit?action=integration', admin);
    expect(audit.body.events.map((event: { action: string }) => event.action)).toEqual(
      expect.arrayContaining(['integration.connected', 'integration.disconnected']),
    );
  });

  it.each([
    [{ plugin_key: 'no_such_plugin', dealer_id: '00000000-0000-4000-8000-000000000000' }, 'plugin_key'],
    [{ plugin_key: 'homenet_inventory_csv', dealer_id: '00000000-0000-4000-8000-000000000000' }, 'dealer_id'],
    [{ plugin_key: 'inventory_json_api', config: { url: 'ftp://feeds.example/x' } }, 'config.url'],
    [{ plugin_key: 'homenet_inventory_csv', config: { delimiter: 'semicolon' } }, 'config.delimiter'],
    [{ plugin_key: 'homenet_inventory_csv', strategy: 'replace_all' }, 'strategy'],
    [{ plugin_key: 'homenet_inventory_csv', sold_grace_syncs: 0 }, 'sold_grace_syncs'],
    [{ plugin_key: 'homenet_inventory_csv', source: 'Not A Name!' }, 'source'],
  ])('refuses %j naming %s', async (body, field) => {
    const response = await app.client.post('/integrations', { dealer_id: group.dealerIds[0], ...body }, admin);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain(field);
  });

  it('keeps credentials encrypted at rest, never returns them, and audits the change', async () => {
    const { integration } = await connect(app, admin, {
      plugin_key: 'inventory_json_api',
      dealer_id: group.dealerIds[0],
      config: { url: 'https://feeds.example.com/inventory' },
    });
    const secret = 'sk_live_9f8e7d6c5b4a39281706';
    const response = await app.client.request('PUT', `/api/v1/integrations/${integration.id}/credentials`, {
      token: admin,
      body: { credentials: { api_key: secret } },
    });
    expect(response.status).toBe(200);
    expect(response.body.has_credentials).toBe(true);
    expect(JSON.stringify(response.body)).not.toContain(secret);
    expect(JSON.stringify((await app.client.get(`/integrations/${integration.id}`, admin)).body)).not.toContain(secret);
    const [row] = await app.database.pool
      .query('SELECT credentials FROM integrations WHERE id = $1', [integration.id])
      .then((result) => result.rows);
    expect(row.credentials).toMatch(/^v1\./);
    expect(row.credentials).not.toContain(secret);
    expect(Buffer.from(row.credentials.split('.').at(-1), 'base64url').toString('utf8')).not.toContain(secret);
    expect(app.services.secrets.open(row.credentials, integration.id)).toBe(JSON.stringify({ api_key: secret }));
    // Sealed to its row: copied onto another integration it does not open.
    expect(() => app.services.secrets.open(row.credentials, group.dealerIds[0]!)).toThrow();

    const wrongField = await app.client.request('PUT', `/api/v1/integrations/${integration.id}/credentials`, {
      token: admin,
      body: { credentials: { password: 'x' } },
    });
    expect(wrongField.status).toBe(400);
    expect(wrongField.body.error.message).toContain('credentials.password');
    const audit = await app.client.get('/logs/audit?action=credentials.changed', admin);
    expect(audit.body.events[0]).toMatchObject({ target_id: integration.id });
    expect(JSON.stringify(audit.body)).not.toContain(secret);
    const cleared = await app.client.request('PUT', `/api/v1/integrations/${integration.id}/credentials`, {
      token: admin,
      body: { credentials: {} },
    });
    expect(cleared.body.has_credentials).toBe(false);
  });

  it('syncs a HomeNet file end to end: mapped, validated, merged; bad rows reported with the reason; a re-run changes nothing', async () => {
    const dealerId = group.dealerIds[0]!;
    const { integration } = await connect(app, admin, { plugin_key: 'homenet_inventory_csv', dealer_id: dealerId });
    const test = await app.client.post(`/integrations/${integration.id}/test`, {}, admin);
    expect(test.body).toMatchObject({ ok: false, message: expect.stringContaining('no file') });
    deliver(app, integration.id, 'homenet-inventory.csv');
    const probe = await app.client.post(`/integrations/${integration.id}/test`, {}, admin);
    expect(probe.body).toMatchObject({ ok: true, file_name: 'homenet-inventory.csv' });
    expect(probe.body.headers).toContain('SellingPrice');
    expect(probe.body.sample[0].record).toMatchObject({
      vin: '2T3AB3FA4MA100200',
      data: { price: '28995.00', condition: 'used', make: 'Toyota' },
    });
    expect(await inventoryOf(dealerId)).toHaveLength(0);

    const run = await syncNow(app, admin, integration.id);
    expect(run).toMatchObject({
      status: 'succeeded',
      trigger: 'manual',
      file_name: 'homenet-inventory.csv',
      counts: { read: 16, created: 12, updated: 0, skipped: 1, failed: 3 },
    });
    expect(run.progress.percent).toBe(100);
    const errors = run.row_errors.map(
      (error: { row: number; field: string; message: string }) => `${error.row} ${error.field} ${error.message}`,
    );
    expect(errors).toEqual([
      expect.stringMatching(/^14 null duplicate of line 4/),
      expect.stringMatching(/^15 vin vin: 4T1K7M2B6TB100237: check digit/),
      expect.stringMatching(/^16 year year: 2051 is outside 1900-/),
      expect.stringMatching(/^17 price price: "CALL" is not an amount/),
    ]);
    const vehicles = await inventoryOf(dealerId);
    expect(vehicles).toHaveLength(12);
    const rav4 = (await app.client.get('/inventory/2T3AB3FA4MA100200', admin)).body;
    expect(rav4).toMatchObject({
      vin: '2T3AB3FA4MA100200',
      stock_number: 'U24100',
      price: '28995.00',
      condition: 'used',
      mileage: 31000,
      status: 'available',
      date_in_stock: '2026-10-03',
    });
    expect(rav4.photos).toHaveLength(2);
    expect(rav4.provenance.find((entry: { field: string }) => entry.field === 'price')).toMatchObject({
      value: '28995.00',
      source: 'homenet',
    });

    const again = await syncNow(app, admin, integration.id);
    expect(again.counts).toMatchObject({ read: 16, created: 0, updated: 0, unchanged: 12, failed: 3 });
    expect(await inventoryOf(dealerId)).toEqual(vehicles);
    const history = await app.client.get(`/integrations/${integration.id}/syncs`, analyst);
    expect(history.body.syncs.map((entry: { status: string }) => entry.status)).toEqual(['succeeded', 'succeeded']);
    expect(history.body.syncs[0]).not.toHaveProperty('row_errors');
    const listed = await app.client.get(`/integrations/${integration.id}`, analyst);
    expect(listed.body.last_sync).toMatchObject({ id: again.id, status: 'succeeded' });
  });

  it('runs the sold grace lifecycle: missing vehicles become presumed sold after N syncs, come back when listed again, and are never deleted', async () => {
    const dealerId = group.dealerIds[1]!;
    const { integration } = await connect(app, admin, {
      plugin_key: 'homenet_inventory_csv',
      dealer_id: dealerId,
      sold_grace_syncs: 2,
    });
    deliver(app, integration.id, 'homenet-inventory.csv');
    await syncNow(app, admin, integration.id);
    deliver(app, integration.id, 'homenet-inventory-next-day.csv');
    const first = await syncNow(app, admin, integration.id);
    expect(first.counts).toMatchObject({ presumed_sold: 0, updated: 1 });
    const camry = (await app.client.get('/inventory/4T1K7M2B5TB100237', admin)).body;
    expect(camry.status).toBe('available');
    deliver(app, integration.id, 'homenet-inventory-next-day.csv', 'day-3.csv');
    const second = await syncNow(app, admin, integration.id);
    expect(second.counts.presumed_sold).toBe(2);
    for (const vin of ['2T3AB3FA4MA100200', '4T1K7M2B5TB100237']) {
      const vehicle = (await app.client.get(`/inventory/${vin}`, admin)).body;
      expect(vehicle.status).toBe('presumed_sold');
      expect(vehicle.sold_at).toBeTruthy();
    }
    const history = (await app.client.get('/inventory/2T3AB3FA4MA100200/history', admin)).body;
    expect(history.changes.find((change: { field: string }) => change.field === 'status')).toMatchObject({
      old_value: 'available',
      new_value: 'presumed_sold',
      source: 'homenet',
    });
    const tacoma = (await app.client.get('/inventory/2T3X4ZPC8TC100274/history', admin)).body;
    expect(tacoma.changes.find((change: { field: string }) => change.field === 'price')).toMatchObject({
      old_value: '31995.00',
      new_value: '27495.00',
    });

    deliver(app, integration.id, 'homenet-inventory.csv', 'day-4.csv');
    const back = await syncNow(app, admin, integration.id);
    expect(back.counts.returned).toBe(2);
    const rav4 = (await app.client.get('/inventory/2T3AB3FA4MA100200', admin)).body;
    expect(rav4).toMatchObject({ status: 'available', sold_at: null });
    expect(await inventoryOf(dealerId)).toHaveLength(12);
  });

  it('reads the vAuto dialect (tab-delimited, Days In Inventory) and, with update_only, only updates vehicles already known', async () => {
    const dealerId = group.dealerIds[0]!;
    const { integration } = await connect(app, admin, {
      plugin_key: 'vauto_inventory_csv',
      dealer_id: dealerId,
      strategy: 'update_only',
    });
    deliver(app, integration.id, 'vauto-inventory.txt');
    const skipped = await syncNow(app, admin, integration.id);
    expect(skipped.counts).toMatchObject({ read: 9, created: 0, skipped: 8, failed: 1 });
    expect(skipped.row_errors.at(-1)).toMatchObject({ row: 10, field: 'vin', message: 'vin: is required' });
    await app.client.request('PATCH', `/api/v1/integrations/${integration.id}`, {
      token: admin,
      body: { strategy: 'merge' },
    });
    const created = await syncNow(app, admin, integration.id);
    expect(created.counts).toMatchObject({ created: 8, failed: 1 });
    const civic = (await app.client.get('/inventory/5J6R8TWH6LU100755', admin)).body;
    expect(civic).toMatchObject({
      condition: 'used',
      mileage: 45000,
      price: '27990.00',
      internet_price: '26990.00',
      trim: 'Sport',
      days_on_lot: 16,
    });
  });

  it('answers 409 while a sync of the integration is running', async () => {
    const { integration } = await connect(app, admin, {
      plugin_key: 'call_tracking_csv',
      dealer_id: group.dealerIds[0],
      config: { provider: 'callrail' },
    });
    deliver(app, integration.id, 'callrail-calls.csv');
    const [one, two] = await Promise.all([
      app.client.post(`/integrations/${integration.id}/sync`, {}, admin),
      app.client.post(`/integrations/${integration.id}/sync`, {}, admin),
    ]);
    expect([one.status, two.status].sort()).toEqual([202, 409]);
    expect([one, two].find((response) => response.status === 409)!.body.error.code).toBe('CONFLICT');
  });

  it('scopes: an integrations:read key lists feeds but cannot connect or sync them', async () => {
    const key = await createKey(app.client, admin, { scopes: ['integrations:read'] });
    expect((await app.client.get('/integrations', key.key)).status).toBe(200);
    expect(
      (
        await app.client.post(
          '/integrations',
          { plugin_key: 'homenet_inventory_csv', dealer_id: group.dealerIds[0] },
          key.key,
        )
      ).status,
    ).toBe(403);
    expect((await app.client.get('/integrations/freshness', key.key)).status).toBe(200);
  });

  it('lists lagging and silent feeds by their expected cadence', async () => {
    const fresh = await connect(app, admin, {
      plugin_key: 'dms_sales_csv',
      dealer_id: group.dealerIds[1],
      expected_cadence_hours: 24,
    });
    deliver(app, fresh.integration.id, 'dms-deals.csv');
    await syncNow(app, admin, fresh.integration.id);
    const lagging = await connect(app, admin, {
      plugin_key: 'adf_xml_leads',
      dealer_id: group.dealerIds[1],
      expected_cadence_hours: 6,
    });
    const silent = await connect(app, admin, {
      plugin_key: 'custom_inventory_csv',
      dealer_id: group.dealerIds[1],
      expected_cadence_hours: 2,
    });
    await app.database.pool.query(`UPDATE integrations SET last_file_at = now() - interval '10 hours' WHERE id = $1`, [
      lagging.integration.id,
    ]);
    await app.database.pool.query(`UPDATE integrations SET created_at = now() - interval '3 days' WHERE id = $1`, [
      silent.integration.id,
    ]);
    const report = await app.client.get(`/integrations/freshness?dealer_id=${group.dealerIds[1]}`, analyst);
    expect(report.status).toBe(200);
    const stateOf = (id: string) =>
      report.body.feeds.find((feed: { integration_id: string }) => feed.integration_id === id)?.state;
    expect(stateOf(fresh.integration.id)).toBe('fresh');
    expect(stateOf(lagging.integration.id)).toBe('lagging');
    expect(stateOf(silent.integration.id)).toBe('silent');
    expect(report.body.feeds[0].integration_id).toBe(silent.integration.id);
    const onlyBad = await app.client.get(
      `/integrations/freshness?dealer_id=${group.dealerIds[1]}&state=lagging&state=silent`,
      analyst,
    );
    expect(onlyBad.body.feeds.map((feed: { state: string }) => feed.state).sort()).toEqual(['lagging', 'silent']);
  });

  it('syncs a local file from the command line (npm run sync), with progress and a summary', async () => {
    const dealerId = group.dealerIds[1]!;
    const { integration } = await connect(app, admin, {
      plugin_key: 'vauto_inventory_csv',
      dealer_id: dealerId,
      source: 'vauto_cli',
    });
    const { stdout } = await promisify(execFile)(
      'npx',
      ['tsx', 'scripts/sync.ts', path.join(FIXTURES, 'vauto-inventory.txt'), '--integration', integration.id],
      {
        cwd: path.resolve(import.meta.dirname, '..'),
        env: {
          ...process.env,
          DATABASE_URL: app.databaseUrl,
          DATA_DIR: app.dataDir,
          DATABASE_PREPARED_STATEMENTS: 'false',
          LOG_LEVEL: 'error',
        },
      },
    );
    expect(stdout).toContain('succeeded');
    expect(stdout).toMatch(/read 9, created 8/);
    expect(stdout).toMatch(/line 10: vin: is required/);
    const runs = (await app.client.get(`/integrations/${integration.id}/syncs`, admin)).body.syncs;
    expect(runs[0]).toMatchObject({ trigger: 'cli', file_name: 'vauto-inventory.txt', status: 'succeeded' });
  });

  it('marks a run whose server stopped mid-run as failed, and the next run starts and completes', async () => {
    const { integration } = await connect(app, admin, { plugin_key: 'dms_sales_csv', dealer_id: group.dealerIds[0] });
    deliver(app, integration.id, 'dms-deals.csv');
    // A run another instance left behind: still "running", heartbeat long gone.
    const orphan = await app.database.prisma.syncRun.create({
      data: {
        integrationId: integration.id,
        dealerGroupId: group.groupId,
        trigger: 'schedule',
        heartbeatAt: new Date(Date.now() - 10 * 60_000),
        rowsRead: 2,
      },
    });
    const run = await syncNow(app, admin, integration.id);
    expect(run).toMatchObject({ status: 'succeeded', counts: { created: 3 } });
    const left = (await app.client.get(`/syncs/${orphan.id}`, admin)).body;
    expect(left).toMatchObject({ status: 'failed', error: expect.stringContaining('interrupted') });
    // A live run (fresh heartbeat) is respected: 409.
    await app.database.prisma.syncRun.create({
      data: { integrationId: integration.id, dealerGroupId: group.groupId, trigger: 'schedule' },
    });
    const busy = await app.client.post(`/integrations/${integration.id}/sync`, {}, admin);
    expect(busy.status).toBe(409);
  });

  it('refuses JSON pulls aimed at the platform network (loopback, private, cloud metadata addresses)', async () => {
    for (const url of [
      'https://127.0.0.1:9/feed',
      'https://169.254.169.254/latest/meta-data',
      'https://localhost:9/feed',
    ]) {
      const { integration } = await connect(app, admin, {
        plugin_key: 'inventory_json_api',
        dealer_id: group.dealerIds[0],
        config: { url },
      });
      const probe = await app.client.post(`/integrations/${integration.id}/test`, {}, admin);
      expect(probe.body, url).toMatchObject({
        ok: false,
        message: expect.stringMatching(/private or reserved address/),
      });
      const run = await syncNow(app, admin, integration.id);
      expect(run).toMatchObject({ status: 'failed', error: expect.stringMatching(/private or reserved address/) });
      await app.client.request('DELETE', `/api/v1/integrations/${integration.id}`, { token: admin });
    }
  });
});
