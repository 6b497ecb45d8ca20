import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IdempotentRequests } from '../src/http/idempotency';
import { signingKeyOf, startTestApp, type TestApp } from './helpers/app';
import { createKey } from './helpers/keys';
import { seedGroup, TEST_PASSWORD, type SeededGroup } from './helpers/seed';

/** Idempotent writes by Stripe's rules: one run per caller and key, the first answer again, 422 for another request, 409 while running. */
describe('Idempotency-Key on REST writes', () => {
  // Instances share the secrets key ring, as CREDENTIALS_KEYS does in production.
  const keyRing = { CREDENTIALS_KEYS: `k1:${Buffer.alloc(32, 11).toString('base64')}` };
  let app: TestApp;
  let second: TestApp;
  let group: SeededGroup;
  let other: SeededGroup;
  let admin: string;
  let otherAdmin: string;

  beforeAll(async () => {
    app = await startTestApp(keyRing);
    second = await startTestApp({ ...keyRing, JWT_PRIVATE_KEY: signingKeyOf(app) });
    group = await seedGroup(app.database.prisma);
    other = await seedGroup(app.database.prisma);
    admin = await group.login(app.client);
    otherAdmin = await other.login(app.client);
  });
  afterAll(async () => {
    await second?.stop();
    await app?.stop();
  });

  const send = (
    method: string,
    path: string,
    token: string,
    key: string | null,
    body?: unknown,
    rawBody?: string,
    instance = app,
  ) =>
    instance.client.request(method, `/api/v1${path}`, {
      token,
      body,
      rawBody,
      headers: {
        ...(key === null ? {} : { 'idempotency-key': key }),
        ...(rawBody ? { 'content-type': 'application/json' } : {}),
      },
    });
  const keysNamed = (name: string) => app.database.prisma.apiKey.count({ where: { name } });
  const storedRows = (key: string) =>
    app.database.prisma.$queryRaw<
      Array<{
        caller: string;
        status: number | null;
        sealed_body: string | null;
        body_fingerprint: string;
        path: string;
      }>
    >`SELECT caller, status, sealed_body, body_fingerprint, path FROM idempotent_requests WHERE key = ${key}`;

  it('answers the same key and body with the first answer again, secret included, and creates nothing twice', async () => {
    const key = `create-key-${randomUUID()}`;
    const name = `replayed ${key}`;
    const first = await send('POST', '/api-keys', admin, key, { name, scopes: ['inventory:read', 'calls:read'] });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The same body written another way (other key order, spaces) is the same request, on any instance.
    const again = await send(
      'POST',
      '/api-keys',
      admin,
      key,
      undefined,
      `{ "scopes": ["inventory:read", "calls:read"], "name": ${JSON.stringify(name)} }`,
      second,
    );
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
    expect(again.body).toEqual(first.body);
    expect(await keysNamed(name)).toBe(1);
    // The answer is kept sealed: the key it showed is not in the database in clear.
    const [row] = await storedRows(key);
    expect(row).toMatchObject({ status: 201, path: '/api/v1/api-keys' });
    expect(row!.sealed_body).not.toContain(first.body.key);
    expect(row!.sealed_body).not.toContain(first.body.key.slice(-12));
    // The replayed key works: it is the key that was made.
    expect((await app.client.get('/inventory', again.body.key)).status).toBe(200);
  });

  it('keeps a body holding a password only as a fingerprint', async () => {
    const key = `create-user-${randomUUID()}`;
    const password = `initial ${randomUUID()}`;
    const body = { email: `${key}@example.com`, name: 'Retried Hire', role: 'viewer', password };
    const first = await send('POST', '/admin/users', admin, key, body);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    // Without the key the retry would be a 409 (the email exists); with it, the first answer.
    const again = await send('POST', '/admin/users', admin, key, body);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect((await send('POST', '/admin/users', admin, null, body)).status).toBe(409);
    const stored = JSON.stringify(
      await app.database.prisma.$queryRaw`SELECT * FROM idempotent_requests WHERE key = ${key}`,
    );
    expect(stored).not.toContain(password);
    expect(stored).not.toContain(body.email);
  });

  it('covers PATCH too', async () => {
    const created = await app.client.post(
      '/sources',
      { name: `Patched ${randomUUID()}`, category: 'paid_search' },
      admin,
    );
    const key = `patch-${randomUUID()}`;
    const first = await send('PATCH', `/sources/${created.body.id}`, admin, key, { cost_per_month: '250.00' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    await app.client.request('PATCH', `/api/v1/sources/${created.body.id}`, {
      token: admin,
      body: { cost_per_month: '300.00' },
    });
    const again = await send('PATCH', `/sources/${created.body.id}`, admin, key, { cost_per_month: '250.00' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
  });

  it('refuses the same key with another body, path or method with a 422 that says so', async () => {
    const key = `reused-${randomUUID()}`;
    expect(
      (await send('POST', '/api-keys', admin, key, { name: `first ${key}`, scopes: ['inventory:read'] })).status,
    ).toBe(201);
    const otherBody = await send('POST', '/api-keys', admin, key, {
      name: `second ${key}`,
      scopes: ['inventory:read'],
    });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_REUSED',
      message: expect.stringMatching(
        /^Idempotency-Key: this key was used .* with a different request \(another body\)/,
      ),
      details: { field: 'Idempotency-Key' },
    });
    const otherPath = await send('POST', '/sources', admin, key, { name: `second ${key}`, category: 'paid_search' });
    expect(otherPath.status).toBe(422);
    expect(otherPath.body.error.message).toContain('(POST /api/v1/api-keys)');
    expect(await keysNamed(`second ${key}`)).toBe(0);
    expect(
      (await app.client.get('/sources', admin)).body.sources.map((source: { name: string }) => source.name),
    ).not.toContain(`second ${key}`);
  });

  it("keeps each caller's keys apart: another caller's same key runs its own request and never sees the first answer", async () => {
    const key = `shared-${randomUUID()}`;
    const mine = await send('POST', '/sources', admin, key, { name: `Mine ${key}`, category: 'paid_search' });
    expect(mine.status).toBe(201);
    // Another group's admin, the same key and the same body: its own source, in its own group.
    const theirs = await send('POST', '/sources', otherAdmin, key, { name: `Mine ${key}`, category: 'paid_search' });
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    expect(theirs.body.dealer_group_id).toBe(other.groupId);
    // A key of the first group is another caller too.
    const partner = await createKey(app.client, admin, { name: `writer ${key}`, scopes: ['sources:write'] });
    const partnerFirst = await send('POST', '/sources', partner.key, key, {
      name: `Partner ${key}`,
      category: 'organic_search',
    });
    expect(partnerFirst.status).toBe(201);
    const partnerAgain = await send('POST', '/sources', partner.key, key, {
      name: `Partner ${key}`,
      category: 'organic_search',
    });
    expect(partnerAgain.headers.get('idempotent-replayed')).toBe('true');
    expect(partnerAgain.body.id).toBe(partnerFirst.body.id);
    expect((await storedRows(key)).map((row) => row.caller).sort()).toEqual(
      [`api_key:${partner.id}`, `user:${group.users.admin!.id}`, `user:${other.users.admin!.id}`].sort(),
    );
  });

  it('answers 409 while the first request with the key runs, and runs it again if its instance stopped', async () => {
    const key = `running-${randomUUID()}`;
    const name = `running ${key}`;
    const body = { name, scopes: ['inventory:read'] };
    expect((await send('POST', '/api-keys', admin, key, body)).status).toBe(201);
    // As if the first request were still running on some instance.
    await app.database.prisma
      .$executeRaw`UPDATE idempotent_requests SET status = NULL, sealed_body = NULL, lease_until = now() + interval '1 minute' WHERE key = ${key}`;
    const running = await send('POST', '/api-keys', admin, key, body);
    expect(running.status).toBe(409);
    expect(running.body.error).toMatchObject({
      code: 'IDEMPOTENCY_KEY_IN_USE',
      message: expect.stringContaining('still running'),
      details: { field: 'Idempotency-Key' },
    });
    expect(running.headers.get('retry-after')).toBe('1');
    // Its instance stopped renewing the claim: the next request runs it and keeps that answer.
    await app.database.prisma
      .$executeRaw`UPDATE idempotent_requests SET lease_until = now() - interval '1 second' WHERE key = ${key}`;
    const rerun = await send('POST', '/api-keys', admin, key, body);
    expect(rerun.status).toBe(201);
    expect(rerun.headers.get('idempotent-replayed')).toBeNull();
    expect((await send('POST', '/api-keys', admin, key, body)).body).toEqual(rerun.body);
    expect(await keysNamed(name)).toBe(2);
  });

  it('runs a burst of the same request with one key once: one answer, the others 409 or that answer again', async () => {
    const key = `burst-${randomUUID()}`;
    const name = `burst ${key}`;
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => send('POST', '/api-keys', admin, key, { name, scopes: ['inventory:read'] })),
    );
    const created = answers.filter((answer) => answer.status === 201);
    expect(created.length).toBeGreaterThan(0);
    for (const answer of created) expect(answer.body).toEqual(created[0]!.body);
    for (const answer of answers.filter((answer) => answer.status !== 201))
      expect(answer.body.error.code).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(await keysNamed(name)).toBe(1);
  });

  it('keeps no answer that says nothing ran (400, 403) and none for callers without credentials', async () => {
    const key = `denied-${randomUUID()}`;
    // Refused input: the corrected request may use the same key.
    const name = `corrected ${key}`;
    const invalid = await send('POST', '/api-keys', admin, key, {
      name,
      scopes: ['inventory:read'],
      rateLimitPerHour: 0,
    });
    expect(invalid.status).toBe(400);
    expect(await storedRows(key)).toEqual([]);
    const corrected = await send('POST', '/api-keys', admin, key, { name, scopes: ['inventory:read'] });
    expect(corrected.status).toBe(201);
    await app.database.prisma.$executeRaw`DELETE FROM idempotent_requests WHERE key = ${key}`;
    const reader = await createKey(app.client, admin, { name: `reader ${key}`, scopes: ['inventory:read'] });
    const denied = await send('POST', '/sources', reader.key, key, {
      name: `Denied ${key}`,
      category: 'organic_search',
    });
    expect(denied.status).toBe(403);
    expect(await storedRows(key)).toEqual([]);
    const login = await send('POST', '/auth/login', '', key, {
      email: group.users.admin!.email,
      password: TEST_PASSWORD,
    });
    expect(login.status).toBe(200);
    expect(await storedRows(key)).toEqual([]);
  });

  it('keeps no 5xx answer, so a retry runs again', async () => {
    const requests = new IdempotentRequests({
      db: app.database.prisma,
      secrets: app.services.secrets,
      logger: app.logger,
    });
    const write = {
      caller: `user:${randomUUID()}`,
      key: 'retry-after-failure',
      method: 'POST',
      path: '/api/v1/x',
      body: {},
    };
    let runs = 0;
    const failing = async () => {
      runs += 1;
      return Response.json({ error: { code: 'INTERNAL', message: 'boom' } }, { status: 500 });
    };
    expect((await requests.answer(write, failing))!.status).toBe(500);
    expect((await requests.answer(write, failing))!.status).toBe(500);
    expect(runs).toBe(2);
    const succeeding = async () => {
      runs += 1;
      return Response.json({ ok: true }, { status: 201 });
    };
    expect((await requests.answer(write, succeeding))!.status).toBe(201);
    const replayed = (await requests.answer(write, succeeding))!;
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await replayed.json()).toEqual({ ok: true });
    expect(runs).toBe(3);
    // A run that throws frees the key as well.
    const throwing = async (): Promise<Response> => {
      throw new Error('lost');
    };
    const thrownWrite = { ...write, key: 'thrown' };
    await expect(requests.answer(thrownWrite, throwing)).rejects.toThrow('lost');
    expect((await requests.answer(thrownWrite, succeeding))!.status).toBe(201);
  });

  it('forgets a key after 24 hours: it runs again, and old rows are swept', async () => {
    const key = `expiring-${randomUUID()}`;
    const name = `expiring ${key}`;
    const body = { name, scopes: ['inventory:read'] };
    const first = await send('POST', '/api-keys', admin, key, body);
    await app.database.prisma
      .$executeRaw`UPDATE idempotent_requests SET created_at = now() - interval '24 hours 1 second' WHERE key = ${key}`;
    const later = await send('POST', '/api-keys', admin, key, body);
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
    expect(later.body.key).not.toBe(first.body.key);
    expect(await keysNamed(name)).toBe(2);
    // Even another body may use it now.
    await app.database.prisma
      .$executeRaw`UPDATE idempotent_requests SET created_at = now() - interval '25 hours' WHERE key = ${key}`;
    expect((await send('POST', '/api-keys', admin, key, { ...body, name: `${name} b` })).status).toBe(201);
    // A key nobody sends again is deleted by the sweep every instance runs at start and every 10 minutes.
    await app.database.prisma
      .$executeRaw`UPDATE idempotent_requests SET created_at = now() - interval '25 hours' WHERE key = ${key}`;
    const kept = `kept-${randomUUID()}`;
    expect((await send('POST', '/api-keys', admin, kept, { ...body, name: `${name} c` })).status).toBe(201);
    // This instance lacks the others' key ring: it cannot compare or open what they kept, and says it failed.
    const another = await startTestApp({
      CREDENTIALS_KEYS: `k9:${Buffer.alloc(32, 12).toString('base64')}`,
      JWT_PRIVATE_KEY: signingKeyOf(app),
    });
    try {
      expect(await storedRows(key)).toEqual([]);
      const unreadable = await send(
        'POST',
        '/api-keys',
        admin,
        kept,
        { ...body, name: `${name} c` },
        undefined,
        another,
      );
      expect(unreadable.status).toBe(500);
      expect(unreadable.body.error.code).toBe('INTERNAL');
    } finally {
      await another.stop();
    }
    expect(await keysNamed(`${name} c`)).toBe(1);
  });

  it('refuses a key that is empty, longer than 255 characters or not printable ASCII, naming the header', async () => {
    for (const key of ['', 'k'.repeat(256), 'clé-é']) {
      const answer = await send('POST', '/sources', admin, key, { name: 'Never', category: 'organic_search' });
      expect(answer.status, key).toBe(400);
      expect(answer.body.error).toMatchObject({
        code: 'INVALID_ARGUMENT',
        message: expect.stringMatching(/^Idempotency-Key: /),
        details: { field: 'Idempotency-Key' },
      });
    }
    expect(
      (
        await send('POST', '/sources', admin, 'k'.repeat(255), {
          name: `Long ${randomUUID()}`,
          category: 'organic_search',
        })
      ).status,
    ).toBe(201);
  });
});
