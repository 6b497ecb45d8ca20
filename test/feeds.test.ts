import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';
import { connect, deliver, syncNow } from './helpers/feeds';

/** Each plugin end to end with the shipped fixture files, plus column mappings, templates and rules in a sync. */
describe('feeds: plugins end to end, column mappings, templates (Mapping templates and File column mappings sections of docs/operations.md)', () => {
  let app: TestApp;
  let group: SeededGroup;
  let other: SeededGroup;
  let admin: string;
  let otherAdmin: string;
  let api: Server;
  let apiUrl: string;
  const apiRequests: Array<{ url: string; authorization: string | undefined }> = [];

  beforeAll(async () => {
    app = await startTestApp({
      SYNC_SCHEDULER: 'false',
      ALLOW_INSECURE_HTTP_PULL: 'true',
      ALLOW_PRIVATE_NETWORKS: 'true',
    });
    group = await seedGroup(app.database.prisma, { dealers: 3 });
    other = await seedGroup(app.database.prisma, { dealers: 1 });
    admin = await group.login(app.client);
    otherAdmin = await other.login(app.client);
    // An inventory API that pages with a `next` link and wants a bearer token.
    api = createServer((request, response) => {
      apiRequests.push({ url: request.url!, authorization: request.headers.authorization });
      if (request.headers.authorization !== 'Bearer pull-token-123') {
        response.writeHead(401).end('{"error":"unauthorized"}');
        return;
      }
      const page = new URL(request.url!, 'http://x').searchParams.get('cursor');
      const vehicles =
        page === '2'
          ? [
              {
                vin: '3GNAXKEV2NL100019',
                stockNumber: 'C900',
                year: 2022,
                make: 'Chevrolet',
                model: 'Equinox',
                condition: 'used',
                odometer: 30500,
                price: { amount: '23,450' },
              },
            ]
          : [
              {
                vin: '1GCUYDEDXNZ100011',
                stockNumber: 'C901',
                year: 2026,
                make: 'Chevrolet',
                model: 'Silverado 1500',
                trim: 'LT',
                condition: 'new',
                odometer: 10,
                price: { amount: '$52,300' },
                photos: ['https://img.example/c901/1.jpg'],
              },
              {
                vin: '1GCUYDED1NZ100012',
                stockNumber: 'C902',
                year: 2026,
                make: 'Chevrolet',
                model: 'Silverado 1500',
                condition: 'new',
                price: { amount: '51,900' },
              },
            ];
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ data: { vehicles }, links: { next: page === '2' ? null : '/inventory?cursor=2' } }));
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/inventory`;
  });
  afterAll(async () => {
    await app?.stop();
    api?.close();
  });

  it('suggests a mapping from odd headers and sample values, with a confidence per column', async () => {
    const response = await app.client.post(
      '/file-column-mappings/detect',
      {
        headers: [
          'Unit VIN',
          'Stock #',
          'StockNo',
          'Odometer',
          'Internet Price',
          'Ext Color',
          'Trim Pkg',
          'Lot Location',
        ],
        rows: [['1FMC5HNG3TF101014', 'F7300', 'F7300', '5', '$44100', 'Agate Black', 'XLT', 'Back lot']],
      },
      admin,
    );
    expect(response.status).toBe(200);
    const byColumn = Object.fromEntries(
      response.body.suggestions.map((entry: { column: string }) => [entry.column, entry]),
    );
    expect(byColumn['Unit VIN']).toMatchObject({ field: 'vin', confidence: 0.8 });
    expect(byColumn['Stock #']).toMatchObject({ field: 'stock_number', confidence: 0.95 });
    expect(byColumn.StockNo).toMatchObject({ field: null, reason: expect.stringContaining('taken by "Stock #"') });
    expect(byColumn.Odometer).toMatchObject({ field: 'mileage', confidence: 0.95 });
    expect(byColumn['Internet Price']).toMatchObject({ field: 'internet_price' });
    expect(byColumn['Ext Color']).toMatchObject({ field: 'exterior_color' });
    expect(byColumn['Trim Pkg']).toMatchObject({ field: 'trim', confidence: 0.6 });
    expect(byColumn['Lot Location']).toMatchObject({ field: null, confidence: 0 });
    expect(response.body.unmapped_fields).toContain('make');
    const bad = await app.client.post('/file-column-mappings/detect', { headers: [], target: 'vehicles' }, admin);
    expect(bad.status).toBe(400);
    expect(
      (await app.client.post('/file-column-mappings/detect', { headers: ['a'], target: 'boats' }, admin)).body.error
        .message,
    ).toContain('target');
  });

  it("maps a custom pipe-delimited file: preview, set the mapping, sync with a template's value mappings and the rules", async () => {
    const dealerId = group.dealerIds[2]!;
    const { integration } = await connect(app, admin, {
      plugin_key: 'custom_inventory_csv',
      dealer_id: dealerId,
      source: 'lot_sheet',
    });
    deliver(app, integration.id, 'custom-inventory.psv');
    const preview = await app.client.get(`/file-column-mappings/${integration.id}/preview`, admin);
    expect(preview.status).toBe(200);
    expect(preview.body.file_name).toBe('custom-inventory.psv');
    const column = (name: string) => preview.body.columns.find((entry: { column: string }) => entry.column === name);
    expect(column('Stk No')).toMatchObject({
      mapped_to: 'stock_number',
      mapped_by: 'known_name',
      samples: expect.arrayContaining(['F7300']),
    });
    expect(column('Mfr')).toMatchObject({ mapped_to: null, mapped_by: 'unmapped' });

    const refused = await app.client.request('PUT', `/api/v1/file-column-mappings/${integration.id}`, {
      token: admin,
      body: { mapping: { Mfr: 'manufacturer' } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('mapping["Mfr"]');
    const saved = await app.client.request('PUT', `/api/v1/file-column-mappings/${integration.id}`, {
      token: admin,
      body: {
        mapping: {
          'Unit VIN': 'vin',
          Mfr: 'make',
          Mdl: 'model',
          Asking: 'price',
          Cond: 'condition',
          'Lot Location': null,
        },
      },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ integration_id: integration.id, target: 'vehicles', mapping: { Mfr: 'make' } });
    const listed = await app.client.get(`/file-column-mappings?integration_id=${integration.id}`, admin);
    expect(listed.body.mappings[0].mapping).toEqual(saved.body.mapping);
    expect(
      (await app.client.get(`/file-column-mappings/${integration.id}/preview`, admin)).body.columns.find(
        (entry: { column: string }) => entry.column === 'Mfr',
      ),
    ).toMatchObject({ mapped_to: 'make', mapped_by: 'integration' });

    const template = await app.client.post(
      '/mapping-templates',
      { name: 'Ford colours', value_mappings: { exterior_color: { 'Agate Black': 'Black', 'Jet Black': 'Black' } } },
      admin,
    );
    expect(template.status).toBe(201);
    expect(template.body).toMatchObject({ version: 1, owned: true, published: false, target: 'vehicles' });
    const changed = await app.client.request('PATCH', `/api/v1/mapping-templates/${template.body.id}`, {
      token: admin,
      body: {
        value_mappings: { exterior_color: { 'Agate Black': 'Black', 'Jet Black': 'Black', 'Oxford White': 'White' } },
      },
    });
    expect(changed.body.version).toBe(2);
    await app.client.request('PATCH', `/api/v1/integrations/${integration.id}`, {
      token: admin,
      body: { template_id: template.body.id },
    });
    const rule = await app.client.post(
      '/transformation-rules',
      {
        name: 'Back-lot units are pending',
        conditions: [
          { field: 'lot_location', operator: 'equals', value: 'back lot' },
          { field: 'model', operator: 'equals', value: 'Mustang' },
        ],
        action: { type: 'set_field', field: 'status', value: 'pending' },
      },
      admin,
    );
    expect(rule.status).toBe(201);
    const flag = await app.client.post(
      '/transformation-rules',
      {
        name: 'Check used prices',
        conditions: [{ field: 'condition', operator: 'equals', value: 'pre-owned' }],
        action: { type: 'flag', message: 'used unit: check the appraisal' },
      },
      admin,
    );
    expect(flag.status).toBe(201);
    // The connection test runs rows through the sync's own pipeline, rules included.
    const probe = await app.client.post(`/integrations/${integration.id}/test`, {}, admin);
    const mustang = probe.body.sample.find(
      (entry: { record: { data?: { model?: string } } | null }) => entry.record?.data?.model === 'Mustang',
    );
    expect(mustang?.record.data, JSON.stringify(probe.body.sample)).toMatchObject({ status: 'pending' });

    const run = await syncNow(app, admin, integration.id);
    expect(run).toMatchObject({
      status: 'succeeded',
      template_version: 2,
      counts: { read: 6, created: 6, failed: 0, flagged: 2 },
    });
    expect(run.row_errors).toEqual([
      expect.objectContaining({ row: 4, kind: 'flag', message: 'used unit: check the appraisal' }),
      expect.objectContaining({ row: 7, kind: 'flag' }),
    ]);
    await app.client.request('DELETE', `/api/v1/transformation-rules/${flag.body.id}`, { token: admin });
    const inventory = (await app.client.get(`/inventory?dealer_id=${dealerId}&limit=50&sort=stock_number`, admin)).body
      .vehicles;
    expect(inventory.map((vehicle: { exterior_color: string }) => vehicle.exterior_color).sort()).toEqual([
      'Black',
      'Black',
      'Black',
      'Black',
      'White',
      'White',
    ]);
    const explorer = inventory.find((vehicle: { stock_number: string }) => vehicle.stock_number === 'F7301');
    expect(explorer).toMatchObject({
      make: 'Ford',
      model: 'Explorer',
      price: '47700.00',
      internet_price: '46200.00',
      condition: 'new',
      date_in_stock: '2026-10-11',
    });
    expect(inventory.find((vehicle: { model: string }) => vehicle.model === 'Mustang').status).toBe('pending');
    expect(inventory.find((vehicle: { stock_number: string }) => vehicle.stock_number === 'F7302')).toMatchObject({
      condition: 'used',
      mileage: 27500,
    });
    await app.client.request('DELETE', `/api/v1/transformation-rules/${rule.body.id}`, { token: admin });
  });

  it('shares templates through the community bank: readable by all, changed only by the owner, cloned into your own', async () => {
    const mine = await app.client.post(
      '/mapping-templates',
      {
        name: 'HomeNet standard',
        plugin_key: 'homenet_inventory_csv',
        field_mappings: { StockNo: 'stock_number' },
        value_mappings: { condition: { Demo: 'used' } },
      },
      admin,
    );
    expect(mine.body.target).toBe('vehicles');
    expect(
      (await app.client.get('/mapping-templates/community?q=HomeNet standard', otherAdmin)).body.templates,
    ).toHaveLength(0);
    expect((await app.client.get(`/mapping-templates/${mine.body.id}`, otherAdmin)).status).toBe(404);
    const published = await app.client.post(`/mapping-templates/${mine.body.id}/publish`, {}, admin);
    expect(published.body).toMatchObject({ published: true });
    const community = await app.client.get('/mapping-templates/community?q=HomeNet standard', otherAdmin);
    expect(community.body.templates).toEqual([
      expect.objectContaining({ id: mine.body.id, owned: false, dealer_group_id: null }),
    ]);
    expect((await app.client.get(`/mapping-templates/${mine.body.id}`, otherAdmin)).status).toBe(200);
    const hijack = await app.client.request('PATCH', `/api/v1/mapping-templates/${mine.body.id}`, {
      token: otherAdmin,
      body: { name: 'mine now' },
    });
    expect(hijack.status).toBe(403);
    expect(
      (await app.client.request('DELETE', `/api/v1/mapping-templates/${mine.body.id}`, { token: otherAdmin })).status,
    ).toBe(403);
    const clone = await app.client.post(
      `/mapping-templates/${mine.body.id}/clone`,
      { name: 'Our HomeNet' },
      otherAdmin,
    );
    expect(clone.status).toBe(201);
    expect(clone.body).toMatchObject({
      name: 'Our HomeNet',
      owned: true,
      published: false,
      version: 1,
      cloned_from_id: mine.body.id,
      field_mappings: { StockNo: 'stock_number' },
    });
    expect(
      (await app.client.get('/mapping-templates', otherAdmin)).body.templates.map(
        (template: { id: string }) => template.id,
      ),
    ).toEqual([clone.body.id]);
    const versions = await app.client.graphql(
      `query($id: ID!) { mappingTemplate(id: $id) { version versions { version } } }`,
      { id: mine.body.id },
      admin,
    );
    expect(versions.body.data.mappingTemplate.versions).toEqual([{ version: 1 }]);
    const invalid = await app.client.post(
      '/mapping-templates',
      { name: 'x', value_mappings: { colour: { a: 'b' } } },
      admin,
    );
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.message).toContain('value_mappings.colour');
  });

  it('loads call-tracking exports (CallRail and CTM dialects), resolving sources and skipping bad and duplicate rows', async () => {
    await app.client
      .post('/sources', { name: 'Google Ads', category: 'paid_search' }, admin)
      .then((source) =>
        app.client.post('/sources/mappings', { source_id: source.body.id, raw_values: ['Google Ads'] }, admin),
      );
    const callrail = await connect(app, admin, {
      plugin_key: 'call_tracking_csv',
      dealer_id: group.dealerIds[0],
      config: { provider: 'callrail' },
    });
    deliver(app, callrail.integration.id, 'callrail-calls.csv');
    const run = await syncNow(app, admin, callrail.integration.id);
    expect(run.counts).toMatchObject({ read: 7, created: 5, skipped: 1, failed: 1 });
    expect(run.row_errors.map((error: { row: number; field: string }) => [error.row, error.field])).toEqual([
      [6, 'started_at'],
      [7, null],
    ]);
    const calls = (await app.client.get(`/calls?dealer_id=${group.dealerIds[0]}&limit=50`, admin)).body.calls;
    const first = calls.find((call: { external_id: string }) => call.external_id === 'CAL8812001');
    expect(first).toMatchObject({
      provider: 'callrail',
      duration_seconds: 245,
      status: 'answered',
      caller_number: '+13035550147',
      first_time_caller: true,
      raw_source: 'Google Ads',
    });
    expect(first.source?.name ?? first.source_id).toBeTruthy();
    expect(calls.find((call: { external_id: string }) => call.external_id === 'CAL8812006')).toMatchObject({
      duration_seconds: 205,
      direction: 'outbound',
    });
    const again = await syncNow(app, admin, callrail.integration.id);
    expect(again.counts).toMatchObject({ created: 0, updated: 0, unchanged: 5 });

    const ctm = await connect(app, admin, {
      plugin_key: 'call_tracking_csv',
      dealer_id: group.dealerIds[0],
      config: { provider: 'ctm' },
    });
    deliver(app, ctm.integration.id, 'ctm-calls.csv');
    const ctmRun = await syncNow(app, admin, ctm.integration.id);
    expect(ctmRun.counts).toMatchObject({ created: 2, failed: 1 });
    expect(ctmRun.row_errors[0]).toMatchObject({ row: 4, field: 'duration_seconds' });
  });

  it('loads ADF/XML leads and DMS deals, and links the deal to the lead and call that led to it', async () => {
    const leads = await connect(app, admin, { plugin_key: 'adf_xml_leads', dealer_id: group.dealerIds[0] });
    deliver(app, leads.integration.id, 'adf-leads.xml');
    const leadRun = await syncNow(app, admin, leads.integration.id);
    expect(leadRun.counts).toMatchObject({ read: 3, created: 2, failed: 1 });
    expect(leadRun.row_errors[0]).toMatchObject({
      row: 3,
      field: 'email',
      message: expect.stringContaining('email or a phone'),
    });
    const listed = (await app.client.get(`/leads?dealer_id=${group.dealerIds[0]}`, admin)).body.leads;
    expect(listed.find((lead: { external_id: string }) => lead.external_id === 'Cars.com:CARS-88213001')).toMatchObject(
      {
        provider: 'adf',
        type: 'used',
        first_name: 'Maria',
        last_name: 'Gonzalez',
        email: 'maria.gonzalez@example.com',
        phone: '+13035550147',
        vehicle_vin: '2T3AB3FA4MA100200',
        raw_source: 'Cars.com',
        received_at: '2026-11-18T21:32:11.000Z',
      },
    );
    expect(listed.find((lead: { external_id: string }) => lead.external_id === 'AutoTrader:AT-5521907')).toMatchObject({
      type: 'new',
      first_name: 'James',
      last_name: "O'Neil",
    });

    const deals = await connect(app, admin, { plugin_key: 'dms_sales_csv', dealer_id: group.dealerIds[0] });
    deliver(app, deals.integration.id, 'dms-deals.csv');
    const dealRun = await syncNow(app, admin, deals.integration.id);
    expect(dealRun.counts).toMatchObject({ read: 5, created: 3, failed: 2 });
    expect(dealRun.row_errors.map((error: { field: string }) => error.field)).toEqual(['salesperson', 'contract_type']);
    const sales = (await app.client.get(`/sales?dealer_id=${group.dealerIds[0]}`, admin)).body.sales;
    const rav4 = sales.find((sale: { deal_number: string }) => sale.deal_number === 'D-100451');
    expect(rav4).toMatchObject({
      sale_price: '28495.00',
      front_gross: '1850.00',
      back_gross: '1210.50',
      contract_type: 'finance',
      vehicle_condition: 'used',
      trade_in_value: '9500.00',
    });
    expect(sales.find((sale: { deal_number: string }) => sale.deal_number === 'D-100453').front_gross).toBe('-250.00');
    const lead = (await app.client.get(`/leads?dealer_id=${group.dealerIds[0]}`, admin)).body.leads.find(
      (entry: { external_id: string }) => entry.external_id === 'Cars.com:CARS-88213001',
    );
    expect(lead.sale_id).toBe(rav4.id);
  });

  it('pulls an inventory JSON API page by page with the stored bearer token', async () => {
    const dealerId = group.dealerIds[1]!;
    const { integration } = await connect(app, admin, {
      plugin_key: 'inventory_json_api',
      dealer_id: dealerId,
      config: { url: apiUrl, records_path: 'data.vehicles' },
    });
    expect(integration).toMatchObject({ schedule_minutes: 60, source: 'website' });
    const refused = await syncNow(app, admin, integration.id);
    expect(refused).toMatchObject({ status: 'failed', error: expect.stringContaining('refused the credentials') });
    await app.client.request('PUT', `/api/v1/integrations/${integration.id}/credentials`, {
      token: admin,
      body: { credentials: { api_key: 'pull-token-123' } },
    });
    const probe = await app.client.post(`/integrations/${integration.id}/test`, {}, admin);
    expect(probe.body).toMatchObject({
      ok: true,
      sample: [{ record: { vin: '1GCUYDEDXNZ100011' } }, { record: { vin: '1GCUYDED1NZ100012' } }],
    });
    const run = await syncNow(app, admin, integration.id);
    expect(run).toMatchObject({ status: 'succeeded', trigger: 'manual', counts: { read: 3, created: 3 } });
    expect(apiRequests.some((request) => request.url.includes('cursor=2'))).toBe(true);
    const silverado = (await app.client.get('/inventory/1GCUYDEDXNZ100011', admin)).body;
    expect(silverado).toMatchObject({
      price: '52300.00',
      condition: 'new',
      mileage: 10,
      stock_number: 'C901',
      photos: ['https://img.example/c901/1.jpg'],
    });
  });
});
