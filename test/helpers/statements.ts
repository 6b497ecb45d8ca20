import type pg from 'pg';

/** A statement sent through the pool, with its parameters. */
export interface RecordedQuery {
  text: string;
  values: unknown[];
}

/** Runs `work` and returns the statements it sent through the pool (request-log writes aside), with their parameters. */
export async function recordQueries(pool: pg.Pool, work: () => Promise<void>): Promise<RecordedQuery[]> {
  const queries: RecordedQuery[] = [];
  const query = pool.query.bind(pool);
  pool.query = ((config: string | { text: string; values?: unknown[] }, ...rest: unknown[]) => {
    const text = typeof config === 'string' ? config : config.text;
    const values = typeof config === 'string' ? ((rest[0] as unknown[] | undefined) ?? []) : (config.values ?? []);
    if (!text.includes('request_logs')) queries.push({ text, values });
    return (query as (...args: unknown[]) => unknown)(config, ...rest);
  }) as typeof pool.query;
  try {
    await work();
  } finally {
    pool.query = query;
  }
  return queries;
}

/** Runs `work` and returns the SQL statements it sent through the pool (request-log writes aside). */
export async function recordStatements(pool: pg.Pool, work: () => Promise<void>): Promise<string[]> {
  return (await recordQueries(pool, work)).map((query) => query.text);
}
