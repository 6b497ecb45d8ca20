import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { createKey } from './helpers/keys';
import { seedGroup, type SeededGroup } from './helpers/seed';

/**
 * Walks every operation of the live OpenAPI document with generated bad input (wrong types, missing
 * and unknown fields, huge, NUL, surrogate and percent-garbled strings, bad ids, wrong content types,
 * deep JSON) as an admin, a narrow API key and nobody: no answer may be a 5xx, each must come within
 * 5 s, and every error must have the error shape.
 */

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  fields: string[];
}

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI documents are free-form JSON

function operationsOf(doc: Doc): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries<Doc>(doc.paths)) {
    for (const [method, operation] of Object.entries<Doc>(methods)) {
      const parameters: Doc[] = operation.parameters ?? [];
      const pathParams = parameters
        .filter((parameter) => parameter.in === 'path')
        .map((parameter) => String(parameter.name));
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      const resolved = bodySchema?.$ref
        ? doc.components?.schemas?.[String(bodySchema.$ref).split('/').pop()!]
        : bodySchema;
      const fields = new Set([
        ...parameters.filter((parameter) => parameter.in === 'query').map((parameter) => String(parameter.name)),
        ...Object.keys(resolved?.properties ?? {}),
      ]);
      for (const name of pathParams) fields.delete(name);
      operations.push({ method: method.toUpperCase(), path, pathParams, fields: [...fields] });
    }
  }
  return operations;
}

const NASTY_STRINGS = [
  '',
  ' ',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  'x'.repeat(20_000),
  '%E0%A4%A',
  '%',
  '../..',
  '..',
  '.',
  '%2e%2e',
  '/',
  '\\',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e309',
  '99999999999999999999',
  '2026-13-45',
  '2026-02-30T25:61:00Z',
  'true',
  '{}',
  '[]',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '(a+)+$',
  '*',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '1HGCM82633A004352',
  '🚗'.repeat(300),
  'a@b',
  'svc_live_x',
];

/** Values that pass the first checks, so generated requests also reach the operations themselves. */
const PLAUSIBLE = [
  'Toyota',
  'used',
  'new',
  'available',
  'sold',
  'price',
  '-days_on_lot',
  'Google Ads',
  'inventory:read',
  'admin',
  'analyst',
  'merge',
  'exact',
  'pattern',
  'homenet_inventory_csv',
  'a@example.com',
  '+13035550101',
  '2026-01-01',
  '2026-01-01T00:00:00Z',
  'https://example.com',
];
const known: string[] = [];

const nastyString = fc.oneof(
  fc.constantFrom(...NASTY_STRINGS),
  fc.constantFrom(...PLAUSIBLE),
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.uuid(),
  fc.nat().map((index) => known[index % Math.max(known.length, 1)] ?? 'x'),
);
const deepJson = fc
  .integer({ min: 40, max: 3000 })
  .map((depth) => JSON.parse(`${'['.repeat(depth)}1${']'.repeat(depth)}`));
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  nastyString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(nastyString, { maxLength: 5 }),
  fc.dictionary(nastyString, nastyString, { maxKeys: 4 }),
  deepJson,
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -2_147_483_649, 2 ** 31, 1e308, 1, 10, 500, 501, 0, -1),
);

/** A path value as a client might send it: encoded, raw, or with hand-made percent garbage. */
const pathValue = fc.oneof(
  fc.nat().map((index) => known[index % Math.max(known.length, 1)] ?? 'x'),
  nastyString.map((value) => encodeURIComponent(value.isWellFormed() ? value : 'x')),
  fc.constantFrom('%E0%A4%A', '%2e%2e', '%2F', '%00', 'a%2fb', '%ZZ', '%'),
  fc.uuid(),
);

const queryValue = fc.oneof(
  nastyString.map((value) => encodeURIComponent(value.isWellFormed() ? value : 'x')),
  fc.constantFrom('%E0%A4%A', '%00', '%ud800', '%', '%%', 'a&b=c', '%F0%9F'),
);

type Caller = 'admin' | 'key' | 'anonymous';

interface BadRequest {
  caller: Caller;
  pathValues: string[];
  query: Array<[string, string]>;
  body: { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'raw'; text: string; type: string };
}

function badRequest(operation: Operation): fc.Arbitrary<BadRequest> {
  const known = operation.fields.length ? fc.constantFrom(...operation.fields) : fc.constant('unknown_field');
  const name = fc.oneof(
    { weight: 4, arbitrary: known },
    { weight: 1, arbitrary: fc.constantFrom('unknown_field', 'limit', 'offset', '__proto__', 'constructor') },
  );
  const entries = fc.array(fc.tuple(name, nastyValue), { maxLength: 5 });
  const body = fc.oneof(
    fc.constant({ kind: 'none' as const }),
    entries.map((pairs) => ({ kind: 'json' as const, value: Object.fromEntries(pairs) })),
    nastyValue.map((value) => ({ kind: 'json' as const, value })),
    fc.record({
      kind: fc.constant('raw' as const),
      text: fc.constantFrom(
        '{"a":',
        'not json',
        '{"name":"\\u0000"}',
        '{"email":"\\ud83d"}',
        '',
        '['.repeat(10_000),
        'name=x&email=y',
      ),
      type: fc.constantFrom(
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        '',
      ),
    }),
  );
  return fc.record({
    caller: fc.constantFrom<Caller>('admin', 'admin', 'key', 'anonymous'),
    pathValues: fc.tuple(...operation.pathParams.map(() => pathValue)),
    query: fc.array(fc.tuple(name, queryValue), { maxLength: 4 }),
    body,
  });
}

describe('fuzz: every OpenAPI operation with bad input', () => {
  let app: TestApp;
  let group: SeededGroup;
  let tokens: Record<Caller, string | undefined>;
  let operations: Operation[];

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma, { vehicles: [{ make: 'Toyota' }, { make: 'Ford' }] });
    const admin = await group.login(app.client);
    const key = await createKey(app.client, admin, { name: 'fuzz', scopes: ['inventory:read'] });
    tokens = { admin, key: key.key, anonymous: undefined };
    known.push(
      ...group.dealerIds,
      ...group.vehicles.map((vehicle) => vehicle.vin),
      key.id,
      group.groupId,
      group.users.admin!.id,
    );
    const document = await app.client.get('/openapi.json');
    operations = operationsOf(document.body);
  });
  afterAll(() => app?.stop());

  it('finds the operations to walk', () => {
    expect(operations.length).toBeGreaterThan(80);
  });

  it('answers every generated bad request with a 4xx (or a 2xx) in the error shape, within 5 s', async () => {
    const failures: string[] = [];
    for (const operation of operations) {
      await fc
        .assert(
          fc.asyncProperty(badRequest(operation), async (bad) => {
            let path = operation.path;
            operation.pathParams.forEach((param, index) => {
              path = path.replace(`{${param}}`, bad.pathValues[index] ?? 'x');
            });
            const query = bad.query.map(([key, value]) => `${encodeURIComponent(key)}=${value}`).join('&');
            const headers: Record<string, string> = {};
            const token = tokens[bad.caller];
            if (token) headers.authorization = `Bearer ${token}`;
            let body: string | undefined;
            if (bad.body.kind === 'json' && operation.method !== 'GET' && operation.method !== 'DELETE') {
              body = JSON.stringify(bad.body.value) ?? 'null';
              headers['content-type'] = 'application/json';
            } else if (bad.body.kind === 'raw' && operation.method !== 'GET') {
              body = bad.body.text;
              if (bad.body.type) headers['content-type'] = bad.body.type;
            }
            const target = `/api/v1${path}${query ? `?${query}` : ''}`;
            const started = performance.now();
            const response = await app.client.request(operation.method, target, { headers, rawBody: body });
            const elapsed = performance.now() - started;
            const label = `${operation.method} ${target.slice(0, 200)} (${bad.caller}) body=${(body ?? '').slice(0, 120)} → ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`;
            if (response.status >= 500) failures.push(label);
            expect(response.status, label).toBeLessThan(500);
            expect(elapsed, label).toBeLessThan(5000);
            if (response.status >= 400) {
              expect(response.body?.error?.code, label).toEqual(expect.any(String));
              expect(response.body?.error?.message, label).toEqual(expect.any(String));
            }
          }),
          { numRuns: Number(process.env.FUZZ_RUNS ?? 12), endOnFailure: true },
        )
        .catch((error: Error) =>
          failures.push(`${(error.cause as Error | undefined)?.message ?? ''}\n${error.message}`.slice(0, 4000)),
        );
    }
    expect(failures, failures.join('\n\n')).toEqual([]);
  }, 600_000);
});
