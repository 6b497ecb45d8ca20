import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { linkLeadsAndCalls } from '../src/modules/sales/sales.service';
import { startTestApp, type TestApp } from './helpers/app';
import { seedActivity, seedGroup, type SeededGroup } from './helpers/seed';
import { recordStatements } from './helpers/statements';

const at = (iso: string) => new Date(iso);

describe('sources, calls, leads, sales and partners (their sections of docs/operations.md)', () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;
  let viewer: string;
  let activity: Awaited<ReturnType<typeof seedActivity>>;

  const CALLS = [
    {
      provider: 'callrail',
      startedAt: at('2026-03-01T15:00:00Z'),
      durationSeconds: 200,
      status: 'answered' as const,
      callerNumber: '+13035550001',
      rawSource: 'Google Ads',
      firstTimeCaller: true,
    },
    {
      provider: 'ctm',
      startedAt: at('2026-03-01T15:00:40Z'),
      durationSeconds: 190,
      status: 'answered' as const,
      callerNumber: '+13035550001',
      rawSource: 'google-ads',
    },
    {
      provider: 'callrail',
      startedAt: at('2026-03-01T18:00:00Z'),
      durationSeconds: 0,
      status: 'missed' as const,
      callerNumber: '+13035550002',
      rawSource: 'GOOGLE ADS ',
      firstTimeCaller: true,
    },
    {
      provider: 'callrail',
      startedAt: at('2026-03-02T10:00:00Z'),
      durationSeconds: 45,
      status: 'voicemail' as const,
      callerNumber: '+13035550003',
      rawSource: 'cars.com',
    },
    {
      provider: 'callrail',
      startedAt: at('2026-03-02T11:00:00Z'),
      durationSeconds: 400,
      status: 'answered' as const,
      callerNumber: '+13035550004',
      rawSource: 'Facebook Marketplace',
      dealer: 1,
      direction: 'outbound' as const,
    },
    {
      provider: 'callrail',
      startedAt: at('2026-03-02T12:00:00Z'),
      durationSeconds: 30,
      status: 'answered' as const,
      callerNumber: '+13035550001',
      rawSource: 'Google Ads',
    },
  ];

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma, { users: { admin: 'admin', viewer: 'viewer' } });
    admin = await group.login(app.client, 'admin');
    viewer = await group.login(app.client, 'viewer');
    activity = await seedActivity(app.database.prisma, group, {
      calls: CALLS,
      leads: [
        {
          receivedAt: at('2026-03-01T09:00:00Z'),
          type: 'used',
          status: 'sold',
          email: 'ana@example.com',
          rawSource: 'Cars.com',
          assignee: 'Alex Rivera',
        },
        {
          receivedAt: at('2026-03-02T09:00:00Z'),
          type: 'used',
          status: 'contacted',
          email: 'ben@example.com',
          rawSource: 'CARS COM',
          assignee: 'Alex Rivera',
        },
        {
          receivedAt: at('2026-03-03T09:00:00Z'),
          type: 'new',
          status: 'appointment',
          email: 'cy@example.com',
          rawSource: 'Google Ads',
          assignee: 'Sam Lee',
        },
        {
          receivedAt: at('2026-03-04T09:00:00Z'),
          type: 'service',
          status: 'lost',
          email: null,
          phone: '+13035550004',
          rawSource: 'walk in',
        },
        {
          receivedAt: at('2026-03-05T09:00:00Z'),
          type: 'new',
          status: 'new',
          email: 'dee@example.com',
          rawSource: null,
        },
      ],
      sales: [
        {
          soldAt: at('2026-03-10T17:00:00Z'),
          salesperson: 'Alex Rivera',
          contractType: 'finance',
          salePrice: '24000.00',
          frontGross: '1200.00',
          backGross: '800.00',
          customerEmail: 'ANA@example.com',
        },
        {
          soldAt: at('2026-03-20T17:00:00Z'),
          salesperson: 'Sam Lee',
          contractType: 'cash',
          salePrice: '31000.00',
          frontGross: '2100.00',
          backGross: '0.00',
          customerPhone: '+13035550001',
        },
        {
          soldAt: at('2026-04-02T17:00:00Z'),
          salesperson: 'alex rivera',
          contractType: 'lease',
          salePrice: '39000.00',
          frontGross: '900.00',
          backGross: '1500.00',
        },
      ],
    });
    await linkLeadsAndCalls(app.database.prisma, [group.groupId]);
  });
  afterAll(() => app?.stop());

  it('keeps a source directory and maps the many spellings of a raw value', async () => {
    const google = await app.client.post(
      '/sources',
      { name: 'Google Ads', category: 'paid_search', channel: 'Google', color: '#1F6FEB', cost_per_month: '3000' },
      admin,
    );
    expect(google.status).toBe(201);
    expect(google.body).toMatchObject({
      name: 'Google Ads',
      category: 'paid_search',
      color: '#1f6feb',
      cost_per_month: '3000.00',
    });
    expect((await app.client.post('/sources', { name: 'google ads', category: 'paid_search' }, admin)).status).toBe(
      409,
    );
    expect((await app.client.post('/sources', { name: 'x', category: 'radio' }, admin)).status).toBe(400);
    expect((await app.client.post('/sources', { name: 'x', category: 'oem' }, viewer)).status).toBe(403);
    const cars = await app.client.post(
      '/sources',
      { name: 'Cars.com', category: 'third_party_listing', cost_per_month: '1500' },
      admin,
    );

    const mapped = await app.client.post(
      '/sources/mappings',
      { source_id: google.body.id, raw_values: ['Google Ads', 'google-ads', 'GOOGLE  ADS'] },
      admin,
    );
    expect(mapped.status).toBe(201);
    expect(mapped.body.created).toBe(1);
    expect(
      (
        await app.client.post(
          '/sources/mappings',
          { source_id: cars.body.id, raw_value: '^cars\\s*(\\.|dot)?\\s*com', match: 'pattern' },
          admin,
        )
      ).status,
    ).toBe(201);
    expect(
      (await app.client.post('/sources/mappings', { source_id: cars.body.id, raw_value: 'Google Ads' }, admin)).status,
    ).toBe(409);
    expect(
      (
        await app.client.post(
          '/sources/mappings',
          { source_id: cars.body.id, raw_value: '(a)\\1', match: 'pattern' },
          admin,
        )
      ).status,
    ).toBe(400);

    const resolved = await app.client.post(
      '/sources/resolve',
      { raw_values: ['GOOGLE ADS ', 'cars.com', 'Cars Dot Com', 'TikTok'] },
      viewer,
    );
    expect(
      resolved.body.results.map((row: { matched_by: string | null; source: { name: string } | null }) => [
        row.matched_by,
        row.source?.name ?? null,
      ]),
    ).toEqual([
      ['exact', 'Google Ads'],
      ['pattern', 'Cars.com'],
      ['pattern', 'Cars.com'],
      [null, null],
    ]);

    const unmapped = await app.client.get('/sources/unmapped', viewer);
    expect(
      unmapped.body.values.map((row: { normalized: string; total: number }) => [row.normalized, row.total]),
    ).toEqual([
      ['facebook marketplace', 1],
      ['walk in', 1],
    ]);

    // New mappings apply to waiting calls and leads at once; enrich re-resolves on demand.
    expect((await app.client.get('/calls?source=Google Ads', viewer)).body.pagination.total).toBe(4);
    expect((await app.client.post('/calls/enrich', {}, admin)).body).toEqual({ examined: 1, enriched: 0, unmapped: 1 });
    await app.database.prisma.call.updateMany({ where: { dealerGroupId: group.groupId }, data: { sourceId: null } });
    expect((await app.client.post('/calls/enrich', { from: '2026-03-01T00:00:00Z' }, admin)).body).toEqual({
      examined: 6,
      enriched: 5,
      unmapped: 1,
    });
    const inUse = await app.client.request('DELETE', `/api/v1/sources/${google.body.id}`, { token: admin });
    expect(inUse.status).toBe(409);
    const spare = await app.client.post('/sources', { name: 'Spare', category: 'other' }, admin);
    expect((await app.client.request('DELETE', `/api/v1/sources/${spare.body.id}`, { token: admin })).body).toEqual({
      id: spare.body.id,
      deleted: true,
    });
    const leads = await app.client.get('/leads?limit=10', viewer);
    expect(
      leads.body.leads
        .map((lead: { raw_source: string | null; source: { name: string } | null }) => [
          lead.raw_source,
          lead.source?.name ?? null,
        ])
        .sort(),
    ).toEqual(
      [
        ['CARS COM', 'Cars.com'],
        ['Cars.com', 'Cars.com'],
        ['Google Ads', 'Google Ads'],
        ['walk in', null],
        [null, null],
      ].sort(),
    );
  });

  it('filters calls by every filter GET /calls takes', async () => {
    const count = async (query: string) => {
      const response = await app.client.get(`/calls?${query}`, viewer);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.pagination.total;
    };
    expect(await count('')).toBe(6);
    expect(await count('status=answered')).toBe(4);
    expect(await count('status=missed,voicemail')).toBe(2);
    expect(await count('direction=outbound')).toBe(1);
    expect(await count('first_time=true')).toBe(2);
    expect(await count('min_duration=190')).toBe(3);
    expect(await count(`dealer_id=${group.dealerIds[1]}`)).toBe(1);
    expect(await count('from=2026-03-02T00:00:00Z&to=2026-03-02T11:30:00Z')).toBe(2);
    expect(await count('source=google ads')).toBe(4);
    for (const bad of [
      'status=busy',
      'direction=sideways',
      'min_duration=-1',
      'first_time=maybe',
      'from=2026-03-03&to=2026-03-01',
      'dealer_id=7',
    ]) {
      expect((await app.client.get(`/calls?${bad}`, viewer)).status, bad).toBe(400);
    }
    const one = await app.client.get(`/calls/${activity.calls[0]}`, viewer);
    expect(one.body).toMatchObject({
      provider: 'callrail',
      raw_source: 'Google Ads',
      source: { name: 'Google Ads', category: 'paid_search' },
      sale_id: activity.sales[1],
    });
  });

  it('merges calls reported by two providers', async () => {
    const merged = await app.client.get('/calls/merged', viewer);
    expect(merged.body.pagination.total).toBe(5);
    const first = merged.body.calls.find((row: { providers: string[] }) => row.providers.length === 2);
    expect(first).toMatchObject({
      providers: ['callrail', 'ctm'],
      record_count: 2,
      duration_seconds: 200,
      status: 'answered',
      id: activity.calls[0],
    });
    expect(first.sources.map((call: { provider: string }) => call.provider)).toEqual(['callrail', 'ctm']);
  });

  it('computes call stats in SQL', async () => {
    const stats = (await app.client.get('/calls/stats', viewer)).body;
    const answered = CALLS.filter((call) => call.status === 'answered');
    expect(stats).toMatchObject({
      calls: 6,
      answered: 4,
      missed: 1,
      voicemail: 1,
      first_time_callers: 2,
      answer_rate: Number((4 / 6).toFixed(3)),
    });
    expect(stats.average_duration_seconds).toBeCloseTo(
      answered.reduce((sum, call) => sum + call.durationSeconds, 0) / answered.length,
      1,
    );
    expect(stats.by_day.map((day: { day: string; calls: number }) => [day.day, day.calls])).toEqual([
      ['2026-03-01', 3],
      ['2026-03-02', 3],
    ]);
    const google = stats.by_source.find((row: { source_name: string | null }) => row.source_name === 'Google Ads');
    expect(google).toMatchObject({ calls: 4, answered: 3, missed: 1 });
  });

  it('updates leads and breaks them down by type, status and source', async () => {
    const changed = await app.client.request('PATCH', `/api/v1/leads/${activity.leads[4]}`, {
      token: admin,
      body: { status: 'contacted', assignee: 'Sam Lee' },
    });
    expect(changed.body).toMatchObject({ status: 'contacted', assignee: 'Sam Lee' });
    expect(
      (
        await app.client.request('PATCH', `/api/v1/leads/${activity.leads[4]}`, {
          token: admin,
          body: { status: 'won' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await app.client.request('PATCH', `/api/v1/leads/${activity.leads[4]}`, {
          token: viewer,
          body: { status: 'lost' },
        })
      ).status,
    ).toBe(403);
    expect((await app.client.get('/leads?status=contacted', viewer)).body.pagination.total).toBe(2);
    expect((await app.client.get('/leads?type=new&from=2026-03-03T00:00:00Z', viewer)).body.pagination.total).toBe(2);

    const byType = (await app.client.get('/leads/stats/by-type', viewer)).body.types;
    expect(byType.find((row: { type: string }) => row.type === 'used')).toMatchObject({
      leads: 2,
      sold: 1,
      conversion_rate: 0.5,
    });
    const funnel = (await app.client.get('/leads/stats/by-status', viewer)).body;
    expect(funnel).toMatchObject({ total: 5, sold: 1, lost: 1, conversion_rate: 0.2 });
    expect(funnel.stages.map((stage: { status: string; reached: number }) => [stage.status, stage.reached])).toEqual([
      ['new', 5],
      ['contacted', 4],
      ['appointment', 2],
      ['showed', 1],
      ['sold', 1],
      ['lost', 1],
    ]);
    const bySource = (
      await app.client.get('/leads/stats/by-source?from=2026-03-01T00:00:00Z&to=2026-03-31T00:00:00Z', viewer)
    ).body.sources;
    const cars = bySource.find((row: { source_name: string | null }) => row.source_name === 'Cars.com');
    expect(cars).toMatchObject({ leads: 2, sold: 1, sales: 1, gross: '2000.00', conversion_rate: 0.5 });
    expect(Number(cars.cost_per_lead)).toBeCloseTo((1500 * 30) / 30.4375 / 2, 1);
  });

  it('links leads and calls to the deals they became', async () => {
    const sale = await app.client.graphql(
      `query ($id: ID!) { sale(id: $id) { deal_number leads { email } calls { caller_number } } }`,
      { id: activity.sales[1] },
      viewer,
    );
    expect(sale.body.data.sale.calls.map((call: { caller_number: string }) => call.caller_number)).toEqual([
      '+13035550001',
      '+13035550001',
      '+13035550001',
    ]);
    const first = await app.client.graphql(
      `query ($id: ID!) { sale(id: $id) { leads { email } } }`,
      { id: activity.sales[0] },
      viewer,
    );
    expect(first.body.data.sale.leads).toEqual([{ email: 'ana@example.com' }]);
  });

  it('filters deals and computes stats by month and salesperson', async () => {
    expect((await app.client.get('/sales?salesperson=ALEX RIVERA', viewer)).body.pagination.total).toBe(2);
    expect((await app.client.get('/sales?contract_type=cash,lease', viewer)).body.pagination.total).toBe(2);
    expect(
      (await app.client.get('/sales?from=2026-03-15T00:00:00Z&to=2026-03-31T00:00:00Z', viewer)).body.pagination.total,
    ).toBe(1);
    expect((await app.client.get('/sales?contract_type=barter', viewer)).status).toBe(400);
    const stats = (await app.client.get('/sales/stats', viewer)).body;
    expect(stats).toMatchObject({
      units: 3,
      revenue: '94000.00',
      front_gross: '4200.00',
      back_gross: '2300.00',
      total_gross: '6500.00',
      average_sale_price: '31333.33',
    });
    expect(
      stats.by_month.map((month: { month: string; units: number; total_gross: string }) => [
        month.month,
        month.units,
        month.total_gross,
      ]),
    ).toEqual([
      ['2026-03', 2, '4100.00'],
      ['2026-04', 1, '2400.00'],
    ]);
    const people = (await app.client.get('/sales/stats/salespeople', viewer)).body.salespeople;
    // "Alex Rivera" and "alex rivera" are one person, as DMS exports spell them.
    expect(
      people.map((row: { salesperson: string; units: number; total_gross: string }) => [
        row.salesperson.toLowerCase(),
        row.units,
        row.total_gross,
      ]),
    ).toEqual([
      ['alex rivera', 2, '4400.00'],
      ['sam lee', 1, '2100.00'],
    ]);
    expect(people[0]).toMatchObject({ assigned_leads: 2, close_rate: 1 });
    expect(people[1]).toMatchObject({ salesperson: 'Sam Lee', assigned_leads: 2, close_rate: 0.5 });
  });

  it.each([
    '/leads?status=won',
    '/leads?type=boat',
    '/leads?from=2026-05-01T00:00:00Z&to=2026-04-01T00:00:00Z',
    '/leads?dealer_id=x',
    '/leads?limit=0',
    '/leads/stats/by-type?status=nope',
    '/leads/stats/by-source?from=yesterday',
    '/sales?contract_type=barter',
    '/sales?condition=mint',
    '/sales?from=not-a-date',
    '/sales/stats?dealer_id=1',
    '/sales/stats/salespeople?to=soon',
    '/calls/merged?limit=501',
    '/calls/stats?status=busy',
    '/sources?category=radio',
    '/sources/mappings?match=fuzzy',
    '/sources/mappings?source_id=7',
    '/sources/unmapped?offset=-1',
    '/partners?kind=spy',
    '/dealers?limit=9999',
    '/calls?unknown=1',
  ])('answers %s with a 400 naming the parameter', async (path) => {
    const response = await app.client.get(path, admin);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error.code).toBe('INVALID_ARGUMENT');
    const parameter = new URL(path, 'http://x').searchParams.keys().next().value as string;
    expect(response.body.error.message).toContain(
      parameter === 'to' || parameter === 'from'
        ? path.includes('from=') && path.includes('to=')
          ? 'from'
          : parameter
        : parameter,
    );
  });

  it.each([
    ['/sources', { name: 'x', category: 'oem', color: 'blue' }, 'color'],
    ['/sources', { name: 'x', category: 'oem', cost_per_month: '-5' }, 'cost_per_month'],
    ['/sources/mappings', { source_id: 'nope', raw_value: 'x' }, 'source'],
    ['/sources/resolve', { raw_values: [] }, 'raw_values'],
    ['/partners', { name: 'x', kind: 'agency', contact_email: 'nope' }, 'contact_email'],
    ['/partners', { name: 'x' }, 'kind'],
  ])('answers POST %s %j with a 4xx naming %s', async (path, body, field) => {
    const response = await app.client.post(path, body, admin);
    expect([400, 404]).toContain(response.status);
    expect(response.body.error.message).toContain(field);
  });

  it('keeps partners and their dealer relationships', async () => {
    const created = await app.client.post(
      '/partners',
      { name: 'Acme Ads', kind: 'agency', contact_email: 'Ops@Acme.example', website: 'acme.example' },
      admin,
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'agency', contact_email: 'ops@acme.example', dealers: [] });
    const linked = await app.client.post(
      `/partners/${created.body.id}/dealers`,
      { dealer_id: group.dealerIds[0], relationship_type: 'advertising', data_permissions: ['leads', 'calls'] },
      admin,
    );
    expect(linked.status).toBe(201);
    expect(linked.body.dealers).toEqual([
      expect.objectContaining({
        dealer_id: group.dealerIds[0],
        relationship_type: 'advertising',
        data_permissions: ['leads', 'calls'],
      }),
    ]);
    expect(
      (
        await app.client.post(
          `/partners/${created.body.id}/dealers`,
          { dealer_id: group.dealerIds[0], relationship_type: 'spying', data_permissions: [] },
          admin,
        )
      ).status,
    ).toBe(400);
    expect((await app.client.request('DELETE', `/api/v1/partners/${created.body.id}`, { token: admin })).status).toBe(
      409,
    );
    expect(
      (
        await app.client.request('DELETE', `/api/v1/partners/${created.body.id}/dealers/${group.dealerIds[0]}`, {
          token: admin,
        })
      ).status,
    ).toBe(200);
    expect(
      (await app.client.request('DELETE', `/api/v1/partners/${created.body.id}`, { token: admin })).body.deleted,
    ).toBe(true);
    expect((await app.client.get(`/partners/${created.body.id}`, admin)).status).toBe(404);
  });
});

describe('dashboards in one GraphQL request', () => {
  let app: TestApp;
  let token: string;

  beforeAll(async () => {
    app = await startTestApp();
    const group = await seedGroup(app.database.prisma, {
      dealers: 50,
      vehicles: Array.from({ length: 100 }, (_, index) => ({ dealer: index % 50 })),
    });
    await seedActivity(app.database.prisma, group, {
      calls: Array.from({ length: 100 }, (_, index) => ({ dealer: index % 50 })),
      leads: Array.from({ length: 100 }, (_, index) => ({ dealer: index % 50 })),
      sales: Array.from({ length: 50 }, (_, index) => ({ dealer: index })),
    });
    token = await group.login(app.client);
  });
  afterAll(() => app?.stop());

  it('loads 50 dealers with their vehicles, calls, leads and sales in a fixed number of statements', async () => {
    let body:
      | {
          data: {
            dealers: {
              dealers: Array<{
                vehicles: unknown[];
                calls: Array<{ source: unknown }>;
                leads: unknown[];
                sales: unknown[];
                call_count: number;
              }>;
            };
          };
        }
      | undefined;
    const statements = await recordStatements(app.database.pool, async () => {
      const response = await app.client.graphql(
        `{ dealers(limit: 50) { dealers {
        name call_count lead_count
        vehicles(limit: 5) { vin price }
        calls(limit: 5) { started_at status source { name } }
        leads(limit: 5) { status source { name } }
        sales(limit: 5) { front_gross }
      } } }`,
        {},
        token,
      );
      body = response.body;
    });
    if (!body) throw new Error('no response');
    expect(body.data.dealers.dealers).toHaveLength(50);
    expect(
      body.data.dealers.dealers.every(
        (dealer) =>
          dealer.vehicles.length === 2 &&
          dealer.calls.length === 2 &&
          dealer.sales.length === 1 &&
          dealer.call_count === 2,
      ),
    ).toBe(true);
    // Session, dealers with their counts (no count of the dealers: the query asks no total), then per
    // nested list one statement picking every dealer's rows (sources joined in): 6, whatever the
    // number of dealers.
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(6);
    expect(statements.filter((text) => /count\(/i.test(text) && /"dealers"/.test(text))).toEqual([]);
    // Calls, leads and deals load only the columns asked for (and their ids), not whole rows.
    const loads = (table: string) =>
      statements.find((text) => new RegExp(`FROM (?:"public"\\.)?"${table}"`).test(text));
    for (const [table, unasked] of [
      ['calls', 'caller_number'],
      ['leads', 'email'],
      ['sales', 'customer_name'],
    ] as const) {
      expect(loads(table), statements.join('\n')).toBeDefined();
      expect(loads(table)).not.toContain(unasked);
    }
  });

  it('answers each place of a nested list with its own arguments and selection, the same for every dealer', async () => {
    const { body } = await app.client.graphql(
      `fragment Latest on Dealer { both: calls(limit: 2) { id } }
      { dealers(limit: 50) { dealers {
        one: calls(limit: 1) { id }
        two: calls(limit: 2) { status }
        ...Latest
        both: calls(limit: 2) { started_at }
      } } }`,
      {},
      token,
    );
    const dealers = body.data.dealers.dealers as Array<Record<string, Array<Record<string, unknown>>>>;
    expect(dealers).toHaveLength(50);
    for (const dealer of dealers) {
      expect(dealer.one!.map((call) => Object.keys(call))).toEqual([['id']]);
      expect(dealer.two!.map((call) => Object.keys(call))).toEqual([['status'], ['status']]);
      expect(dealer.both!.map((call) => Object.keys(call).sort())).toEqual([
        ['id', 'started_at'],
        ['id', 'started_at'],
      ]);
      expect(dealer.both!.map((call) => call.id)).toEqual(expect.arrayContaining([dealer.one![0]!.id]));
    }
  });

  it('counts the rooftops when a query asks for the total, once', async () => {
    let body: { data: { dealers: { pagination: { total: number }; again: { total: number } } } } | undefined;
    const statements = await recordStatements(app.database.pool, async () => {
      body = (
        await app.client.graphql(
          `{ dealers(limit: 2) { pagination { total limit } again: pagination { total } dealers { id } } }`,
          {},
          token,
        )
      ).body;
    });
    expect(body?.data.dealers.pagination).toEqual({ total: 50, limit: 2 });
    expect(body?.data.dealers.again.total).toBe(50);
    expect(statements.filter((text) => /count\(/i.test(text) && /"dealers"/.test(text))).toHaveLength(1);
  });

  it("answers each rooftop's latest rows in their order, whether the selection is read in the picking statement or by the client", async () => {
    const { body } = await app.client.graphql(
      `{ dealers(limit: 50) { dealers { id
        plain: vehicles(limit: 5) { id }
        read: vehicles(limit: 5) { id sources { source } }
        calls(limit: 5) { id }
      } } }`,
      {},
      token,
    );
    const dealers = body.data.dealers.dealers as Array<Record<string, Array<{ id: string }>> & { id: string }>;
    expect(dealers).toHaveLength(50);
    const latest = async (sql: string) => {
      const byDealer = new Map<string, string[]>();
      for (const row of (await app.database.pool.query<{ dealer_id: string; id: string }>(sql)).rows)
        byDealer.set(row.dealer_id, [...(byDealer.get(row.dealer_id) ?? []), row.id]);
      return byDealer;
    };
    const vehicles = await latest('SELECT dealer_id, id FROM vehicles ORDER BY date_in_stock, id');
    const calls = await latest('SELECT dealer_id, id FROM calls ORDER BY started_at DESC, id');
    for (const dealer of dealers) {
      const ids = (list: string) => dealer[list]!.map((row) => row.id);
      expect(ids('plain')).toEqual((vehicles.get(dealer.id) ?? []).slice(0, 5));
      // A list relation beneath: not a plain selection, so its ids are picked and the client reads the rows.
      expect(ids('read')).toEqual(ids('plain'));
      expect(ids('calls')).toEqual((calls.get(dealer.id) ?? []).slice(0, 5));
    }
  });
});

describe('unmapped sources', () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;

  beforeAll(async () => {
    app = await startTestApp({ SYNC_SCHEDULER: 'false' });
    group = await seedGroup(app.database.prisma, { dealers: 2 });
    admin = await group.login(app.client);
  });
  afterAll(() => app?.stop());

  /** The former statement, which normalised every row: the answer must stay exactly its answer. */
  const perRow = (groupId: string) =>
    app.database.pool
      .query(
        `WITH seen AS (
           SELECT dealer_group_id, raw_source, 1 AS calls, 0 AS leads, started_at AS at FROM calls WHERE dealer_group_id = $1 AND raw_source IS NOT NULL AND source_id IS NULL
           UNION ALL
           SELECT dealer_group_id, raw_source, 0, 1, received_at FROM leads WHERE dealer_group_id = $1 AND raw_source IS NOT NULL AND source_id IS NULL
         ), grouped AS (
           SELECT trim(regexp_replace(lower(raw_source), '[^a-z0-9]+', ' ', 'g')) AS normalized, mode() WITHIN GROUP (ORDER BY raw_source) AS raw_value,
             sum(calls)::int AS calls, sum(leads)::int AS leads, max(at) AS last_seen_at, min(dealer_group_id::text)::uuid AS dealer_group_id
           FROM seen GROUP BY 1
         )
         SELECT g.raw_value, g.normalized, g.calls, g.leads, g.last_seen_at FROM grouped g
         WHERE g.normalized <> '' AND NOT EXISTS (
           SELECT 1 FROM source_mappings m WHERE m.dealer_group_id = g.dealer_group_id
             AND ((m.match = 'exact' AND m.normalized = g.normalized) OR (m.match = 'pattern' AND g.raw_value ~* m.raw_value)))
         ORDER BY g.calls + g.leads DESC, g.normalized`,
        [groupId],
      )
      .then((result) => result.rows);

  it('counts each spelling once and answers what counting every row answered', async () => {
    // Spellings that normalise alike (so a value's most frequent spelling, and ties, decide its
    // raw_value), one a pattern mapping resolves, and ones that normalise to nothing.
    const spelling = fc.constantFrom(
      'Cars.com',
      'cars com',
      'CARS.COM',
      'Google Ads',
      'google-ads',
      'GOOGLE ADS ',
      'Walk In',
      'walk-in',
      'TikTok',
      '!!',
      null,
    );
    const when = fc.integer({ min: 0, max: 30 * 86_400_000 }).map((ms) => new Date(Date.parse('2026-03-01') + ms));
    const tiktok = await app.client.post('/sources', { name: 'TikTok Ads', category: 'social' }, admin);
    const mapped = await app.client.post(
      '/sources/mappings',
      { source_id: tiktok.body.id, raw_value: '^tik', match: 'pattern' },
      admin,
    );
    expect(mapped.status, JSON.stringify(mapped.body)).toBe(201);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ rawSource: spelling, startedAt: when }), { maxLength: 25 }),
        fc.array(fc.record({ rawSource: spelling, receivedAt: when }), { maxLength: 15 }),
        async (calls, leads) => {
          await app.database.pool.query('DELETE FROM calls WHERE dealer_group_id = $1', [group.groupId]);
          await app.database.pool.query('DELETE FROM leads WHERE dealer_group_id = $1', [group.groupId]);
          await seedActivity(app.database.prisma, group, { calls, leads });
          const answer = await app.client.get('/sources/unmapped?limit=500', admin);
          expect(answer.status, JSON.stringify(answer.body)).toBe(200);
          const want = await perRow(group.groupId);
          expect(
            answer.body.values.map(
              (row: { raw_value: string; normalized: string; calls: number; leads: number; last_seen_at: string }) => [
                row.raw_value,
                row.normalized,
                row.calls,
                row.leads,
                row.last_seen_at,
              ],
            ),
          ).toEqual(
            want.map((row) => [row.raw_value, row.normalized, row.calls, row.leads, row.last_seen_at.toISOString()]),
          );
          expect(answer.body.pagination.total).toBe(want.length);
        },
      ),
      { numRuns: 25 },
    );
  });
});
