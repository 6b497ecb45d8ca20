import type pg from 'pg';

/**
 * Waits until every transaction begun so far has ended, other test files' included. The change feed
 * hands out an event only once every transaction begun before it has ended (so no late commit slips in
 * behind a cursor); on a shared PostgreSQL server another file's open transaction can hold an event
 * just committed back. After this, the feed shows every event committed before the call.
 */
export async function feedSettled(pool: pg.Pool, timeoutMs = 100_000): Promise<void> {
  const { rows } = await pool.query<{ next: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS next');
  for (const until = Date.now() + timeoutMs; Date.now() < until;) {
    const { rows: now } = await pool.query<{ done: boolean }>(
      'SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint >= $1::bigint AS done',
      [rows[0]!.next],
    );
    if (now[0]!.done) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`a transaction stayed open for ${timeoutMs / 1000} s`);
}
