import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { createClient } from '@hey-api/openapi-ts';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import * as spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restRoutes } from '../src/http/operations';
import { schema } from '../src/schema';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, TEST_PASSWORD, type SeededGroup } from './helpers/seed';

/** The REST routes, read from the schema's fields as the server reads them. */
const REST_ROUTES = restRoutes(schema);

/**
 * The published contract as partners consume it: the document lints clean under the two standard
 * rulesets, and a client generated from it by a standard generator compiles under `--strict` and works.
 */
type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- OpenAPI documents are free-form JSON

describe('the OpenAPI document', () => {
  let app: TestApp;
  let group: SeededGroup;
  let document: Doc;
  let source: string;

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma, {
      vehicles: [{ make: 'Toyota', price: '18995.00' }, { make: 'Ford' }],
    });
    const response = await app.client.get('/openapi.json');
    expect(response.status).toBe(200);
    document = response.body;
    source = JSON.stringify(document);
  });
  afterAll(() => app?.stop());

  const operations = () =>
    Object.entries<Doc>(document.paths).flatMap(([route, methods]) =>
      Object.entries<Doc>(methods).map(([method, operation]) => ({ route, method, operation })),
    );
  /** An operation's parameters with shared ones (#/components/parameters/…) resolved. */
  const parametersOf = (operation: Doc): Doc[] =>
    (operation.parameters ?? []).map((parameter: Doc) =>
      parameter.$ref ? document.components.parameters[String(parameter.$ref).split('/').pop()!] : parameter,
    );

  it('has no errors or warnings under Redocly recommended', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    expect(
      problems.map(
        (problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`,
      ),
    ).toEqual([]);
  });

  it('has no errors or warnings under Spectral spectral:oas', async () => {
    const spectral = new spectralCore.Spectral();
    spectral.setRuleset({ extends: [[oas as never, 'recommended']] });
    const results = await spectral.run(new spectralCore.Document(source, spectralParsers.Json, 'openapi.json'));
    expect(
      results.map((result) => `${result.severity} ${result.code}: ${result.message} at ${result.path.join('.')}`),
    ).toEqual([]);
  });

  it('types Money, DateTime and Date as the strings the wire carries', () => {
    expect(document.components.schemas.Money).toMatchObject({ type: 'string', pattern: expect.any(String) });
    expect(document.components.schemas.DateTime).toMatchObject({ type: 'string', format: 'date-time' });
    expect(document.components.schemas.Date).toMatchObject({ type: 'string', format: 'date' });
    expect(new RegExp(document.components.schemas.Money.pattern).test('18995.00')).toBe(true);
    const price = document.components.schemas.Vehicle.properties.price;
    expect(price).toEqual({ anyOf: [{ $ref: '#/components/schemas/Money' }, { type: 'null' }] });
    for (const match of source.matchAll(/"\$ref":"#\/components\/(\w+)\/([^"]+)"/g)) {
      expect(document.components[match[1]!]?.[match[2]!], `${match[0]} resolves`).toBeDefined();
    }
  });

  it('puts bodies only in bodies and path ids only in paths, with no internal argument names', () => {
    for (const { route, method, operation } of operations()) {
      const label = `${method.toUpperCase()} ${route}`;
      const parameters = parametersOf(operation);
      const pathNames = [...route.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(
        parameters.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
        label,
      ).toEqual(pathNames);
      if (['post', 'put', 'patch'].includes(method)) {
        // Only a write that also takes a document body (ADF for POST /leads) has query parameters, for beside it.
        const query = parameters.filter((parameter) => parameter.in === 'query');
        const takesDocument = Object.keys(operation.requestBody?.content ?? {}).some(
          (type) => type !== 'application/json',
        );
        if (takesDocument)
          for (const parameter of query) expect(parameter.description, label).toMatch(/^Only beside a /);
        else expect(query, label).toEqual([]);
      } else expect(operation.requestBody, label).toBeUndefined();
      const bodyRef: string | undefined = operation.requestBody?.content['application/json'].schema.$ref;
      const body = bodyRef ? document.components.schemas[bodyRef.split('/').pop()!] : undefined;
      for (const name of pathNames) expect(Object.keys(body?.properties ?? {}), label).not.toContain(name);
      // SOFA named the arguments of nested fields after their path (syncRun_row_errors_errors_limit); REST never took them.
      for (const parameter of parameters)
        expect(parameter.name, label).not.toMatch(new RegExp(`^${operation.operationId}_`));
    }
    const login = document.paths['/auth/login'].post;
    expect(login.parameters).toBeUndefined();
    expect(document.components.schemas.LoginBody).toMatchObject({ required: ['email', 'password'] });
  });

  it('keeps to the document: a password in the query string and a body on a GET are refused, naming the fix', async () => {
    const email = encodeURIComponent(group.users.admin!.email);
    const inQuery = await app.client.request(
      'POST',
      `/api/v1/auth/login?email=${email}&password=${encodeURIComponent(TEST_PASSWORD)}`,
    );
    expect(inQuery.status).toBe(400);
    expect(inQuery.body.error.message).toMatch(/^email: send it in the JSON body/);
    const mixed = await app.client.request('POST', `/api/v1/auth/login?password=${encodeURIComponent(TEST_PASSWORD)}`, {
      body: { email: group.users.admin!.email },
    });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.message).toMatch(/^password: send it in the JSON body/);
    const token = await group.login(app.client);
    const getWithBody = await rawRequest(
      `${app.url}/api/v1/inventory`,
      'GET',
      token,
      JSON.stringify({ make: ['Toyota'] }),
    );
    expect(getWithBody.status).toBe(400);
    expect(JSON.parse(getWithBody.body).error.message).toContain('in the query string');
    const pathIdInBody = await app.client.request('DELETE', '/api/v1/api-keys/00000000-0000-0000-0000-000000000000', {
      token,
      body: { id: 'x' },
    });
    expect(pathIdInBody.status).toBe(400);
  });

  it('names, summarises, describes and tags every operation, and documents the errors and headers we send', () => {
    const ids = new Set<string>();
    for (const { route, method, operation } of operations()) {
      const label = `${method.toUpperCase()} ${route}`;
      expect(operation.operationId, label).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(operation.operationId), `${label}: operationId unique`).toBe(false);
      ids.add(operation.operationId);
      expect(operation.summary, label).toEqual(expect.any(String));
      expect(operation.description, label).toEqual(expect.any(String));
      expect(operation.tags.length, label).toBe(1);
      expect(Object.keys(operation.responses), label).toEqual(expect.arrayContaining(['400', '429', '503']));
      if (['post', 'put', 'patch'].includes(method))
        expect(Object.keys(operation.responses), label).toEqual(expect.arrayContaining(['413', '415']));
    }
    expect(ids.size).toBe(Object.keys(REST_ROUTES).length);
    for (const tag of document.tags) expect(tag.description, tag.name).not.toBe(tag.name);
    expect(document.components.responses.TooManyRequests.headers).toHaveProperty('Retry-After');
    expect(document.components.responses.TooManyRequests.headers).toHaveProperty('RateLimit-Remaining');
    expect(document.components.responses.ServiceUnavailable.headers).toHaveProperty('Retry-After');
    expect(document.paths['/inventory'].get.responses['200'].headers).toHaveProperty('RateLimit-Limit');
    expect(document.paths['/dealers'].post.responses).toHaveProperty('409');
    expect(document.info.description).toContain('405');
  });

  it('documents conditional reads on every GET and Idempotency-Key on every POST and PATCH that has a caller', () => {
    const headerParameters = (operation: Doc) =>
      parametersOf(operation)
        .filter((parameter) => parameter.in === 'header')
        .map((parameter) => parameter.name);
    for (const { route, method, operation } of operations()) {
      const label = `${method.toUpperCase()} ${route}`;
      const success = Object.keys(operation.responses).find((status) => status.startsWith('2'))!;
      const successHeaders = Object.keys(operation.responses[success].headers ?? {});
      if (method === 'get') {
        expect(headerParameters(operation), label).toEqual(['If-None-Match']);
        expect(successHeaders, label).toContain('ETag');
        expect(operation.responses['304'], label).toEqual({ $ref: '#/components/responses/NotModified' });
      } else if ((method === 'post' || method === 'patch') && operation.security.length) {
        expect(headerParameters(operation), label).toEqual(['Idempotency-Key']);
        expect(successHeaders, label).toContain('Idempotent-Replayed');
        expect(Object.keys(operation.responses), label).toEqual(expect.arrayContaining(['409', '422']));
      } else {
        expect(headerParameters(operation), label).toEqual([]);
        expect(operation.responses['422'], label).toBeUndefined();
      }
    }
    expect(document.components.responses.NotModified.content).toBeUndefined();
    expect(document.components.responses.NotModified.headers).toHaveProperty('RateLimit-Remaining');
    expect(document.components.parameters.IdempotencyKey.schema).toMatchObject({ minLength: 1, maxLength: 255 });
    expect(document.paths['/auth/login'].post.parameters).toBeUndefined();
  });

  it('documents the ADF body of POST /leads and the 200 of a write that finds an existing record', () => {
    const createLead = document.paths['/leads'].post;
    expect(createLead.requestBody.content['application/xml']).toMatchObject({
      schema: { type: 'string', maxLength: 100_000 },
      example: expect.stringContaining('<prospect'),
    });
    expect(parametersOf(createLead).map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(['dealer_id', 'provider']),
    );
    for (const write of [createLead, document.paths['/calls'].post, document.paths['/inventory/{vin}'].put]) {
      expect(Object.keys(write.responses)).toEqual(expect.arrayContaining(['200', '201']));
      expect(write.responses['200'].description).toMatch(/`created` is false/);
    }
    expect(document.paths['/leads'].get.requestBody).toBeUndefined();
  });

  it('gives list parameters their bounds and closed sets their values', () => {
    const inventory: Doc[] = document.paths['/inventory'].get.parameters;
    const byName = (name: string) => inventory.find((parameter) => parameter.name === name);
    expect(byName('limit')?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 500, default: 50 });
    expect(byName('offset')?.schema).toMatchObject({ type: 'integer', minimum: 0 });
    expect(byName('status')?.schema).toMatchObject({
      type: 'array',
      items: { enum: expect.arrayContaining(['available', 'sold']) },
    });
    expect(new RegExp(byName('sort')?.schema.pattern).test('price,-days_on_lot')).toBe(true);
    expect(new RegExp(byName('sort')?.schema.pattern).test('price;drop')).toBe(false);
    const calls: Doc[] = document.paths['/calls'].get.parameters;
    expect(calls.find((parameter) => parameter.name === 'direction')?.schema.enum).toEqual(['inbound', 'outbound']);
  });

  it('carries an example request and answer for the documented operations', () => {
    expect(document.paths['/auth/login'].post.requestBody.content['application/json'].example).toMatchObject({
      email: expect.any(String),
      password: expect.any(String),
    });
    expect(document.paths['/auth/login'].post.responses['200'].content['application/json'].example).toHaveProperty(
      'token',
    );
    expect(
      document.paths['/inventory'].get.responses['200'].content['application/json'].example.vehicles[0].price,
    ).toMatch(/^\d+\.\d{2}$/);
    expect(document.paths['/api-keys'].post.requestBody.content['application/json'].example).toMatchObject({
      name: expect.any(String),
      scopes: expect.any(Array),
    });
    expect(document.paths['/api-keys'].post.responses['201'].content['application/json'].example.key).toMatch(
      /^svc_live_/,
    );
    expect(
      document.paths['/api-keys'].get.responses['200'].content['application/json'].example.apiKeys[0].maskedKey,
    ).toMatch(/^svc_live_…/);
    expect(
      document.paths['/api-keys/{id}'].delete.responses['200'].content['application/json'].example.revokedAt,
    ).toEqual(expect.any(String));
  });

  it('generates a TypeScript client that compiles under --strict and signs in, lists, creates, uses and revokes a key', async () => {
    const directory = mkdtempSync(path.join(import.meta.dirname, '.generated-client-'));
    try {
      writeFileSync(path.join(directory, 'openapi.json'), source);
      await createClient({
        input: path.join(directory, 'openapi.json'),
        output: path.join(directory, 'client'),
        logs: { level: 'silent' },
      });
      writeFileSync(path.join(directory, 'partner.ts'), PARTNER_SCRIPT);
      const program = ts.createProgram([path.join(directory, 'partner.ts')], {
        strict: true,
        noEmit: true,
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
        skipLibCheck: true,
        types: [],
      });
      const diagnostics = ts
        .getPreEmitDiagnostics(program)
        .map(
          (diagnostic) =>
            `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`,
        );
      expect(diagnostics).toEqual([]);
      const partner = (await import(path.join(directory, 'partner.ts'))) as {
        run(baseUrl: string, email: string, password: string): Promise<Record<string, unknown>>;
      };
      const outcome = await partner.run(`${app.url}/api/v1`, group.users.admin!.email, TEST_PASSWORD);
      expect(outcome).toMatchObject({ total: 1, price: '18995.00', keyStatus: 200, revokedStatus: 401 });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});

/** A request fetch will not send: a GET with a body. */
function rawRequest(
  url: string,
  method: string,
  token: string,
  body: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (response) => {
        let text = '';
        response
          .setEncoding('utf8')
          .on('data', (chunk: string) => {
            text += chunk;
          })
          .on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

/** What a partner writes against the generated client; compiled under --strict before it runs. */
const PARTNER_SCRIPT = `import { createClient } from './client/client';
import { createApiKey, inventory, login, revokeApiKey } from './client/sdk.gen';

export async function run(baseUrl: string, email: string, password: string) {
  const client = createClient({ baseUrl });
  const signedIn = await login({ client, body: { email, password }, throwOnError: true });
  const token: string = signedIn.data.token;
  const page = await inventory({ client, auth: token, query: { make: ['Toyota'], status: ['available'], sort: 'price', limit: 10 }, throwOnError: true });
  const price: string | null = page.data.vehicles[0]?.price ?? null;
  const created = await createApiKey({ client, auth: token, body: { name: 'generated client', scopes: ['inventory:read'] }, throwOnError: true });
  const withKey = await inventory({ client, auth: created.data.key, query: { limit: 1 } });
  await revokeApiKey({ client, auth: token, path: { id: created.data.apiKey.id }, throwOnError: true });
  const afterRevoke = await inventory({ client, auth: created.data.key, query: { limit: 1 } });
  return { total: page.data.pagination.total, price, keyStatus: withKey.response.status, revokedStatus: afterRevoke.response.status };
}
`;
