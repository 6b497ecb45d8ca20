import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';

/**
 * Slow queries are bounded: a request statement past STATEMENT_TIMEOUT_MS is cancelled with a 503 in
 * the error shape, and /health says "degraded" (200) when the database is slow rather than failing.
 * A statement is made slow deterministically by holding a lock on the row it must change. Only a
 * PostgreSQL server can cancel a statement: the embedded engine runs every client in one session.
 */
const external = inject('externalDatabase');
if (!external) console.log('skipped: statement timeouts need a PostgreSQL server (DATABASE_URL; CI sets it)');

describe.skipIf(!external)('bounded time on PostgreSQL', () => {
  let app: TestApp;
  let group: SeededGroup;
  let token: string;
  let locker: pg.Client;
  let observer: pg.Client;

  beforeAll(async () => {
    app = await startTestApp({ STATEMENT_TIMEOUT_MS: '700' });
    group = await seedGroup(app.database.prisma);
    token = await group.login(app.client);
    locker = new pg.Client({ connectionString: inject('databaseUrl') });
    await locker.connect();
    observer = new pg.Client({ connectionString: inject('databaseUrl') });
    await observer.connect();
  });
  afterAll(async () => {
    await locker?.end();
    await observer?.end();
    await app?.stop();
  });

  /** Holds the dealer row locked (as a long report or a stuck transaction would) while `work` runs. */
  async function whileLocked<T>(dealerId: string, work: () => Promise<T>): Promise<T> {
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM dealers WHERE id = $1 FOR UPDATE', [dealerId]);
    try {
      return await work();
    } finally {
      await locker.query('ROLLBACK');
    }
  }

  it('cancels a request statement that runs past the statement timeout with a 503', async () => {
    const dealerId = group.dealerIds[0]!;
    const started = Date.now();
    const response = await whileLocked(dealerId, () =>
      app.client.request('PATCH', `/api/v1/dealers/${dealerId}`, { token, body: { name: 'Renamed while locked' } }),
    );
    expect(response.status).toBe(503);
    expect(response.body.error.code).toBe('QUERY_TIMEOUT');
    expect(response.headers.get('retry-after')).toBe('5');
    expect(Date.now() - started).toBeLessThan(5000);
    const after = await app.client.request('PATCH', `/api/v1/dealers/${dealerId}`, {
      token,
      body: { name: 'Renamed after' },
    });
    expect(after.status).toBe(200);
  });

  it('reports degraded, not unavailable, while every connection is busy', async () => {
    // A second server whose statement timeout outlasts the probe's 2 s deadline, so the pool stays full while it waits.
    const busy = await startTestApp({ STATEMENT_TIMEOUT_MS: '6000' });
    try {
      const dealerId = group.dealerIds[1]!;
      const busyToken = await group.login(busy.client);
      // Twenty writers wait on the lock, twice the pool. The probe is sent only once PostgreSQL shows the
      // pool's ten connections waiting on that lock, so it cannot find a free one however busy the machine is.
      await locker.query('BEGIN');
      await locker.query('SELECT id FROM dealers WHERE id = $1 FOR UPDATE', [dealerId]);
      const writers = Array.from({ length: 20 }, (_, index) =>
        busy.client.request('PATCH', `/api/v1/dealers/${dealerId}`, {
          token: busyToken,
          body: { name: `Busy ${index}` },
        }),
      );
      let health: Awaited<ReturnType<TestApp['client']['get']>>;
      try {
        await waitForDealerWriters(10);
        health = await busy.client.get('/health');
      } finally {
        await locker.query('ROLLBACK');
        await Promise.all(writers);
      }
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'degraded', database: { status: 'slow' } });
    } finally {
      await busy.stop();
    }
  });

  /** Waits until `count` sessions are blocked on a lock while changing a dealer. */
  async function waitForDealerWriters(count: number): Promise<void> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const { rows } = await observer.query<{ waiting: number }>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE '%UPDATE%dealers%'`,
      );
      if (rows[0]!.waiting >= count) return;
      if (Date.now() > deadline) throw new Error(`only ${rows[0]!.waiting} sessions waited on the lock`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
});
