import { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import { badInput } from '../../errors';

/**
 * Usage over a date range (GET /admin/usage), aggregated in SQL: requests, errors and latency per
 * day, API key, user and endpoint from the request log (one scan, GROUPING SETS), and the
 * assistant's provider tokens per day.
 */

export const MAX_USAGE_DAYS = 366;
const TOP = 50;

interface MeasureRow {
  requests: number;
  errors: number;
  server_errors: number;
  average_duration_ms: number | null;
  p95_duration_ms: number | null;
}
export type UsageMeasures = MeasureRow & { error_rate: number | null };
interface GroupedRow extends MeasureRow {
  dimension: 'total' | 'day' | 'api_key' | 'user' | 'endpoint';
  key: string | null;
  label: string | null;
}

const withRate = <T extends MeasureRow>(row: T): T & { error_rate: number | null } => ({
  ...row,
  error_rate: row.requests ? Math.round((row.errors / row.requests) * 10_000) / 10_000 : null,
});

export async function usage(caller: Caller, args: { from?: Date | null; to?: Date | null }) {
  const to = args.to ?? new Date();
  const from = args.from ?? new Date(to.getTime() - 30 * 86_400_000);
  if (from > to) throw badInput('from', 'must not be after to');
  if (to.getTime() - from.getTime() > MAX_USAGE_DAYS * 86_400_000)
    throw badInput('from', `the range may span at most ${MAX_USAGE_DAYS} days`);
  const groups = [...caller.session.dealerGroupIds];
  const rows = await caller.db.$queryRaw<GroupedRow[]>(Prisma.sql`/* adminUsage */
    WITH scoped AS (
      SELECT to_char((r.occurred_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, r.api_key_id, r.user_id, r.status, r.duration_ms,
        CASE WHEN r.path LIKE '/api/v1%' THEN COALESCE(r.operation, r.method || ' ' || r.path) ELSE 'GraphQL ' || COALESCE(r.operation, '(anonymous operation)') END AS endpoint
      FROM request_logs r
      WHERE r.dealer_group_ids && ${groups}::uuid[] AND r.occurred_at >= ${from} AND r.occurred_at <= ${to}
    ), grouped AS (
      SELECT CASE WHEN GROUPING(day) = 0 THEN 'day' WHEN GROUPING(api_key_id) = 0 THEN 'api_key' WHEN GROUPING(user_id) = 0 THEN 'user'
          WHEN GROUPING(endpoint) = 0 THEN 'endpoint' ELSE 'total' END AS dimension,
        COALESCE(day, api_key_id::text, user_id::text, endpoint) AS key,
        count(*)::int AS requests, count(*) FILTER (WHERE status >= 400)::int AS errors, count(*) FILTER (WHERE status >= 500)::int AS server_errors,
        round(avg(duration_ms)::numeric, 1)::float8 AS average_duration_ms,
        round((percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms))::numeric, 1)::float8 AS p95_duration_ms
      FROM scoped
      GROUP BY GROUPING SETS ((), (day), (api_key_id), (user_id), (endpoint))
    ), ranked AS (
      SELECT g.*, row_number() OVER (PARTITION BY g.dimension ORDER BY CASE WHEN g.dimension = 'day' THEN 0 ELSE -g.requests END, g.key) AS rank
      FROM grouped g WHERE g.dimension = 'total' OR g.key IS NOT NULL
    )
    SELECT ranked.dimension, ranked.key, ranked.requests, ranked.errors, ranked.server_errors, ranked.average_duration_ms, ranked.p95_duration_ms,
      CASE ranked.dimension WHEN 'api_key' THEN k.name WHEN 'user' THEN u.email END AS label
    FROM ranked
    LEFT JOIN api_keys k ON ranked.dimension = 'api_key' AND k.id::text = ranked.key
    LEFT JOIN users u ON ranked.dimension = 'user' AND u.id::text = ranked.key
    WHERE ranked.dimension IN ('total', 'day') OR ranked.rank <= ${TOP}
    ORDER BY ranked.dimension, ranked.rank`);
  const tokens = await caller.db.$queryRaw<
    Array<{ day: string; requests: number; prompt_tokens: number; completion_tokens: number }>
  >(Prisma.sql`/* adminUsageTokens */
    SELECT to_char(u.day, 'YYYY-MM-DD') AS day, sum(u.requests)::int AS requests, sum(u.prompt_tokens)::int AS prompt_tokens, sum(u.completion_tokens)::int AS completion_tokens
    FROM assistant_usage u WHERE u.dealer_group_id = ANY(${groups}::uuid[]) AND u.day >= (${from}::timestamptz AT TIME ZONE 'UTC')::date AND u.day <= (${to}::timestamptz AT TIME ZONE 'UTC')::date
    GROUP BY u.day ORDER BY u.day`);
  const of = (dimension: GroupedRow['dimension']) => rows.filter((row) => row.dimension === dimension);
  const measures = ({ dimension: _dimension, key: _key, label: _label, ...row }: GroupedRow) => withRate(row);
  const total = of('total')[0];
  const sum = (field: 'requests' | 'prompt_tokens' | 'completion_tokens') =>
    tokens.reduce((acc, day) => acc + day[field], 0);
  return {
    from,
    to,
    totals: total
      ? measures(total)
      : withRate({ requests: 0, errors: 0, server_errors: 0, average_duration_ms: null, p95_duration_ms: null }),
    by_day: of('day').map((row) => ({ day: row.key as string, ...measures(row) })),
    by_api_key: of('api_key').map((row) => ({ api_key_id: row.key as string, name: row.label, ...measures(row) })),
    by_user: of('user').map((row) => ({ user_id: row.key as string, email: row.label, ...measures(row) })),
    by_endpoint: of('endpoint').map((row) => ({ endpoint: row.key as string, ...measures(row) })),
    assistant: {
      requests: sum('requests'),
      prompt_tokens: sum('prompt_tokens'),
      completion_tokens: sum('completion_tokens'),
      total_tokens: sum('prompt_tokens') + sum('completion_tokens'),
      by_day: tokens.map((day) => ({ ...day, total_tokens: day.prompt_tokens + day.completion_tokens })),
    },
  };
}
