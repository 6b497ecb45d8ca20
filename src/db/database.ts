import { EventEmitter } from 'node:events';
import path from 'node:path';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { parse as parseArray } from 'postgres-array';
import { PrismaClient } from '../generated/prisma/client';
import { startEmbeddedPostgres } from './embedded';
import { attachDirectReads, DirectReads, modelsOf, statementName } from './direct-reads';
import { DataDirInUseError, lockDataDir, type DataDirLock, type DataDirOpener, type LockHolder } from './data-dir-lock';

export type Db = PrismaClient;
/** What raw SQL needs of Prisma: the client itself or an interactive transaction's. */
export type RawSqlClient = Pick<Db, '$queryRaw' | '$executeRaw'>;

// Text arrays (a vehicle's photos, a dealer's franchises, scopes) in every result, through Prisma or
// the pool: the parser pg ships builds an object per character, which made a page of vehicles spend
// more time reading its photo URLs than its SQL took; postgres-array 3 reads the same text with
// indexOf. pg's type parsers are process-wide, so this is set once here.
const STRING_ARRAY_TYPES = { 'text[]': 1009, 'varchar[]': 1015, 'uuid[]': 2951 };
for (const oid of Object.values(STRING_ARRAY_TYPES)) pg.types.setTypeParser(oid, parseArray);

/** A PostgreSQL server to talk to: the configured one, the embedded one we started, or a running server's embedded one. */
export interface DatabaseServer {
  url: string;
  embedded: boolean;
  /** The running server (pid) whose embedded database this process works through; null when it opened its own. */
  throughServerPid: number | null;
  /** The previous holder of DATA_DIR, when its process had died and this one took the lock over. */
  tookOverFrom: LockHolder | null;
  stop(): Promise<void>;
}

/**
 * Uses DATABASE_URL when given; otherwise the embedded PostgreSQL under DATA_DIR/postgres, which one
 * process at a time may open (see data-dir-lock). A tool finding the server holding DATA_DIR works
 * through the database socket the server already serves, as any of the server's own clients would;
 * anything else holding it is refused with DataDirInUseError. The opener matters only with a DATA_DIR
 * (scratch and shadow databases pass none).
 */
export async function openDatabaseServer(
  options: { databaseUrl: string | null; dataDir: string | null },
  opener: DataDirOpener = { role: 'tool', command: 'a command-line tool' },
): Promise<DatabaseServer> {
  if (options.databaseUrl)
    return {
      url: options.databaseUrl,
      embedded: false,
      throughServerPid: null,
      tookOverFrom: null,
      stop: async () => {},
    };
  if (!options.dataDir) {
    const memory = await startEmbeddedPostgres(null);
    return { url: memory.url, embedded: true, throughServerPid: null, tookOverFrom: null, stop: memory.stop };
  }
  let lock: DataDirLock;
  try {
    lock = lockDataDir(options.dataDir, opener);
  } catch (error) {
    const server = error instanceof DataDirInUseError && opener.role === 'tool' ? runningServerOf(error.holder) : null;
    if (!server) throw error;
    await assertServerAnswers(options.dataDir, server);
    return {
      url: server.databaseUrl,
      embedded: true,
      throughServerPid: server.pid,
      tookOverFrom: null,
      stop: async () => {},
    };
  }
  try {
    const embedded = await startEmbeddedPostgres(path.join(options.dataDir, 'postgres'));
    lock.recordDatabaseUrl(embedded.url);
    return {
      url: embedded.url,
      embedded: true,
      throughServerPid: null,
      tookOverFrom: lock.tookOverFrom,
      async stop() {
        await embedded.stop();
        // Only once the database is closed may another process open its files (if closing fails,
        // the lock goes when this process exits).
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}

/** The holder as a server serving its database, the one kind of holder a tool may work through. */
function runningServerOf(holder: LockHolder | null): (LockHolder & { databaseUrl: string }) | null {
  return holder?.role === 'server' && holder.databaseUrl ? (holder as LockHolder & { databaseUrl: string }) : null;
}

/** Fails with a message naming the server when its database socket does not answer (a server stuck while stopping). */
async function assertServerAnswers(dataDir: string, server: LockHolder & { databaseUrl: string }): Promise<void> {
  const client = new pg.Client({ connectionString: server.databaseUrl, connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    throw new DataDirInUseError(
      dataDir,
      server,
      `DATA_DIR ${dataDir} is open in the server (pid ${server.pid}), but its database at ${server.databaseUrl} does not answer (${(error as Error).message}): stop the server first.`,
    );
  } finally {
    await client.end().catch(() => {});
  }
}

/** The application's connections: Prisma for most work, the pg pool for bulk paths and raw checks. */
export interface Database {
  prisma: PrismaClient;
  pool: pg.Pool;
  /**
   * Emits each notification on the channels the connections listen to (`listen`), with its payload,
   * once however many of the connections heard it.
   */
  notifications: EventEmitter;
  /**
   * Whether some connection is listening now. While none is (the pool closed its idle connections),
   * another instance's changes go unheard; `notifications` emits LISTENING_LOST when the last one goes.
   */
  listening(): boolean;
  close(): Promise<void>;
}

/** Emitted on Database.notifications when no connection listens any more: what was heard may be missing changes. */
export const LISTENING_LOST = 'listening-lost';

/**
 * The notifications heard lately. Every listening connection receives its own copy of each one, the
 * idle connections later than the busy: only the first copy is news.
 */
class RecentlyHeard {
  private readonly keys = new Set<string>();

  /** Whether `key` is heard for the first time (as far back as the last thousand notifications). */
  first(key: string): boolean {
    if (this.keys.has(key)) return false;
    if (this.keys.size >= 1000) this.keys.delete(this.keys.values().next().value!);
    this.keys.add(key);
    return true;
  }
}

export function connectDatabase(
  url: string,
  options: {
    poolSize?: number;
    preparedStatements?: boolean;
    statementTimeoutMs?: number | null;
    /** Channels to hear, whose senders make every payload unique (e.g. with their transaction id). */
    listen?: readonly string[];
  } = {},
): Database {
  // Every statement is bounded (request work must not hold a connection for long); bulk transactions
  // lift the limit for themselves (db/bulk.inTransaction).
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
  });
  // An idle connection dropped by the server must not crash the process.
  pool.on('error', () => {});
  // Every pooled connection listens, so the one that commits a change hears of it before its commit
  // returns (the embedded engine serves one session and hands a notification to the connection
  // that caused it), and idle ones hear of other instances' changes; so does one connection kept
  // for listening alone, for the times the pool has closed all of its idle ones.
  let stopListening: () => Promise<unknown> = async () => {};
  const notifications = new EventEmitter();
  const listeners = new Set<pg.ClientBase>();
  let closed = false;
  const lost = (client: pg.ClientBase) => {
    if (listeners.delete(client) && listeners.size === 0) notifications.emit(LISTENING_LOST);
  };
  if (options.listen?.length) {
    const heard = new RecentlyHeard();
    const hear = (message: pg.Notification) => {
      if (heard.first(`${message.channel} ${message.payload ?? ''}`))
        notifications.emit(message.channel, message.payload);
    };
    // One connection of its own listens all the time, so another instance's changes are heard even
    // while the pool has closed its idle connections; it reconnects when dropped.
    const keepListening = (delayMs: number) => {
      if (closed) return;
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
      client.on('notification', hear);
      let listened = false;
      let retried = false;
      const retry = () => {
        lost(client);
        if (retried) return;
        retried = true;
        client.removeAllListeners('end');
        client.end().catch(() => {});
        // Again soon after a drop; ever later (up to 30 s) while the server cannot be reached.
        const next = listened ? 500 : Math.min(delayMs * 2, 30_000);
        if (!closed) setTimeout(() => keepListening(next), listened ? 0 : delayMs).unref();
      };
      client.on('error', retry);
      client.on('end', retry);
      client
        .connect()
        .then(() => Promise.all(options.listen!.map((channel) => client.query(`LISTEN ${channel}`))))
        .then(() => {
          if (closed) return void client.end().catch(() => {});
          listened = true;
          listeners.add(client);
          stopListening = () => {
            client.removeAllListeners('end');
            lost(client);
            return client.end().catch(() => {});
          };
        }, retry);
    };
    keepListening(500);
    pool.on('connect', (client) => {
      client.on('notification', hear);
      // A connection counts as listening once every LISTEN has run (they run before any other statement).
      void Promise.all(options.listen!.map((channel) => client.query(`LISTEN ${channel}`))).then(
        () => listeners.add(client),
        () => {},
      );
    });
    pool.on('remove', lost);
  }
  // Generous transaction limits: under load (and on the single-threaded embedded engine) a
  // transaction may wait its turn for a connection longer than Prisma's 2 s default.
  const prisma = new PrismaClient({
    // Prepared statements named by their SQL, so each connection parses and plans a statement once.
    // Only for a real PostgreSQL server: the embedded one serves every client from one session, where
    // two clients preparing the same name would collide.
    adapter: new PrismaPg(
      pool,
      options.preparedStatements ? { statementNameGenerator: (query) => statementName('ddp', query.sql) } : undefined,
    ),
    transactionOptions: { maxWait: 15_000, timeout: 30_000 },
  });
  attachDirectReads(prisma, new DirectReads(pool, modelsOf(prisma), options.preparedStatements ?? false));
  return {
    prisma,
    pool,
    notifications,
    listening: () => listeners.size > 0,
    async close() {
      closed = true;
      await stopListening();
      await prisma.$disconnect();
      await pool.end().catch(() => {});
    },
  };
}
