import { restRoutes } from '../src/http/operations';
import { schema } from '../src/schema';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS_FILE, printOperationsFile, printSchemaFile, SCHEMA_FILE } from '../src/schema-file';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';

/** The REST routes, read from the schema's fields as the server reads them. */
const REST_ROUTES = restRoutes(schema);

describe('platform: errors, documentation, health and the request log', () => {
  let app: TestApp;
  let group: SeededGroup;
  let token: string;

  beforeAll(async () => {
    app = await startTestApp({ MAX_BODY_BYTES: '2048' });
    group = await seedGroup(app.database.prisma);
    token = await group.login(app.client);
  });
  afterAll(() => app?.stop());

  it('keeps schema.graphql and docs/operations.md current (run `npm run schema:print` after changing the schema)', () => {
    expect(readFileSync(SCHEMA_FILE, 'utf8')).toBe(printSchemaFile());
    expect(readFileSync(OPERATIONS_FILE, 'utf8')).toBe(printOperationsFile());
  });

  it('keeps an idle connection open past the 4 to 5 s clients keep theirs, so a reused connection is answered', async () => {
    const { port } = new URL(app.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const ask = () => socket.write('GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n\r\n');
    const answers = () => received.match(/HTTP\/1\.1 200 /g)?.length ?? 0;
    ask();
    await expect.poll(answers, { timeout: 10_000 }).toBe(1);
    expect(received).toMatch(/^keep-alive: timeout=65\r$/im);
    await new Promise((resolve) => setTimeout(resolve, 5_500)); // past Node's default of 5 s
    expect(socket.destroyed).toBe(false);
    ask();
    await expect.poll(answers, { timeout: 10_000 }).toBe(2);
    socket.end();
    await closed;
  }, 30_000);

  it('answers malformed JSON with 400', async () => {
    const response = await app.client.request('POST', '/api/v1/auth/login', {
      rawBody: '{"email": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('MALFORMED_JSON');
  });

  it('answers a body that is not a JSON object, or not JSON at all, with a 4xx', async () => {
    const array = await app.client.request('POST', '/api/v1/auth/login', {
      rawBody: '[1]',
      headers: { 'content-type': 'application/json' },
    });
    expect(array.status).toBe(400);
    const form = await app.client.request('POST', '/api/v1/auth/login', {
      rawBody: 'email=a',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    const unknown = await app.client.post('/auth/login', { email: 'a@b.c', password: 'x', remember: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('remember');
  });

  it('answers a body over the limit with 413', async () => {
    const response = await app.client.post('/auth/login', { email: 'a@example.com', password: 'x'.repeat(5000) });
    expect(response.status).toBe(413);
    expect(response.body.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers unknown paths with a JSON 404 and wrong methods with 405', async () => {
    for (const path of ['/api/v1/nothing-here', '/api/v1/inventory/1HGCM82633A004352/nope', '/elsewhere']) {
      const response = await app.client.request('GET', path, { token });
      expect(response.status, path).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    const wrongMethod = await app.client.request('DELETE', '/api/v1/inventory', { token });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
  });

  it('serves GET /health without credentials and reports the database', async () => {
    const response = await app.client.get('/health');
    expect(response.status).toBe(200);
    // A busy machine may make the probe slow: that is "degraded" (still 200), never a failure.
    expect([
      { status: 'ok', database: 'ok' },
      { status: 'degraded', database: 'slow' },
    ]).toContainEqual({ status: response.body.status, database: response.body.database.status });
    expect(response.body.database.latency_ms).toEqual(expect.any(Number));
  });

  it('publishes the OpenAPI document with error responses and bearer security, and a reference page', async () => {
    const document = (await app.client.get('/openapi.json')).body;
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/inventory', '/inventory/{vin}', '/inventory/stats', '/auth/login', '/health']),
    );
    for (const route of Object.values(REST_ROUTES)) {
      const openApiPath = route.path.replace(/:(\w+)/g, '{$1}');
      expect(
        document.paths[openApiPath]?.[route.method.toLowerCase()],
        `${route.method} ${route.path} in the OpenAPI document`,
      ).toBeDefined();
    }
    expect(document.paths['/inventory'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(document.paths['/inventory'].get.responses).toHaveProperty('401');
    expect(document.paths['/inventory'].get.responses).toHaveProperty('429');
    expect(document.paths['/auth/login'].post.security).toEqual([]);
    expect(document.components.securitySchemes.bearerAuth.scheme).toBe('bearer');
    const page = await app.client.request('GET', '/api/v1/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    // The interactive reference reads the document above in the browser (test/browser.test.ts drives it).
    expect(page.body).toContain('/api/v1/docs/assets/');
  });

  it('serves GraphiQL at /graphql', async () => {
    const response = await app.client.request('GET', '/graphql', { headers: { accept: 'text/html' } });
    expect(response.status).toBe(200);
    expect(String(response.body)).toContain('GraphiQL');
  });

  it('logs every request with user, IP, time, method, path, status and duration', async () => {
    const requestId = `test-${Date.now()}`;
    await app.client.request('GET', '/api/v1/inventory?limit=1', { token, headers: { 'x-request-id': requestId } });
    await app.client.request('GET', '/api/v1/inventory?limit=0', {
      token,
      headers: { 'x-request-id': `${requestId}-bad` },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const entries = await app.database.prisma.requestLog.findMany({
      where: { requestId: { startsWith: requestId } },
      orderBy: { requestId: 'asc' },
    });
    expect(entries).toHaveLength(2);
    expect(entries[0]).toMatchObject({
      method: 'GET',
      path: '/api/v1/inventory',
      status: 200,
      userId: group.users.admin!.id,
      ip: '127.0.0.1',
      dealerGroupIds: [group.groupId],
    });
    expect(entries[0]!.durationMs).toBeGreaterThan(0);
    expect(entries[0]!.occurredAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(entries[1]).toMatchObject({ status: 400 });
  });

  it('writes pending request log entries on a graceful stop', async () => {
    const other = await startTestApp({ REQUEST_LOG_FLUSH_MS: '60000' });
    const requestId = `stop-${Date.now()}`;
    await other.client.request('GET', '/api/v1/health', { headers: { 'x-request-id': requestId } });
    const db = app.database.prisma;
    expect(await db.requestLog.count({ where: { requestId } })).toBe(0);
    await other.stop();
    expect(await db.requestLog.count({ where: { requestId } })).toBe(1);
  });
});

describe('scope declarations', () => {
  it('every operation declares who may call it, except the public ones', () => {
    const PUBLIC = ['Mutation.login', 'Mutation.refresh', 'Mutation.acceptInvitation', 'Query.health'];
    const undeclared: string[] = [];
    for (const type of [schema.getQueryType()!, schema.getMutationType()!]) {
      for (const field of Object.values(type.getFields())) {
        const options = (field.extensions as { pothosOptions?: { authScopes?: unknown } }).pothosOptions;
        if (!options?.authScopes && !PUBLIC.includes(`${type.name}.${field.name}`))
          undeclared.push(`${type.name}.${field.name}`);
      }
    }
    expect(undeclared).toEqual([]);
  });
});
