import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { citext } from '@electric-sql/pglite/contrib/citext';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** An embedded PostgreSQL (PGlite) served over the wire protocol on a loopback port. */
export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/** Starts PGlite persisted in `directory` (or in memory when null) and serves it on 127.0.0.1. */
export async function startEmbeddedPostgres(directory: string | null): Promise<EmbeddedPostgres> {
  if (directory) mkdirSync(directory, { recursive: true });
  // Extensions the schema declares must be loaded into PGlite before CREATE EXTENSION can find them.
  const db = await PGlite.create(directory ?? 'memory://', { extensions: { citext, pg_trgm } });
  // PGlite is single-session; the socket server multiplexes clients and keeps a
  // transaction's statements on the connection that opened it.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 32 });
  keepProtocolCyclesTogether(server);
  await server.start();
  const url = `postgresql://postgres:postgres@${server.getServerConn()}/postgres?sslmode=disable`;
  return {
    url,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}

/** Message types after which the server answers: the end of one client's request cycle. */
const CYCLE_ENDS = new Set(['S', 'Q', 'X', 'H', 'p', 'c', 'f'].map((type) => type.charCodeAt(0)));

type Enqueue = (handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void) => Promise<number>;

/**
 * The socket server multiplexes clients message by message, so one client's Parse can land between
 * another's Parse and Bind ("bind message supplies 3 parameters, but prepared statement requires
 * 12"). This holds each client's messages until its cycle ends (Sync, a simple Query, …) and hands
 * the cycle over whole, so cycles of different clients never interleave.
 */
function keepProtocolCyclesTogether(server: PGLiteSocketServer): void {
  const queue = (server as unknown as { queryQueue: { enqueue: Enqueue } }).queryQueue;
  const enqueue = queue.enqueue.bind(queue);
  const pending = new Map<number, Uint8Array[]>();
  queue.enqueue = (handlerId, message, onData) => {
    const startup = message[0] === 0;
    const held = pending.get(handlerId) ?? [];
    if (!startup && !CYCLE_ENDS.has(message[0] ?? 0)) {
      pending.set(handlerId, [...held, message]);
      return Promise.resolve(0);
    }
    pending.delete(handlerId);
    return enqueue(handlerId, held.length ? Buffer.concat([...held, message]) : message, onData);
  };
}
