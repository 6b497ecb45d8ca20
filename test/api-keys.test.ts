import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKeyOf, startTestApp, type TestApp } from './helpers/app';
import { createKey } from './helpers/keys';
import { seedGroup, TEST_PASSWORD, type SeededGroup } from './helpers/seed';

describe('API keys (API keys section of docs/operations.md)', () => {
  let app: TestApp;
  let group: SeededGroup;
  let other: SeededGroup;
  let admin: string;
  let analyst: string;
  let otherAdmin: string;

  beforeAll(async () => {
    app = await startTestApp({ LAST_USED_FLUSH_MS: '50' });
    group = await seedGroup(app.database.prisma, {
      users: { admin: 'admin', analyst: 'analyst' },
      vehicles: [{ make: 'Honda' }, { make: 'Ford' }],
    });
    other = await seedGroup(app.database.prisma, { vehicles: [{ make: 'Kia' }] });
    admin = await group.login(app.client, 'admin');
    analyst = await group.login(app.client, 'analyst');
    otherAdmin = await other.login(app.client);
  });
  afterAll(() => app?.stop());

  it('creates a key shown once, stores only its digest, and defaults the limit to 1000', async () => {
    const response = await app.client.post(
      '/api-keys',
      { name: 'Acme Ads', scopes: ['inventory:read', 'calls:read'] },
      admin,
    );
    expect(response.status).toBe(201);
    const { key, apiKey } = response.body;
    expect(key).toMatch(/^svc_live_[A-Za-z0-9_-]{32,}$/);
    expect(apiKey).toMatchObject({
      name: 'Acme Ads',
      scopes: ['inventory:read', 'calls:read'],
      rateLimitPerHour: 1000,
      maskedKey: `svc_live_…${key.slice(-4)}`,
      status: 'active',
      dealerGroupIds: [group.groupId],
    });
    const stored = await app.database.pool.query('SELECT row_to_json(k)::text AS row FROM api_keys k WHERE id = $1', [
      apiKey.id,
    ]);
    expect(stored.rows[0].row).not.toContain(key);
    expect(stored.rows[0].row).not.toContain(key.slice(9, 30));
    const list = await app.client.get('/api-keys', admin);
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(list.body.apiKeys.find((row: { id: string }) => row.id === apiKey.id)).toMatchObject({
      name: 'Acme Ads',
      rateLimitPerHour: 1000,
      maskedKey: `svc_live_…${key.slice(-4)}`,
      lastUsedAt: null,
      ageDays: 0,
      rotationDue: false,
      createdAt: expect.any(String),
    });
    expect(list.body.pagination.total).toBeGreaterThanOrEqual(1);
  });

  it.each([
    [{ name: '', scopes: ['inventory:read'] }, 'name'],
    [{ name: 'x', scopes: [] }, 'scopes'],
    [{ name: 'x', scopes: ['inventory:read', 'everything'] }, 'scopes'],
    [{ name: 'x', scopes: ['inventory:read'], rateLimitPerHour: 0 }, 'rateLimitPerHour'],
    [{ name: 'x', scopes: ['inventory:read'], rateLimitPerHour: -5 }, 'rateLimitPerHour'],
    [{ name: 'x', scopes: ['inventory:read'], rateLimitPerHour: 1_000_000_000 }, 'rateLimitPerHour'],
    [{ name: 'x', scopes: ['inventory:read'], rateLimitPerHour: 'lots' }, 'rateLimitPerHour'],
    [{ name: 'x', scopes: ['inventory:read'], allowedIps: ['300.1.1.1/8'] }, 'allowedIps'],
    [{ name: 'x', scopes: ['inventory:read'], allowedIps: ['10.0.0.0/33'] }, 'allowedIps'],
    [
      { name: 'x', scopes: ['inventory:read'], dealerGroupIds: ['00000000-0000-4000-8000-000000000000'] },
      'dealerGroupIds',
    ],
    [{ scopes: ['inventory:read'] }, 'name'],
  ])('refuses %j with a 400 naming %s', async (body, field) => {
    const response = await app.client.post('/api-keys', body, admin);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain(field);
  });

  it('lets only admin users manage keys: not analysts, not keys (even with admin scope), not strangers', async () => {
    expect((await app.client.post('/api-keys', { name: 'x', scopes: ['inventory:read'] }, analyst)).status).toBe(403);
    expect((await app.client.get('/api-keys', analyst)).status).toBe(403);
    expect((await app.client.post('/api-keys', { name: 'x', scopes: ['inventory:read'] })).status).toBe(401);
    const superKey = await createKey(app.client, admin, { name: 'root', scopes: ['admin', 'inventory:read'] });
    for (const [method, path] of [
      ['GET', '/api/v1/api-keys'],
      ['POST', `/api/v1/api-keys/${superKey.id}/rotate`],
      ['DELETE', `/api/v1/api-keys/${superKey.id}`],
    ] as const) {
      const response = await app.client.request(method, path, {
        token: superKey.key,
        body: method === 'POST' ? {} : undefined,
      });
      expect(response.status, path).toBe(403);
      expect(response.body.error.message).toContain('API keys cannot');
    }
    const created = await app.client.post('/api-keys', { name: 'child', scopes: ['inventory:read'] }, superKey.key);
    expect(created.status).toBe(403);
    const graphql = await app.client.graphql(
      'mutation { createApiKey(name: "x", scopes: ["inventory:read"]) { key } }',
      {},
      superKey.key,
    );
    expect(graphql.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });

  it('revokes a key: 401 from the very next request, a clear error the second time, 404 for another tenant', async () => {
    const partner = await createKey(app.client, admin, { name: 'to revoke' });
    expect((await app.client.get('/inventory', partner.key)).status).toBe(200);
    expect((await app.client.request('DELETE', `/api/v1/api-keys/${partner.id}`, { token: otherAdmin })).status).toBe(
      404,
    );
    const revoke = await app.client.request('DELETE', `/api/v1/api-keys/${partner.id}`, { token: admin });
    expect(revoke.status).toBe(200);
    expect(revoke.body).toMatchObject({ id: partner.id, status: 'revoked' });
    const after = await app.client.get('/inventory', partner.key);
    expect(after.status).toBe(401);
    expect(after.body.error.message).toContain('revoked');
    const again = await app.client.request('DELETE', `/api/v1/api-keys/${partner.id}`, { token: admin });
    expect(again.status).toBe(409);
    expect((await app.client.request('DELETE', '/api/v1/api-keys/not-a-key', { token: admin })).status).toBe(404);
  });

  it('rotates a key at once: same name, scopes, limit and groups; the old key stops', async () => {
    const old = await createKey(app.client, admin, {
      name: 'rotating',
      scopes: ['inventory:read', 'sales:read'],
      rateLimitPerHour: 250,
    });
    const rotate = await app.client.post(`/api-keys/${old.id}/rotate`, {}, admin);
    expect(rotate.status).toBe(201);
    expect(rotate.body.key).not.toBe(old.key);
    expect(rotate.body.apiKey).toMatchObject({
      name: 'rotating',
      scopes: ['inventory:read', 'sales:read'],
      rateLimitPerHour: 250,
      rotatedFromId: old.id,
      dealerGroupIds: [group.groupId],
    });
    expect((await app.client.get('/inventory', old.key)).status).toBe(401);
    expect((await app.client.get('/inventory', rotate.body.key)).status).toBe(200);
    expect((await app.client.post(`/api-keys/${old.id}/rotate`, {}, admin)).status).toBe(409);
  });

  it('rotates with a grace period: both keys work until it ends', async () => {
    const old = await createKey(app.client, admin, { name: 'graceful' });
    const rotate = await app.client.post(`/api-keys/${old.id}/rotate`, { gracePeriodSeconds: 3600 }, admin);
    expect(rotate.status).toBe(201);
    expect((await app.client.get('/inventory', old.key)).status).toBe(200);
    expect((await app.client.get('/inventory', rotate.body.key)).status).toBe(200);
    const list = await app.client.get('/api-keys', admin);
    const listed = list.body.apiKeys.find((row: { id: string }) => row.id === old.id);
    expect(listed.status).toBe('expiring');
    expect(new Date(listed.revokedAt).getTime()).toBeGreaterThan(Date.now() + 3500_000);
    expect(
      (await app.client.post(`/api-keys/${old.id}/rotate`, { gracePeriodSeconds: 99_999_999 }, admin)).status,
    ).toBe(400);
  });

  it('enforces scopes the same way in REST and GraphQL, and records the denial', async () => {
    const callsOnly = await createKey(app.client, admin, { name: 'calls only', scopes: ['calls:read'] });
    const rest = await app.client.get('/inventory', callsOnly.key);
    expect(rest.status).toBe(403);
    expect(rest.body.error).toMatchObject({ code: 'FORBIDDEN', details: { requiredScope: 'inventory:read' } });
    const graphql = await app.client.graphql('{ inventoryStats { total_vehicles } }', {}, callsOnly.key);
    expect(graphql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const audit = await app.client.get(`/logs/audit?action=scope.denied&actor_api_key_id=${callsOnly.id}`, admin);
    expect(audit.body.pagination.total).toBe(2);
    expect(audit.body.events[0].details.requiredScope).toBe('inventory:read');
  });

  it("reads only its own dealer groups' data", async () => {
    const partner = await createKey(app.client, admin, { name: 'tenant' });
    const inventory = await app.client.get('/inventory', partner.key);
    expect(inventory.body.pagination.total).toBe(2);
    expect((await app.client.get(`/inventory/${other.vehicles[0]!.vin}`, partner.key)).status).toBe(404);
    const me = await app.client.get('/auth/me', partner.key);
    expect(me.body).toMatchObject({
      user: null,
      role: null,
      api_key: { id: partner.id, name: 'tenant' },
      scopes: ['inventory:read'],
    });
  });

  it('counts an hourly budget shared by REST and GraphQL, with RateLimit headers and a 429 past it', async () => {
    const partner = await createKey(app.client, admin, { name: 'small', rateLimitPerHour: 3 });
    const first = await app.client.get('/inventory', partner.key);
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit-limit')).toBe('3');
    expect(first.headers.get('ratelimit-remaining')).toBe('2');
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(3500);
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(Number(first.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 + 3500);
    const second = await app.client.graphql('{ inventory(limit: 1) { pagination { total } } }', {}, partner.key);
    expect(second.status).toBe(200);
    expect(second.headers.get('ratelimit-remaining')).toBe('1');
    expect((await app.client.get('/inventory/stats', partner.key)).headers.get('ratelimit-remaining')).toBe('0');
    const limited = await app.client.get('/inventory', partner.key);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3500);
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect((await app.client.graphql('{ me { scopes } }', {}, partner.key)).status).toBe(429);
    // Users signed in with a password are not metered.
    expect((await app.client.get('/inventory', admin)).headers.get('ratelimit-limit')).toBeNull();
  });

  it('records when a key was last used, without a write per request', async () => {
    const partner = await createKey(app.client, admin, { name: 'used' });
    await app.client.get('/inventory', partner.key);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const listed = (await app.client.get('/api-keys', admin)).body.apiKeys.find(
      (row: { id: string }) => row.id === partner.id,
    );
    expect(Date.now() - new Date(listed.lastUsedAt).getTime()).toBeLessThan(60_000);
  });

  it('refuses a key from an address outside its allowlist', async () => {
    const office = await createKey(app.client, admin, { name: 'office', allowedIps: ['10.0.0.0/8'] });
    const denied = await app.client.get('/inventory', office.key);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toContain('127.0.0.1');
    // Without trusted proxies a forged X-Forwarded-For changes nothing.
    const forged = await app.client.request('GET', '/api/v1/inventory', {
      token: office.key,
      headers: { 'x-forwarded-for': '10.1.2.3' },
    });
    expect(forged.status).toBe(403);
    const local = await createKey(app.client, admin, { name: 'local', allowedIps: ['127.0.0.1/32', '::1'] });
    expect((await app.client.get('/inventory', local.key)).status).toBe(200);
  });

  it('trusts X-Forwarded-For only behind configured proxies', async () => {
    const proxied = await startTestApp({ TRUST_PROXY_HOPS: '1', JWT_PRIVATE_KEY: signingKeyOf(app) });
    try {
      const office = await createKey(proxied.client, admin, { name: 'office via proxy', allowedIps: ['10.0.0.0/8'] });
      expect(
        (
          await proxied.client.request('GET', '/api/v1/inventory', {
            token: office.key,
            headers: { 'x-forwarded-for': '10.1.2.3' },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await proxied.client.request('GET', '/api/v1/inventory', {
            token: office.key,
            headers: { 'x-forwarded-for': '10.1.2.3, 192.0.2.7' },
          })
        ).status,
      ).toBe(403);
    } finally {
      await proxied.stop();
    }
  });

  it('throttles password guessing per account', async () => {
    const email = group.users.analyst!.email;
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect((await app.client.post('/auth/login', { email, password: `wrong-${attempt}` })).status).toBe(401);
    }
    const blocked = await app.client.post('/auth/login', { email, password: TEST_PASSWORD });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another account from the same address is not locked out.
    expect(
      (await app.client.post('/auth/login', { email: group.users.admin!.email, password: TEST_PASSWORD })).status,
    ).toBe(200);
  });
});

describe('last used, with the default 30 s batching', () => {
  let app: TestApp;
  let admin: string;

  beforeAll(async () => {
    app = await startTestApp();
    admin = await (await seedGroup(app.database.prisma)).login(app.client);
  });
  afterAll(() => app?.stop());

  it("shows a key's first use at once (later uses are batched)", async () => {
    const partner = await createKey(app.client, admin, { name: 'first use' });
    expect((await app.client.get('/inventory', partner.key)).status).toBe(200);
    const listed = (await app.client.get('/api-keys', admin)).body.apiKeys.find(
      (row: { id: string }) => row.id === partner.id,
    );
    expect(listed.lastUsedAt).not.toBeNull();
    expect(Date.now() - new Date(listed.lastUsedAt).getTime()).toBeLessThan(60_000);
  });
});
