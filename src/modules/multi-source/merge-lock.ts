import type pg from 'pg';

/**
 * Writers of one rooftop's merged vehicles and their conflicts (feeds, the sold grace step,
 * rebuilds, conflict checks) take turns: a transaction-scoped advisory lock per dealer.
 */
export async function lockDealerMerges(client: pg.PoolClient, dealerId: string) {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`merge:${dealerId}`]);
}

/**
 * Creating a rooftop's vehicles. Sync batches whose VINs are all new insert beside each other
 * ('beside others', a shared lock) and take the merge lock only afterwards, for their conflicts;
 * a writer that may insert under the merge lock takes this one 'alone' (exclusive) before the
 * merge lock. So no writer holds the merge lock while it waits for a vehicle another one has
 * inserted but not committed, and the two locks never wait on each other in a circle.
 */
export async function lockVehicleCreation(client: pg.PoolClient, dealerId: string, mode: 'alone' | 'beside others') {
  // The two-key form: a space apart from the single-key merge locks.
  await client.query(
    `SELECT ${mode === 'alone' ? 'pg_advisory_xact_lock' : 'pg_advisory_xact_lock_shared'}(1, hashtext($1))`,
    [dealerId],
  );
}
