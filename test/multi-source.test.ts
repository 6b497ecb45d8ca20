import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, testVin, type SeededGroup } from './helpers/seed';
import { connect, deliver, FIXTURES, syncNow } from './helpers/feeds';
import { createKey } from './helpers/keys';
import { generatedLine, generatedVin, writeGeneratedFeed } from './helpers/generated-feed';
import { CONFLICT_KINDS } from '../src/modules/multi-source/multi-source.service';

describe('multi-source merge, conflicts and discrepancies (Multi-source section of docs/operations.md)', () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;
  const badVin = (vin: string) => vin.slice(0, 8) + (vin[8] === '7' ? '8' : '7') + vin.slice(9);
  const vins = {
    merged: testVin(901, '1HG'),
    duplicate: testVin(902, '1HG'),
    wrongMake: testVin(903, '1HG'),
    invalid: badVin(testVin(904, '1HG')),
  };

  beforeAll(async () => {
    app = await startTestApp({ SYNC_SCHEDULER: 'false' });
    group = await seedGroup(app.database.prisma, {
      vehicles: [
        {
          vin: vins.merged,
          make: 'Honda',
          model: 'Accord',
          price: '27000.00',
          mileage: 20000,
          stockNumber: 'H100',
          fieldSources: { price: 'dms' },
          sources: [
            {
              source: 'dms',
              data: {
                price: '27000.00',
                mileage: 20000,
                stock_number: 'H100',
                make: 'Honda',
                model: 'Accord',
                year: 2022,
                condition: 'used',
              },
            },
            {
              source: 'website',
              data: {
                price: '26200.00',
                mileage: 20900,
                trim: 'EX-L',
                make: 'Honda',
                model: 'Accord',
                year: 2022,
                condition: 'used',
                photos: ['https://img.example/1.jpg'],
              },
            },
          ],
        },
        { vin: vins.duplicate, make: 'Honda', model: 'Civic', stockNumber: 'H100' },
        { vin: vins.wrongMake, make: 'Toyota', model: 'Camry', stockNumber: 'T1' },
        { vin: vins.invalid, make: 'Honda', model: 'Fit', stockNumber: 'H9' },
      ],
    });
    admin = await group.login(app.client);
  });
  afterAll(() => app?.stop());

  /**
   * The list's total without filters (the rooftops' conflict totals, kept by triggers) is the number
   * of conflicts it lists, and the sum of the totals by kind (counted from the conflicts).
   */
  async function expectTotalsAddUp(token: string, dealerId?: string) {
    const only = dealerId ? `&dealer_id=${dealerId}` : '';
    const { body } = await app.client.get(`/multi-source/conflicts?limit=500${only}`, token);
    expect(body.pagination.total).toBe(body.conflicts.length);
    let byKind = 0;
    for (const kind of CONFLICT_KINDS)
      byKind += (await app.client.get(`/multi-source/conflicts?limit=1&kind=${kind}${only}`, token)).body.pagination
        .total;
    expect(body.pagination.total).toBe(byKind);
    return body.pagination.total as number;
  }

  it('sets field-level priorities per rooftop, refusing unknown fields', async () => {
    const refused = await app.client.request('PUT', '/api/v1/multi-source/priorities', {
      token: admin,
      body: { dealer_id: group.dealerIds[0], priorities: { colour: ['dms'] } },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toContain('priorities.colour');
    const saved = await app.client.request('PUT', '/api/v1/multi-source/priorities', {
      token: admin,
      body: { dealer_id: group.dealerIds[0], priorities: { price: ['website', 'dms'], '*': ['dms', 'website'] } },
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      dealer_id: group.dealerIds[0],
      priorities: { price: ['website', 'dms'] },
      known_sources: ['dms', 'website'],
    });
    const listed = await app.client.get(`/multi-source/priorities?dealer_id=${group.dealerIds[0]}`, admin);
    expect(listed.body.dealers[0].priorities).toEqual(saved.body.priorities);
  });

  it('rebuilds after a priority change: the preferred source wins each field, the next fills what it lacks, history records it', async () => {
    const rebuilt = await app.client.post('/multi-source/rebuild', { dealer_id: group.dealerIds[0] }, admin);
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.body).toMatchObject({ vehicles_examined: 4, vehicles_changed: 1 });
    const merged = (await app.client.get(`/multi-source/vehicles/${vins.merged}`, admin)).body;
    expect(merged).toMatchObject({ price: '26200.00', mileage: 20000, trim: 'EX-L', stock_number: 'H100' });
    const provenance = Object.fromEntries(merged.provenance.map((entry: { field: string }) => [entry.field, entry]));
    expect(provenance.price).toMatchObject({
      source: 'website',
      value: '26200.00',
      alternatives: [{ source: 'dms', value: '27000.00' }],
    });
    expect(provenance.mileage).toMatchObject({ source: 'dms', alternatives: [{ source: 'website', value: 20900 }] });
    expect(provenance.trim).toMatchObject({ source: 'website' });
    const history = (await app.client.get(`/inventory/${vins.merged}/history?field=price`, admin)).body;
    expect(history.changes[0]).toMatchObject({ old_value: '27000.00', new_value: '26200.00', source: 'website' });
    // The change's events name the request that rebuilt it.
    const events = await app.database.pool.query<{ type: string; request_id: string | null }>(
      `SELECT e.type, e.request_id FROM events e JOIN vehicles v ON v.id = e.subject_id WHERE v.vin = $1 AND e.type = 'vehicle.price_changed'`,
      [vins.merged],
    );
    expect(events.rows.map((row) => row.request_id)).toContain(rebuilt.headers.get('x-request-id'));
    const again = await app.client.post('/multi-source/rebuild', { dealer_id: group.dealerIds[0] }, admin);
    expect(again.body.vehicles_changed).toBe(0);
  });

  it('lists conflicts and discrepancies, most recent first, and shows them on the vehicle', async () => {
    const response = await app.client.get(`/multi-source/conflicts?dealer_id=${group.dealerIds[0]}&limit=100`, admin);
    expect(response.status).toBe(200);
    const found = response.body.conflicts.map(
      (entry: { vin: string; kind: string; field: string }) => `${entry.vin} ${entry.kind} ${entry.field}`,
    );
    expect(found).toEqual(
      expect.arrayContaining([
        `${vins.merged} price_disagreement price`,
        `${vins.merged} mileage_disagreement mileage`,
        `${vins.merged} duplicate_stock_number stock_number`,
        `${vins.duplicate} duplicate_stock_number stock_number`,
        `${vins.wrongMake} vin_make_mismatch make`,
        `${vins.invalid} invalid_vin vin`,
      ]),
    );
    const price = response.body.conflicts.find(
      (entry: { vin: string; field: string }) => entry.vin === vins.merged && entry.field === 'price',
    );
    expect(price).toMatchObject({ winning_source: 'website', difference: 800 });
    const strict = await app.client.get(
      `/multi-source/conflicts?dealer_id=${group.dealerIds[0]}&kind=price_disagreement&price_threshold=1000`,
      admin,
    );
    expect(strict.body.conflicts).toEqual([]);
    const vehicle = (await app.client.get(`/inventory/${vins.wrongMake}`, admin)).body;
    expect(vehicle.discrepancies).toEqual([
      expect.objectContaining({
        kind: 'vin_make_mismatch',
        details: expect.objectContaining({ vin_make: 'Honda', make: 'Toyota' }),
      }),
    ]);
    expect((await app.client.get('/multi-source/conflicts?kind=nonsense', admin)).status).toBe(400);
  });

  it('keeps conflicts current as feeds sync: a disagreement appears, keeps its detection time while unchanged, and goes when the sources agree', async () => {
    const dealerId = group.dealerIds[1]!;
    const directory = mkdtempSync(path.join(tmpdir(), 'ddp-conflicts-'));
    const agreed = readFileSync(path.join(FIXTURES, 'homenet-inventory.csv'), 'utf8');
    const cheaper = path.join(directory, 'lot-feed.csv');
    writeFileSync(cheaper, agreed.replace('"$28,995"', '"$27,495"'));
    const same = path.join(directory, 'lot-feed-agrees.csv');
    writeFileSync(same, agreed);
    const first = await connect(app, admin, {
      plugin_key: 'homenet_inventory_csv',
      dealer_id: dealerId,
      source: 'homenet',
    });
    const second = await connect(app, admin, {
      plugin_key: 'homenet_inventory_csv',
      dealer_id: dealerId,
      source: 'lot_feed',
    });
    deliver(app, first.integration.id, 'homenet-inventory.csv');
    await syncNow(app, admin, first.integration.id);
    deliver(app, second.integration.id, cheaper);
    await syncNow(app, admin, second.integration.id);
    const priceConflict = async () =>
      (
        await app.client.get(`/multi-source/conflicts?dealer_id=${dealerId}&kind=price_disagreement`, admin)
      ).body.conflicts.find((entry: { vin: string }) => entry.vin === '2T3AB3FA4MA100200');
    const found = await priceConflict();
    expect(found).toMatchObject({
      field: 'price',
      difference: 1500,
      details: expect.arrayContaining([expect.objectContaining({ source: 'lot_feed', value: '27495.00' })]),
    });
    deliver(app, second.integration.id, cheaper, 'lot-feed-again.csv');
    await syncNow(app, admin, second.integration.id);
    expect((await priceConflict()).detected_at).toBe(found.detected_at);
    expect(await expectTotalsAddUp(admin, dealerId)).toBeGreaterThan(0);
    deliver(app, second.integration.id, same);
    await syncNow(app, admin, second.integration.id);
    expect(await priceConflict()).toBeUndefined();
    await expectTotalsAddUp(admin, dealerId);
    await expectTotalsAddUp(admin);
    // A rooftop whose conflicts its writers keep current is not re-checked at the next start.
    expect(
      (await app.database.prisma.dealer.findUniqueOrThrow({ where: { id: dealerId } })).conflictsCheckedAt,
    ).not.toBeNull();
    rmSync(directory, { recursive: true, force: true });
  });

  it('flags duplicate stock numbers as a feed writes them, and clears both sides when one changes', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'ddp-stock-'));
    const day1 = path.join(directory, 'stock-day-1.csv');
    const day2 = path.join(directory, 'stock-day-2.csv');
    await writeGeneratedFeed(day1, 3, {
      tag: 'STOCK',
      line: (index) => (index < 2 ? generatedLine(index, 'STOCK', { Stock: 'DUP-7' }) : null),
    });
    await writeGeneratedFeed(day2, 3, {
      tag: 'STOCK',
      line: (index) => (index === 0 ? generatedLine(index, 'STOCK', { Stock: 'DUP-7' }) : null),
    });
    const fresh = await seedGroup(app.database.prisma, { users: { admin: 'admin' } });
    const token = await fresh.login(app.client, 'admin');
    const { integration } = await connect(app, token, {
      plugin_key: 'homenet_inventory_csv',
      dealer_id: fresh.dealerIds[0],
    });
    const duplicates = async () =>
      (await app.client.get('/multi-source/conflicts?kind=duplicate_stock_number', token)).body.conflicts
        .map((entry: { vin: string; details: { other_vins: string[] } }) => [entry.vin, entry.details.other_vins])
        .sort();
    deliver(app, integration.id, day1);
    await syncNow(app, token, integration.id);
    expect(await expectTotalsAddUp(token)).toBeGreaterThan(1);
    expect(await duplicates()).toEqual(
      [
        [generatedVin(0, 'STOCK'), [generatedVin(1, 'STOCK')]],
        [generatedVin(1, 'STOCK'), [generatedVin(0, 'STOCK')]],
      ].sort(),
    );
    deliver(app, integration.id, day2);
    await syncNow(app, token, integration.id);
    expect(await duplicates()).toEqual([]);
    await expectTotalsAddUp(token);
    rmSync(directory, { recursive: true, force: true });
  });

  it('keeps duplicate stock numbers equal to a plain query of the rooftop, whatever feeds and API writes do (property)', async () => {
    const directory = mkdtempSync(path.join(tmpdir(), 'ddp-stock-property-'));
    const fresh = await seedGroup(app.database.prisma, { users: { admin: 'admin' } });
    const token = await fresh.login(app.client, 'admin');
    const dealerId = fresh.dealerIds[0]!;
    const { integration } = await connect(app, token, { plugin_key: 'homenet_inventory_csv', dealer_id: dealerId });
    const writer = await createKey(app.client, token, { name: 'Lot tool', scopes: ['inventory:write'] });
    // Eight vehicles, few stock numbers: every run the feed lists them all, then the API changes some.
    const vehicles = 8;
    const stock = fc.constantFrom('A', 'B', 'C');
    let file = 0;
    const listed = async () =>
      (await app.client.get('/multi-source/conflicts?kind=duplicate_stock_number&limit=100', token)).body.conflicts
        .map((entry: { vin: string; details: { stock_number: string; other_vins: string[] } }) => [
          entry.vin,
          entry.details.stock_number,
          entry.details.other_vins,
        ])
        .sort();
    const expected = async () =>
      (
        await app.database.pool.query<{ vin: string; stock_number: string; others: string[] }>(
          `SELECT v.vin, v.stock_number, others FROM vehicles v
           CROSS JOIN LATERAL (SELECT array_agg(o.vin ORDER BY o.vin) AS others FROM vehicles o
             WHERE o.dealer_id = v.dealer_id AND o.stock_number = v.stock_number AND o.id <> v.id AND o.status NOT IN ('sold', 'presumed_sold')) o
           WHERE v.dealer_id = $1 AND v.status NOT IN ('sold', 'presumed_sold') AND others IS NOT NULL`,
          [dealerId],
        )
      ).rows
        .map((row) => [row.vin, row.stock_number, row.others])
        .sort();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(stock), { minLength: vehicles, maxLength: vehicles }),
        fc.array(
          fc.record({
            index: fc.nat(vehicles - 1),
            stock_number: stock,
            status: fc.constantFrom('available', 'pending', 'sold'),
          }),
          { maxLength: 4 },
        ),
        async (feedStock, writes) => {
          const feed = path.join(directory, `stock-${(file += 1)}.csv`);
          await writeGeneratedFeed(feed, vehicles, {
            tag: 'STOCKPROP',
            line: (index) => generatedLine(index, 'STOCKPROP', { Stock: feedStock[index] ?? '' }),
          });
          deliver(app, integration.id, feed);
          expect(await syncNow(app, token, integration.id)).toMatchObject({ status: 'succeeded' });
          for (const write of writes) {
            const response = await app.client.request(
              'PUT',
              `/api/v1/inventory/${generatedVin(write.index, 'STOCKPROP')}`,
              {
                token: writer.key,
                body: {
                  dealer_id: dealerId,
                  year: 2024,
                  make: 'Honda',
                  model: 'Civic',
                  stock_number: write.stock_number,
                  status: write.status,
                },
              },
            );
            expect(response.status, JSON.stringify(response.body)).toBe(200);
          }
          expect(await listed()).toEqual(await expected());
        },
      ),
      { numRuns: 12 },
    );
    rmSync(directory, { recursive: true, force: true });
  });
});
