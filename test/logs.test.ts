import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { createKey } from './helpers/keys';
import { seedGroup, TEST_PASSWORD, type SeededGroup } from './helpers/seed';

describe('request log and audit trail (Logs and audit section of docs/operations.md)', () => {
  let app: TestApp;
  let group: SeededGroup;
  let other: SeededGroup;
  let admin: string;
  let partner: { id: string; key: string };

  beforeAll(async () => {
    app = await startTestApp({ REQUEST_LOG_FLUSH_MS: '20' });
    group = await seedGroup(app.database.prisma, { users: { admin: 'admin', viewer: 'viewer' } });
    other = await seedGroup(app.database.prisma);
    admin = await group.login(app.client, 'admin');
    partner = await createKey(app.client, admin, { name: 'logged partner', scopes: ['inventory:read'] });
    await app.client.get('/inventory?limit=1', partner.key);
    await app.client.get('/inventory?limit=0', partner.key);
    await app.client.post('/auth/login', { email: group.users.viewer!.email, password: 'not-the-password' });
    await app.client.request('DELETE', `/api/v1/api-keys/${partner.id}`, { token: admin });
    await app.client.get('/inventory', await other.login(app.client));
    await new Promise((resolve) => setTimeout(resolve, 200));
  });
  afterAll(() => app?.stop());

  it("lists a key's requests with status, method, path, IP and duration, filtered", async () => {
    const response = await app.client.get(`/logs/requests?api_key_id=${partner.id}`, admin);
    expect(response.status).toBe(200);
    expect(response.body.pagination.total).toBe(2);
    expect(response.body.requests.map((entry: { status: number }) => entry.status).sort()).toEqual([200, 400]);
    expect(response.body.requests[0]).toMatchObject({
      method: 'GET',
      path: '/api/v1/inventory',
      api_key_id: partner.id,
      ip: '127.0.0.1',
      duration_ms: expect.any(Number),
      occurred_at: expect.any(String),
    });
    const errors = await app.client.get(`/logs/requests?api_key_id=${partner.id}&status=4xx`, admin);
    expect(errors.body.requests.map((entry: { status: number }) => entry.status)).toEqual([400]);
    const byUser = await app.client.get(
      `/logs/requests?user_id=${group.users.admin!.id}&path=/api/v1/api-keys&method=delete`,
      admin,
    );
    expect(byUser.body.pagination.total).toBe(1);
    // The path is a beginning written out, not a pattern: "_" is no stand-in for "-".
    const underscored = await app.client.get(
      `/logs/requests?user_id=${group.users.admin!.id}&path=/api/v1/api_keys&method=delete`,
      admin,
    );
    expect(underscored.body.pagination.total).toBe(0);
  });

  it("never shows another dealer group's requests", async () => {
    const response = await app.client.get('/logs/requests?limit=500', admin);
    expect(
      response.body.requests.every((entry: { user_id: string | null }) => entry.user_id !== other.users.admin!.id),
    ).toBe(true);
    const theirs = await app.client.get('/logs/requests?limit=500', await other.login(app.client));
    expect(theirs.body.requests.some((entry: { api_key_id: string | null }) => entry.api_key_id === partner.id)).toBe(
      false,
    );
  });

  it('records logins, failures and key changes in the audit trail', async () => {
    const response = await app.client.get('/logs/audit?limit=100', admin);
    expect(response.status).toBe(200);
    const actions = response.body.events.map((event: { action: string }) => event.action);
    expect(actions).toEqual(
      expect.arrayContaining(['login.succeeded', 'login.failed', 'api_key.created', 'api_key.revoked']),
    );
    const revoked = response.body.events.find((event: { action: string }) => event.action === 'api_key.revoked');
    expect(revoked).toMatchObject({
      actor_user_id: group.users.admin!.id,
      target_type: 'api_key',
      target_id: partner.id,
      ip: '127.0.0.1',
    });
    const keys = await app.client.get('/logs/audit?action=api_key', admin);
    expect(keys.body.events.map((event: { action: string }) => event.action).sort()).toEqual([
      'api_key.created',
      'api_key.revoked',
    ]);
    const failed = await app.client.get('/logs/audit?action=login.failed', admin);
    expect(failed.body.events[0].details).toMatchObject({ email: group.users.viewer!.email, reason: 'wrong password' });
  });

  it('writes the audit entry in the same transaction as the change', async () => {
    const events = await app.database.prisma.auditEvent.findMany({ where: { targetId: partner.id } });
    const key = await app.database.prisma.apiKey.findUniqueOrThrow({ where: { id: partner.id } });
    const revocation = events.find((event) => event.action === 'api_key.revoked');
    // Both rows were written by one transaction: PostgreSQL gives them the same now().
    expect(revocation?.occurredAt.getTime()).toBeGreaterThanOrEqual(key.revokedAt!.getTime() - 1000);
    expect(revocation?.occurredAt.getTime()).toBeLessThanOrEqual(key.revokedAt!.getTime() + 1000);
  });

  it('never holds a secret', async () => {
    const requests = await app.database.pool.query('SELECT row_to_json(r)::text AS row FROM request_logs r');
    const audit = await app.database.pool.query('SELECT row_to_json(a)::text AS row FROM audit_events a');
    const everything = [...requests.rows, ...audit.rows].map((row) => row.row).join('\n');
    expect(everything).not.toContain(partner.key);
    expect(everything).not.toContain(partner.key.slice(9, 25));
    expect(everything).not.toContain(TEST_PASSWORD);
    expect(everything).not.toContain('not-the-password');
    expect(everything).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
    expect(everything).not.toContain('rt_');
  });

  it('needs logs:read and validates filters', async () => {
    const viewer = await group.login(app.client, 'viewer');
    expect((await app.client.get('/logs/requests', viewer)).status).toBe(403);
    expect((await app.client.get('/logs/audit', viewer)).status).toBe(403);
    for (const query of [
      'status=abc',
      'api_key_id=42',
      'from=2026-02-01&to=2026-01-01',
      'method=FETCH',
      'limit=1000',
    ]) {
      const response = await app.client.get(`/logs/requests?${query}`, admin);
      expect(response.status, query).toBe(400);
    }
    expect((await app.client.get('/logs/audit?action=DROP TABLE', admin)).status).toBe(400);
  });
});
