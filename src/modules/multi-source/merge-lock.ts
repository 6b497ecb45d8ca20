import type pg from 'pg';

/**
 * Writers of one rooftop's merged vehicles and their conflicts (feeds, the sold grace step,
 * rebuilds, conflict checks) take turns: a transaction-scoped advisory lock per dealer.
 */
export async function lockDealerMerges(client: pg.PoolClient, dealerId: string) {
  await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`merge:${dealerId}`]);
}
