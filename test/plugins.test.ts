import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup } from './helpers/seed';

describe('plugins (Plugins section of docs/operations.md)', () => {
  let app: TestApp;
  let token: string;
  let viewer: string;

  beforeAll(async () => {
    app = await startTestApp();
    const group = await seedGroup(app.database.prisma, { users: { admin: 'admin', viewer: 'viewer' } });
    token = await group.login(app.client, 'admin');
    viewer = await group.login(app.client, 'viewer');
  });
  afterAll(() => app?.stop());

  it('lists plugins by category with their delivery and capabilities', async () => {
    const all = await app.client.get('/plugins', token);
    expect(all.status).toBe(200);
    expect(all.body.pagination.total).toBeGreaterThanOrEqual(7);
    expect(new Set(all.body.plugins.map((plugin: { category: string }) => plugin.category))).toEqual(
      new Set(['inventory', 'crm', 'dms', 'call_tracking']),
    );
    const inventory = await app.client.get('/plugins?category=inventory', token);
    expect(inventory.body.plugins.map((plugin: { key: string }) => plugin.key).sort()).toEqual([
      'custom_inventory_csv',
      'homenet_inventory_csv',
      'inventory_json_api',
      'vauto_inventory_csv',
    ]);
    expect((await app.client.get('/plugins?category=weather', token)).status).toBe(400);
    expect((await app.client.get('/plugins', viewer)).status).toBe(403);
  });

  it("shows a plugin's configuration schema", async () => {
    const plugin = await app.client.get('/plugins/inventory_json_api', token);
    expect(plugin.body).toMatchObject({
      key: 'inventory_json_api',
      category: 'inventory',
      delivery: 'http_pull',
      formats: ['json'],
    });
    expect(plugin.body.config_schema.find((field: { name: string }) => field.name === 'url')).toMatchObject({
      type: 'url',
      required: true,
    });
    expect(plugin.body.config_schema.find((field: { name: string }) => field.name === 'api_key')).toMatchObject({
      secret: true,
    });
    expect((await app.client.get('/plugins/nope', token)).status).toBe(404);
  });

  it('validates a configuration field by field', async () => {
    const good = await app.client.post(
      '/plugins/inventory_json_api/validate',
      { config: { url: 'https://feeds.example.com/inventory', page_size: 200 } },
      token,
    );
    expect(good.body).toEqual({ plugin: 'inventory_json_api', valid: true, errors: [] });
    const bad = await app.client.post(
      '/plugins/inventory_json_api/validate',
      {
        config: {
          url: 'http://user:pw@feeds.example.com',
          page_size: 5000,
          schedule_minutes: 'hourly',
          api_key: 'secret',
          colour: 'red',
        },
      },
      token,
    );
    expect(bad.body.valid).toBe(false);
    expect(
      Object.fromEntries(
        bad.body.errors.map((error: { field: string; message: string }) => [error.field, error.message]),
      ),
    ).toMatchObject({
      url: 'must use https',
      page_size: 'must be from 1 to 1000',
      schedule_minutes: 'must be a whole number',
      api_key: expect.stringContaining('credentials'),
      colour: expect.stringContaining('not a setting'),
    });
    const missing = await app.client.post(
      '/plugins/call_tracking_csv/validate',
      { config: { delimiter: 'semicolon' } },
      token,
    );
    expect(missing.body.errors).toEqual(
      expect.arrayContaining([
        { field: 'provider', message: 'is required' },
        { field: 'delimiter', message: 'must be one of auto, comma, tab, pipe' },
      ]),
    );
    expect((await app.client.post('/plugins/nope/validate', { config: {} }, token)).status).toBe(404);
    expect((await app.client.post('/plugins/inventory_json_api/validate', {}, token)).status).toBe(400);
  });
});
