import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type ApiResponse, type TestApp } from './helpers/app';
import { feedSettled } from './helpers/events';
import { createKey } from './helpers/keys';
import { seedGroup, testVin, type SeededGroup } from './helpers/seed';

/**
 * PUT /inventory/:vin over HTTP: an API key writes vehicles as its own source, merged with the
 * rooftop's feeds under its field priorities (provenance, history, events with the request id),
 * within its scope and its dealer groups, refusing bad input by name.
 */

interface Provenance {
  field: string;
  value: unknown;
  source: string | null;
  alternatives: Array<{ source: string; value: unknown }>;
}

describe('data in through the API: PUT /inventory/:vin', () => {
  let app: TestApp;
  let group: SeededGroup;
  let other: SeededGroup;
  let admin: string;
  let partner: { id: string; key: string };
  const fedVin = testVin(31, '1FT');

  const put = (vin: string, body: Record<string, unknown>, token = partner.key) =>
    app.client.request('PUT', `/api/v1/inventory/${vin}`, { token, body });
  const provenanceOf = (response: ApiResponse, field: string) =>
    (response.body.vehicle.provenance as Provenance[]).find((entry) => entry.field === field)!;
  const expectBad = (response: ApiResponse, field: string, message?: RegExp) => {
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error.details?.field).toBe(field);
    if (message) expect(response.body.error.message).toMatch(message);
  };

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma, {
      dealers: 2,
      vehicles: [
        {
          vin: fedVin,
          make: 'Ford',
          model: 'F-150',
          year: 2023,
          price: '41000.00',
          mileage: 12000,
          sources: [
            { source: 'dms', data: { year: 2023, make: 'Ford', model: 'F-150', price: '41000.00', mileage: 12000 } },
          ],
          fieldSources: { year: 'dms', make: 'dms', model: 'dms', price: 'dms', mileage: 'dms' },
        },
      ],
    });
    other = await seedGroup(app.database.prisma, { dealers: 1 });
    admin = await group.login(app.client);
    partner = await createKey(app.client, admin, {
      name: 'Acme Lot Tools',
      scopes: ['inventory:write', 'inventory:read'],
    });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("creates a vehicle as the key's own source, with provenance and events naming the request", async () => {
    const vin = testVin(32, '5YJ');
    const response = await put(vin.toLowerCase(), {
      dealer_id: group.dealerIds[0],
      stock_number: 'T100',
      year: 2024,
      make: 'Tesla',
      model: 'Model 3',
      condition: 'used',
      mileage: 8000,
      price: '38995',
      exterior_color: 'Pearl White',
      date_in_stock: '2026-11-01',
      photos: ['https://photos.example.com/t100-1.jpg'],
    });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    expect(response.body).toMatchObject({ created: true, source: 'api_acme_lot_tools' });
    expect(response.body.vehicle).toMatchObject({
      vin,
      dealer_id: group.dealerIds[0],
      year: 2024,
      make: 'Tesla',
      price: '38995.00',
      status: 'available',
      date_in_stock: '2026-11-01',
      photos: ['https://photos.example.com/t100-1.jpg'],
    });
    expect(provenanceOf(response, 'price')).toMatchObject({ source: 'api_acme_lot_tools', value: '38995.00' });
    expect(response.body.vehicle.sources).toEqual([
      expect.objectContaining({ source: 'api_acme_lot_tools', data: expect.objectContaining({ price: '38995.00' }) }),
    ]);
    const read = await app.client.get(`/inventory/${vin}`, partner.key);
    expect(read.body).toEqual(response.body.vehicle);

    // The same body again changes nothing: 200, and no event.
    const same = await put(vin, {
      dealer_id: group.dealerIds[0],
      stock_number: 'T100',
      year: 2024,
      make: 'Tesla',
      model: 'Model 3',
      condition: 'used',
      mileage: 8000,
      price: '38995.00',
      exterior_color: 'Pearl White',
      date_in_stock: '2026-11-01',
      photos: ['https://photos.example.com/t100-1.jpg'],
    });
    expect(same.status).toBe(200);
    expect(same.body.created).toBe(false);

    // A second write that moves the price: history and events with this request's id.
    const cheaper = await put(vin, {
      dealer_id: group.dealerIds[0],
      year: 2024,
      make: 'Tesla',
      model: 'Model 3',
      mileage: 8100,
      price: '36995.00',
      status: 'pending',
    });
    expect(cheaper.status, JSON.stringify(cheaper.body)).toBe(200);
    expect(cheaper.body.vehicle).toMatchObject({ price: '36995.00', mileage: 8100, status: 'pending' });
    // What the key no longer says (its stock number, color, photos), it no longer claims.
    expect(cheaper.body.vehicle).toMatchObject({ stock_number: null, exterior_color: null, photos: [] });
    const history = await app.client.get(`/inventory/${vin}/history?field=price`, partner.key);
    expect(history.body.changes).toEqual([
      expect.objectContaining({
        old_value: '38995.00',
        new_value: '36995.00',
        source: 'api_acme_lot_tools',
        sync_run_id: null,
      }),
    ]);
    await feedSettled(app.database.pool);
    const events = await app.client.get(`/events?dealer_id=${group.dealerIds[0]}&limit=500`, admin);
    const mine = events.body.events.filter(
      (event: { subject_id: string }) => event.subject_id === response.body.vehicle.id,
    );
    expect(mine.map((event: { type: string }) => event.type)).toEqual([
      'vehicle.created',
      'vehicle.updated',
      'vehicle.price_changed',
      'vehicle.status_changed',
    ]);
    expect(mine[0].request_id).toBe(response.headers.get('x-request-id'));
    for (const event of mine.slice(1)) expect(event.request_id).toBe(cheaper.headers.get('x-request-id'));
    expect(mine[1].data.changes.price).toEqual({ old: '38995.00', new: '36995.00', source: 'api_acme_lot_tools' });
  });

  it('loses the fields another source outranks in the rooftop priorities, and wins the others', async () => {
    const priorities = await app.client.request('PUT', '/api/v1/multi-source/priorities', {
      token: admin,
      body: {
        dealer_id: group.dealerIds[0],
        priorities: { price: ['dms', 'api_acme_lot_tools'], '*': ['api_acme_lot_tools', 'dms'] },
      },
    });
    expect(priorities.status, JSON.stringify(priorities.body)).toBe(200);
    const response = await put(fedVin, {
      dealer_id: group.dealerIds[0],
      year: 2023,
      make: 'Ford',
      model: 'F-150',
      price: '39500.00',
      mileage: 12500,
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.vehicle).toMatchObject({ price: '41000.00', mileage: 12500 });
    expect(provenanceOf(response, 'price')).toMatchObject({
      source: 'dms',
      value: '41000.00',
      alternatives: [expect.objectContaining({ source: 'api_acme_lot_tools', value: '39500.00' })],
    });
    expect(provenanceOf(response, 'mileage')).toMatchObject({ source: 'api_acme_lot_tools', value: 12500 });
    const known = await app.client.get(`/multi-source/priorities?dealer_id=${group.dealerIds[0]}`, admin);
    expect(known.body.dealers[0].known_sources).toEqual(expect.arrayContaining(['api_acme_lot_tools', 'dms']));
  });

  it('refuses bad input with a 400 naming the field', async () => {
    const vin = testVin(33, '1HG');
    const body = { dealer_id: group.dealerIds[1], year: 2022, make: 'Honda', model: 'Civic', condition: 'used' };
    expectBad(await put('1HGCM82633A004353', body), 'vin', /check digit/);
    expectBad(await put('NOT-A-VIN', body), 'vin', /17 characters/);
    expectBad(await put(vin, { ...body, condition: undefined }), 'condition', /is required/);
    expectBad(await put(vin, { ...body, condition: 'salvage' }), 'condition', /must be one of new, used, certified/);
    expectBad(await put(vin, { ...body, status: 'presumed_sold' }), 'status', /set by the platform/);
    expectBad(await put(vin, { ...body, status: 'gone' }), 'status');
    expectBad(await put(vin, { ...body, year: undefined }), 'year', /is required/);
    expectBad(await put(vin, { ...body, year: 1800 }), 'year', /outside 1900/);
    expectBad(await put(vin, { ...body, price: 'cheap' }), 'price');
    expectBad(await put(vin, { ...body, price: '12.00' }), 'price', /looks wrong/);
    expectBad(await put(vin, { ...body, mileage: -1 }), 'mileage');
    expectBad(await put(vin, { ...body, date_in_stock: '2026-02-31x' }), 'date_in_stock');
    expectBad(await put(vin, { ...body, date_in_stock: '2099-01-01' }), 'date_in_stock', /future/);
    expectBad(await put(vin, { ...body, make: 'M'.repeat(61) }), 'make', /at most 60/);
    expectBad(await put(vin, { ...body, photos: ['javascript:alert(1)'] }), 'photos[0]');
    expectBad(await put(vin, { ...body, dealer_id: undefined }), 'dealer_id', /is required/);
    expectBad(await put(vin, { ...body, vin: vin }), 'vin', /unknown field/);
    expect(await app.database.prisma.vehicle.count({ where: { vin } })).toBe(0);
  });

  it('needs inventory:write and never writes into another group', async () => {
    const reader = await createKey(app.client, admin, { name: 'reader', scopes: ['inventory:read'] });
    const vin = testVin(34, '1HG');
    const body = { dealer_id: group.dealerIds[1], year: 2022, make: 'Honda', model: 'Civic', condition: 'used' };
    const refused = await put(vin, body, reader.key);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe('missing scope inventory:write');
    const otherAdmin = await other.login(app.client);
    const foreign = await put(vin, body, otherAdmin);
    expectBad(foreign, 'dealer_id', /in your dealer groups/);
    const overFed = await put(fedVin, { ...body, dealer_id: group.dealerIds[0] }, otherAdmin);
    expectBad(overFed, 'dealer_id');
    expect(await app.database.prisma.vehicle.count({ where: { vin } })).toBe(0);
    // A signed-in admin writes as "manual".
    const manual = await put(vin, body, admin);
    expect(manual.status).toBe(201);
    expect(manual.body.source).toBe('manual');
  });
});
