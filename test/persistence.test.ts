import { describe, expect, it } from 'vitest';
import { startTestApp } from './helpers/app';

describe('embedded database', () => {
  it('seeds demo data on first start and keeps data, keys and sessions across a restart', async () => {
    const env = {
      SEED_DEMO_DATA: 'true',
      DEMO_VEHICLES: '60',
      ADMIN_EMAIL: 'owner@example.com',
      ADMIN_PASSWORD: 'a-long-dev-passphrase',
    };
    const first = await startTestApp(env, { ownDatabase: true });
    const login = await first.client.post('/auth/login', {
      email: 'owner@example.com',
      password: 'a-long-dev-passphrase',
    });
    expect(login.status).toBe(200);
    const before = await first.client.get('/inventory?limit=5&sort=vin', login.body.token);
    expect(before.body.pagination.total).toBe(60);
    await first.stop();

    const second = await startTestApp({ ...env, DATA_DIR: first.dataDir }, { ownDatabase: true });
    try {
      // Same signing key: the token issued before the restart still works; no second demo group.
      const after = await second.client.get('/inventory?limit=5&sort=vin', login.body.token);
      expect(after.status).toBe(200);
      expect(after.body).toEqual(before.body);
      expect(await second.database.prisma.dealerGroup.count()).toBe(1);
      expect((await second.client.post('/auth/refresh', { refresh_token: login.body.refresh_token })).status).toBe(200);
    } finally {
      await second.stop();
    }
  }, 120_000);
});
