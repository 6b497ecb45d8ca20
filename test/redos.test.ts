import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';

/**
 * Tenant patterns cannot stall the server: on V8's backtracking engine `((a)+)+$` against 25
 * characters held the event loop for seconds, and /health waited with it. They run on RE2 now.
 */
describe('patterns tenants write cannot stall the server', () => {
  let app: TestApp;
  let group: SeededGroup;
  let admin: string;

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma);
    admin = await group.login(app.client);
  });
  afterAll(() => app?.stop());

  /** Runs `work` while asking /health every few milliseconds; returns each health answer's own latency. */
  async function healthWhile(work: Promise<unknown>): Promise<number[]> {
    const latencies: number[] = [];
    let done = false;
    void work.finally(() => {
      done = true;
    });
    while (!done) {
      const started = performance.now();
      const response = await app.client.get('/health');
      expect(response.status).toBe(200);
      latencies.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return latencies;
  }

  it.each(['((a)+)+$', '(a|a?)+$', '(x+x+)+y'])(
    'dry-runs %s over long values quickly while /health keeps answering',
    async (pattern) => {
      const rules = [
        {
          name: 'evil match',
          conditions: [{ field: 'make', operator: 'matches', value: pattern }],
          action: { type: 'flag', message: 'matched' },
        },
        { name: 'evil replace', action: { type: 'regex_replace', field: 'model', pattern, replacement: '' } },
      ];
      // Warm the code paths once, so what is measured is the patterns, not the first compile of the code.
      expect(
        (
          await app.client.post(
            '/transformation-rules/test',
            { records: [{ make: 'a'.repeat(25) + '!', model: 'x' }], rules },
            admin,
          )
        ).status,
      ).toBe(200);
      await app.client.get('/health');
      const records = Array.from({ length: 100 }, (_, index) => ({
        make: `${'a'.repeat(25 + (index % 10))}!`,
        model: 'x'.repeat(2000),
      }));
      const started = performance.now();
      const dryRun = app.client.post('/transformation-rules/test', { records, rules }, admin);
      // The server runs in this process: its event loop's delay is what every other request would wait.
      const loop = monitorEventLoopDelay({ resolution: 5 });
      loop.enable();
      const latencies = await healthWhile(dryRun);
      loop.disable();
      const response = await dryRun;
      expect(response.status).toBe(200);
      expect(response.body.records).toHaveLength(100);
      expect(performance.now() - started).toBeLessThan(5000);
      // Backtracking took seconds at 25 characters and doubles with each one more; the bounds leave room for a busy machine.
      expect(loop.max / 1e6, 'longest event-loop stall, ms').toBeLessThan(1000);
      // Each /health also waits for the database, which a busy machine slows: the typical answer must be fast.
      const sorted = [...latencies].sort((a, b) => a - b);
      expect(
        sorted[Math.floor(sorted.length / 2)],
        latencies.map((latency) => latency.toFixed(1)).join(', '),
      ).toBeLessThan(500);
    },
  );

  it('refuses patterns that need backtracking (back-references, lookaround), naming the field', async () => {
    const response = await app.client.post(
      '/transformation-rules/test',
      {
        records: [{ make: 'aa' }],
        rules: [
          {
            name: 'backref',
            conditions: [{ field: 'make', operator: 'matches', value: '(a)\\1' }],
            action: { type: 'flag', message: 'x' },
          },
        ],
      },
      admin,
    );
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain('rules[0].conditions[0].value');
  });

  it('resolves source-mapping patterns fast, and refuses back-references', async () => {
    const source = await app.client.post(
      '/sources',
      { name: `Evil ${Date.now()}`, category: 'third_party_listing' },
      admin,
    );
    expect(source.status, JSON.stringify(source.body)).toBe(201);
    const evil = await app.client.post(
      '/sources/mappings',
      { source_id: source.body.id, raw_value: '((a)+)+$', match: 'pattern' },
      admin,
    );
    expect(evil.status, JSON.stringify(evil.body)).toBeLessThan(300);
    const started = performance.now();
    const resolved = await app.client.post(
      '/sources/resolve',
      { raw_values: [`${'a'.repeat(30)}!`, 'a'.repeat(200)] },
      admin,
    );
    expect(resolved.status, JSON.stringify(resolved.body)).toBeLessThan(500);
    expect(performance.now() - started).toBeLessThan(5000);
    const backReference = await app.client.post(
      '/sources/mappings',
      { source_id: source.body.id, raw_value: '(a)\\1', match: 'pattern' },
      admin,
    );
    expect(backReference.status).toBe(400);
    expect(backReference.body.error.message).toContain('raw_value');
  });
});
