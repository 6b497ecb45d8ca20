import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../src/http/operations';
import { schema } from '../src/schema';
import { startTestApp, type ApiResponse, type TestApp } from './helpers/app';
import { createKey } from './helpers/keys';
import { seedActivity, seedGroup, type SeededGroup } from './helpers/seed';

/** The REST routes, read from the schema's fields as the server reads them. */
const REST_ROUTES = restRoutes(schema);

/**
 * Two dealer groups; every endpoint is called by the second group's user and API key with the
 * first group's records. Each must answer 404 for them and never show them in lists or stats. A
 * new endpoint fails this suite until it gets a case below.
 */
describe('tenant isolation across every endpoint', () => {
  let app: TestApp;
  let mine: SeededGroup;
  let theirs: SeededGroup;
  let myKey: { id: string; key: string };
  let theirAdmin: string;
  let theirKey: string;
  let secrets: string[];
  let activity: Awaited<ReturnType<typeof seedActivity>>;
  let partnerId: string;
  let ruleId: string;
  let mappingId: string;
  let integrationId: string;
  let runId: string;
  let templateId: string;
  let conversationId: string;
  let endpointId: string;
  let deliveryId: string;

  beforeAll(async () => {
    app = await startTestApp({ REQUEST_LOG_FLUSH_MS: '20' });
    mine = await seedGroup(app.database.prisma, {
      vehicles: [
        { make: 'Lexus', model: 'RX', sources: [{ source: 'dms', data: {} }] },
        { make: 'Lexus', model: 'ES' },
      ],
    });
    theirs = await seedGroup(app.database.prisma, { vehicles: [{ make: 'Kia', model: 'Soul' }] });
    activity = await seedActivity(app.database.prisma, mine, {
      sources: [{ name: 'Lexus Secret Source' }],
      calls: [{ rawSource: 'Lexus Secret Source' }, { rawSource: 'unmapped lexus raw' }],
      leads: [{ rawSource: 'Lexus Secret Source', assignee: 'Lexus Closer' }],
      sales: [{ salesperson: 'Lexus Closer', customerEmail: 'buyer0@example.com' }],
    });
    ruleId = (
      await app.database.prisma.transformationRule.create({
        data: {
          dealerGroupId: mine.groupId,
          name: 'Lexus rule',
          position: 1,
          conditions: [],
          action: { type: 'set_field', field: 'make', value: 'Lexus' },
        },
      })
    ).id;
    partnerId = (
      await app.database.prisma.partner.create({
        data: {
          dealerGroupId: mine.groupId,
          name: 'Lexus Agency',
          kind: 'agency',
          dealers: {
            create: { dealerId: mine.dealerIds[0]!, relationshipType: 'advertising', dataPermissions: ['leads'] },
          },
        },
      })
    ).id;
    mappingId = (
      await app.database.prisma.sourceMapping.create({
        data: {
          dealerGroupId: mine.groupId,
          sourceId: activity.sources[0]!,
          match: 'exact',
          rawValue: 'Lexus Secret Source',
          normalized: 'lexus secret source',
        },
      })
    ).id;
    integrationId = (
      await app.database.prisma.integration.create({
        data: {
          dealerGroupId: mine.groupId,
          dealerId: mine.dealerIds[0]!,
          pluginKey: 'homenet_inventory_csv',
          name: 'Lexus feed',
          source: 'homenet',
        },
      })
    ).id;
    runId = (
      await app.database.prisma.syncRun.create({
        data: {
          integrationId,
          dealerGroupId: mine.groupId,
          trigger: 'manual',
          status: 'succeeded',
          fileName: 'lexus.csv',
        },
      })
    ).id;
    templateId = (
      await app.database.prisma.mappingTemplate.create({
        data: { dealerGroupId: mine.groupId, name: 'Lexus template', fieldMappings: { 'Lexus Col': 'make' } },
      })
    ).id;
    conversationId = (
      await app.database.prisma.assistantConversation.create({
        data: {
          ownerUserId: mine.users.admin!.id,
          dealerGroupIds: [mine.groupId],
          title: 'Lexus aging',
          messages: { create: { role: 'user', content: 'Lexus aging?' } },
        },
      })
    ).id;
    await app.database.prisma.aiConfig.create({
      data: {
        dealerGroupId: mine.groupId,
        baseUrl: 'https://lexus-models.example/v1',
        model: 'lexus-model',
        dailyTokenLimit: 1000,
        timeoutMs: 5000,
      },
    });
    const myAdmin = await mine.login(app.client);
    myKey = await createKey(app.client, myAdmin, { name: 'mine', scopes: ['inventory:read', 'logs:read'] });
    await app.client.get('/inventory', myKey.key);
    await app.client.post('/auth/login', { email: mine.users.admin!.email, password: 'wrong' });
    theirAdmin = await theirs.login(app.client);
    theirKey = (
      await createKey(app.client, theirAdmin, {
        name: 'theirs',
        scopes: [
          'inventory:read',
          'logs:read',
          'dealers:read',
          'calls:read',
          'leads:read',
          'sales:read',
          'sources:read',
          'partners:read',
          'mappings:read',
          'integrations:read',
        ],
      })
    ).key;
    endpointId = (
      await app.database.prisma.webhookEndpoint.create({
        data: {
          dealerGroupId: mine.groupId,
          url: 'https://lexus-hooks.example/hook',
          eventTypes: ['lead.created'],
          secret: 'sealed',
        },
      })
    ).id;
    deliveryId = (
      await app.database.pool.query<{ id: string }>(
        `INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, txid, position)
         SELECT $1, e.id, e.id::text, e.txid, e.position FROM events e WHERE e.dealer_group_id = $2 LIMIT 1 RETURNING id`,
        [endpointId, mine.groupId],
      )
    ).rows[0]!.id;
    await new Promise((resolve) => setTimeout(resolve, 150));
    secrets = [
      endpointId,
      deliveryId,
      'lexus-hooks.example',
      mine.groupId,
      ...mine.dealerIds,
      ...mine.vehicles.flatMap((vehicle) => [vehicle.id, vehicle.vin]),
      mine.users.admin!.id,
      myKey.id,
      'Lexus',
      ...activity.calls,
      ...activity.leads,
      ...activity.sales,
      ...activity.sources,
      partnerId,
      mappingId,
      ruleId,
      integrationId,
      runId,
      'Lexus feed',
      'lexus.csv',
      templateId,
      'Lexus template',
      conversationId,
      'Lexus aging',
      'lexus-model',
      'lexus-models.example',
    ];
  });
  afterAll(() => app?.stop());

  /** Nothing of the first group appears, except identifiers the caller itself sent (echoed in a 404 or its own log). */
  const leaksNothing = (response: ApiResponse, sent: string[] = []) => {
    expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
    const text = JSON.stringify(response.body);
    for (const secret of secrets.filter((value) => !sent.includes(value)))
      expect(text, `leaked ${secret}`).not.toContain(secret);
  };
  const notFound = (sent: string) => (response: ApiResponse) => {
    expect(response.status, JSON.stringify(response.body)).toBe(404);
    expect(response.body.error.code).toBe('NOT_FOUND');
    leaksNothing(response, [sent]);
  };
  const asBoth = async (call: (token: string) => Promise<ApiResponse>, check: (response: ApiResponse) => void) => {
    for (const token of [theirAdmin, theirKey]) check(await call(token));
  };
  const vin = () => mine.vehicles[0]!.vin;

  const cases: Record<string, () => Promise<void>> = {
    'Query.events': () => asBoth((token) => app.client.get('/events?limit=500', token), leaksNothing),
    'Query.webhookEndpoints': async () => leaksNothing(await app.client.get('/webhook-endpoints', theirAdmin)),
    'Query.webhookEndpoint': async () =>
      notFound(endpointId)(await app.client.get(`/webhook-endpoints/${endpointId}`, theirAdmin)),
    'Query.webhookDeliveries': async () =>
      notFound(endpointId)(await app.client.get(`/webhook-endpoints/${endpointId}/deliveries`, theirAdmin)),
    'Mutation.createWebhookEndpoint': async () => {
      const response = await app.client.post(
        '/webhook-endpoints',
        { url: 'https://example.com/x', event_types: ['lead.created'], dealer_group_id: mine.groupId },
        theirAdmin,
      );
      expect(response.status).toBe(400);
      leaksNothing(response, [mine.groupId]);
    },
    'Mutation.updateWebhookEndpoint': async () =>
      notFound(endpointId)(
        await app.client.request('PATCH', `/api/v1/webhook-endpoints/${endpointId}`, {
          token: theirAdmin,
          body: { url: 'https://evil.example/x' },
        }),
      ),
    'Mutation.deleteWebhookEndpoint': async () =>
      notFound(endpointId)(
        await app.client.request('DELETE', `/api/v1/webhook-endpoints/${endpointId}`, { token: theirAdmin }),
      ),
    'Mutation.rotateWebhookSecret': async () =>
      notFound(endpointId)(await app.client.post(`/webhook-endpoints/${endpointId}/rotate-secret`, {}, theirAdmin)),
    'Mutation.sendWebhookTest': async () =>
      notFound(endpointId)(await app.client.post(`/webhook-endpoints/${endpointId}/test`, {}, theirAdmin)),
    'Mutation.redeliverWebhook': async () =>
      notFound(endpointId)(
        await app.client.post(`/webhook-endpoints/${endpointId}/deliveries/${deliveryId}/redeliver`, {}, theirAdmin),
      ),
    'Mutation.login': async () =>
      leaksNothing(
        await app.client.post('/auth/login', {
          email: theirs.users.admin!.email,
          password: 'correct horse battery staple',
        }),
      ),
    'Mutation.refresh': async () =>
      expect((await app.client.post('/auth/refresh', { refresh_token: 'rt_someone-elses' })).status).toBe(401),
    'Mutation.logout': async () =>
      expect(
        (
          await app.client.request('POST', '/api/v1/auth/logout', {
            token: theirAdmin,
            body: { refresh_token: 'rt_someone-elses' },
          })
        ).status,
      ).toBe(400),
    'Query.me': () => asBoth((token) => app.client.get('/auth/me', token), leaksNothing),
    'Query.inventory': () => asBoth((token) => app.client.get('/inventory?limit=500', token), leaksNothing),
    'Query.inventoryStats': () =>
      asBoth(
        (token) => app.client.get(`/inventory/stats?dealer_id=${mine.dealerIds[0]}`, token),
        (response) => {
          leaksNothing(response);
          expect(response.body.total_vehicles).toBe(0);
        },
      ),
    'Query.inventoryAging': () =>
      asBoth(
        (token) => app.client.get('/inventory/aging?status=available', token),
        (response) => {
          leaksNothing(response);
          expect(response.body.total_count).toBe(1);
        },
      ),
    'Query.inventoryFacets': () => asBoth((token) => app.client.get('/inventory/facets', token), leaksNothing),
    'Query.vehicle': () => asBoth((token) => app.client.get(`/inventory/${vin()}`, token), notFound(vin())),
    'Query.vehicleHistory': () =>
      asBoth((token) => app.client.get(`/inventory/${vin()}/history`, token), notFound(vin())),
    'Mutation.upsertVehicle': async () => {
      const response = await app.client.request('PUT', `/api/v1/inventory/${vin()}`, {
        token: theirAdmin,
        body: {
          dealer_id: mine.dealerIds[0],
          year: 2024,
          make: 'Kia',
          model: 'Soul',
          condition: 'used',
          price: '1.00',
        },
      });
      expect(response.status).toBe(400);
      leaksNothing(response, [mine.dealerIds[0]!]);
      const vehicle = await app.database.prisma.vehicle.findFirstOrThrow({ where: { vin: vin() } });
      expect(vehicle.make).toBe('Lexus');
    },
    'Query.health': async () => leaksNothing(await app.client.get('/health')),
    'Query.apiKeys': async () => leaksNothing(await app.client.get('/api-keys?includeRevoked=true', theirAdmin)),
    'Mutation.createApiKey': async () => {
      const response = await app.client.post(
        '/api-keys',
        { name: 'sneaky', scopes: ['inventory:read'], dealerGroupIds: [mine.groupId] },
        theirAdmin,
      );
      expect(response.status).toBe(400);
    },
    'Mutation.revokeApiKey': async () =>
      notFound(myKey.id)(await app.client.request('DELETE', `/api/v1/api-keys/${myKey.id}`, { token: theirAdmin })),
    'Mutation.rotateApiKey': async () =>
      notFound(myKey.id)(await app.client.post(`/api-keys/${myKey.id}/rotate`, {}, theirAdmin)),
    'Query.dealers': () =>
      asBoth((token) => app.client.get('/dealers?include_archived=true&limit=500', token), leaksNothing),
    'Query.dealer': () =>
      asBoth((token) => app.client.get(`/dealers/${mine.dealerIds[0]}`, token), notFound(mine.dealerIds[0]!)),
    'Query.dealerAliases': () =>
      asBoth((token) => app.client.get(`/dealers/${mine.dealerIds[0]}/aliases`, token), notFound(mine.dealerIds[0]!)),
    'Query.matchDealers': () =>
      asBoth((token) => app.client.post('/dealers/match', { name: 'Rooftop 1' }, token), leaksNothing),
    'Mutation.createDealer': async () =>
      expect(
        (await app.client.post('/dealers', { name: 'X', code: 'X', dealer_group_id: mine.groupId }, theirAdmin)).status,
      ).toBe(400),
    'Mutation.updateDealer': async () =>
      notFound(mine.dealerIds[0]!)(
        await app.client.request('PATCH', `/api/v1/dealers/${mine.dealerIds[0]}`, {
          token: theirAdmin,
          body: { name: 'x' },
        }),
      ),
    'Mutation.archiveDealer': async () =>
      notFound(mine.dealerIds[0]!)(
        await app.client.request('DELETE', `/api/v1/dealers/${mine.dealerIds[0]}`, { token: theirAdmin }),
      ),
    'Mutation.addDealerAlias': async () =>
      notFound(mine.dealerIds[0]!)(
        await app.client.post(`/dealers/${mine.dealerIds[0]}/aliases`, { alias: 'x' }, theirAdmin),
      ),
    'Mutation.removeDealerAlias': async () =>
      notFound(mine.dealerIds[0]!)(
        await app.client.request('DELETE', `/api/v1/dealers/${mine.dealerIds[0]}/aliases/${mine.dealerIds[0]}`, {
          token: theirAdmin,
        }),
      ),
    'Query.sources': () => asBoth((token) => app.client.get('/sources?limit=500', token), leaksNothing),
    'Query.source': () =>
      asBoth((token) => app.client.get(`/sources/${activity.sources[0]}`, token), notFound(activity.sources[0]!)),
    'Mutation.createSource': async () =>
      expect(
        (await app.client.post('/sources', { name: 'x', category: 'oem', dealer_group_id: mine.groupId }, theirAdmin))
          .status,
      ).toBe(400),
    'Mutation.updateSource': async () =>
      notFound(activity.sources[0]!)(
        await app.client.request('PATCH', `/api/v1/sources/${activity.sources[0]}`, {
          token: theirAdmin,
          body: { name: 'x' },
        }),
      ),
    'Mutation.deleteSource': async () =>
      notFound(activity.sources[0]!)(
        await app.client.request('DELETE', `/api/v1/sources/${activity.sources[0]}`, { token: theirAdmin }),
      ),
    'Query.sourceMappings': () => asBoth((token) => app.client.get('/sources/mappings?limit=500', token), leaksNothing),
    'Mutation.createSourceMappings': async () =>
      notFound(activity.sources[0]!)(
        await app.client.post('/sources/mappings', { source_id: activity.sources[0], raw_value: 'x' }, theirAdmin),
      ),
    'Mutation.deleteSourceMapping': async () =>
      notFound(mappingId)(
        await app.client.request('DELETE', `/api/v1/sources/mappings/${mappingId}`, { token: theirAdmin }),
      ),
    'Query.resolveSources': () =>
      asBoth(
        (token) => app.client.post('/sources/resolve', { raw_values: ['Lexus Secret Source'] }, token),
        (response) => {
          leaksNothing(response, ['Lexus Secret Source', 'Lexus']);
          expect(response.body.results[0].source).toBeNull();
        },
      ),
    'Query.unmappedSources': () => asBoth((token) => app.client.get('/sources/unmapped', token), leaksNothing),
    'Query.calls': () => asBoth((token) => app.client.get('/calls?limit=500', token), leaksNothing),
    'Query.call': () =>
      asBoth((token) => app.client.get(`/calls/${activity.calls[0]}`, token), notFound(activity.calls[0]!)),
    'Query.mergedCalls': () => asBoth((token) => app.client.get('/calls/merged?limit=500', token), leaksNothing),
    'Query.callStats': () =>
      asBoth(
        (token) => app.client.get('/calls/stats', token),
        (response) => {
          leaksNothing(response);
          expect(response.body.calls).toBe(0);
        },
      ),
    'Mutation.enrichCalls': async () => {
      const response = await app.client.post('/calls/enrich', { overwrite: true }, theirAdmin);
      leaksNothing(response);
      expect(response.body.examined).toBe(0);
    },
    'Mutation.createCall': async () => {
      const response = await app.client.post(
        '/calls',
        { dealer_id: mine.dealerIds[0], external_id: 'x', started_at: '2026-11-01T00:00:00Z', duration_seconds: 1 },
        theirAdmin,
      );
      expect(response.status).toBe(400);
      leaksNothing(response, [mine.dealerIds[0]!]);
    },
    'Query.leads': () => asBoth((token) => app.client.get('/leads?limit=500', token), leaksNothing),
    'Query.lead': () =>
      asBoth((token) => app.client.get(`/leads/${activity.leads[0]}`, token), notFound(activity.leads[0]!)),
    'Mutation.updateLead': async () =>
      notFound(activity.leads[0]!)(
        await app.client.request('PATCH', `/api/v1/leads/${activity.leads[0]}`, {
          token: theirAdmin,
          body: { status: 'lost' },
        }),
      ),
    'Mutation.createLead': async () => {
      const json = await app.client.post(
        '/leads',
        { dealer_id: mine.dealerIds[0], email: 'x@example.com' },
        theirAdmin,
      );
      expect(json.status).toBe(400);
      leaksNothing(json, [mine.dealerIds[0]!]);
      const myRooftop = await app.database.prisma.dealer.findUniqueOrThrow({ where: { id: mine.dealerIds[0] } });
      const adf = await app.client.request('POST', '/api/v1/leads', {
        token: theirAdmin,
        headers: { 'content-type': 'application/xml' },
        rawBody: `<adf><prospect><customer><contact><email>x@example.com</email></contact></customer><vendor><vendorname>${myRooftop.name}</vendorname></vendor></prospect></adf>`,
      });
      expect(adf.status).toBe(400);
      leaksNothing(adf, [myRooftop.name]);
      expect(await app.database.prisma.lead.count({ where: { email: 'x@example.com' } })).toBe(0);
    },
    'Query.leadsByType': () => asBoth((token) => app.client.get('/leads/stats/by-type', token), leaksNothing),
    'Query.leadsByStatus': () =>
      asBoth(
        (token) => app.client.get('/leads/stats/by-status', token),
        (response) => {
          leaksNothing(response);
          expect(response.body.total).toBe(0);
        },
      ),
    'Query.leadsBySource': () => asBoth((token) => app.client.get('/leads/stats/by-source', token), leaksNothing),
    'Query.sales': () => asBoth((token) => app.client.get('/sales?limit=500', token), leaksNothing),
    'Query.sale': () =>
      asBoth((token) => app.client.get(`/sales/${activity.sales[0]}`, token), notFound(activity.sales[0]!)),
    'Query.saleStats': () =>
      asBoth(
        (token) => app.client.get('/sales/stats', token),
        (response) => {
          leaksNothing(response);
          expect(response.body.units).toBe(0);
        },
      ),
    'Query.salespeopleStats': () => asBoth((token) => app.client.get('/sales/stats/salespeople', token), leaksNothing),
    'Query.partners': () => asBoth((token) => app.client.get('/partners?limit=500', token), leaksNothing),
    'Query.partner': () => asBoth((token) => app.client.get(`/partners/${partnerId}`, token), notFound(partnerId)),
    'Mutation.createPartner': async () =>
      expect(
        (await app.client.post('/partners', { name: 'x', kind: 'agency', dealer_group_id: mine.groupId }, theirAdmin))
          .status,
      ).toBe(400),
    'Mutation.updatePartner': async () =>
      notFound(partnerId)(
        await app.client.request('PATCH', `/api/v1/partners/${partnerId}`, { token: theirAdmin, body: { name: 'x' } }),
      ),
    'Mutation.deletePartner': async () =>
      notFound(partnerId)(await app.client.request('DELETE', `/api/v1/partners/${partnerId}`, { token: theirAdmin })),
    'Mutation.linkPartnerDealer': async () =>
      notFound(partnerId)(
        await app.client.post(
          `/partners/${partnerId}/dealers`,
          { dealer_id: mine.dealerIds[0], relationship_type: 'advertising', data_permissions: ['leads'] },
          theirAdmin,
        ),
      ),
    'Mutation.unlinkPartnerDealer': async () =>
      notFound(partnerId)(
        await app.client.request('DELETE', `/api/v1/partners/${partnerId}/dealers/${mine.dealerIds[0]}`, {
          token: theirAdmin,
        }),
      ),
    // Plugins are the platform's catalogue, the same for every tenant.
    'Query.plugins': async () => leaksNothing(await app.client.get('/plugins', theirAdmin)),
    'Query.plugin': async () => leaksNothing(await app.client.get('/plugins/homenet_inventory_csv', theirAdmin)),
    'Query.validatePluginConfig': async () =>
      leaksNothing(await app.client.post('/plugins/homenet_inventory_csv/validate', { config: {} }, theirAdmin)),
    'Query.transformationRules': () =>
      asBoth(async (token) => app.client.get('/transformation-rules?limit=500', token), leaksNothing),
    'Mutation.createTransformationRule': async () =>
      expect(
        (
          await app.client.post(
            '/transformation-rules',
            { name: 'x', action: { type: 'trim', field: 'make' }, dealer_group_id: mine.groupId },
            theirAdmin,
          )
        ).status,
      ).toBe(400),
    'Query.testTransformationRules': async () => {
      const response = await app.client.post('/transformation-rules/test', { records: [{ make: 'Kia' }] }, theirAdmin);
      leaksNothing(response);
      expect(response.body.records[0].fired).toEqual([]);
    },
    'Mutation.updateTransformationRule': async () =>
      notFound(ruleId)(
        await app.client.request('PATCH', `/api/v1/transformation-rules/${ruleId}`, {
          token: theirAdmin,
          body: { enabled: false },
        }),
      ),
    'Mutation.deleteTransformationRule': async () =>
      notFound(ruleId)(
        await app.client.request('DELETE', `/api/v1/transformation-rules/${ruleId}`, { token: theirAdmin }),
      ),
    'Query.requestLogs': () =>
      asBoth(
        (token) => app.client.get('/logs/requests?limit=500', token),
        (response) => {
          // The second group's own requests name the first group's VIN and key id in their paths; no request of the first group's appears.
          leaksNothing(response, [
            vin(),
            myKey.id,
            mine.dealerIds[0]!,
            activity.sources[0]!,
            activity.calls[0]!,
            activity.leads[0]!,
            activity.sales[0]!,
            partnerId,
            mappingId,
            ruleId,
            endpointId,
            deliveryId,
          ]);
          const actors = response.body.requests.flatMap(
            (entry: { user_id: string | null; api_key_id: string | null }) => [entry.user_id, entry.api_key_id],
          );
          expect(actors).not.toContain(mine.users.admin!.id);
          expect(actors).not.toContain(myKey.id);
        },
      ),
    'Query.auditEvents': () => asBoth((token) => app.client.get('/logs/audit?limit=500', token), leaksNothing),
    'Query.integrations': () => asBoth((token) => app.client.get('/integrations?limit=500', token), leaksNothing),
    'Mutation.createIntegration': async () => {
      const response = await app.client.post(
        '/integrations',
        { plugin_key: 'homenet_inventory_csv', dealer_id: mine.dealerIds[0] },
        theirAdmin,
      );
      expect(response.status).toBe(400);
      leaksNothing(response, [mine.dealerIds[0]!]);
    },
    'Query.integrationFreshness': () =>
      asBoth((token) => app.client.get('/integrations/freshness', token), leaksNothing),
    'Query.integration': () =>
      asBoth((token) => app.client.get(`/integrations/${integrationId}`, token), notFound(integrationId)),
    'Mutation.updateIntegration': async () =>
      notFound(integrationId)(
        await app.client.request('PATCH', `/api/v1/integrations/${integrationId}`, {
          token: theirAdmin,
          body: { enabled: false },
        }),
      ),
    'Mutation.disconnectIntegration': async () =>
      notFound(integrationId)(
        await app.client.request('DELETE', `/api/v1/integrations/${integrationId}`, { token: theirAdmin }),
      ),
    'Mutation.setIntegrationCredentials': async () =>
      notFound(integrationId)(
        await app.client.request('PUT', `/api/v1/integrations/${integrationId}/credentials`, {
          token: theirAdmin,
          body: { credentials: {} },
        }),
      ),
    'Mutation.testIntegration': async () =>
      notFound(integrationId)(await app.client.post(`/integrations/${integrationId}/test`, {}, theirAdmin)),
    'Mutation.syncIntegration': async () =>
      notFound(integrationId)(await app.client.post(`/integrations/${integrationId}/sync`, {}, theirAdmin)),
    'Query.integrationSyncs': () =>
      asBoth((token) => app.client.get(`/integrations/${integrationId}/syncs`, token), notFound(integrationId)),
    'Query.syncRun': () => asBoth((token) => app.client.get(`/syncs/${runId}`, token), notFound(runId)),
    'Query.mappingTemplates': () =>
      asBoth((token) => app.client.get('/mapping-templates?limit=500', token), leaksNothing),
    'Mutation.createMappingTemplate': async () =>
      expect(
        (await app.client.post('/mapping-templates', { name: 'x', dealer_group_id: mine.groupId }, theirAdmin)).status,
      ).toBe(400),
    'Query.communityMappingTemplates': () =>
      asBoth((token) => app.client.get('/mapping-templates/community?limit=500', token), leaksNothing),
    'Query.mappingTemplate': () =>
      asBoth((token) => app.client.get(`/mapping-templates/${templateId}`, token), notFound(templateId)),
    'Mutation.updateMappingTemplate': async () =>
      notFound(templateId)(
        await app.client.request('PATCH', `/api/v1/mapping-templates/${templateId}`, {
          token: theirAdmin,
          body: { name: 'x' },
        }),
      ),
    'Mutation.deleteMappingTemplate': async () =>
      notFound(templateId)(
        await app.client.request('DELETE', `/api/v1/mapping-templates/${templateId}`, { token: theirAdmin }),
      ),
    'Mutation.cloneMappingTemplate': async () =>
      notFound(templateId)(await app.client.post(`/mapping-templates/${templateId}/clone`, {}, theirAdmin)),
    'Mutation.publishMappingTemplate': async () =>
      notFound(templateId)(await app.client.post(`/mapping-templates/${templateId}/publish`, {}, theirAdmin)),
    'Query.fileColumnMappings': () =>
      asBoth(
        (token) => app.client.get(`/file-column-mappings?integration_id=${integrationId}`, token),
        (response) => {
          leaksNothing(response, [integrationId]);
          expect(response.body.mappings).toEqual([]);
        },
      ),
    'Query.detectFileColumnMapping': async () =>
      leaksNothing(await app.client.post('/file-column-mappings/detect', { headers: ['Stock #'] }, theirAdmin)),
    'Mutation.setFileColumnMapping': async () =>
      notFound(integrationId)(
        await app.client.request('PUT', `/api/v1/file-column-mappings/${integrationId}`, {
          token: theirAdmin,
          body: { mapping: {} },
        }),
      ),
    'Query.sourcePriorities': () => asBoth((token) => app.client.get('/multi-source/priorities', token), leaksNothing),
    'Mutation.setSourcePriorities': async () => {
      const response = await app.client.request('PUT', '/api/v1/multi-source/priorities', {
        token: theirAdmin,
        body: { dealer_id: mine.dealerIds[0], priorities: { price: ['dms'] } },
      });
      expect(response.status).toBe(400);
      leaksNothing(response, [mine.dealerIds[0]!]);
    },
    'Query.multiSourceVehicle': () =>
      asBoth((token) => app.client.get(`/multi-source/vehicles/${vin()}`, token), notFound(vin())),
    'Query.sourceConflicts': () =>
      asBoth((token) => app.client.get('/multi-source/conflicts?limit=500', token), leaksNothing),
    'Mutation.rebuildMultiSource': async () => {
      const response = await app.client.post('/multi-source/rebuild', { dealer_id: mine.dealerIds[0] }, theirAdmin);
      expect(response.status).toBe(400);
      leaksNothing(response, [mine.dealerIds[0]!]);
    },
    'Query.sftpCredentialEmails': () =>
      asBoth((token) => app.client.get('/sftp-credential-emails?limit=500', token), leaksNothing),
    'Mutation.previewSftpCredentialEmail': async () =>
      notFound(integrationId)(
        await app.client.post(
          '/sftp-credential-emails/preview',
          { integration_id: integrationId, recipient: 'x@example.com' },
          theirAdmin,
        ),
      ),
    'Mutation.sendSftpCredentialEmail': async () =>
      notFound(integrationId)(
        await app.client.post(
          '/sftp-credential-emails',
          { integration_id: integrationId, recipient: 'x@example.com' },
          theirAdmin,
        ),
      ),
    'Query.fileColumnMappingPreview': () =>
      asBoth(
        (token) => app.client.get(`/file-column-mappings/${integrationId}/preview`, token),
        notFound(integrationId),
      ),
    'Mutation.startAssistantConversation': async () => {
      const response = await app.client.post(
        '/assistant/conversations',
        { message: 'How many Lexus vehicles do we have?' },
        theirAdmin,
      );
      expect(response.status).toBe(201);
      leaksNothing(response, ['Lexus']);
      expect(response.body.messages[1].citations.figures[0].value).toBe('0');
    },
    // Their own conversation may mention Lexus (they asked about it); ours never shows.
    'Query.assistantConversations': () =>
      asBoth(
        (token) => app.client.get('/assistant/conversations?limit=500', token),
        (response) => leaksNothing(response, ['Lexus']),
      ),
    'Query.assistantConversation': async () =>
      notFound(conversationId)(await app.client.get(`/assistant/conversations/${conversationId}`, theirAdmin)),
    'Mutation.askAssistant': async () =>
      notFound(conversationId)(
        await app.client.post(
          `/assistant/conversations/${conversationId}/messages`,
          { content: 'How many vehicles?' },
          theirAdmin,
        ),
      ),
    'Query.aiConfig': () => asBoth((token) => app.client.get('/admin/ai-config', token), leaksNothing),
    'Mutation.setAiConfig': async () => {
      const response = await app.client.request('PUT', '/api/v1/admin/ai-config', {
        token: theirAdmin,
        body: { dealer_group_id: mine.groupId, model: 'x' },
      });
      expect(response.status).toBe(400);
      leaksNothing(response, [mine.groupId]);
    },
    'Query.adminUsage': () => asBoth((token) => app.client.get('/admin/usage', token), leaksNothing),
    'Query.adminUsers': async () =>
      leaksNothing(await app.client.get('/admin/users?include_disabled=true&limit=500', theirAdmin)),
    'Mutation.createUser': async () => {
      const response = await app.client.post(
        '/admin/users',
        { email: 'intruder@theirs.example', name: 'Intruder', dealer_group_ids: [mine.groupId] },
        theirAdmin,
      );
      expect(response.status).toBe(400);
      leaksNothing(response, [mine.groupId]);
    },
    'Mutation.updateUser': async () =>
      notFound(mine.users.admin!.id)(
        await app.client.request('PATCH', `/api/v1/admin/users/${mine.users.admin!.id}`, {
          token: theirAdmin,
          body: { disabled: true },
        }),
      ),
    'Mutation.changePassword': async () => {
      const response = await app.client.post(
        '/auth/password',
        { current_password: 'not it', new_password: 'a-new-long-secret' },
        theirAdmin,
      );
      expect(response.status).toBe(400);
      leaksNothing(response);
    },
    'Mutation.acceptInvitation': async () => {
      const response = await app.client.post('/auth/invitations/accept', {
        token: 'not-an-invitation',
        password: 'a-new-long-secret',
      });
      expect(response.status).toBe(401);
      leaksNothing(response);
    },
  };

  it('has a case for every endpoint', () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(REST_ROUTES).sort());
  });

  for (const [operation, run] of Object.entries(cases)) {
    it(`${REST_ROUTES[operation]?.method ?? '?'} ${REST_ROUTES[operation]?.path ?? operation}`, run);
  }

  it("holds in the database: a vehicle's group is its rooftop's, whoever writes the row", async () => {
    const [theirDealer] = theirs.dealerIds;
    const insert = (groupId: string) =>
      app.database.pool.query(
        `INSERT INTO vehicles (id, dealer_group_id, dealer_id, vin, year, make, model, condition, date_in_stock, updated_at)
         VALUES (gen_random_uuid(), $1, $2, $3, 2024, 'Kia', 'Soul', 'used', current_date, now()) RETURNING id`,
        [groupId, theirDealer, `KNDJN2A2${String(Date.now()).slice(-9)}`],
      );
    await expect(insert(mine.groupId)).rejects.toMatchObject({ code: '23503' });
    const written = await insert(theirs.groupId);
    expect(written.rowCount).toBe(1);
    await app.database.pool.query('DELETE FROM vehicles WHERE id = $1', [written.rows[0].id]);
  });

  it('holds in GraphQL too', async () => {
    const response = await app.client.graphql(
      `{
      inventory(limit: 500) { vehicles { vin dealer { id } } }
      inventoryStats { total_vehicles by_dealer { dealer_id } }
      me { dealer_groups { id dealers { id } } }
      apiKeys(includeRevoked: true) { apiKeys { id } }
      requestLogs(limit: 500) { requests { api_key_id user_id } }
      auditEvents(limit: 500) { events { actor_user_id target_id } }
    }`,
      {},
      theirAdmin,
    );
    expect(response.body.errors).toBeUndefined();
    leaksNothing(response);
    const foreign = await app.client.graphql(`{ vehicle(vin: "${vin()}") { vin } }`, {}, theirKey);
    expect(foreign.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });
});
