import type pg from 'pg';
import type { Db } from './database';
import type { Prisma } from '../generated/prisma/client';

/** Set-based writes on the pg pool: one transaction around a unit of work, and chunked multi-row inserts. */

/**
 * Runs `work` in one transaction on one pooled connection: committed if it returns, rolled back if it
 * throws. Bulk work (a sync batch, a rooftop rebuild) may outrun the statement timeout that bounds
 * request work, so the transaction lifts it for itself (same round trip as BEGIN); a request's own
 * write (`bulk: false`) keeps it, or sets its own bound (`statementTimeoutMs`: a write that may wait
 * for a sync batch to commit).
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
  cause?: EventCause,
  options: { bulk?: boolean; statementTimeoutMs?: number } = {},
): Promise<T> {
  const client = await pool.connect();
  try {
    const timeout = options.statementTimeoutMs ?? (options.bulk === false ? null : 0);
    await client.query(
      timeout === null ? 'BEGIN' : `BEGIN; SET LOCAL statement_timeout = ${Math.max(0, Math.floor(timeout))}`,
    );
    if (cause) await causeEvents(client, cause);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

/** What made the changes of a transaction: the sync run or the API request (X-Request-Id). */
export interface EventCause {
  syncRunId?: string | null;
  requestId?: string | null;
}

/**
 * Names the cause of the transaction's changes for the events the database records with them
 * (the triggers of the events migration read these transaction-local settings).
 */
export async function causeEvents(client: { query: pg.PoolClient['query'] }, cause: EventCause) {
  await client.query(CAUSE_SQL, [cause.syncRunId ?? '', cause.requestId ?? '']);
}

const CAUSE_SQL = `SELECT set_config('ddp.sync_run_id', $1, true), set_config('ddp.request_id', $2, true)`;

/** Runs `work` in a Prisma interactive transaction whose changes' events name `cause` (see causeEvents). */
export function inCausedTransaction<T>(
  db: Db,
  cause: EventCause,
  work: (tx: Prisma.TransactionClient) => Promise<T>,
  /** How long the transaction may run (ms); a sync's set-based passes over a whole rooftop take longer than a request's. */
  options: { timeout?: number } = {},
): Promise<T> {
  return db.$transaction(
    async (tx) => {
      await tx.$queryRawUnsafe(CAUSE_SQL, cause.syncRunId ?? '', cause.requestId ?? '');
      return work(tx);
    },
    options.timeout ? { timeout: options.timeout } : undefined,
  );
}

/** Multi-row INSERT in chunks: far faster than row-by-row writes for thousands of rows. */
export async function insertRows(
  client: pg.PoolClient,
  table: string,
  columns: string[],
  rows: unknown[][],
  casts: Record<string, string> = {},
) {
  const chunk = Math.floor(30_000 / columns.length);
  for (let start = 0; start < rows.length; start += chunk) {
    const slice = rows.slice(start, start + chunk);
    const values: unknown[] = [];
    const tuples = slice.map(
      (row) =>
        `(${row
          .map((value, index) => {
            values.push(value);
            return `$${values.length}${casts[columns[index] as string] ?? ''}`;
          })
          .join(',')})`,
    );
    await client.query(`INSERT INTO ${table} (${columns.join(',')}) VALUES ${tuples.join(',')}`, values);
  }
}
