import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';

describe('dealers (Dealers section of docs/operations.md)', () => {
  let app: TestApp;
  let group: SeededGroup;
  let other: SeededGroup;
  let admin: string;
  let viewer: string;

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma, { dealers: 1, users: { admin: 'admin', viewer: 'viewer' } });
    other = await seedGroup(app.database.prisma, { dealers: 1 });
    admin = await group.login(app.client, 'admin');
    viewer = await group.login(app.client, 'viewer');
  });
  afterAll(() => app?.stop());

  it('creates, reads, changes and archives a dealer profile', async () => {
    const created = await app.client.post(
      '/dealers',
      {
        name: 'Mile High Chevrolet',
        code: 'mhc',
        street: '5800 S Broadway',
        city: 'Littleton',
        state: 'CO',
        postal_code: '80121',
        phone: '(303) 555-0110',
        website: 'milehighchevy.com',
        time_zone: 'America/Denver',
        franchises: ['Chevrolet'],
        external_ids: { dms: 'CDK-1234', crm: 'VIN-88' },
      },
      admin,
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      code: 'MHC',
      phone: '+13035550110',
      website: 'https://milehighchevy.com',
      franchises: ['Chevrolet'],
      external_ids: { dms: 'CDK-1234', crm: 'VIN-88' },
      archived_at: null,
    });
    const id = created.body.id;
    expect((await app.client.get(`/dealers/${id}`, viewer)).body.name).toBe('Mile High Chevrolet');
    const changed = await app.client.request('PATCH', `/api/v1/dealers/${id}`, {
      token: admin,
      body: { phone: '303 555 0199', franchises: ['Chevrolet', 'Buick'] },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      phone: '+13035550199',
      franchises: ['Chevrolet', 'Buick'],
      name: 'Mile High Chevrolet',
    });
    expect((await app.client.post('/dealers', { name: 'Again', code: 'MHC' }, admin)).status).toBe(409);
    const archived = await app.client.request('DELETE', `/api/v1/dealers/${id}`, { token: admin });
    expect(archived.status).toBe(200);
    expect(archived.body.archived_at).not.toBeNull();
    expect((await app.client.request('DELETE', `/api/v1/dealers/${id}`, { token: admin })).status).toBe(409);
    const list = await app.client.get('/dealers', viewer);
    expect(list.body.dealers.map((dealer: { id: string }) => dealer.id)).not.toContain(id);
    expect(
      (await app.client.get('/dealers?include_archived=true', viewer)).body.dealers.map(
        (dealer: { id: string }) => dealer.id,
      ),
    ).toContain(id);
  });

  it('lists by name, finding a rooftop by part of its name or an alias or by its whole code, any case', async () => {
    const made = async (name: string, code: string) =>
      (await app.client.post('/dealers', { name, code }, admin)).body.id as string;
    const peak = await made('Pikes Peak 50% Off Motors', 'PPK');
    const range = await made('Front_Range Toyota', 'FRT');
    const plain = await made('Front Range Honda', 'FRH');
    const coded = await made('Cherry Creek Kia', 'C_K');
    await app.client.post(`/dealers/${plain}/aliases`, { alias: 'Boulder Valley Auto' }, admin);
    const found = async (q: string) =>
      (await app.client.get(`/dealers?q=${encodeURIComponent(q)}&limit=500`, viewer)).body as {
        dealers: Array<{ id: string; name: string }>;
        pagination: { total: number };
      };
    expect((await found('front')).dealers.map((dealer) => dealer.id)).toEqual([plain, range]);
    // % and _ are themselves, not patterns.
    expect((await found('50%')).dealers.map((dealer) => dealer.id)).toEqual([peak]);
    expect((await found('t_r')).dealers.map((dealer) => dealer.id)).toEqual([range]);
    expect((await found('nt_R')).dealers.map((dealer) => dealer.id)).toEqual([range]);
    expect((await found('valley')).dealers.map((dealer) => dealer.id)).toEqual([plain]);
    expect((await found('frt')).dealers.map((dealer) => dealer.id)).toEqual([range]);
    expect((await found('c_k')).dealers.map((dealer) => dealer.id)).toEqual([coded]);
    expect((await found('%')).dealers.map((dealer) => dealer.id)).toEqual([peak]);
    expect((await found('_')).dealers.map((dealer) => dealer.id)).toEqual([range]); // C_K's code is more than "_"
    expect((await found('FR')).pagination.total).toBe(2); // "Front…" twice by name; code FR is no one's whole code
    expect((await found('Honda')).pagination.total).toBe(1);
    // Another group's rooftops are never found.
    const theirs = (await app.client.get(`/dealers/${other.dealerIds[0]}`, admin)).status;
    expect(theirs).toBe(404);
    const page = (await app.client.get('/dealers?q=front&limit=1&offset=1', viewer)).body;
    expect(page.dealers.map((dealer: { id: string }) => dealer.id)).toEqual([range]);
    expect(page.pagination).toEqual({ total: 2, limit: 1, offset: 1 });
    const past = (await app.client.get('/dealers?q=front&limit=5&offset=10', viewer)).body;
    expect(past).toEqual({ dealers: [], pagination: { total: 2, limit: 5, offset: 10 } });
    for (const id of [peak, range, plain])
      await app.client.request('DELETE', `/api/v1/dealers/${id}`, { token: admin });
    expect((await found('front')).pagination.total).toBe(0);
  });

  it.each([
    [{ name: '', code: 'X' }, 'name'],
    [{ name: 'X' }, 'code'],
    [{ name: 'X', code: 'Y', phone: '12' }, 'phone'],
    [{ name: 'X', code: 'Y', website: 'not a site' }, 'website'],
    [{ name: 'X', code: 'Y', time_zone: 'Mars/Olympus' }, 'time_zone'],
    [{ name: 'X', code: 'Y', external_ids: { DMS: 5 } }, 'external_ids'],
    [{ name: 'X', code: 'Y', external_ids: [1] }, 'external_ids'],
  ])('refuses %j naming %s', async (body, field) => {
    const response = await app.client.post('/dealers', body, admin);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain(field);
  });

  it('needs dealers:write to change dealers', async () => {
    expect((await app.client.post('/dealers', { name: 'X', code: 'Y' }, viewer)).status).toBe(403);
  });

  it('keeps aliases and matches on them', async () => {
    const dealerId = group.dealerIds[0]!;
    const added = await app.client.post(
      `/dealers/${dealerId}/aliases`,
      { alias: 'Front Range Motor Co', system: 'crm' },
      admin,
    );
    expect(added.status).toBe(201);
    expect(
      (await app.client.post(`/dealers/${dealerId}/aliases`, { alias: 'Front Range Motor Co' }, admin)).status,
    ).toBe(409);
    const aliases = await app.client.get(`/dealers/${dealerId}/aliases`, viewer);
    expect(aliases.body.aliases).toEqual([expect.objectContaining({ alias: 'Front Range Motor Co', system: 'crm' })]);
    const match = await app.client.post('/dealers/match', { name: 'FRONT RANGE MOTOR COMPANY, LLC' }, viewer);
    expect(match.status).toBe(200);
    expect(match.body.candidates[0].dealer.id).toBe(dealerId);
    expect(match.body.candidates[0].reasons[0]).toContain('alias');
    const removed = await app.client.request('DELETE', `/api/v1/dealers/${dealerId}/aliases/${added.body.id}`, {
      token: admin,
    });
    expect(removed.body).toEqual({ id: added.body.id, deleted: true });
    expect(
      (await app.client.request('DELETE', `/api/v1/dealers/${dealerId}/aliases/${added.body.id}`, { token: admin }))
        .status,
    ).toBe(404);
  });

  it('ranks the fixture dealers through the API', async () => {
    const fixture = JSON.parse(readFileSync('test/fixtures/dealer-matching.json', 'utf8')) as {
      dealers: Array<Record<string, unknown>>;
      inputs: Array<{ input: Record<string, string>; expected: string }>;
    };
    const scoped = await seedGroup(app.database.prisma, { dealers: 0 });
    const token = await scoped.login(app.client);
    for (const dealer of fixture.dealers) {
      const { postalCode, aliases, ...rest } = dealer as { postalCode: string; aliases: string[] } & Record<
        string,
        unknown
      >;
      const created = await app.client.post('/dealers', { ...rest, postal_code: postalCode }, token);
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      for (const alias of aliases) await app.client.post(`/dealers/${created.body.id}/aliases`, { alias }, token);
    }
    let hits = 0;
    for (const { input, expected } of fixture.inputs) {
      const response = await app.client.post('/dealers/match', input, token);
      if (response.body.candidates[0]?.dealer.code === expected) hits += 1;
    }
    expect(hits / fixture.inputs.length).toBeGreaterThanOrEqual(0.9);
    expect((await app.client.post('/dealers/match', {}, token)).status).toBe(400);
  });

  it("answers 404 for another group's dealer", async () => {
    const theirs = other.dealerIds[0]!;
    expect((await app.client.get(`/dealers/${theirs}`, admin)).status).toBe(404);
    expect(
      (await app.client.request('PATCH', `/api/v1/dealers/${theirs}`, { token: admin, body: { name: 'Mine now' } }))
        .status,
    ).toBe(404);
    expect((await app.client.request('DELETE', `/api/v1/dealers/${theirs}`, { token: admin })).status).toBe(404);
    expect((await app.client.get(`/dealers/${theirs}/aliases`, admin)).status).toBe(404);
    expect((await app.client.get('/dealers/not-an-id', admin)).status).toBe(404);
  });
});
