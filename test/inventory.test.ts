import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, testVin, type SeededGroup, type VehicleSeed } from './helpers/seed';
import { recordStatements } from './helpers/statements';

const FLEET: VehicleSeed[] = [
  {
    make: 'Toyota',
    model: 'Camry',
    year: 2024,
    price: '28995.00',
    status: 'available',
    condition: 'new',
    bodyStyle: 'Sedan',
    daysOnLot: 5,
    mileage: 12,
    trim: 'XLE',
    sources: [
      { source: 'dms', data: { price: '28995.00' } },
      { source: 'website', data: { price: '28495.00' } },
    ],
    fieldSources: { price: 'dms' },
  },
  {
    make: 'Toyota',
    model: 'RAV4',
    year: 2021,
    price: '24500.00',
    status: 'available',
    bodyStyle: 'SUV',
    daysOnLot: 45,
    mileage: 41000,
    sources: [{ source: 'inventory_feed', data: {} }],
  },
  {
    make: 'Toyota',
    model: 'Tacoma',
    year: 2019,
    price: '31900.00',
    status: 'pending',
    bodyStyle: 'Truck',
    daysOnLot: 95,
    mileage: 60000,
    dealer: 1,
  },
  {
    make: 'Honda',
    model: 'Civic',
    year: 2020,
    price: '18200.00',
    status: 'available',
    bodyStyle: 'Sedan',
    daysOnLot: 70,
    mileage: 52000,
    dealer: 1,
  },
  {
    make: 'Honda',
    model: 'CR-V',
    year: 2023,
    price: '29999.00',
    status: 'sold',
    bodyStyle: 'SUV',
    daysOnLot: 40,
    soldDaysAgo: 10,
    mileage: 9000,
  },
  {
    make: 'Ford',
    model: 'F-150',
    year: 2022,
    price: '41500.00',
    status: 'in_transit',
    condition: 'new',
    bodyStyle: 'Truck',
    daysOnLot: 0,
    mileage: 5,
  },
  {
    make: 'Ford',
    model: 'Escape',
    year: 2018,
    price: null,
    status: 'available',
    bodyStyle: 'SUV',
    daysOnLot: 31,
    mileage: 98000,
    updatedAt: new Date('2020-01-01T00:00:00Z'),
  },
];

describe('inventory (Inventory section of docs/operations.md)', () => {
  let app: TestApp;
  let group: SeededGroup;
  let other: SeededGroup;
  let token: string;
  let otherToken: string;

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma, { vehicles: FLEET });
    other = await seedGroup(app.database.prisma, {
      vehicles: [{ make: 'Toyota', model: 'Camry', price: '1.00', vin: testVin(999_999, '4T1') }],
    });
    token = await group.login(app.client);
    otherToken = await other.login(app.client);
  });
  afterAll(() => app?.stop());

  const vinsOf = (body: { vehicles: Array<{ vin: string }> }) => body.vehicles.map((vehicle) => vehicle.vin).sort();
  const expectVins = (indexes: number[]) => indexes.map((index) => group.vehicles[index]!.vin).sort();
  const list = async (query: string) => {
    const response = await app.client.get(`/inventory${query}`, token);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  };

  it('answers GET /inventory in the documented shape', async () => {
    const body = await list('?sort=price&limit=2');
    expect(Object.keys(body).sort()).toEqual(['pagination', 'vehicles']);
    expect(body.pagination).toEqual({ total: 7, limit: 2, offset: 0, next_cursor: expect.any(String) });
    const vehicle = body.vehicles[0];
    expect(vehicle).toMatchObject({
      vin: expect.any(String),
      year: 2020,
      make: 'Honda',
      model: 'Civic',
      price: '18200.00',
      status: 'available',
      days_on_lot: 70,
    });
    expect(vehicle.dealer).toMatchObject({ id: group.dealerIds[1], name: expect.any(String) });
  });

  it.each([
    ['?make=toyota', [0, 1, 2]],
    ['?make=Toyota&model=rav4', [1]],
    ['?make=Honda,Ford', [3, 4, 5, 6]],
    ['?make=Honda&make=Ford', [3, 4, 5, 6]],
    ['?year_min=2021&year_max=2023', [1, 4, 5]],
    ['?price_min=24500&price_max=30000', [0, 1, 4]],
    ['?price_max=20000', [3]],
    ['?status=available', [0, 1, 3, 6]],
    ['?status=sold&status=pending', [2, 4]],
    ['?condition=new', [0, 5]],
    ['?body_style=truck', [2, 5]],
    [`?dealer_id=DEALER1`, [2, 3]],
    ['?source=dms', [0]],
    ['?source=inventory_feed,website', [0, 1]],
    ['?days_on_lot_min=31&days_on_lot_max=70', [1, 3, 6]],
    ['?days_on_lot_min=90', [2]],
    ['?q=cam', [0]],
    ['?q=2019 toyota', [2]],
    ['?updated_since=2021-01-01T00:00:00Z', [0, 1, 2, 3, 4, 5]],
  ])('filters %s', async (query, expected) => {
    const body = await list(query.replace('DEALER1', group.dealerIds[1]!));
    expect(vinsOf(body)).toEqual(expectVins(expected));
    expect(body.pagination.total).toBe(expected.length);
  });

  it('finds a vehicle by VIN fragment', async () => {
    const vin = group.vehicles[3]!.vin;
    expect(vinsOf(await list(`?q=${vin.slice(-8)}`))).toEqual([vin]);
  });

  it.each([
    ['price', (a: VehicleSeed, b: VehicleSeed) => Number(a.price ?? Infinity) - Number(b.price ?? Infinity)],
    [
      '-price',
      (a: VehicleSeed, b: VehicleSeed) =>
        b.price === null ? -1 : a.price === null ? 1 : Number(b.price) - Number(a.price),
    ],
    ['-days_on_lot', (a: VehicleSeed, b: VehicleSeed) => daysOf(b) - daysOf(a)],
    ['year', (a: VehicleSeed, b: VehicleSeed) => (a.year ?? 0) - (b.year ?? 0)],
    ['-mileage', (a: VehicleSeed, b: VehicleSeed) => (b.mileage ?? 0) - (a.mileage ?? 0)],
  ])('sorts by %s', async (sort, compare) => {
    const body = await list(`?sort=${sort}`);
    const expected = FLEET.map((seed, index) => ({ seed, vin: group.vehicles[index]!.vin }))
      .sort((a, b) => compare(a.seed, b.seed))
      .map((entry) => entry.vin);
    expect(body.vehicles.map((vehicle: { vin: string }) => vehicle.vin)).toEqual(expected);
  });

  it('sorts by several keys', async () => {
    const body = await list('?sort=make,-price');
    expect(
      body.vehicles.map((vehicle: { make: string; price: string | null }) => `${vehicle.make} ${vehicle.price}`),
    ).toEqual([
      'Ford 41500.00',
      'Ford null',
      'Honda 29999.00',
      'Honda 18200.00',
      'Toyota 31900.00',
      'Toyota 28995.00',
      'Toyota 24500.00',
    ]);
  });

  it('pages without gaps or repeats, and reports the total past the end', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 7; offset += 3)
      seen.push(
        ...(await list(`?sort=make&limit=3&offset=${offset}`)).vehicles.map((vehicle: { vin: string }) => vehicle.vin),
      );
    expect(seen.sort()).toEqual(expectVins([0, 1, 2, 3, 4, 5, 6]));
    const past = await list('?offset=50');
    expect(past.vehicles).toEqual([]);
    expect(past.pagination).toEqual({ total: 7, limit: 50, offset: 50, next_cursor: null });
    expect((await list('?limit=500')).pagination.limit).toBe(500);
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=501', 'limit'],
    ['?limit=abc', 'limit'],
    ['?offset=-1', 'offset'],
    ['?sort=color', 'sort'],
    ['?sort=-', 'sort'],
    ['?year_min=2024&year_max=2020', 'year_min'],
    ['?status=lost', 'status'],
    ['?price_min=cheap', 'price_min'],
    ['?dealer_id=42', 'dealer_id'],
    ['?updated_since=yesterday', 'updated_since'],
    ['?days_on_lot_min=x', 'days_on_lot_min'],
    ['?colour=red', 'colour'],
    ['?limit=1&limit=2', 'limit'],
  ])('refuses %s with a 400 naming %s', async (query, field) => {
    const response = await app.client.get(`/inventory${query}`, token);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain(field);
  });

  it('answers GET /inventory/:vin with per-field provenance and the losing values', async () => {
    const vin = group.vehicles[0]!.vin;
    const response = await app.client.get(`/inventory/${vin.toLowerCase()}`, token);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ vin, price: '28995.00', make: 'Toyota' });
    const price = response.body.provenance.find((field: { field: string }) => field.field === 'price');
    expect(price).toMatchObject({
      value: '28995.00',
      source: 'dms',
      alternatives: [{ source: 'website', value: '28495.00' }],
    });
    expect(response.body.sources.map((source: { source: string }) => source.source)).toEqual(['dms', 'website']);
  });

  it('answers GET /inventory/:vin/history newest first', async () => {
    const vehicle = group.vehicles[0]!;
    await app.database.prisma.vehicleChange.createMany({
      data: [
        {
          vehicleId: vehicle.id,
          field: 'price',
          oldValue: '30995.00',
          newValue: '29995.00',
          source: 'dms',
          changedAt: new Date('2026-01-01T00:00:00Z'),
        },
        {
          vehicleId: vehicle.id,
          field: 'price',
          oldValue: '29995.00',
          newValue: '28995.00',
          source: 'dms',
          changedAt: new Date('2026-02-01T00:00:00Z'),
        },
        {
          vehicleId: vehicle.id,
          field: 'status',
          oldValue: 'in_transit',
          newValue: 'available',
          source: 'dms',
          changedAt: new Date('2026-01-15T00:00:00Z'),
        },
      ],
    });
    const history = await app.client.get(`/inventory/${vehicle.vin}/history`, token);
    expect(history.status).toBe(200);
    expect(history.body.changes.map((change: { new_value: string }) => change.new_value)).toEqual([
      '28995.00',
      'available',
      '29995.00',
    ]);
    expect(history.body.pagination.total).toBe(3);
    const prices = await app.client.get(`/inventory/${vehicle.vin}/history?field=price&limit=1`, token);
    expect(prices.body.changes).toHaveLength(1);
    expect(prices.body.pagination).toEqual({ total: 2, limit: 1, offset: 0 });
  });

  it('computes stats over current inventory, by status, make and dealer', async () => {
    const response = await app.client.get('/inventory/stats', token);
    expect(response.status).toBe(200);
    const current = FLEET.filter((seed) => ['available', 'pending', 'in_transit'].includes(seed.status ?? 'available'));
    const value = current.reduce((sum, seed) => sum + Number(seed.price ?? 0), 0);
    const priced = current.filter((seed) => seed.price !== null);
    expect(response.body.total_vehicles).toBe(current.length);
    expect(response.body.total_value).toBe(value.toFixed(2));
    expect(response.body.average_price).toBe((value / priced.length).toFixed(2));
    expect(response.body.average_days_on_lot).toBeCloseTo(
      current.reduce((sum, seed) => sum + daysOf(seed), 0) / current.length,
      1,
    );
    expect(response.body.by_status.find((row: { status: string }) => row.status === 'available').count).toBe(4);
    expect(response.body.by_make.find((row: { make: string }) => row.make === 'Toyota')).toMatchObject({
      count: 3,
      total_value: '85395.00',
    });
    expect(response.body.by_dealer.map((row: { count: number }) => row.count).sort()).toEqual([2, 4]);
    const sold = await app.client.get('/inventory/stats?status=sold', token);
    expect(sold.body).toMatchObject({ total_vehicles: 1, total_value: '29999.00' });
  });

  it('buckets days on lot for aging', async () => {
    const response = await app.client.get('/inventory/aging', token);
    expect(response.status).toBe(200);
    expect(
      response.body.buckets.map((bucket: { bucket: string; count: number }) => [bucket.bucket, bucket.count]),
    ).toEqual([
      ['0-30', 2],
      ['31-60', 2],
      ['61-90', 1],
      ['90+', 1],
    ]);
    expect(response.body.buckets[0].total_value).toBe('70495.00');
    expect(response.body.total_count).toBe(6);
  });

  it('counts facets for filter UIs, under the other filters', async () => {
    const response = await app.client.get('/inventory/facets?make=Toyota', token);
    expect(response.status).toBe(200);
    expect(response.body.makes).toEqual([{ value: 'Toyota', count: 3, make: null }]);
    expect(response.body.models.map((model: { value: string }) => model.value).sort()).toEqual([
      'Camry',
      'RAV4',
      'Tacoma',
    ]);
    expect(response.body.body_styles).toHaveLength(3);
  });

  it('serves the same data through GraphQL with nested dealers', async () => {
    const response = await app.client.graphql(
      `query ($make: [String!]) { inventory(make: $make, sort: "price") { pagination { total } vehicles { vin price days_on_lot dealer { id name } } } }`,
      { make: ['Toyota'] },
      token,
    );
    expect(response.status).toBe(200);
    expect(response.body.data.inventory.pagination.total).toBe(3);
    expect(response.body.data.inventory.vehicles[0]).toMatchObject({
      price: '24500.00',
      days_on_lot: 45,
      dealer: { id: group.dealerIds[0] },
    });
  });

  it("never shows one dealer group another's vehicles", async () => {
    const mine = await app.client.get('/inventory?limit=500', otherToken);
    expect(mine.body.pagination.total).toBe(1);
    expect(vinsOf(mine.body)).toEqual([other.vehicles[0]!.vin]);
    const foreign = await app.client.get(`/inventory/${group.vehicles[0]!.vin}`, otherToken);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');
    expect((await app.client.get(`/inventory/${group.vehicles[0]!.vin}/history`, otherToken)).status).toBe(404);
    expect((await app.client.get(`/inventory?dealer_id=${group.dealerIds[0]}`, otherToken)).body.pagination.total).toBe(
      0,
    );
    expect((await app.client.get('/inventory/stats', otherToken)).body.total_vehicles).toBe(1);
    expect((await app.client.get('/inventory/facets', otherToken)).body.makes).toEqual([
      { value: 'Toyota', count: 1, make: null },
    ]);
    const graphql = await app.client.graphql(`{ vehicle(vin: "${group.vehicles[0]!.vin}") { vin } }`, {}, otherToken);
    expect(graphql.body.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it("answers a vehicle's dealer as the dealer query does, every field and list of it, reading each rooftop once", async () => {
    const dealerFields = `id dealer_group_id name code street city state postal_code phone website time_zone franchises
      external_ids created_at updated_at archived_at aliases { alias } vehicle_count call_count lead_count sale_count
      vehicles(limit: 2) { vin dealer { name } } calls(limit: 1) { id }`;
    let page: Awaited<ReturnType<typeof app.client.graphql>> | undefined;
    const statements = await recordStatements(app.database.pool, async () => {
      page = await app.client.graphql(
        `{ inventory(limit: 25, sort: "vin") { vehicles { vin dealer { ${dealerFields} } } } }`,
        {},
        token,
      );
    });
    expect(page!.body.errors).toBeUndefined();
    const vehicles = page!.body.data.inventory.vehicles as Array<{ vin: string; dealer: { id: string } }>;
    expect(vehicles).toHaveLength(7);
    expect(new Set(vehicles.map((vehicle) => vehicle.dealer.id)).size).toBeGreaterThan(1);
    for (const vehicle of vehicles) {
      const alone = await app.client.graphql(`{ dealer(id: "${vehicle.dealer.id}") { ${dealerFields} } }`, {}, token);
      expect(vehicle.dealer, vehicle.vin).toEqual(alone.body.data.dealer);
    }
    // However many vehicles share them, and with the dealers' own vehicles asking again, the
    // rooftops are read once for the answer.
    const rooftopReads = statements.filter((text) => text.includes('rowsByIds Dealer'));
    expect(rooftopReads, statements.join('\n')).toHaveLength(1);
  });

  it('loads a page of vehicles with their dealers and sources in a fixed number of SQL statements', async () => {
    await app.client.get('/auth/me', token); // the session, remembered from here on
    const statements = await recordStatements(app.database.pool, async () => {
      const response = await app.client.graphql(
        '{ inventory(limit: 25) { vehicles { vin dealer { name } sources { source } provenance { field } } } }',
        {},
        token,
      );
      expect(response.body.data.inventory.vehicles).toHaveLength(7);
    });
    // The page's ids with the total, the vehicles with their source records (joined in one statement),
    // and the page's rooftops once: three statements whatever the page size (who is calling:
    // test/sessions.test.ts).
    expect(statements.length, statements.join('\n')).toBeLessThanOrEqual(3);
  });

  it('reads a REST page of vehicles and their total in one statement once the operation has run, their dealers in one more', async () => {
    await app.client.get('/auth/me', token);
    // Its first run reads the page, then its rows by id, and tells the operation what the rows were read with.
    const first = await recordStatements(app.database.pool, async () => {
      expect((await app.client.get('/inventory?limit=2&sort=price', token)).status).toBe(200);
    });
    expect(first.length, first.join('\n')).toBeLessThanOrEqual(3);
    const statements = await recordStatements(app.database.pool, async () => {
      const response = await app.client.get('/inventory?limit=3&sort=-price', token);
      expect(response.status).toBe(200);
      expect(response.body.vehicles).toHaveLength(3);
      expect(response.body.vehicles.every((vehicle: { dealer: { name: string } }) => vehicle.dealer.name)).toBe(true);
      expect(response.body.pagination.total).toBe(7);
    });
    expect(statements, statements.join('\n')).toEqual([
      expect.stringContaining('/* inventoryPage */'),
      expect.stringContaining('/* rowsByIds Dealer */'),
    ]);
  });

  it('requires credentials', async () => {
    expect((await app.client.get('/inventory')).status).toBe(401);
    expect((await app.client.graphql('{ inventoryStats { total_vehicles } }')).body.errors[0].extensions.code).toBe(
      'UNAUTHENTICATED',
    );
  });
});

function daysOf(seed: VehicleSeed): number {
  return seed.soldDaysAgo === undefined ? (seed.daysOnLot ?? 10) : (seed.daysOnLot ?? 10) - seed.soldDaysAgo;
}
