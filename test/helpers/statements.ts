import type pg from 'pg';

/** A statement sent through the pool, with its parameters. */
export interface RecordedQuery {
  text: string;
  values: unknown[];
}

/**
 * Who a caller is: looked up once and then remembered, until anything that writes to the database
 * changes a user or key (another test file sharing the database included): whether a request repeats
 * the lookup depends on those other writers, not on the request. test/sessions.test.ts tests the
 * lookups on a database of its own; everywhere else they are left out of what a request costs.
 */
const AUTH_LOOKUP = /\/\* session(?:User|ApiKey) \*\//;

/**
 * Runs `work` and returns the statements it sent through the pool (request-log writes and, unless
 * `withAuth`, the lookups of who is calling aside), with their parameters.
 */
export async function recordQueries(
  pool: pg.Pool,
  work: () => Promise<void>,
  options: { withAuth?: boolean } = {},
): Promise<RecordedQuery[]> {
  const queries: RecordedQuery[] = [];
  const query = pool.query.bind(pool);
  pool.query = ((config: string | { text: string; values?: unknown[] }, ...rest: unknown[]) => {
    const text = typeof config === 'string' ? config : config.text;
    const values = typeof config === 'string' ? ((rest[0] as unknown[] | undefined) ?? []) : (config.values ?? []);
    if (!text.includes('request_logs') && (options.withAuth || !AUTH_LOOKUP.test(text))) queries.push({ text, values });
    return (query as (...args: unknown[]) => unknown)(config, ...rest);
  }) as typeof pool.query;
  try {
    await work();
  } finally {
    pool.query = query;
  }
  return queries;
}

/** Runs `work` and returns the SQL statements it sent through the pool (as recordQueries counts them). */
export async function recordStatements(
  pool: pg.Pool,
  work: () => Promise<void>,
  options: { withAuth?: boolean } = {},
): Promise<string[]> {
  return (await recordQueries(pool, work, options)).map((query) => query.text);
}
