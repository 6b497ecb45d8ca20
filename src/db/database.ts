import { createHash } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client';
import { startEmbeddedPostgres } from './embedded';

export type Db = PrismaClient;

/** A PostgreSQL server to talk to: the configured one, or the embedded one we started. */
export interface DatabaseServer {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

/** Uses DATABASE_URL when given; otherwise starts the embedded PostgreSQL under DATA_DIR/postgres. */
export async function openDatabaseServer(options: { databaseUrl: string | null; dataDir: string | null }): Promise<DatabaseServer> {
  if (options.databaseUrl) return { url: options.databaseUrl, embedded: false, stop: async () => {} };
  const embedded = await startEmbeddedPostgres(options.dataDir ? path.join(options.dataDir, 'postgres') : null);
  return { url: embedded.url, embedded: true, stop: embedded.stop };
}

/** The application's connections: Prisma for most work, the pg pool for bulk paths and raw checks. */
export interface Database {
  prisma: PrismaClient;
  pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * Names prepared statements by their SQL, so each connection parses and plans a statement once.
 * Only for a real PostgreSQL server: the embedded one serves every client from one session, where
 * two clients preparing the same name would collide.
 */
const statementName = (query: { sql: string }) => `ddp_${createHash('sha1').update(query.sql).digest('base64url').slice(0, 24)}`;

export function connectDatabase(url: string, options: { poolSize?: number; preparedStatements?: boolean; statementTimeoutMs?: number | null } = {}): Database {
  // Every statement is bounded (request work must not hold a connection for long); bulk transactions
  // lift the limit for themselves (db/bulk.inTransaction).
  const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10, ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}) });
  // An idle connection dropped by the server must not crash the process.
  pool.on('error', () => {});
  // Generous transaction limits: under load (and on the single-threaded embedded engine) a
  // transaction may wait its turn for a connection longer than Prisma's 2 s default.
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, options.preparedStatements ? { statementNameGenerator: statementName } : undefined), transactionOptions: { maxWait: 15_000, timeout: 30_000 } });
  return {
    prisma,
    pool,
    async close() {
      await prisma.$disconnect();
      await pool.end().catch(() => {});
    },
  };
}
