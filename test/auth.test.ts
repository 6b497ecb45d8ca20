import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, createRemoteJWKSet, exportJWK, generateKeyPair, importPKCS8, jwtVerify, base64url } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, testSigningKey, type TestApp } from './helpers/app';
import { seedGroup, TEST_PASSWORD, type SeededGroup } from './helpers/seed';

describe('authentication (Auth section of docs/operations.md)', () => {
  let app: TestApp;
  let group: SeededGroup;
  let signingPem: string;

  beforeAll(async () => {
    signingPem = await testSigningKey();
    app = await startTestApp({ JWT_PRIVATE_KEY: signingPem });
    group = await seedGroup(app.database.prisma, { users: { admin: 'admin', viewer: 'viewer' } });
  });
  afterAll(() => app?.stop());

  const sign = async (
    claims: Record<string, unknown>,
    options: { issuer?: string; audience?: string; expiresAt?: number } = {},
  ) => {
    const key = await importPKCS8(signingPem, 'RS256');
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256' })
      .setSubject(group.users.admin!.id)
      .setIssuer(options.issuer ?? app.config.jwt.issuer)
      .setAudience(options.audience ?? app.config.jwt.audience)
      .setIssuedAt()
      .setExpirationTime(options.expiresAt ?? Math.floor(Date.now() / 1000) + 600)
      .sign(key);
  };

  it('logs in with the documented body and returns an RS256 token verifiable through the JWKS, plus a refresh token', async () => {
    const response = await app.client.post('/auth/login', {
      email: group.users.admin!.email.toUpperCase(),
      password: TEST_PASSWORD,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      refresh_token: expect.stringMatching(/^rt_/),
    });
    expect(response.body.expires_in).toBeGreaterThan(890);
    expect(response.body.expires_in).toBeLessThanOrEqual(900);
    const { payload, protectedHeader } = await jwtVerify(
      response.body.token,
      createRemoteJWKSet(new URL(`${app.url}/.well-known/jwks.json`)),
      {
        issuer: app.config.jwt.issuer,
        audience: app.config.jwt.audience,
      },
    );
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ sub: group.users.admin!.id, role: 'admin', groups: [group.groupId] });
    expect(response.body.user).toMatchObject({ email: group.users.admin!.email, role: 'admin' });
  });

  it('refuses a wrong password and an unknown account alike, and names a missing field', async () => {
    const wrong = await app.client.post('/auth/login', { email: group.users.admin!.email, password: 'nope' });
    const unknown = await app.client.post('/auth/login', { email: 'nobody@example.com', password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');
    const missing = await app.client.post('/auth/login', { email: group.users.admin!.email });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain('password');
  });

  it('rotates refresh tokens, and reuse of a spent one revokes the whole family', async () => {
    const login = await app.client.post('/auth/login', { email: group.users.viewer!.email, password: TEST_PASSWORD });
    const first = login.body.refresh_token;
    const second = await app.client.post('/auth/refresh', { refresh_token: first });
    expect(second.status).toBe(200);
    expect(second.body.refresh_token).not.toBe(first);
    const third = await app.client.post('/auth/refresh', { refresh_token: second.body.refresh_token });
    expect(third.status).toBe(200);

    const replay = await app.client.post('/auth/refresh', { refresh_token: first });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe('REFRESH_TOKEN_REUSED');
    // The newest token of the family is now dead too.
    const afterReuse = await app.client.post('/auth/refresh', { refresh_token: third.body.refresh_token });
    expect(afterReuse.status).toBe(401);
    // Another login is a separate family and still works.
    const other = await app.client.post('/auth/login', { email: group.users.viewer!.email, password: TEST_PASSWORD });
    expect((await app.client.post('/auth/refresh', { refresh_token: other.body.refresh_token })).status).toBe(200);
  });

  it('refuses an unknown refresh token and a missing one', async () => {
    expect((await app.client.post('/auth/refresh', { refresh_token: 'rt_forged' })).status).toBe(401);
    expect((await app.client.post('/auth/refresh', {})).status).toBe(400);
  });

  it('logout revokes the refresh token', async () => {
    const login = await app.client.post('/auth/login', { email: group.users.admin!.email, password: TEST_PASSWORD });
    const logout = await app.client.request('POST', '/api/v1/auth/logout', {
      token: login.body.token,
      body: { refresh_token: login.body.refresh_token },
    });
    expect(logout.status).toBe(200);
    expect(logout.body.revoked).toBe(1);
    expect((await app.client.post('/auth/refresh', { refresh_token: login.body.refresh_token })).status).toBe(401);
    expect((await app.client.post('/auth/logout', {})).status).toBe(401);
  });

  it('GET /auth/me returns the profile, role, dealer groups and scopes', async () => {
    const token = await group.login(app.client, 'viewer');
    const me = await app.client.get('/auth/me', token);
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe(group.users.viewer!.email);
    expect(me.body.role).toBe('viewer');
    expect(me.body.dealer_groups.map((dealerGroup: { id: string }) => dealerGroup.id)).toEqual([group.groupId]);
    expect(me.body.scopes).toContain('inventory:read');
    expect(me.body.scopes).not.toContain('admin');
  });

  it('accepts a token it signed and refuses forged, expired, misaddressed and unsigned ones with 401', async () => {
    expect((await app.client.get('/auth/me', await sign({}))).status).toBe(200);
    const cases: Record<string, string> = {
      expired: await sign({}, { expiresAt: Math.floor(Date.now() / 1000) - 60 }),
      'wrong issuer': await sign({}, { issuer: 'https://evil.example' }),
      'wrong audience': await sign({}, { audience: 'someone-else' }),
      'alg none': `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${base64url.encode(JSON.stringify({ sub: group.users.admin!.id, iss: app.config.jwt.issuer, aud: app.config.jwt.audience, exp: Math.floor(Date.now() / 1000) + 600 }))}.`,
      HS256: await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(group.users.admin!.id)
        .setIssuer(app.config.jwt.issuer)
        .setAudience(app.config.jwt.audience)
        .setExpirationTime('10m')
        .sign(new TextEncoder().encode(signingPem)),
      'other key': await (async () => {
        const { privateKey } = await generateKeyPair('RS256');
        return new SignJWT({})
          .setProtectedHeader({ alg: 'RS256' })
          .setSubject(group.users.admin!.id)
          .setIssuer(app.config.jwt.issuer)
          .setAudience(app.config.jwt.audience)
          .setExpirationTime('10m')
          .sign(privateKey);
      })(),
      garbage: 'not-a-jwt',
    };
    for (const [name, token] of Object.entries(cases)) {
      const response = await app.client.get('/auth/me', token);
      expect(response.status, name).toBe(401);
      expect(response.body.error.code, name).toBe('UNAUTHENTICATED');
    }
    const graphql = await app.client.graphql('{ me { role } }', {}, cases.expired);
    expect(graphql.status).toBe(401);
  });

  it('refuses a token it accepted a moment ago once the token expires', async () => {
    // Verified signatures are remembered; never past the token's own expiry.
    const expiresAt = Math.floor(Date.now() / 1000) + 2;
    const token = await sign({}, { expiresAt });
    expect((await app.client.get('/auth/me', token)).status).toBe(200);
    expect((await app.client.get('/auth/me', token)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, expiresAt * 1000 - Date.now() + 50));
    const late = await app.client.get('/auth/me', token);
    expect(late.status).toBe(401);
    expect(late.body.error.message).toContain('expired');
  });
});

describe('external identity provider (JWT_JWKS_URL)', () => {
  let app: TestApp;
  let group: SeededGroup;
  let idp: Server;
  let signIdpToken: (claims: Record<string, unknown>) => Promise<string>;

  beforeAll(async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'idp-1', alg: 'RS256', use: 'sig' };
    idp = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })),
    );
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    const jwksUrl = `http://127.0.0.1:${(idp.address() as AddressInfo).port}/jwks.json`;
    signIdpToken = (claims) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'idp-1' })
        .setIssuer('https://idp.example')
        .setAudience('ddp')
        .setSubject('idp-user-1')
        .setExpirationTime('5m')
        .sign(privateKey);
    app = await startTestApp({ JWT_JWKS_URL: jwksUrl, JWT_ISSUER: 'https://idp.example', JWT_AUDIENCE: 'ddp' });
    group = await seedGroup(app.database.prisma, { users: { analyst: 'analyst' } });
  });
  afterAll(async () => {
    await app?.stop();
    idp?.close();
  });

  it("accepts the provider's tokens for a known account and refuses others", async () => {
    const me = await app.client.get('/auth/me', await signIdpToken({ email: group.users.analyst!.email }));
    expect(me.status).toBe(200);
    expect(me.body.role).toBe('analyst');
    expect((await app.client.get('/auth/me', await signIdpToken({ email: 'stranger@example.com' }))).status).toBe(401);
  });

  it('sends password logins to the provider', async () => {
    const response = await app.client.post('/auth/login', {
      email: group.users.analyst!.email,
      password: TEST_PASSWORD,
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('EXTERNAL_IDENTITY_PROVIDER');
  });
});
