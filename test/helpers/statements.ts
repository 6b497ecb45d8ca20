import type pg from 'pg';

/** Runs `work` and returns the SQL statements it sent through the pool (request-log writes aside). */
export async function recordStatements(pool: pg.Pool, work: () => Promise<void>): Promise<string[]> {
  const statements: string[] = [];
  const query = pool.query.bind(pool);
  pool.query = ((config: string | { text: string }, ...rest: unknown[]) => {
    const text = typeof config === 'string' ? config : config.text;
    if (!text.includes('request_logs')) statements.push(text);
    return (query as (...args: unknown[]) => unknown)(config, ...rest);
  }) as typeof pool.query;
  try {
    await work();
  } finally {
    pool.query = query;
  }
  return statements;
}
