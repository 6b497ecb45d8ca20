import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { createKey } from './helpers/keys';
import { seedGroup, type SeededGroup } from './helpers/seed';

/** Writes a raw HTTP/1.1 request (exactly as given, no client normalising it) and reads the answer. */
function rawRequest(app: TestApp, text: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(app.port, '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('end', () => {
      const [head = '', body = ''] = data.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head.toLowerCase(), body });
    });
    socket.on('error', reject);
    setTimeout(() => socket.end(), 3000).unref();
  });
}

const request = (method: string, target: string, extra = '', body = '') =>
  `${method} ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${extra}${body ? `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n${body}`;

describe('the edge: malformed input is a 4xx naming the problem, never a 500', () => {
  let app: TestApp;
  let group: SeededGroup;
  let token: string;

  beforeAll(async () => {
    app = await startTestApp({ HEADERS_TIMEOUT_MS: '1500' });
    group = await seedGroup(app.database.prisma);
    token = await group.login(app.client);
  });
  afterAll(() => app?.stop());

  it('answers malformed percent-encoding in a path segment with 400, with or without a token', async () => {
    for (const auth of ['', `Authorization: Bearer ${token}\r\n`]) {
      const response = await rawRequest(app, request('GET', '/api/v1/dealers/%E0%A4%A', auth));
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body).error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringContaining('percent-encoding'),
      });
    }
  });

  it('never lets encoded dot segments or slashes change which operation runs', async () => {
    const dealer = group.dealerIds[0];
    for (const target of [
      `/api/v1/partners/%2e%2e/dealers/${dealer}`,
      `/api/v1/partners/%2E%2E/dealers/${dealer}`,
      `/api/v1/partners/x/../../dealers/${dealer}`,
      `/api/v1/dealers%2f${dealer}`,
      `/api/v1/partners/.%2e/dealers/${dealer}`,
    ]) {
      const response = await rawRequest(app, request('DELETE', target, `Authorization: Bearer ${token}\r\n`));
      expect([400, 404], target).toContain(response.status);
    }
    const still = await app.client.get(`/dealers/${dealer}`, token);
    expect(still.status).toBe(200);
    expect(still.body.archived_at ?? still.body.dealer?.archived_at ?? null).toBeNull();
  });

  it('refuses NUL characters and unpaired surrogates in query strings, bodies, variables and literals with 400 naming the field', async () => {
    const query = await app.client.get('/inventory?make=a%00b', token);
    expect(query.status).toBe(400);
    expect(query.body.error.message).toContain('make');

    const body = await app.client.request('POST', '/api/v1/dealers', {
      token,
      rawBody: '{"name":"a\\u0000b","code":"X1"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(body.status).toBe(400);
    expect(body.body.error.details.field).toBe('name');

    // No token: the sign-in failure would be audited with this email.
    const surrogate = await app.client.request('POST', '/api/v1/auth/login', {
      rawBody: '{"email":"\\ud800@example.com","password":"x"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.error.details.field).toBe('email');

    const variables = await app.client.graphql(
      'query($make: String) { inventory(make: $make) { pagination { total } } }',
      { make: 'a\u0000b' },
      token,
    );
    expect(variables.status).toBe(400);
    expect(variables.body.errors[0].message).toContain('variables.make');

    const literal = await app.client.graphql('{ inventory(make: "a\\u0000b") { pagination { total } } }', {}, token);
    // A validation error, answered as GraphQL over HTTP answers them (200 for application/json): nothing ran.
    expect(literal.body.data).toBeUndefined();
    expect(literal.body.errors[0]).toMatchObject({
      message: expect.stringContaining('NUL'),
      extensions: { code: 'INVALID_ARGUMENT' },
    });

    const deep = await app.client.request('POST', '/api/v1/dealers/match', {
      token,
      rawBody: `{"name":${'['.repeat(5000)}${']'.repeat(5000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(deep.status).toBe(400);
  });

  it('answers an empty integration name with 400', async () => {
    const response = await app.client.post(
      '/integrations',
      { plugin_key: 'homenet_inventory_csv', dealer_id: group.dealerIds[0], name: '' },
      token,
    );
    expect(response.status).toBeLessThan(500);
    expect(response.status).toBeGreaterThanOrEqual(400);
  });

  it('answers TRACE and other unsupported methods with 405 and the error shape', async () => {
    for (const method of ['TRACE', 'CONNECT', 'PROPFIND']) {
      const response = await rawRequest(app, request(method, '/api/v1/inventory'));
      expect(response.status, method).toBe(405);
      expect(JSON.parse(response.body).error.code).toBe('METHOD_NOT_ALLOWED');
    }
  });

  it('answers oversized headers with 431 in the error shape, and garbage with 400', async () => {
    const big = await rawRequest(app, request('GET', '/api/v1/health', `X-Big: ${'a'.repeat(20_000)}\r\n`));
    expect(big.status).toBe(431);
    expect(JSON.parse(big.body).error.code).toBe('HEADERS_TOO_LARGE');
    const garbage = await rawRequest(app, 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage.status).toBe(400);
  });

  it('cuts off a client that sends its headers too slowly, with 408', async () => {
    const started = Date.now();
    const response = await new Promise<string>((resolve, reject) => {
      const socket = connect(app.port, '127.0.0.1', () =>
        socket.write('GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n'),
      );
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (chunk) => {
        data += chunk;
      });
      socket.on('close', () => resolve(data));
      socket.on('error', reject);
    });
    expect(response).toMatch(/^HTTP\/1\.1 408/);
    expect(Date.now() - started).toBeLessThan(6000);
  });

  it('turns concurrent creates of the same unique thing into one 2xx and 409s', async () => {
    const email = `race-${Date.now()}@example.com`;
    const users = await Promise.all(
      Array.from({ length: 5 }, () =>
        app.client.post(
          '/admin/users',
          {
            email,
            name: 'Race',
            role: 'analyst',
            dealer_group_ids: [group.groupId],
            password: 'a long enough passphrase 1',
          },
          token,
        ),
      ),
    );
    const statuses = users.map((response) => response.status).sort();
    expect(
      statuses.filter((status) => status >= 200 && status < 300),
      JSON.stringify(users.map((u) => u.body)),
    ).toHaveLength(1);
    expect(statuses.filter((status) => status === 409)).toHaveLength(4);

    const key = await createKey(app.client, token, { name: 'race' });
    const rotations = await Promise.all(
      Array.from({ length: 5 }, () => app.client.post(`/api-keys/${key.id}/rotate`, {}, token)),
    );
    expect(
      rotations.every((response) => response.status < 500),
      JSON.stringify(rotations.map((r) => r.body)),
    ).toBe(true);
    expect(rotations.filter((response) => response.status === 201)).toHaveLength(1);
    expect(rotations.filter((response) => response.status === 409)).toHaveLength(4);
  });

  it("charges an API key's hour one request per root field, so aliases cannot multiply its budget", async () => {
    const key = await createKey(app.client, token, { name: 'aliases', rateLimitPerHour: 10 });
    const aliases = (count: number) =>
      `{ ${Array.from({ length: count }, (_, index) => `a${index}: inventory(limit: 1) { pagination { total } }`).join(' ')} }`;
    const four = await app.client.graphql(aliases(4), {}, key.key);
    expect(four.status, JSON.stringify(four.body)).toBe(200);
    expect(four.headers.get('ratelimit-remaining')).toBe('6');
    const seven = await app.client.graphql(aliases(7), {}, key.key);
    expect(seven.status).toBe(429);
    expect(seven.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(seven.body.errors[0].extensions.code).toBe('RATE_LIMITED');
  });

  it('sends security headers: nosniff everywhere, no-store on answers with tokens, frame-ancestors on pages', async () => {
    const login = await app.client.post('/auth/login', {
      email: group.users.admin!.email,
      password: 'correct horse battery staple',
    });
    expect(login.headers.get('cache-control')).toBe('no-store');
    expect(login.headers.get('x-content-type-options')).toBe('nosniff');
    const docs = await app.client.request('GET', '/api/v1/docs');
    expect(docs.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(docs.headers.get('x-frame-options')).toBe('DENY');
    const graphiql = await app.client.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(graphiql.status).toBe(200);
    expect(graphiql.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });

  it('does not reflect unknown origins, and refuses form-encoded GraphQL posts', async () => {
    const response = await app.client.request('GET', '/api/v1/health', { headers: { origin: 'https://evil.example' } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    const form = await app.client.request('POST', '/graphql', {
      rawBody: 'query=%7B__typename%7D',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    const multipart = await app.client.request('POST', '/graphql', {
      rawBody: '--x\r\n\r\n--x--',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
    });
    expect(multipart.status).toBe(415);
  });

  it('logs requests refused before a session exists, with the key that made them', async () => {
    const key = await createKey(app.client, token, { name: 'refused' });
    await app.client.request('DELETE', `/api/v1/api-keys/${key.id}`, { token });
    const revoked = await app.client.get('/inventory', key.key);
    expect(revoked.status).toBe(401);
    const live = await createKey(app.client, token, { name: 'unknown-param' });
    const unknown = await app.client.get('/inventory?colour=red', live.key);
    expect(unknown.status).toBe(400);
    const missing = await app.client.get('/nothing-here', live.key);
    expect(missing.status).toBe(404);
    await new Promise((resolve) => setTimeout(resolve, 300)); // the request log is written in batches
    const forRevoked = await app.client.get(`/logs/requests?api_key_id=${key.id}&status=4xx`, token);
    expect(forRevoked.status).toBe(200);
    expect(forRevoked.body.requests.map((entry: { status: number }) => entry.status)).toContain(401);
    const forLive = await app.client.get(`/logs/requests?api_key_id=${live.id}`, token);
    expect(forLive.body.requests.map((entry: { status: number }) => entry.status).sort()).toEqual([400, 404]);
  });
});

describe('the edge in production mode', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp(
      {
        NODE_ENV: 'production',
        ADMIN_EMAIL: 'prod-admin@example.com',
        ADMIN_PASSWORD: 'a sufficiently long one 7',
        CREDENTIALS_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
        CORS_ORIGINS: 'https://dash.example.com',
        // Its own database: on start it re-seals every stored credential, and other suites' are sealed with their keys.
      },
      { ownDatabase: true },
    );
  });
  afterAll(() => app?.stop());

  it('serves no GraphiQL and no anonymous introspection', async () => {
    const page = await app.client.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(page.headers.get('content-type') ?? '').not.toContain('text/html');
    const introspection = await app.client.graphql('{ __schema { queryType { name } } }');
    expect(introspection.status).toBe(401);
    const typeQuery = await app.client.graphql(
      'query { ...F } fragment F on Query { __type(name: "Vehicle") { name } }',
    );
    expect(typeQuery.status).toBe(401);
  });

  it('allows the configured origin only', async () => {
    const allowed = await app.client.request('GET', '/api/v1/health', {
      headers: { origin: 'https://dash.example.com' },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://dash.example.com');
    expect(allowed.headers.get('access-control-allow-credentials')).toBeNull();
    const other = await app.client.request('GET', '/api/v1/health', { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
