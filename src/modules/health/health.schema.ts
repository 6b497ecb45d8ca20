import { builder } from '../../builder';
import { AppError } from '../../errors';

/** Catalog row 101: liveness and readiness. */

interface Health { status: 'ok'; database: { status: 'ok'; latency_ms: number }; uptime_seconds: number; version: string }

const startedAt = Date.now();
const VERSION = process.env.npm_package_version ?? '0.1.0';

const DatabaseHealth = builder.objectRef<Health['database']>('DatabaseHealth').implement({
  fields: (t) => ({ status: t.exposeString('status'), latency_ms: t.exposeFloat('latency_ms') }),
});

const HealthRef = builder.objectRef<Health>('Health').implement({
  fields: (t) => ({
    status: t.exposeString('status', { description: '"ok" when the server is up and the database answers.' }),
    database: t.field({ type: DatabaseHealth, resolve: (health) => health.database }),
    uptime_seconds: t.exposeInt('uptime_seconds'),
    version: t.exposeString('version'),
  }),
});

builder.queryFields((t) => ({
  health: t.field({
    type: HealthRef,
    description: 'Liveness and readiness: 200 when the database answers, 503 when it does not. No authentication.',
    resolve: async (_root, _args, context) => {
      const started = performance.now();
      try {
        await Promise.race([
          context.db.$queryRaw`SELECT 1`,
          new Promise((_resolve, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref()),
        ]);
      } catch {
        throw new AppError(503, 'SERVICE_UNAVAILABLE', 'database unreachable', { database: 'unreachable' });
      }
      return {
        status: 'ok' as const,
        database: { status: 'ok' as const, latency_ms: Math.round((performance.now() - started) * 100) / 100 },
        uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
        version: VERSION,
      };
    },
  }),
}));
