import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeRawSource } from '../src/modules/sources/normalize';
import { startTestApp, type ApiResponse, type TestApp } from './helpers/app';
import { feedSettled } from './helpers/events';
import { createKey } from './helpers/keys';
import { seedActivity, seedGroup, testVin, type SeededGroup } from './helpers/seed';

/**
 * Leads and calls sent in through the API, over HTTP: ADF and JSON leads stored and listed, repeats
 * within the window answered instead of stored, deal links and canonical sources as feeds get them,
 * calls idempotent by provider and id, events naming the request, scopes, tenancy and bad input.
 */

const ADF = readFileSync(path.join(import.meta.dirname, 'fixtures/leads/adf-lead.xml'), 'utf8');
const HOUR = 3_600_000;
/** The same ADF lead from another customer (email and phone) under another id, so it repeats nothing. */
let phones = 0;
const another = (document: string, id: string, email: string) =>
  document
    .replace('CARS-88213001', id)
    .replace('Maria.Gonzalez@', `${email}@`)
    .replace('(303) 555-0147', `(303) 555-${String(1000 + (phones += 1))}`);

describe('data in through the API: leads and calls', () => {
  let app: TestApp;
  let group: SeededGroup;
  let other: SeededGroup;
  let admin: string;
  let otherAdmin: string;
  let mappedSourceId: string;
  let saleId: string;

  const xml = (body: string, query = '', token = admin, headers: Record<string, string> = {}) =>
    app.client.request('POST', `/api/v1/leads${query}`, {
      token,
      rawBody: body,
      headers: { 'content-type': 'application/xml', ...headers },
    });
  const postLead = (body: Record<string, unknown>, token = admin) => app.client.post('/leads', body, token);
  const expectBad = (response: ApiResponse, field: string, message?: RegExp) => {
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error.details?.field ?? response.body.error.message).toContain(field);
    if (message) expect(response.body.error.message).toMatch(message);
  };

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma, {
      dealers: 2,
      users: { admin: 'admin', analyst: 'analyst', viewer: 'viewer' },
    });
    other = await seedGroup(app.database.prisma, { dealers: 1 });
    const db = app.database.prisma;
    // The ADF <vendor> names these rooftops (dealer names are unique only within a group).
    await db.dealer.update({
      where: { id: group.dealerIds[0] },
      data: { name: 'Summit Toyota North', phone: '+13035550101' },
    });
    await db.dealer.update({ where: { id: group.dealerIds[1] }, data: { name: 'Summit Honda Downtown' } });
    const activity = await seedActivity(db, group, {
      sources: [{ name: 'Cars.com Listings', category: 'third_party_listing' }],
      sales: [{ customerEmail: 'buyer.linked@example.com', soldAt: new Date(Date.now() - 2 * 24 * HOUR) }],
    });
    mappedSourceId = activity.sources[0]!;
    saleId = activity.sales[0]!;
    for (const raw of ['Cars.com', 'Google Ads call'])
      await db.sourceMapping.create({
        data: {
          dealerGroupId: group.groupId,
          sourceId: mappedSourceId,
          match: 'exact',
          rawValue: raw,
          normalized: normalizeRawSource(raw),
        },
      });
    admin = await group.login(app.client);
    otherAdmin = await other.login(app.client);
  });
  afterAll(async () => {
    await app?.stop();
  });

  describe('POST /leads with an ADF document', () => {
    it('stores the prospect at the rooftop its <vendor> names, resolved and listed, with an event naming the request', async () => {
      const response = await xml(ADF);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body).toMatchObject({ created: true, duplicate: null });
      const lead = response.body.lead;
      expect(lead).toMatchObject({
        dealer_id: group.dealerIds[0],
        provider: 'adf',
        external_id: 'Cars.com:CARS-88213001',
        received_at: '2026-11-18T21:32:11.000Z',
        type: 'used',
        status: 'new',
        first_name: 'Maria',
        last_name: 'Gonzalez',
        email: 'maria.gonzalez@example.com',
        phone: '+13035550147',
        vehicle_year: 2021,
        vehicle_make: 'Toyota',
        vehicle_model: 'RAV4',
        vehicle_vin: '2T3AB3FA4MA100200',
        raw_source: 'Cars.com',
        comments: 'Is this still available? Looking to trade in my 2015 Civic & save.',
        source_id: mappedSourceId,
      });

      const listed = await app.client.get(`/leads?dealer_id=${group.dealerIds[0]}`, admin);
      expect(listed.body.leads.map((row: { id: string }) => row.id)).toContain(lead.id);
      expect(listed.body.leads.find((row: { id: string }) => row.id === lead.id)).toEqual(lead);

      const requestId = response.headers.get('x-request-id');
      await feedSettled(app.database.pool);
      const events = await app.client.get(
        `/events?types=lead.created&dealer_id=${group.dealerIds[0]}&limit=500`,
        admin,
      );
      const created = events.body.events.find((event: { subject_id: string }) => event.subject_id === lead.id);
      expect(created).toMatchObject({ type: 'lead.created', request_id: requestId, sync_run_id: null });
      expect(created.data.lead).toMatchObject({ email: 'maria.gonzalez@example.com', provider: 'adf' });
    });

    it('answers the stored lead, 200 and created false, when the provider sends the same lead again', async () => {
      const first = await xml(ADF);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ created: false, duplicate: 'same_external_id' });
      const count = await app.database.prisma.lead.count({
        where: { externalId: 'Cars.com:CARS-88213001', dealerGroupId: group.groupId },
      });
      expect(count).toBe(1);
    });

    it('takes the rooftop from dealer_id beside the document, and a provider', async () => {
      const document = another(ADF, 'CARS-1', 'other.customer');
      const response = await xml(document, `?dealer_id=${group.dealerIds[1]}&provider=cars_com`);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.lead).toMatchObject({ dealer_id: group.dealerIds[1], provider: 'cars_com' });
    });

    it('works through GraphQL with the document as an argument', async () => {
      const document = another(ADF, 'CARS-GQL', 'graphql.customer');
      const response = await app.client.graphql(
        'mutation ($adf: String!) { createLead(adf: $adf) { created lead { dealer_id external_id email } } }',
        { adf: document },
        admin,
      );
      expect(response.body.errors).toBeUndefined();
      expect(response.body.data.createLead).toMatchObject({
        created: true,
        lead: {
          dealer_id: group.dealerIds[0],
          external_id: 'Cars.com:CARS-GQL',
          email: 'graphql.customer@example.com',
        },
      });
    });

    it('refuses what is not one safe ADF lead, saying what is wrong', async () => {
      expectBad(await xml('<adf><prospect><customer>'), 'adf', /not valid XML/);
      expectBad(await xml('not xml at all'), 'adf', /not valid XML/);
      expectBad(
        await xml(
          `<?xml version="1.0"?><!DOCTYPE adf [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>${ADF.slice(ADF.indexOf('<adf>'))}`,
        ),
        'adf',
        /DOCTYPE/,
      );
      expectBad(
        await xml(ADF.replace('<comments><![CDATA[', '<comments>&xxe;<![CDATA[')),
        'adf',
        /not valid XML: Invalid character entity/,
      );
      expectBad(await xml('<lead><name>x</name></lead>'), 'adf', /no <adf> element/);
      expectBad(await xml('<adf></adf>'), 'adf', /no <prospect>/);
      const two = ADF.replace('</adf>', `${ADF.slice(ADF.indexOf('<prospect'), ADF.indexOf('</adf>'))}</adf>`);
      expectBad(await xml(two), 'adf', /2 <prospect> elements/);
      expectBad(await xml(ADF.replace(/<vendor>[\s\S]*<\/vendor>/, '')), 'dealer_id', /names no <vendor>/);
      expectBad(
        await xml(ADF.replace('Summit Toyota North', 'Mountain Kia West').replace('303-555-0101', '')),
        'dealer_id',
        /no rooftop of yours matches the ADF <vendor> "Mountain Kia West"/,
      );
      expectBad(await xml(ADF.replace('2T3AB3FA4MA100200', '2T3AB3FA4MA100201')), 'vehicle_vin', /check digit/);
      expectBad(await xml(ADF.replace('2021', 'two thousand')), 'vehicle_year', /whole number/);
      expectBad(await xml(ADF, '?email=x@example.com'), 'email', /application\/xml document/);
      expectBad(await xml(ADF, `?dealer_id=not-a-uuid`), 'dealer_id');

      const tooLarge = await xml(ADF.replace('Civic', `Civic${' '.repeat(120_000)}`));
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body.error.message).toMatch(/larger than 100000 bytes/);
      const plain = await app.client.request('POST', '/api/v1/leads', {
        token: admin,
        rawBody: ADF,
        headers: { 'content-type': 'text/plain' },
      });
      expect(plain.status).toBe(415);
      expect(plain.body.error.message).toMatch(/application\/json or application\/xml or text\/xml/);
      const charset = await xml(ADF, '', admin, { 'content-type': 'application/xml; charset=klingon' });
      expect(charset.status).toBe(415);
    });

    it('replays an Idempotency-Key retry of an ADF post', async () => {
      const document = another(ADF, 'CARS-RETRY', 'retry.customer');
      const first = await xml(document, '', admin, { 'idempotency-key': 'adf-retry-1' });
      const again = await xml(document, '', admin, { 'idempotency-key': 'adf-retry-1' });
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
    });
  });

  describe('POST /leads with JSON', () => {
    const camry = testVin(7, '4T1');
    const base = () => ({
      dealer_id: group.dealerIds[0],
      provider: 'website',
      first_name: 'Ana',
      last_name: 'Lopez',
      email: 'Ana.Lopez@Example.com',
      phone: '720.555.0111',
      type: 'new',
      vehicle_year: 2026,
      vehicle_make: 'Toyota',
      vehicle_model: 'Camry',
      vehicle_vin: camry,
      raw_source: 'Dealer Website',
      comments: 'Test drive Saturday?',
      assignee: 'Sam',
    });

    it('stores a lead in our shape, listed as GET /leads and GET /leads/:id answer it', async () => {
      const body = { ...base(), external_id: 'web-1', received_at: '2026-11-20T10:00:00Z', status: 'contacted' };
      const response = await postLead(body);
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.lead).toMatchObject({
        ...body,
        email: 'ana.lopez@example.com',
        phone: '+17205550111',
        received_at: '2026-11-20T10:00:00.000Z',
      });
      const one = await app.client.get(`/leads/${response.body.lead.id}`, admin);
      expect(one.body).toEqual(response.body.lead);
    });

    it('answers the earlier lead for the same customer and vehicle within 72 hours, and stores one outside them', async () => {
      const first = await postLead({
        ...base(),
        external_id: 'dup-1',
        received_at: '2026-10-01T08:00:00Z',
        email: 'dup@example.com',
      });
      expect(first.status).toBe(201);
      // Another provider, another id, the email in other case, two days later: the same inquiry.
      const repeat = await postLead({
        ...base(),
        provider: 'autotrader',
        external_id: 'dup-2',
        received_at: '2026-10-03T08:00:00Z',
        email: 'DUP@example.com',
      });
      expect(repeat.status, JSON.stringify(repeat.body)).toBe(200);
      expect(repeat.body).toMatchObject({ created: false, duplicate: 'same_customer_and_vehicle' });
      expect(repeat.body.lead.id).toBe(first.body.lead.id);
      // The same phone (written another way) about the same year, make and model, without a VIN.
      const byPhone = await postLead({
        ...base(),
        external_id: 'dup-3',
        received_at: '2026-10-02T08:00:00Z',
        email: 'someone.else@example.com',
        phone: '(720) 555-0111',
        vehicle_vin: null,
        vehicle_make: 'TOYOTA',
      });
      expect(byPhone.body.lead.id).toBe(first.body.lead.id);
      expect(await app.database.prisma.lead.count({ where: { externalId: { in: ['dup-2', 'dup-3'] } } })).toBe(0);
      // Past the window, or another vehicle, or another rooftop: a new lead.
      const later = await postLead({
        ...base(),
        external_id: 'dup-4',
        received_at: '2026-10-04T09:00:00Z',
        email: 'dup@example.com',
      });
      expect(later.status).toBe(201);
      const otherCar = await postLead({
        ...base(),
        external_id: 'dup-5',
        received_at: '2026-10-01T09:00:00Z',
        email: 'dup@example.com',
        vehicle_vin: testVin(8, '4T1'),
      });
      expect(otherCar.status).toBe(201);
      const otherRooftop = await postLead({
        ...base(),
        dealer_id: group.dealerIds[1],
        external_id: 'dup-6',
        received_at: '2026-10-01T09:00:00Z',
        email: 'dup@example.com',
      });
      expect(otherRooftop.status).toBe(201);
    });

    it('links a lead to the deal it became and resolves its source, as feed leads are', async () => {
      const response = await postLead({
        ...base(),
        external_id: 'linked-1',
        email: 'buyer.linked@example.com',
        phone: null,
        raw_source: 'CARS.COM ',
        received_at: new Date(Date.now() - 10 * 24 * HOUR).toISOString(),
      });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.lead).toMatchObject({ sale_id: saleId, source_id: mappedSourceId });
    });

    it('makes up an external id when none is given, so a retry is caught as a repeat', async () => {
      const body = { ...base(), email: 'no.id@example.com', received_at: '2026-09-01T10:00:00Z' };
      const first = await postLead(body);
      expect(first.status).toBe(201);
      expect(first.body.lead.external_id).toMatch(/^api-[0-9a-f-]{36}$/);
      const retry = await postLead(body);
      expect(retry.status).toBe(200);
      expect(retry.body.lead.id).toBe(first.body.lead.id);
    });

    it('refuses bad input with a 400 naming the field', async () => {
      expectBad(await postLead({ ...base(), type: 'spaceship' }), 'type', /must be one of new, used/);
      expectBad(await postLead({ ...base(), status: 'won' }), 'status');
      expectBad(await postLead({ ...base(), vehicle_vin: '1HGCM82633A00435' }), 'vehicle_vin', /17 characters/);
      expectBad(await postLead({ ...base(), received_at: '2026-13-45' }), 'received_at');
      expectBad(await postLead({ ...base(), received_at: '2099-01-01T00:00:00Z' }), 'received_at', /future/);
      expectBad(await postLead({ ...base(), comments: 'x'.repeat(4001) }), 'comments', /at most 4000/);
      expectBad(await postLead({ ...base(), first_name: 'x'.repeat(101) }), 'first_name', /at most 100/);
      expectBad(await postLead({ ...base(), email: 'not-an-email' }), 'email');
      expectBad(await postLead({ ...base(), email: null, phone: null }), 'email', /email or a phone/);
      expectBad(await postLead({ ...base(), phone: '12' }), 'phone');
      expectBad(await postLead({ ...base(), vehicle_year: 1850 }), 'vehicle_year', /outside 1900/);
      expectBad(await postLead({ ...base(), provider: 'Has Spaces' }), 'provider');
      expectBad(await postLead({ ...base(), dealer_id: undefined }), 'dealer_id', /is required/);
      const mixed = await postLead({ ...base(), adf: ADF });
      expect(mixed.status).toBe(400);
      expect(mixed.body.error.message).toMatch(/comes from the ADF document: send either adf or the lead fields/);
      expectBad(await postLead({ ...base(), favourite_colour: 'red' }), 'favourite_colour', /unknown field/);
      const huge = await app.client.request('POST', '/api/v1/leads', {
        token: admin,
        rawBody: JSON.stringify({ ...base(), comments: 'x'.repeat(1_100_000) }),
        headers: { 'content-type': 'application/json' },
      });
      expect(huge.status).toBe(413);
    });

    it('never answers a generated lead body with a 5xx', async () => {
      const text = fc.oneof(
        fc.string({ maxLength: 30 }),
        fc.constantFrom('', ' ', 'null', '\u00e9\u00e8', 'a'.repeat(300), '<adf/>', "'; DROP TABLE leads; --"),
      );
      const field = {
        dealer_id: fc.oneof(fc.constant(group.dealerIds[0]), fc.constant(other.dealerIds[0]), fc.uuid(), text),
        provider: fc.oneof(fc.constantFrom('web', 'adf', 'x'), text),
        external_id: text,
        received_at: fc.oneof(
          fc
            .date({ min: new Date('1990-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
            .map((date) => date.toISOString()),
          text,
        ),
        type: fc.oneof(fc.constantFrom('new', 'used', 'service', 'finance', 'trade_in'), text),
        status: fc.oneof(fc.constantFrom('new', 'sold', 'lost'), text),
        first_name: text,
        email: fc.oneof(fc.emailAddress(), text),
        phone: fc.oneof(fc.constantFrom('303-555-0100', '+442071838750'), text),
        vehicle_year: fc.oneof(fc.integer({ min: 1800, max: 2100 }), fc.double(), text),
        vehicle_vin: fc.oneof(fc.constant(testVin(9, '5YJ')), text),
        comments: text,
        assignee: fc.oneof(text, fc.integer()),
      };
      await fc.assert(
        fc.asyncProperty(fc.record(field, { requiredKeys: [] }), async (body) => {
          const response = await postLead(body);
          expect(response.status, `${JSON.stringify(body)} → ${JSON.stringify(response.body)}`).toBeLessThan(500);
          if (response.status >= 400) expect(response.body.error.message).toBeTruthy();
        }),
        { numRuns: Number(process.env.FUZZ_RUNS ?? 60) },
      );
    }, 120_000);
  });

  describe('POST /calls', () => {
    const call = () => ({
      dealer_id: group.dealerIds[0],
      provider: 'callrail',
      external_id: 'CAL-1001',
      started_at: '2026-11-20T15:04:05Z',
      duration_seconds: 185,
      direction: 'inbound',
      status: 'answered',
      caller_number: '(303) 555-0199',
      tracking_number: '303-555-0100',
      raw_source: 'Google Ads call',
      campaign: 'Spring event',
      first_time_caller: true,
      recording_url: 'https://recordings.example.com/CAL-1001.mp3',
      department: 'Sales',
    });

    it('records a call once: the same provider and id again answers the stored call', async () => {
      const first = await app.client.post('/calls', call(), admin);
      expect(first.status, JSON.stringify(first.body)).toBe(201);
      expect(first.body.created).toBe(true);
      expect(first.body.call).toMatchObject({
        ...call(),
        started_at: '2026-11-20T15:04:05.000Z',
        caller_number: '+13035550199',
        tracking_number: '+13035550100',
        source_id: mappedSourceId,
      });
      const again = await app.client.post('/calls', { ...call(), duration_seconds: 999 }, admin);
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ created: false, call: { id: first.body.call.id, duration_seconds: 185 } });

      const listed = await app.client.get(`/calls?dealer_id=${group.dealerIds[0]}`, admin);
      expect(listed.body.calls.map((row: { id: string }) => row.id)).toEqual([first.body.call.id]);
      const stats = await app.client.get(
        `/calls/stats?dealer_id=${group.dealerIds[0]}&from=2026-11-20T00:00:00Z&to=2026-11-21T00:00:00Z`,
        admin,
      );
      expect(stats.status, JSON.stringify(stats.body)).toBe(200);
      expect(stats.body).toMatchObject({ calls: 1, answered: 1, first_time_callers: 1 });
      expect(stats.body.by_source).toEqual([expect.objectContaining({ source_id: mappedSourceId, calls: 1 })]);

      await feedSettled(app.database.pool);
      const events = await app.client.get(`/events?types=call.created&dealer_id=${group.dealerIds[0]}`, admin);
      expect(events.body.events).toEqual([
        expect.objectContaining({ subject_id: first.body.call.id, request_id: first.headers.get('x-request-id') }),
      ]);
    });

    it('takes the defaults feeds take and refuses bad input naming the field', async () => {
      const minimal = await app.client.post(
        '/calls',
        {
          dealer_id: group.dealerIds[1],
          external_id: 'min-1',
          started_at: '2026-11-21T09:00:00Z',
          duration_seconds: 0,
        },
        admin,
      );
      expect(minimal.status, JSON.stringify(minimal.body)).toBe(201);
      expect(minimal.body.call).toMatchObject({ direction: 'inbound', status: 'missed', provider: 'manual' });

      const bad = (body: Record<string, unknown>) =>
        app.client.post('/calls', { ...call(), external_id: 'bad', ...body }, admin);
      expectBad(await bad({ status: 'hung_up' }), 'status', /must be one of answered, missed, voicemail/);
      expectBad(await bad({ direction: 'sideways' }), 'direction');
      expectBad(await bad({ duration_seconds: -5 }), 'duration_seconds', /outside 0-86400/);
      expectBad(await bad({ duration_seconds: 1.5 }), 'duration_seconds');
      expectBad(await bad({ started_at: 'yesterday' }), 'started_at');
      expectBad(await bad({ started_at: undefined }), 'started_at', /is required/);
      expectBad(await bad({ external_id: undefined }), 'external_id', /is required/);
      expectBad(await bad({ caller_number: 'call me' }), 'caller_number', /not a phone number/);
      expectBad(await bad({ recording_url: 'ftp://x' }), 'recording_url');
      expectBad(await bad({ campaign: 'c'.repeat(201) }), 'campaign', /at most 200/);
      expectBad(await bad({ dealer_id: undefined }), 'dealer_id', /is required/);
    });
  });

  describe('scopes and tenancy', () => {
    it('refuses a key or role without the write scope, naming it', async () => {
      const readOnly = await createKey(app.client, admin, {
        name: 'reader',
        scopes: ['leads:read', 'calls:read', 'inventory:read'],
      });
      const leads = await postLead({ dealer_id: group.dealerIds[0], email: 'x@example.com' }, readOnly.key);
      expect(leads.status).toBe(403);
      expect(leads.body.error.message).toBe('missing scope leads:write');
      const adf = await xml(ADF, '', readOnly.key);
      expect(adf.status).toBe(403);
      const calls = await app.client.post('/calls', { dealer_id: group.dealerIds[0] }, readOnly.key);
      expect(calls.status).toBe(403);
      expect(calls.body.error.message).toBe('missing scope calls:write');
      const analyst = await group.login(app.client, 'analyst');
      expect((await app.client.post('/calls', { dealer_id: group.dealerIds[0] }, analyst)).status).toBe(403);
      const viewer = await group.login(app.client, 'viewer');
      expect((await postLead({ dealer_id: group.dealerIds[0] }, viewer)).body.error.message).toBe(
        'missing scope leads:write',
      );
      // An analyst works leads, so it may post them.
      const byAnalyst = await postLead(
        { dealer_id: group.dealerIds[0], email: 'analyst.lead@example.com', received_at: '2026-08-01T00:00:00Z' },
        analyst,
      );
      expect(byAnalyst.status).toBe(201);
      expect(byAnalyst.body.lead.provider).toBe('manual');
      const writer = await createKey(app.client, admin, {
        name: 'Lead Partner, Inc.',
        scopes: ['leads:write', 'calls:write'],
      });
      const byKey = await postLead(
        { dealer_id: group.dealerIds[0], email: 'key.lead@example.com', received_at: '2026-08-01T00:00:00Z' },
        writer.key,
      );
      expect(byKey.status).toBe(201);
      expect(byKey.body.lead.provider).toBe('api_lead_partner_inc');
    });

    it('never writes into another group: its rooftop is a 400, its vendor matches nothing', async () => {
      const before = await app.database.prisma.lead.count({ where: { dealerGroupId: group.groupId } });
      const lead = await postLead({ dealer_id: group.dealerIds[0], email: 'intruder@example.com' }, otherAdmin);
      expectBad(lead, 'dealer_id', /in your dealer groups/);
      expect(JSON.stringify(lead.body)).not.toContain('Summit');
      expectBad(await xml(ADF, '', otherAdmin), 'dealer_id', /no rooftop of yours matches/);
      expectBad(await xml(ADF, `?dealer_id=${group.dealerIds[0]}`, otherAdmin), 'dealer_id');
      const call = await app.client.post(
        '/calls',
        { dealer_id: group.dealerIds[0], external_id: 'x', started_at: '2026-11-01T00:00:00Z', duration_seconds: 1 },
        otherAdmin,
      );
      expectBad(call, 'dealer_id');
      expect(await app.database.prisma.lead.count({ where: { dealerGroupId: group.groupId } })).toBe(before);
      expect(await app.database.prisma.lead.count({ where: { dealerGroupId: other.groupId } })).toBe(0);
      expect(await app.database.prisma.call.count({ where: { dealerGroupId: other.groupId } })).toBe(0);
    });
  });
});
