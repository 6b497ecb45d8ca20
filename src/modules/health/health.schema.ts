import { builder } from '../../builder';
import { AppError } from '../../errors';
import { restOperations } from '../../http/operations';
import { VERSION } from '../../project-root';

const operation = restOperations('Administration');

/** GET /health (Administration section of docs/operations.md): liveness and readiness. */

interface Health {
  status: 'ok' | 'degraded';
  database: { status: 'ok' | 'slow'; latency_ms: number };
  uptime_seconds: number;
  version: string;
}

/** A probe slower than this reports the database slow; one that has not answered by the deadline stops waiting. */
const SLOW_MS = 500;
const PROBE_DEADLINE_MS = 2000;

const startedAt = Date.now();

const DatabaseHealth = builder.objectRef<Health['database']>('DatabaseHealth').implement({
  fields: (t) => ({ status: t.exposeString('status'), latency_ms: t.exposeFloat('latency_ms') }),
});

const HealthRef = builder.objectRef<Health>('Health').implement({
  fields: (t) => ({
    status: t.exposeString('status', {
      description:
        '"ok" when the server is up and the database answers promptly; "degraded" when it answers slowly (or not within 2 s) but is reachable.',
    }),
    database: t.field({ type: DatabaseHealth, resolve: (health) => health.database }),
    uptime_seconds: t.exposeInt('uptime_seconds'),
    version: t.exposeString('version'),
  }),
});

builder.queryFields((t) => ({
  health: t.field({
    ...operation('GET /health', 'Health', { public: true }),
    type: HealthRef,
    description:
      'Liveness and readiness: 200 "ok", or 200 "degraded" when the database is slow (busy, not down); 503 when it cannot be reached. No authentication.',
    resolve: async (_root, _args, context) => {
      const started = performance.now();
      const probe = context.db.$queryRaw`SELECT 1`.then(() => true);
      // A probe that fails after the deadline has passed must not become an unhandled rejection.
      probe.catch(() => {});
      let answered: boolean;
      try {
        answered = await Promise.race([
          probe,
          new Promise<false>((resolve) => setTimeout(() => resolve(false), PROBE_DEADLINE_MS).unref()),
        ]);
      } catch {
        throw new AppError(503, 'SERVICE_UNAVAILABLE', 'database unreachable', { database: 'unreachable' });
      }
      const latency = performance.now() - started;
      const slow = !answered || latency > SLOW_MS;
      return {
        status: slow ? ('degraded' as const) : ('ok' as const),
        database: { status: slow ? ('slow' as const) : ('ok' as const), latency_ms: Math.round(latency * 100) / 100 },
        uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
        version: VERSION,
      };
    },
  }),
}));
