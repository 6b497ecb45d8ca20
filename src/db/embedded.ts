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
  broadcastNotifications(server);
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

const NOTIFICATION_RESPONSE = 'A'.charCodeAt(0);

interface SocketHandler {
  id: number;
  socket: { writable: boolean; write(data: Buffer): void } | null;
}

/**
 * PGlite serves every client from one session, so a NOTIFY reaches only the client whose statement
 * sent it, inside its answer. PostgreSQL delivers it to every listening connection: this copies each
 * notification in one client's answer to every other client, so server instances that share the
 * embedded database hear each other's changes as they would on a server. A copy is written between
 * whole answers (PGlite runs one client's cycle at a time), never inside one.
 */
function broadcastNotifications(server: PGLiteSocketServer): void {
  const internals = server as unknown as { queryQueue: { enqueue: Enqueue }; handlers: Set<SocketHandler> };
  const queue = internals.queryQueue;
  const enqueue = queue.enqueue.bind(queue);
  queue.enqueue = (handlerId, message, onData) =>
    enqueue(handlerId, message, (data) => {
      const notifications = notificationsIn(data);
      if (notifications.length) {
        const copy = Buffer.concat(notifications);
        for (const handler of internals.handlers) {
          if (handler.id !== handlerId && handler.socket?.writable) handler.socket.write(copy);
        }
      }
      onData(data);
    });
}

/** The NotificationResponse messages in a stream of whole backend messages. */
function notificationsIn(data: Uint8Array): Buffer[] {
  const found: Buffer[] = [];
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  for (let offset = 0; offset + 5 <= view.length;) {
    const length = view.readInt32BE(offset + 1);
    // Not a whole message here (the one-byte SSL answer, a partial chunk): nothing more to find.
    if (length < 4 || offset + 1 + length > view.length) break;
    if (view[offset] === NOTIFICATION_RESPONSE) found.push(Buffer.from(view.subarray(offset, offset + 1 + length)));
    offset += 1 + length;
  }
  return found;
}
