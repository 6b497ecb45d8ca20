import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, testVin, type VehicleSeed } from './helpers/seed';

/**
 * Free text (q) answers exactly what it means, whatever the index does: a vehicle matches when q,
 * ignoring case, is inside its VIN, its stock number, its trim or "year make model", and never
 * because q runs across two of them.
 */
describe('inventory free text (q)', () => {
  let app: TestApp;
  let token: string;
  let vehicles: Array<VehicleSeed & { vin: string }>;

  // Few letters, so words recur across fields and a q can straddle two of them.
  const word = fc.stringMatching(/^[a-d]{1,4}( [a-d]{1,3})?$/);
  beforeAll(async () => {
    app = await startTestApp();
    vehicles = fc
      .sample(fc.record({ make: word, model: word, trim: fc.option(word, { nil: null }), stock: word }), {
        numRuns: 40,
        seed: 7,
      })
      .map((fields, index) => ({
        vin: testVin(900_000 + index),
        make: fields.make,
        model: fields.model,
        trim: fields.trim,
        stockNumber: fields.stock,
        year: 2015 + (index % 8),
      }));
    const group = await seedGroup(app.database.prisma, { vehicles });
    token = await group.login(app.client);
  });
  afterAll(async () => {
    await app?.stop();
  });

  const matches = (vehicle: VehicleSeed & { vin: string }, q: string) =>
    [
      vehicle.vin,
      vehicle.stockNumber ?? '',
      `${vehicle.year} ${vehicle.make} ${vehicle.model}`,
      vehicle.trim ?? '',
    ].some((field) => field.toLowerCase().includes(q.toLowerCase()));

  it('matches q inside one field, never across two', async () => {
    // A q taken from a vehicle's fields joined together (so it often straddles two), or made up.
    const joined = (vehicle: VehicleSeed & { vin: string }) =>
      `${vehicle.vin}${vehicle.stockNumber} ${vehicle.year} ${vehicle.make} ${vehicle.model}${vehicle.trim ?? ''}`;
    const q = fc.oneof(
      fc
        .tuple(fc.integer({ min: 0, max: 39 }), fc.nat(), fc.integer({ min: 1, max: 8 }))
        .map(([index, start, length]) => {
          const text = joined(vehicles[index]!);
          const from = start % text.length;
          return text.slice(from, from + length);
        }),
      fc.stringMatching(/^[a-dA-D %_0-9]{1,6}$/),
    );
    await fc.assert(
      fc.asyncProperty(
        q.filter((text) => text.trim().length > 0),
        async (text) => {
          const response = await app.client.get(`/inventory?limit=500&q=${encodeURIComponent(text)}`, token);
          expect(response.status).toBe(200);
          const expected = vehicles.filter((vehicle) => matches(vehicle, text.trim())).map((vehicle) => vehicle.vin);
          const found = (response.body.vehicles as Array<{ vin: string }>).map((vehicle) => vehicle.vin);
          expect(found.sort()).toEqual(expected.sort());
          expect(response.body.pagination.total).toBe(expected.length);
        },
      ),
      { numRuns: 60, seed: 42 },
    );
  }, 60_000);

  it('refuses a q with a control character, which could reach across fields', async () => {
    const response = await app.client.get(`/inventory?q=${encodeURIComponent('ab\u0001cd')}`, token);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/^q: /);
  });
});
