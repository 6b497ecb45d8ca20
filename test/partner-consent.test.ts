import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { operationAccess, restRoutes } from '../src/http/operations';
import { PARTNER_SCOPES } from '../src/auth/consent';
import { schema } from '../src/schema';
import { startTestApp, type ApiResponse, type TestApp } from './helpers/app';
import { createKey } from './helpers/keys';
import { seedActivity, seedGroup, testVin, type SeededGroup } from './helpers/seed';

/** The REST routes, read from the schema's fields as the server reads them. */
const REST_ROUTES = restRoutes(schema);

/** The operations a partner's key can reach: those its scopes allow, and those any signed-in caller may call. */
const PARTNER_OPERATIONS = Object.entries(REST_ROUTES)
  .filter(([coordinate, route]) => {
    const [type, name] = coordinate.split('.') as ['Query' | 'Mutation', string];
    const field = (type === 'Query' ? schema.getQueryType() : schema.getMutationType())!.getFields()[name]!;
    const access = operationAccess(field, route);
    return (
      access.kind === 'signedIn' ||
      (access.kind === 'scope' && (PARTNER_SCOPES as readonly string[]).includes(access.scope))
    );
  })
  .map(([coordinate]) => coordinate);

/**
 * A partner linked to rooftop 0 for inventory and leads and to rooftop 1 for calls, dealers and
 * sales; rooftop 2 is not linked. Its key walks every operation its scopes reach and must see
 * exactly what the links allow: nothing of an unlinked rooftop, nothing of a kind a link does not
 * allow. A new operation a partner's key can reach fails this suite until it gets a case below.
 */
// On a server the feed may wait for other test files' transactions (see Query.events below).
vi.setConfig({ testTimeout: 120_000 });

describe("a partner's key sees only what the partner's links allow", () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;
  let key: string;
  let partnerId: string;
  let activity: Awaited<ReturnType<typeof seedActivity>>;
  let hidden: string[];
  let adminEndpoint: string;
  let adminDelivery: string;

  const dealer = (index: number) => group.dealerIds[index]!;
  const vin = (index: number) => group.vehicles[index]!.vin;

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma, {
      dealers: 3,
      vehicles: [
        { make: 'Acura', model: 'MDX', dealer: 0, sources: [{ source: 'dms', data: {} }] },
        { make: 'Buick', model: 'Enclave', dealer: 1 },
        { make: 'Cadillac', model: 'XT5', dealer: 2 },
      ],
    });
    admin = await group.login(app.client);
    activity = await seedActivity(app.database.prisma, group, {
      calls: [{ dealer: 0 }, { dealer: 1 }, { dealer: 2 }],
      leads: [
        { dealer: 0, email: 'zero-a@leads.example' },
        { dealer: 0, email: 'zero-b@leads.example' },
        { dealer: 1, email: 'one@leads.example' },
        { dealer: 2, email: 'two@leads.example' },
      ],
      sales: [
        { dealer: 0, salesperson: 'Seller Zero', customerEmail: 'buyer-zero@example.com' },
        { dealer: 1, salesperson: 'Seller One', customerEmail: 'buyer-one@example.com' },
        { dealer: 2, salesperson: 'Seller Two', customerEmail: 'buyer-two@example.com' },
      ],
    });
    // Rooftop 0's first lead became rooftop 1's deal (sales allowed), its second rooftop 2's (not).
    await app.database.prisma.lead.update({ where: { id: activity.leads[0] }, data: { saleId: activity.sales[1] } });
    await app.database.prisma.lead.update({ where: { id: activity.leads[1] }, data: { saleId: activity.sales[2] } });

    await app.database.prisma.dealerAlias.create({ data: { dealerId: dealer(0), alias: 'Acura of Nowhere Secret' } });
    const partner = await app.client.post('/partners', { name: 'Lot Syndicator', kind: 'vendor' }, admin);
    expect(partner.status, JSON.stringify(partner.body)).toBe(201);
    partnerId = partner.body.id;
    for (const [index, permissions] of [
      [0, ['inventory', 'leads']],
      [1, ['calls', 'dealers', 'sales']],
    ] as const) {
      const linked = await app.client.post(
        `/partners/${partnerId}/dealers`,
        { dealer_id: dealer(index), relationship_type: 'inventory_syndication', data_permissions: permissions },
        admin,
      );
      expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    }
    key = (await createKey(app.client, admin, { name: 'syndicator', scopes: [...PARTNER_SCOPES], partnerId })).key;

    adminEndpoint = (
      await app.client.post(
        '/webhook-endpoints',
        { url: 'https://hooks.example.com/group', event_types: ['lead.created'] },
        admin,
      )
    ).body.endpoint.id;
    adminDelivery = (await app.client.post(`/webhook-endpoints/${adminEndpoint}/test`, {}, admin)).body.delivery_id;

    const dealerTwo = await app.database.prisma.dealer.findUniqueOrThrow({ where: { id: dealer(2) } });
    hidden = [
      // Inventory is allowed only at rooftop 0.
      group.vehicles[1]!.id,
      vin(1),
      'Buick',
      group.vehicles[2]!.id,
      vin(2),
      'Cadillac',
      // Calls only at rooftop 1, leads only at rooftop 0, deals only at rooftop 1.
      activity.calls[0]!,
      activity.calls[2]!,
      activity.leads[2]!,
      activity.leads[3]!,
      'one@leads.example',
      'two@leads.example',
      activity.sales[0]!,
      activity.sales[2]!,
      'Seller Zero',
      'Seller Two',
      'buyer-zero@example.com',
      'buyer-two@example.com',
      // Rooftop 2 is not linked at all; the group's own endpoint is not the partner's.
      dealer(2),
      dealerTwo.name,
      adminEndpoint,
      adminDelivery,
      'hooks.example.com',
      // Rooftop 0's own records (its names elsewhere) need a link allowing dealers.
      'Acura of Nowhere Secret',
    ];
  });
  afterAll(() => app?.stop());

  /** Nothing hidden appears, except identifiers the caller itself sent (echoed in a 404). */
  const leaksNothing = (response: ApiResponse, sent: string[] = []) => {
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
    const text = JSON.stringify(response.body);
    for (const secret of hidden.filter((value) => !sent.includes(value)))
      expect(text, `leaked ${secret}`).not.toContain(secret);
    return response;
  };
  const notFound = (sent: string) => (response: ApiResponse) => {
    expect(response.status, JSON.stringify(response.body)).toBe(404);
    leaksNothing(response, [sent]);
  };
  const refusedRooftop = (response: ApiResponse) => {
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error.details?.field).toBe('dealer_id');
  };
  const get = (path: string) => app.client.get(path, key);
  const ok = async (path: string) => {
    const response = leaksNothing(await get(path));
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  };
  const ids = (rows: Array<{ id: string }>) => rows.map((row) => row.id).sort();
  const putVehicle = (vinNumber: string, dealerIndex: number) =>
    app.client.request('PUT', `/api/v1/inventory/${vinNumber}`, {
      token: key,
      body: {
        dealer_id: dealer(dealerIndex),
        year: 2024,
        make: 'Acura',
        model: 'RDX',
        condition: 'new',
        price: '45000.00',
      },
    });
  const lead = (dealerIndex: number, externalId: string) => ({
    dealer_id: dealer(dealerIndex),
    provider: 'syndicator',
    external_id: externalId,
    first_name: 'Pat',
    email: `${externalId}@buyers.example`,
    type: 'new',
  });
  const call = (dealerIndex: number, externalId: string) => ({
    dealer_id: dealer(dealerIndex),
    provider: 'syndicator',
    external_id: externalId,
    started_at: '2026-11-20T15:04:05Z',
    duration_seconds: 60,
    status: 'answered',
  });

  const cases: Record<string, () => Promise<void>> = {
    'Query.me': async () => {
      const me = await ok('/auth/me');
      expect(me.partner.partner_id).toBe(partnerId);
      expect(me.partner.dealers.map((link: { dealer_id: string }) => link.dealer_id).sort()).toEqual(
        [dealer(0), dealer(1)].sort(),
      );
    },
    'Mutation.logout': async () => {
      leaksNothing(await app.client.request('POST', '/api/v1/auth/logout', { token: key, body: {} }));
    },
    'Mutation.changePassword': async () => {
      const response = await app.client.post(
        '/auth/password',
        { current_password: 'x', new_password: 'a-new-long-secret' },
        key,
      );
      expect(response.status).toBeGreaterThanOrEqual(400);
      leaksNothing(response);
    },
    'Query.events': async () => {
      // On a server, the feed shows an event once every transaction begun before it has ended (other
      // suites' included), so it is read until the partner's events are there.
      const allowed: Record<string, string[]> = {
        [dealer(0)]: ['vehicle', 'lead'],
        [dealer(1)]: ['call', 'sale'],
      };
      let events: Array<{ type: string; dealer_id: string }> = [];
      for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
        // A lead's sale_id is the lead's own outcome (a lead.updated event carries it): the deal it
        // names stays out of reach where the link does not allow sales.
        events = leaksNothing(await get('/events?limit=500'), [activity.sales[2]!]).body.events;
        for (const event of events)
          expect(allowed[event.dealer_id] ?? [], `${event.type} at ${event.dealer_id}`).toContain(
            event.type.split('.')[0],
          );
        if (
          events.some((event) => event.type === 'vehicle.created') &&
          events.some((event) => event.type === 'call.created')
        )
          break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(events.some((event) => event.type === 'vehicle.created')).toBe(true);
      expect(events.some((event) => event.type === 'call.created')).toBe(true);
    },
    'Query.inventory': async () => {
      const { vehicles } = await ok('/inventory?limit=500');
      expect(vehicles.map((vehicle: { vin: string }) => vehicle.vin)).toContain(vin(0));
      leaksNothing(await get(`/inventory?dealer_id=${dealer(1)},${dealer(2)}`), [dealer(2)]);
      expect((await get(`/inventory?dealer_id=${dealer(1)}`)).body.pagination.total).toBe(0);
    },
    'Query.inventoryStats': async () => {
      const stats = await ok('/inventory/stats');
      expect(stats.by_dealer.map((row: { dealer_id: string }) => row.dealer_id)).toEqual([dealer(0)]);
    },
    'Query.inventoryAging': async () => {
      const aging = await ok('/inventory/aging?status=available');
      expect(aging.total_count).toBe(1);
    },
    'Query.inventoryFacets': async () => {
      await ok('/inventory/facets');
    },
    'Query.vehicle': async () => {
      expect((await ok(`/inventory/${vin(0)}`)).vin).toBe(vin(0));
      notFound(vin(1))(await get(`/inventory/${vin(1)}`));
      notFound(vin(2))(await get(`/inventory/${vin(2)}`));
    },
    'Query.vehicleHistory': async () => {
      await ok(`/inventory/${vin(0)}/history`);
      notFound(vin(1))(await get(`/inventory/${vin(1)}/history`));
    },
    'Mutation.upsertVehicle': async () => {
      const written = await putVehicle(testVin(990_001), 0);
      expect([200, 201], JSON.stringify(written.body)).toContain(written.status);
      refusedRooftop(await putVehicle(testVin(990_002), 1));
      refusedRooftop(await putVehicle(testVin(990_003), 2));
      expect(
        await app.database.prisma.vehicle.count({ where: { vin: { in: [testVin(990_002), testVin(990_003)] } } }),
      ).toBe(0);
    },
    'Query.dealers': async () => {
      expect(ids((await ok('/dealers?include_archived=true&limit=500')).dealers)).toEqual([dealer(1)]);
    },
    'Query.dealer': async () => {
      expect((await ok(`/dealers/${dealer(1)}`)).id).toBe(dealer(1));
      notFound(dealer(0))(await get(`/dealers/${dealer(0)}`));
      notFound(dealer(2))(await get(`/dealers/${dealer(2)}`));
    },
    'Query.dealerAliases': async () => {
      await ok(`/dealers/${dealer(1)}/aliases`);
      notFound(dealer(2))(await get(`/dealers/${dealer(2)}/aliases`));
    },
    'Query.matchDealers': async () => {
      const dealerTwo = await app.database.prisma.dealer.findUniqueOrThrow({ where: { id: dealer(2) } });
      const response = await app.client.post('/dealers/match', { name: dealerTwo.name }, key);
      leaksNothing(response, [dealerTwo.name]);
      expect(response.status).toBe(200);
    },
    'Query.calls': async () => {
      const page = await ok('/calls?limit=500');
      expect(ids(page.calls)).toEqual([activity.calls[1]]);
      // The total sums call_daily's rows of the link's rooftops, never the group's (nor the nil UUID's).
      expect(page.pagination.total).toBe(1);
      expect((await ok(`/calls?dealer_id=${dealer(0)},00000000-0000-0000-0000-000000000000`)).pagination.total).toBe(0);
    },
    'Mutation.createCall': async () => {
      expect((await app.client.post('/calls', call(1, 'partner-call-1'), key)).status).toBe(201);
      refusedRooftop(await app.client.post('/calls', call(0, 'partner-call-0'), key));
      refusedRooftop(await app.client.post('/calls', call(2, 'partner-call-2'), key));
    },
    'Query.mergedCalls': async () => {
      await ok('/calls/merged?limit=500');
    },
    'Query.callStats': async () => {
      // All time reads the calls; whole days read the daily rollups: both only rooftop 1's.
      const counted = await app.database.prisma.call.count({ where: { dealerId: dealer(1) } });
      expect((await ok('/calls/stats')).calls).toBe(counted);
      expect((await ok('/calls/stats?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z')).calls).toBe(counted);
      expect((await ok(`/calls/stats?dealer_id=${dealer(0)}`)).calls).toBe(0);
    },
    'Query.call': async () => {
      await ok(`/calls/${activity.calls[1]}`);
      notFound(activity.calls[0]!)(await get(`/calls/${activity.calls[0]}`));
    },
    'Query.leads': async () => {
      const { leads } = leaksNothing(await get('/leads?limit=500'), [activity.sales[2]!]).body;
      expect(ids(leads)).toEqual(expect.arrayContaining([activity.leads[0], activity.leads[1]].sort()));
      expect(leads.every((row: { dealer_id: string }) => row.dealer_id === dealer(0))).toBe(true);
      const counted = await app.database.prisma.lead.count({ where: { dealerId: dealer(0) } });
      expect((await ok('/leads?limit=1')).pagination.total).toBe(counted);
    },
    'Mutation.createLead': async () => {
      expect((await app.client.post('/leads', lead(0, 'partner-lead-0'), key)).status).toBe(201);
      refusedRooftop(await app.client.post('/leads', lead(1, 'partner-lead-1'), key));
      refusedRooftop(await app.client.post('/leads', lead(2, 'partner-lead-2'), key));
    },
    'Query.leadsByType': async () => {
      const counted = await app.database.prisma.lead.count({ where: { dealerId: dealer(0) } });
      const { types } = await ok('/leads/stats/by-type');
      expect(types.reduce((sum: number, row: { leads: number }) => sum + row.leads, 0)).toBe(counted);
    },
    'Query.leadsByStatus': async () => {
      const counted = await app.database.prisma.lead.count({ where: { dealerId: dealer(0) } });
      expect((await ok('/leads/stats/by-status')).total).toBe(counted);
    },
    'Query.leadsBySource': async () => {
      await ok('/leads/stats/by-source');
    },
    'Query.lead': async () => {
      await ok(`/leads/${activity.leads[0]}`);
      notFound(activity.leads[2]!)(await get(`/leads/${activity.leads[2]}`));
    },
    'Mutation.updateLead': async () => {
      const patch = (id: string) =>
        app.client.request('PATCH', `/api/v1/leads/${id}`, { token: key, body: { status: 'contacted' } });
      expect((await patch(activity.leads[0]!)).status).toBe(200);
      notFound(activity.leads[3]!)(await patch(activity.leads[3]!));
      const untouched = await app.database.prisma.lead.findUniqueOrThrow({ where: { id: activity.leads[3] } });
      expect(untouched.status).not.toBe('contacted');
    },
    'Query.sales': async () => {
      const page = await ok('/sales?limit=500');
      expect(ids(page.sales)).toEqual([activity.sales[1]]);
      expect(page.pagination.total).toBe(1);
    },
    'Query.saleStats': async () => {
      expect((await ok('/sales/stats')).units).toBe(1);
      expect((await ok('/sales/stats?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z')).units).toBe(1);
    },
    'Query.salespeopleStats': async () => {
      const { salespeople } = await ok('/sales/stats/salespeople');
      expect(salespeople.map((row: { salesperson: string }) => row.salesperson)).toEqual(['Seller One']);
    },
    'Query.sale': async () => {
      await ok(`/sales/${activity.sales[1]}`);
      notFound(activity.sales[0]!)(await get(`/sales/${activity.sales[0]}`));
    },
    'Query.sourcePriorities': async () => {
      const body = await ok('/multi-source/priorities');
      expect(body.dealers.map((row: { dealer_id: string }) => row.dealer_id)).toEqual([dealer(0)]);
    },
    'Query.multiSourceVehicle': async () => {
      await ok(`/multi-source/vehicles/${vin(0)}`);
      notFound(vin(1))(await get(`/multi-source/vehicles/${vin(1)}`));
    },
    'Query.sourceConflicts': async () => {
      await ok('/multi-source/conflicts?limit=500');
    },
    'Query.webhookEndpoints': async () => {
      const own = await app.client.post(
        '/webhook-endpoints',
        { url: 'https://partner.example.com/own', event_types: ['lead.created'] },
        key,
      );
      const { endpoints } = await ok('/webhook-endpoints');
      expect(ids(endpoints)).toEqual([own.body.endpoint.id]);
      // The group's admins see the partner's endpoint beside their own.
      const all = await app.client.get('/webhook-endpoints', admin);
      expect(ids(all.body.endpoints)).toEqual([adminEndpoint, own.body.endpoint.id].sort());
    },
    'Mutation.createWebhookEndpoint': async () => {
      const made = await app.client.post(
        '/webhook-endpoints',
        { url: 'https://partner.example.com/made', event_types: ['vehicle.created'], dealer_ids: [dealer(0)] },
        key,
      );
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      expect(made.body.endpoint.partner_id).toBe(partnerId);
      const unlinked = await app.client.post(
        '/webhook-endpoints',
        { url: 'https://partner.example.com/x', event_types: ['vehicle.created'], dealer_ids: [dealer(2)] },
        key,
      );
      expect(unlinked.status).toBe(400);
      leaksNothing(unlinked, [dealer(2)]);
    },
    'Query.webhookEndpoint': async () => notFound(adminEndpoint)(await get(`/webhook-endpoints/${adminEndpoint}`)),
    'Mutation.updateWebhookEndpoint': async () =>
      notFound(adminEndpoint)(
        await app.client.request('PATCH', `/api/v1/webhook-endpoints/${adminEndpoint}`, {
          token: key,
          body: { url: 'https://partner.example.com/stolen' },
        }),
      ),
    'Mutation.deleteWebhookEndpoint': async () =>
      notFound(adminEndpoint)(
        await app.client.request('DELETE', `/api/v1/webhook-endpoints/${adminEndpoint}`, { token: key }),
      ),
    'Mutation.rotateWebhookSecret': async () =>
      notFound(adminEndpoint)(await app.client.post(`/webhook-endpoints/${adminEndpoint}/rotate-secret`, {}, key)),
    'Mutation.sendWebhookTest': async () =>
      notFound(adminEndpoint)(await app.client.post(`/webhook-endpoints/${adminEndpoint}/test`, {}, key)),
    'Query.webhookDeliveries': async () =>
      notFound(adminEndpoint)(await get(`/webhook-endpoints/${adminEndpoint}/deliveries`)),
    'Mutation.redeliverWebhook': async () =>
      notFound(adminEndpoint)(
        await app.client.post(`/webhook-endpoints/${adminEndpoint}/deliveries/${adminDelivery}/redeliver`, {}, key),
      ),
  };

  it("has a case for every operation a partner's key can reach", () => {
    expect(Object.keys(cases).sort()).toEqual([...PARTNER_OPERATIONS].sort());
  });

  for (const [operation, run] of Object.entries(cases)) {
    it(`${REST_ROUTES[operation]?.method ?? '?'} ${REST_ROUTES[operation]?.path ?? operation}`, run);
  }

  it('holds in GraphQL, through every nested list and count', async () => {
    const response = await app.client.graphql(
      `{
        me { dealer_groups { dealers { id name } } }
        dealers(limit: 10) { dealers { id vehicles(limit: 10) { vin } calls(limit: 10) { id } leads(limit: 10) { id }
          sales(limit: 10) { id } vehicle_count call_count lead_count sale_count } }
        inventory(limit: 10) { vehicles { vin dealer { id aliases { alias } calls(limit: 10) { id } leads(limit: 10) { id } sales(limit: 10) { id }
          call_count sale_count } } }
        leads(limit: 20) { leads { id sale { id salesperson } } }
        sales(limit: 20) { sales { id leads { id email } calls { id } } }
      }`,
      {},
      key,
    );
    expect(response.body.errors, JSON.stringify(response.body.errors)).toBeUndefined();
    leaksNothing(response);
    const { data } = response.body;
    const sales = Object.fromEntries(
      data.leads.leads.map((row: { id: string; sale: { id: string } | null }) => [row.id, row.sale?.id ?? null]),
    );
    expect(sales[activity.leads[0]!]).toBe(activity.sales[1]);
    expect(sales[activity.leads[1]!]).toBeNull();
    const [rooftop] = data.dealers.dealers;
    expect(rooftop).toMatchObject({ id: dealer(1), vehicles: [], leads: [], vehicle_count: 0, lead_count: 0 });
    expect(rooftop.calls.length).toBeGreaterThan(0);
    // Rooftop 0 allows inventory and leads, not calls or deals.
    const lot = data.inventory.vehicles[0].dealer;
    expect(lot).toMatchObject({ id: dealer(0), aliases: [], calls: [], sales: [], call_count: 0, sale_count: 0 });
    expect(lot.leads.length).toBeGreaterThan(0);
  });

  it('refuses keys a partner may not hold', async () => {
    const bad = (body: Record<string, unknown>) => app.client.post('/api-keys', { name: 'bad', ...body }, admin);
    const wide = await bad({ scopes: ['inventory:read', 'logs:read'], partnerId });
    expect(wide.status).toBe(400);
    expect(wide.body.error.message).toContain('logs:read');
    const other = await seedGroup(app.database.prisma, { dealers: 1 });
    expect((await bad({ scopes: ['inventory:read'], partnerId, dealerGroupIds: [other.groupId] })).status).toBe(400);
    expect((await bad({ scopes: ['inventory:read'], partnerId: dealer(0) })).status).toBe(400);
  });

  it('applies a change to the links from the very next request, and a partner with working keys cannot be deleted', async () => {
    const second = await createKey(app.client, admin, { name: 'second', scopes: ['inventory:read'], partnerId });
    expect((await app.client.get('/inventory', second.key)).body.pagination.total).toBeGreaterThan(0);
    const unlinked = await app.client.request('DELETE', `/api/v1/partners/${partnerId}/dealers/${dealer(0)}`, {
      token: admin,
    });
    expect(unlinked.status).toBe(200);
    expect((await app.client.get('/inventory', second.key)).body.pagination.total).toBe(0);
    expect((await app.client.get(`/inventory/${vin(0)}`, second.key)).status).toBe(404);
    await app.client.request('DELETE', `/api/v1/partners/${partnerId}/dealers/${dealer(1)}`, { token: admin });
    const refused = await app.client.request('DELETE', `/api/v1/partners/${partnerId}`, { token: admin });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain('API key');
    // The key still exists, still bound: it reads nothing now.
    expect((await app.client.get('/inventory', second.key)).body.pagination.total).toBe(0);
  });
});
