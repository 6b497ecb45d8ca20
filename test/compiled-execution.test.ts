import { randomUUID } from 'node:crypto';
import { getOperationAST, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type ApiResponse, type TestApp } from './helpers/app';
import { seedActivity, seedGroup, type SeededGroup } from './helpers/seed';
import { compileOnRun, fieldsOf, MAX_COMPILED_FIELDS } from '../src/http/compiled-execution';

/**
 * An operation run often enough executes compiled code (src/http/compiled-execution.ts); its first
 * run, and any document the server has not parsed before, the interpreter. Each case asks the same
 * question both ways and expects the same answer, byte for byte once parsed: the interpreted run is
 * the same text with a comment no other request carries, so the server parses it afresh; the
 * compiled one is the document's run past the one that compiles any operation small enough.
 */
const COMPILED_BY = compileOnRun(MAX_COMPILED_FIELDS);

let unique = 0;
const afresh = (query: string) => `${query}\n# ${randomUUID()} ${++unique}`;

const VEHICLE_FIELDS = `fragment Listed on Vehicle {
  id vin stock_number year make model trim body_style condition mileage exterior_color interior_color
  msrp price internet_price status days_on_lot date_in_stock sold_at photos dealer_id created_at updated_at
  kind: __typename
}`;

const BROAD = `query Broad($limit: Int = 3, $withDealer: Boolean!, $make: [String!], $q: String) {
  page: inventory(limit: $limit, make: $make, sort: "price") {
    pagination { total limit offset }
    vehicles {
      ...Listed
      dealer @include(if: $withDealer) { id name code time_zone franchises external_ids __typename }
      seller: dealer @skip(if: $withDealer) { name }
    }
  }
  quoted: inventory(limit: 1, q: "\\"]); throw new Error('x'); //\${'$'}{1}") { pagination { total } }
  searched: inventory(limit: 2, q: $q) { vehicles { vin ... on Vehicle { make } } }
  dealers(limit: 5) {
    dealers { id name vehicle_count franchises }
    pagination { total }
  }
  __typename
}
${VEHICLE_FIELDS}`;

describe('compiled execution of repeated operations', () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;

  /** The same question interpreted (a document parsed afresh) and compiled (a document run before). */
  async function bothWays(query: string, variables: Record<string, unknown>) {
    const interpreted = await app.client.graphql(afresh(query), variables, admin);
    for (let run = 1; run < COMPILED_BY; run += 1) await app.client.graphql(query, variables, admin);
    const compiled = await app.client.graphql(query, variables, admin);
    return { interpreted, compiled };
  }

  const expectSame = ({ interpreted, compiled }: { interpreted: ApiResponse; compiled: ApiResponse }) => {
    expect(compiled.status).toBe(interpreted.status);
    expect(compiled.body).toEqual(interpreted.body);
  };

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma, {
      users: { admin: 'admin' },
      dealers: 2,
      vehicles: [
        { make: 'Toyota', model: 'Camry', price: '21500' },
        { make: 'Toyota', model: 'Corolla', price: '18250.50', dealer: 1 },
        { make: 'Honda', model: 'Civic', price: null, status: 'sold' },
        { make: 'Ford', model: 'F-150', price: '48999.99' },
      ],
    });
    await seedActivity(app.database.prisma, group, {
      sources: [{ name: 'Google Ads' }],
      calls: [0, 1, 0, 1, 0].map((dealer, index) => ({
        dealer,
        startedAt: new Date(Date.UTC(2026, 2, 1 + index, 15)),
        status: index % 2 ? 'missed' : 'answered',
        rawSource: index % 2 ? 'Google Ads' : null,
      })),
      leads: [0, 1, 1].map((dealer, index) => ({ dealer, receivedAt: new Date(Date.UTC(2026, 2, 2 + index)) })),
      sales: [1, 0].map((dealer, index) => ({ dealer, soldAt: new Date(Date.UTC(2026, 2, 5 + index)) })),
    });
    admin = await group.login(app.client, 'admin');
  });
  afterAll(() => app?.stop());

  it('answers fragments, aliases, directives, a page with its relations, scalars and a literal full of quotes as the interpreter does', async () => {
    const document = parse(BROAD);
    expect(fieldsOf(document, getOperationAST(document)!)).toBeLessThanOrEqual(MAX_COMPILED_FIELDS);
    for (const variables of [
      { withDealer: true },
      { withDealer: false, limit: 2, make: ['Toyota'], q: 'cam' },
      { withDealer: true, make: ['Nothing'], q: '"); process.exit(1); ("' },
    ]) {
      const both = await bothWays(BROAD, variables);
      expect(both.interpreted.status).toBe(200);
      expect(both.interpreted.body.errors).toBeUndefined();
      expectSame(both);
    }
    const { compiled } = await bothWays(BROAD, { withDealer: true });
    const [first] = compiled.body.data.page.vehicles;
    expect(first).toMatchObject({ kind: 'Vehicle', dealer: { __typename: 'Dealer' } });
    expect(first).not.toHaveProperty('seller');
    expect(compiled.body.data.page.pagination.total).toBe(4);
  });

  it('answers a dashboard whose lists nest (rooftops with their calls, leads, deals and vehicles) as the interpreter does', async () => {
    const dashboard = `query Dashboard($limit: Int!) { dealers(limit: 50) { dealers { name call_count lead_count sale_count
      calls(limit: $limit) { id started_at status duration_seconds source { name } }
      leads(limit: $limit) { id status source { name } }
      sales(limit: $limit) { id front_gross back_gross vin leads { id } }
      vehicles(limit: $limit) { vin price dealer { name vehicles(limit: 1) { vin } } } } } }`;
    for (const limit of [5, 1]) {
      const both = await bothWays(dashboard, { limit });
      expect(both.interpreted.body.errors).toBeUndefined();
      const dealers = both.interpreted.body.data.dealers.dealers as Array<{ calls: unknown[]; vehicles: unknown[] }>;
      expect(dealers.some((dealer) => dealer.calls.length && dealer.vehicles.length)).toBe(true);
      expectSame(both);
    }
  });

  it('answers errors with the same messages, paths and codes', async () => {
    const missing = `query Missing($id: ID!) { dealer(id: $id) { id name } }`;
    const notFound = await bothWays(missing, { id: randomUUID() });
    expect(notFound.interpreted.body.errors?.[0]?.extensions?.code).toBeTruthy();
    expectSame(notFound);

    // A variable that does not fit its type: the refusal names it, however often the document ran.
    const wrongType = await bothWays(missing, { id: { not: 'an id' } });
    expect(wrongType.interpreted.status).toBe(400);
    expect(wrongType.interpreted.body.errors[0].message).toMatch(/^Variable "\$id"/);
    expectSame(wrongType);
    const absent = await bothWays(missing, {});
    expect(absent.interpreted.body.errors[0].message).toMatch(/\$id/);
    expectSame(absent);

    const badArgument = `query Bad($sort: String) { inventory(sort: $sort) { pagination { total } } }`;
    const refused = await bothWays(badArgument, { sort: 'no_such_column' });
    expect(refused.interpreted.body.errors).toHaveLength(1);
    expectSame(refused);
  });

  it('runs a repeated mutation once per request, each with its own variables', async () => {
    const create = `mutation Create($code: String!, $name: String!) { createDealer(code: $code, name: $name) { code name } }`;
    const codes = Array.from({ length: 4 }, (_, index) => `CX-${unique}-${index}`);
    for (const code of codes) {
      const created = await app.client.graphql(create, { code, name: `Rooftop ${code}` }, admin);
      expect(created.body).toEqual({ data: { createDealer: { code, name: `Rooftop ${code}` } } });
    }
    const listed = await app.client.graphql('{ dealers(limit: 50) { dealers { code } } }', {}, admin);
    const listedCodes = listed.body.data.dealers.dealers.map((dealer: { code: string }) => dealer.code);
    expect(listedCodes).toEqual(expect.arrayContaining(codes));
  });

  it('answers a REST route the same on its first request and its later ones', async () => {
    const path = '/inventory?make=Toyota&sort=price&limit=2';
    const answers = [];
    for (let run = 0; run <= COMPILED_BY; run += 1) answers.push(await app.client.get(path, admin));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual(answers[0]!.body);
      expect(answer.headers.get('etag')).toBe(answers[0]!.headers.get('etag'));
    }
    expect(answers[0]!.body.vehicles.map((vehicle: { model: string }) => vehicle.model)).toEqual(['Corolla', 'Camry']);
  });

  it("answers another group's vehicle with 404 and bad input with 400 on every request, compiled or not", async () => {
    const other = await seedGroup(app.database.prisma, { vehicles: [{ make: 'Subaru' }] });
    const foreign = other.vehicles[0]!.vin;
    for (let run = 0; run <= COMPILED_BY; run += 1) {
      const read = await app.client.get(`/inventory/${foreign}`, admin);
      expect(read.status).toBe(404);
      expect(read.body.error.code).toBe('NOT_FOUND');
      const bad = await app.client.get('/inventory?price_min=abc', admin);
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field: 'price_min' } });
    }
    const lookup = await bothWays('query One($vin: String!) { vehicle(vin: $vin) { vin } }', { vin: foreign });
    expect(lookup.interpreted.body.errors[0].extensions.code).toBe('NOT_FOUND');
    expectSame(lookup);
  });
});
