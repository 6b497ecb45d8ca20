import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signingKeyOf, startTestApp, type TestApp } from './helpers/app';
import { createKey } from './helpers/keys';
import { seedGroup, type SeededGroup } from './helpers/seed';

/** Two server instances on one PostgreSQL, as behind a load balancer. */
describe('several instances', () => {
  let first: TestApp;
  let second: TestApp;
  let group: SeededGroup;
  let admin: string;
  const redisUrl = process.env.REDIS_URL;

  beforeAll(async () => {
    first = await startTestApp(redisUrl ? { REDIS_URL: redisUrl } : {});
    second = await startTestApp({ JWT_PRIVATE_KEY: signingKeyOf(first), ...(redisUrl ? { REDIS_URL: redisUrl } : {}) });
    group = await seedGroup(first.database.prisma, { vehicles: [{}] });
    admin = await group.login(first.client);
  });
  afterAll(async () => {
    await first?.stop();
    await second?.stop();
  });

  it('a key revoked on one instance gets 401 on the next request to the other', async () => {
    const partner = await createKey(first.client, admin, { name: 'everywhere' });
    expect((await second.client.get('/inventory', partner.key)).status).toBe(200);
    expect((await first.client.request('DELETE', `/api/v1/api-keys/${partner.id}`, { token: admin })).status).toBe(200);
    expect((await second.client.get('/inventory', partner.key)).status).toBe(401);
  });

  it.skipIf(!redisUrl)('shares one budget through Redis: exactly the limit gets through concurrent requests to both', async () => {
    const limit = 20;
    const partner = await createKey(first.client, admin, { name: 'shared budget', rateLimitPerHour: limit });
    const responses = await Promise.all(Array.from({ length: 50 }, (_, index) => (index % 2 ? first : second).client.get('/inventory?limit=1', partner.key)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(limit);
    expect(statuses.filter((status) => status === 429)).toHaveLength(50 - limit);
    const remaining = responses.filter((response) => response.status === 200).map((response) => Number(response.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
    expect(remaining).toEqual(Array.from({ length: limit }, (_, index) => index));
  });

  if (!redisUrl) console.log('skipped: the shared Redis budget test needs REDIS_URL (CI sets it)');
});
