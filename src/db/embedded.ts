import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { citext } from '@electric-sql/pglite/contrib/citext';
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
  const db = await PGlite.create(directory ?? 'memory://', { extensions: { citext } });
  // PGlite is single-session; the socket server multiplexes clients and keeps a
  // transaction's statements on the connection that opened it.
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 32 });
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
