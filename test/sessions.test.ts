import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_CHANGES } from '../src/auth/authenticate';
import { startTestApp, type TestApp } from './helpers/app';
import { createKey } from './helpers/keys';
import { seedGroup, type SeededGroup } from './helpers/seed';
import { createScratchDatabase } from './helpers/scratch-database';
import { recordStatements } from './helpers/statements';

/** Statements that authenticate a request (a user's or a key's lookup, or a key's first use). */
const AUTH_STATEMENT = /sessionUser|sessionApiKey|firstApiKeyUse/;

/**
 * Known users and keys authenticate without a statement; every change to who they are or what they
 * may see applies from the next request on, however it was made.
 */
describe('sessions remembered between requests', () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;

  let scratch: Awaited<ReturnType<typeof createScratchDatabase>> | undefined;

  beforeAll(async () => {
    // A database of its own: other test files' changes to users and keys would make this instance forget
    // (as they should), and the lookups counted here would depend on them.
    scratch = process.env.DATABASE_URL
      ? await createScratchDatabase(process.env.DATABASE_URL, 'ddp_sessions')
      : undefined;
    app = scratch ? await startTestApp({ DATABASE_URL: scratch.url }) : await startTestApp({}, { ownDatabase: true });
    group = await seedGroup(app.database.prisma, { vehicles: [{}], users: { admin: 'admin', analyst: 'analyst' } });
    admin = await group.login(app.client);
  });
  afterAll(async () => {
    await app?.stop();
    await scratch?.drop();
  });

  const authStatements = async (work: () => Promise<void>) =>
    (await recordStatements(app.database.pool, work, { withAuth: true })).filter((sql) => AUTH_STATEMENT.test(sql));

  it('authenticates a known user or API key without a database statement', async () => {
    const analyst = await group.login(app.client, 'analyst');
    expect((await app.client.get('/auth/me', analyst)).status).toBe(200);
    expect(await authStatements(async () => void (await app.client.get('/auth/me', analyst)))).toEqual([]);

    const partner = await createKey(app.client, admin, { name: 'remembered' });
    expect((await app.client.get('/inventory', partner.key)).status).toBe(200);
    expect(
      await authStatements(async () => {
        for (let request = 0; request < 3; request += 1) {
          expect((await app.client.get('/inventory', partner.key)).status).toBe(200);
        }
      }),
    ).toEqual([]);
  });

  it('applies role changes, group changes and disabling made through the API on the next request', async () => {
    const analyst = await group.login(app.client, 'analyst');
    expect((await app.client.get('/auth/me', analyst)).body.role).toBe('analyst');
    const user = group.users.analyst!.id;
    expect(
      (await app.client.request('PATCH', `/api/v1/admin/users/${user}`, { token: admin, body: { role: 'viewer' } }))
        .status,
    ).toBe(200);
    expect((await app.client.get('/auth/me', analyst)).body.role).toBe('viewer');
    expect(
      (await app.client.request('PATCH', `/api/v1/admin/users/${user}`, { token: admin, body: { disabled: true } }))
        .status,
    ).toBe(200);
    expect((await app.client.get('/auth/me', analyst)).status).toBe(401);
  });

  it('applies a change written to the database by anything else (another process, an operator) on the next request', async () => {
    const partner = await createKey(app.client, admin, { name: 'changed outside', scopes: ['inventory:read'] });
    expect((await app.client.get('/inventory', partner.key)).status).toBe(200);
    expect((await app.client.get('/dealers', partner.key)).status).toBe(403);
    // A connection of its own, not the server's: the database itself announces the change.
    const outside = new pg.Client({ connectionString: app.databaseUrl });
    await outside.connect();
    try {
      await outside.query(`UPDATE api_keys SET scopes = '{inventory:read,dealers:read}' WHERE id = $1`, [partner.id]);
      await expect
        .poll(async () => (await app.client.get('/dealers', partner.key)).status, { timeout: 2000 })
        .toBe(200);
      await outside.query(`UPDATE api_keys SET revoked_at = now() WHERE id = $1`, [partner.id]);
      await expect
        .poll(async () => (await app.client.get('/inventory', partner.key)).status, { timeout: 2000 })
        .toBe(401);
    } finally {
      await outside.end();
    }
  });

  it('hears each change once, however many of its connections listen', async () => {
    // Several pooled connections, each listening and each sent its own copy of a notification.
    await Promise.all(Array.from({ length: 4 }, () => app.database.pool.query('SELECT pg_sleep(0.05)')));
    expect(app.database.pool.totalCount).toBeGreaterThanOrEqual(3);
    const partner = await createKey(app.client, admin, { name: 'heard once' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    let heard = 0;
    const count = () => void (heard += 1);
    app.database.notifications.on(AUTH_CHANGES, count);
    const outside = new pg.Client({ connectionString: app.databaseUrl });
    await outside.connect();
    try {
      await outside.query(`UPDATE api_keys SET scopes = '{inventory:read}' WHERE id = $1`, [partner.id]);
      await expect.poll(() => heard, { timeout: 2000 }).toBe(1);
      // The later copies, delivered to the other connections, change nothing.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard).toBe(1);
      expect((await app.client.get('/inventory', partner.key)).status).toBe(200);
      expect(await authStatements(async () => void (await app.client.get('/inventory', partner.key)))).toEqual([]);
    } finally {
      app.database.notifications.off(AUTH_CHANGES, count);
      await outside.end();
    }
  });

  it('does not forget anyone for a last use or a sign-in time (no announcement for those)', async () => {
    const partner = await createKey(app.client, admin, { name: 'quiet' });
    expect((await app.client.get('/inventory', partner.key)).status).toBe(200);
    await app.database.pool.query(`UPDATE api_keys SET last_used_at = now() WHERE id = $1`, [partner.id]);
    await app.database.pool.query(`UPDATE users SET last_login_at = now() WHERE id = $1`, [group.users.admin!.id]);
    expect(await authStatements(async () => void (await app.client.get('/inventory', partner.key)))).toEqual([]);
  });
});
