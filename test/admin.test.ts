import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';
import { createKey } from './helpers/keys';

/** Administration (/admin/users and /admin/usage in docs/operations.md): users of the admin's groups, and the usage report. */
describe('administration', () => {
  let app: TestApp;
  let group: SeededGroup;
  let second: SeededGroup;
  let admin: string;
  let analyst: string;

  beforeAll(async () => {
    app = await startTestApp({ REQUEST_LOG_FLUSH_MS: '20' });
    group = await seedGroup(app.database.prisma, { users: { admin: 'admin', analyst: 'analyst' }, vehicles: [{}, {}] });
    second = await seedGroup(app.database.prisma, { users: { admin: 'admin' } });
    // The first group's admin also holds the second group.
    await app.database.prisma.userDealerGroup.create({
      data: { userId: group.users.admin!.id, dealerGroupId: second.groupId },
    });
    admin = await group.login(app.client, 'admin');
    analyst = await group.login(app.client, 'analyst');
  });
  afterAll(() => app?.stop());

  const auditActions = async () =>
    (await app.client.get('/logs/audit?limit=100', admin)).body.events.map(
      (event: { action: string }) => event.action,
    ) as string[];
  const patch = (id: string, body: Record<string, unknown>, token = admin) =>
    app.client.request('PATCH', `/api/v1/admin/users/${id}`, { token, body });

  it('creates a user with an initial password that must be changed before anything else', async () => {
    const created = await app.client.post(
      '/admin/users',
      {
        email: 'New.Analyst@Example.com',
        name: 'New Analyst',
        role: 'analyst',
        dealer_group_ids: [group.groupId],
        password: 'initial-secret-1',
      },
      admin,
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      user: {
        email: 'new.analyst@example.com',
        role: 'analyst',
        dealer_group_ids: [group.groupId],
        password_change_required: true,
        disabled: false,
      },
      invitation: null,
    });
    expect(JSON.stringify(created.body)).not.toContain('initial-secret-1');

    const login = await app.client.post('/auth/login', {
      email: 'new.analyst@example.com',
      password: 'initial-secret-1',
    });
    expect(login.body.password_change_required).toBe(true);
    const blocked = await app.client.get('/inventory', login.body.token);
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe('PASSWORD_CHANGE_REQUIRED');
    expect((await app.client.get('/auth/me', login.body.token)).status).toBe(200);
    const weak = await app.client.post(
      '/auth/password',
      { current_password: 'initial-secret-1', new_password: 'short' },
      login.body.token,
    );
    expect(weak.status).toBe(400);
    expect(weak.body.error.details.field).toBe('new_password');
    const wrong = await app.client.post(
      '/auth/password',
      { current_password: 'not-the-password', new_password: 'my-own-secret-22' },
      login.body.token,
    );
    expect(wrong.body.error.details.field).toBe('current_password');
    const changed = await app.client.post(
      '/auth/password',
      { current_password: 'initial-secret-1', new_password: 'my-own-secret-22' },
      login.body.token,
    );
    expect(changed.status).toBe(200);
    expect((await app.client.get('/inventory', login.body.token)).status).toBe(200);
    expect(
      (await app.client.post('/auth/login', { email: 'new.analyst@example.com', password: 'my-own-secret-22' })).body
        .password_change_required,
    ).toBe(false);
    expect(await auditActions()).toEqual(expect.arrayContaining(['user.created', 'password.changed']));
  });

  it('throttles guesses of the current password like sign-ins', async () => {
    await app.client.post(
      '/admin/users',
      {
        email: 'guessed@example.com',
        name: 'Guessed',
        role: 'viewer',
        dealer_group_ids: [group.groupId],
        password: 'guessed-secret-1',
      },
      admin,
    );
    const token = (await app.client.post('/auth/login', { email: 'guessed@example.com', password: 'guessed-secret-1' }))
      .body.token;
    for (let attempt = 0; attempt < 10; attempt += 1) {
      expect(
        (
          await app.client.post(
            '/auth/password',
            { current_password: `guess-${attempt}`, new_password: 'another-secret-1' },
            token,
          )
        ).status,
      ).toBe(400);
    }
    const blocked = await app.client.post(
      '/auth/password',
      { current_password: 'guessed-secret-1', new_password: 'another-secret-1' },
      token,
    );
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('invites a user by email (the outbox when no SMTP server is set); the invitation works once', async () => {
    const created = await app.client.post(
      '/admin/users',
      {
        email: 'invitee@example.com',
        name: 'Invitee',
        role: 'viewer',
        dealer_group_ids: [group.groupId, second.groupId],
      },
      admin,
    );
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({
      invitation_pending: true,
      password_change_required: false,
      role: 'viewer',
    });
    const invitation = created.body.invitation;
    expect(invitation).toMatchObject({
      token: expect.any(String),
      delivery: 'outbox',
      note: expect.stringContaining('SMTP_URL'),
    });
    const outboxFile = path.join(app.dataDir, 'outbox', invitation.outbox_file);
    expect(existsSync(outboxFile)).toBe(true);
    expect(readFileSync(outboxFile, 'utf8')).toMatch(/^To: invitee@example\.com$/m);
    expect(readFileSync(outboxFile, 'utf8')).toContain(invitation.token);
    const stored = await app.database.prisma.user.findUniqueOrThrow({ where: { email: 'invitee@example.com' } });
    expect(stored.inviteTokenHash).not.toBe(invitation.token);
    expect(
      (await app.client.post('/auth/login', { email: 'invitee@example.com', password: 'anything-at-all' })).status,
    ).toBe(401);

    const short = await app.client.post('/auth/invitations/accept', { token: invitation.token, password: 'short' });
    expect(short.status).toBe(400);
    const accepted = await app.client.post('/auth/invitations/accept', {
      token: invitation.token,
      password: 'invitee-secret-9',
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body).toMatchObject({
      token: expect.any(String),
      refresh_token: expect.any(String),
      password_change_required: false,
    });
    expect((await app.client.get('/inventory', accepted.body.token)).status).toBe(200);
    const again = await app.client.post('/auth/invitations/accept', {
      token: invitation.token,
      password: 'invitee-secret-9',
    });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe('INVALID_INVITATION');
    expect(await auditActions()).toEqual(expect.arrayContaining(['user.invited', 'invitation.accepted']));
  });

  it('refuses bad input with the field named, and duplicates with 409', async () => {
    for (const [body, field] of [
      [{ email: 'not-an-email', name: 'X' }, 'email'],
      [{ email: 'x@example.com', name: '' }, 'name'],
      [{ email: 'x@example.com', name: 'X', role: 'owner' }, 'role'],
      [
        { email: 'x@example.com', name: 'X', dealer_group_ids: ['00000000-0000-4000-8000-000000000000'] },
        'dealer_group_ids',
      ],
      [{ email: 'x@example.com', name: 'X' }, 'dealer_group_ids'],
      [{ email: 'x@example.com', name: 'X', dealer_group_ids: [group.groupId], password: 'short' }, 'password'],
      [
        { email: 'x@example.com', name: 'X', dealer_group_ids: [group.groupId], password: 'Welcome-to-the-lot' },
        'password',
      ],
    ] as const) {
      const response = await app.client.post('/admin/users', body, admin);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.details.field).toBe(field);
    }
    const duplicate = await app.client.post(
      '/admin/users',
      { email: group.users.analyst!.email, name: 'Again', dealer_group_ids: [group.groupId] },
      admin,
    );
    expect(duplicate.status).toBe(409);
    expect(
      (
        await app.client.post(
          '/admin/users',
          { email: 'y@example.com', name: 'Y', dealer_group_ids: [group.groupId] },
          analyst,
        )
      ).status,
    ).toBe(403);
  });

  it('lists the users of the admin’s groups, changes role and groups, and keeps memberships the admin does not hold', async () => {
    const list = await app.client.get('/admin/users?limit=500', admin);
    expect(list.status).toBe(200);
    const emails = list.body.users.map((user: { email: string }) => user.email);
    expect(emails).toEqual(
      expect.arrayContaining([group.users.admin!.email, group.users.analyst!.email, second.users.admin!.email]),
    );
    // q is text, not a pattern: "_" stands for itself, not for any one character.
    const analystEmail = group.users.analyst!.email;
    const searched = async (q: string) =>
      (await app.client.get(`/admin/users?q=${encodeURIComponent(q)}&limit=500`, admin)).body.users.map(
        (user: { email: string }) => user.email,
      );
    expect(await searched(analystEmail.toUpperCase())).toEqual([analystEmail]);
    expect(await searched(analystEmail.replace('@', '_'))).toEqual([]);
    const analystId = group.users.analyst!.id;
    const changed = await patch(analystId, { role: 'viewer', dealer_group_ids: [group.groupId, second.groupId] });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body).toMatchObject({
      role: 'viewer',
      dealer_group_ids: expect.arrayContaining([group.groupId, second.groupId]),
    });
    // The new role applies from the next request: viewers cannot use the assistant.
    expect((await app.client.post('/assistant/conversations', {}, analyst)).status).toBe(403);
    expect(
      (await app.client.get('/admin/users?role=viewer', admin)).body.users.map((user: { id: string }) => user.id),
    ).toContain(analystId);
    // An admin of the second group only sees and changes the memberships it holds.
    const secondAdmin = await second.login(app.client, 'admin');
    const narrowed = await patch(analystId, { dealer_group_ids: [second.groupId] }, secondAdmin);
    expect(narrowed.body.dealer_group_ids).toEqual([second.groupId]);
    const memberships = await app.database.prisma.userDealerGroup.findMany({ where: { userId: analystId } });
    expect(memberships.map((membership) => membership.dealerGroupId).sort()).toEqual(
      [group.groupId, second.groupId].sort(),
    );
    await patch(analystId, { role: 'analyst' });
    expect((await patch(analystId, { role: 'owner' })).status).toBe(400);
    expect((await patch('00000000-0000-4000-8000-000000000000', { role: 'viewer' })).status).toBe(404);
    expect((await patch(group.users.admin!.id, { role: 'viewer' })).status).toBe(409);
    expect((await patch(group.users.admin!.id, { disabled: true })).status).toBe(409);
    expect(await auditActions()).toContain('user.updated');
  });

  it('disables a user: refresh tokens are revoked and the next request gets 401; enabling lets them sign in again', async () => {
    const created = await app.client.post(
      '/admin/users',
      {
        email: 'leaver@example.com',
        name: 'Leaver',
        role: 'analyst',
        dealer_group_ids: [group.groupId],
        password: 'leaver-secret-1',
      },
      admin,
    );
    await app.database.prisma.user.update({ where: { id: created.body.user.id }, data: { mustChangePassword: false } });
    const session = (await app.client.post('/auth/login', { email: 'leaver@example.com', password: 'leaver-secret-1' }))
      .body;
    expect((await app.client.get('/inventory', session.token)).status).toBe(200);
    const disabled = await patch(created.body.user.id, { disabled: true });
    expect(disabled.body).toMatchObject({ disabled: true, disabled_at: expect.any(String) });
    const next = await app.client.get('/inventory', session.token);
    expect(next.status).toBe(401);
    expect((await app.client.post('/auth/refresh', { refresh_token: session.refresh_token })).status).toBe(401);
    expect(
      await app.database.prisma.refreshToken.count({ where: { userId: created.body.user.id, revokedAt: null } }),
    ).toBe(0);
    expect(
      (await app.client.post('/auth/login', { email: 'leaver@example.com', password: 'leaver-secret-1' })).status,
    ).toBe(401);
    expect(
      (await app.client.get('/admin/users', admin)).body.users.map((user: { email: string }) => user.email),
    ).not.toContain('leaver@example.com');
    expect(
      (await app.client.get('/admin/users?include_disabled=true&limit=500', admin)).body.users.map(
        (user: { email: string }) => user.email,
      ),
    ).toContain('leaver@example.com');
    const events = (await app.client.get('/logs/audit?action=user.disabled', admin)).body.events;
    expect(events[0]).toMatchObject({ action: 'user.disabled', target_id: created.body.user.id });
    await patch(created.body.user.id, { disabled: false });
    expect(
      (await app.client.post('/auth/login', { email: 'leaver@example.com', password: 'leaver-secret-1' })).status,
    ).toBe(200);
  });

  it('reports usage per key, user, endpoint and day from the request log, with error rates, aggregated in SQL', async () => {
    const { key, id: keyId } = await createKey(app.client, admin, {
      name: 'usage-partner',
      scopes: ['inventory:read'],
      dealerGroupIds: [group.groupId],
    });
    for (let index = 0; index < 3; index += 1) await app.client.get('/inventory', key);
    await app.client.get(`/inventory/${'1HGCM82633A00435X'}`, key); // 404
    await app.client.get('/inventory/stats', key);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const report = await app.client.get('/admin/usage', admin);
    expect(report.status, JSON.stringify(report.body)).toBe(200);
    const partner = report.body.by_api_key.find((row: { api_key_id: string }) => row.api_key_id === keyId);
    expect(partner).toMatchObject({ name: 'usage-partner', requests: 5, errors: 1, server_errors: 0, error_rate: 0.2 });
    const inventory = report.body.by_endpoint.find((row: { endpoint: string }) => row.endpoint === 'GET /inventory');
    expect(inventory.requests).toBeGreaterThanOrEqual(3);
    expect(report.body.by_endpoint.map((row: { endpoint: string }) => row.endpoint)).toContain('GET /inventory/:vin');
    const me = report.body.by_user.find((row: { email: string }) => row.email === group.users.admin!.email);
    expect(me.requests).toBeGreaterThan(0);
    const today = new Date().toISOString().slice(0, 10);
    expect(report.body.by_day.at(-1)).toMatchObject({ day: today });
    expect(report.body.totals.requests).toBe(
      report.body.by_day.reduce((sum: number, day: { requests: number }) => sum + day.requests, 0),
    );
    // A range before any traffic is empty; a reversed or too long range is refused.
    const empty = await app.client.get('/admin/usage?from=2020-01-01T00:00:00Z&to=2020-01-31T00:00:00Z', admin);
    expect(empty.body).toMatchObject({ totals: { requests: 0, error_rate: null }, by_day: [], by_api_key: [] });
    expect((await app.client.get('/admin/usage?from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', admin)).status).toBe(
      400,
    );
    expect((await app.client.get('/admin/usage?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', admin)).status).toBe(
      400,
    );
    expect((await app.client.get('/admin/usage', analyst)).status).toBe(403);
  });
});
