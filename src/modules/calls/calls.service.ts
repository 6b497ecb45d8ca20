import { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import {
  cursorPageArgs,
  pageArgs,
  pageOfIds,
  type CursorPage,
  type CursorWindowArgs,
  type ItemsSelection,
  type Page,
  type WindowArgs,
} from '../../pagination';
import { findInTenant } from '../../tenancy';
import { measureRows, NO_SOURCE, rollupTotal, type MeasureRowsPlan } from '../../rollups';
import { enumList } from '../../validation';
import { CALL_SORT, CALL_STATUSES, callFieldFilters, callFilterSql, type CallFilters } from './calls.filters';
import { sourceFilterSql } from '../sources/source-filter';

/** Calls from call-tracking providers: filters, one call, cross-provider merging and stats in SQL. */

export { CALL_DIRECTIONS, CALL_SORT, CALL_STATUSES, type CallFilters } from './calls.filters';

/**
 * A page of calls, newest first unless `sort` says otherwise: ids and total in one statement, the
 * total from call_daily when it carries the filters (`callTotal`).
 */
export async function callPage(
  caller: Caller,
  filters: CallFilters & CursorWindowArgs & { sort?: string | null },
  items: ItemsSelection | null = null,
): Promise<CursorPage> {
  return pageOfIds(caller.db, {
    name: 'callPage',
    table: 'calls',
    alias: 'c',
    where: callFilterSql(caller.session, filters),
    order: CALL_SORT.order(filters.sort),
    window: cursorPageArgs(filters),
    items,
    count: callTotal(caller, filters),
  });
}

/**
 * How many calls the list's filters match, from call_daily where it carries them: rooftops, period,
 * source, and statuses (their own columns summed, each status once). Null for the other filters:
 * the list counts its calls.
 */
function callTotal(caller: Caller, filters: CallFilters): Prisma.Sql | null {
  const statuses = [...new Set(enumList('status', filters.status, CALL_STATUSES) ?? [])];
  const measure = statuses.length
    ? Prisma.join(
        statuses.map((status) => Prisma.raw(`m.${status}`)),
        ' + ',
      )
    : Prisma.sql`m.calls`;
  return rollupTotal(caller.session, 'calls', filters, { ...callRollupPlan(caller, filters, 'status'), measure });
}

export async function findCallId(caller: Caller, id: string): Promise<string> {
  const call = await findInTenant(
    caller.session,
    'call',
    id,
    (where) => caller.db.call.findFirst({ where, select: { id: true } }),
    'calls',
  );
  return call.id;
}

/** Calls of one caller at one rooftop this close after the previous one are the same call (call_merge_starts knows it too). */
export const MERGE_WINDOW_SECONDS = 120;

export interface MergedCallRow {
  primary_id: string;
  /** By provider, then start time. */
  call_ids: string[];
  providers: string[];
  started_at: Date;
  duration_seconds: number;
  status: string;
  count: number;
}

/** One merged call's figures from its calls (`m`): the longest recording is the primary one. */
const MERGED_FIGURES = Prisma.sql`(array_agg(m.id ORDER BY m.duration_seconds DESC, m.started_at, m.id))[1] AS primary_id,
  array_agg(m.id ORDER BY m.provider, m.started_at, m.id) AS call_ids, array_agg(DISTINCT m.provider ORDER BY m.provider) AS providers,
  min(m.started_at) AS started_at, max(m.duration_seconds) AS duration_seconds,
  CASE WHEN bool_or(m.status = 'answered') THEN 'answered' WHEN bool_or(m.status = 'voicemail') THEN 'voicemail' ELSE 'missed' END AS status,
  count(*)::int AS count`;

/**
 * Whether the filters keep or drop each caller's calls at a rooftop whole (who may see them, rooftops,
 * period): then merged calls are read from their first calls; other filters change which calls merge.
 */
export function mergesWhole(filters: CallFilters): boolean {
  const on = callFieldFilters(filters);
  return !on.status && !on.others && !filters.source;
}

/**
 * One row per real call: calls from different providers with the same caller at the same rooftop
 * starting within two minutes of the previous one are the same call. The longest recording wins.
 * Filters that keep or drop a caller's calls at a rooftop whole (who may see them, rooftops, period)
 * read the merged calls' first calls from call_merge_starts; the others (status, source, duration…)
 * change which calls merge, so the calls they leave are merged here.
 */
export async function mergedCalls(caller: Caller, filters: CallFilters & WindowArgs): Promise<Page<MergedCallRow>> {
  const { limit, offset } = pageArgs(filters);
  const statement = mergesWhole(filters)
    ? mergedFromStarts(caller, filters, limit, offset)
    : mergedFromCalls(caller, filters, limit, offset);
  const rows = await caller.db.$queryRaw<Array<MergedCallRow & { total: bigint }>>(statement);
  return {
    items: rows.filter((row) => row.primary_id !== null),
    total: Number(rows[0]?.total ?? 0),
    limit,
    offset,
  };
}

/**
 * The filtered calls ordered by caller and time, each starting a merged call unless it follows the
 * previous one within the window; then grouped and paged. Reads and orders every matching call.
 * One row with the total and no call when the page is past the end.
 */
function mergedFromCalls(caller: Caller, filters: CallFilters, limit: number, offset: number): Prisma.Sql {
  return Prisma.sql`/* mergedCalls */
    WITH filtered AS (
      SELECT c.id, c.dealer_id, c.provider, c.started_at, c.duration_seconds, c.status, COALESCE(c.caller_number, c.id::text) AS caller,
        CASE WHEN c.started_at - lag(c.started_at) OVER w <= make_interval(secs => ${MERGE_WINDOW_SECONDS}) THEN 0 ELSE 1 END AS starts_cluster
      FROM calls c WHERE ${callFilterSql(caller.session, filters)}
      WINDOW w AS (PARTITION BY c.dealer_id, COALESCE(c.caller_number, c.id::text) ORDER BY c.started_at, c.id)
    ), clustered AS (
      SELECT *, sum(starts_cluster) OVER (PARTITION BY dealer_id, caller ORDER BY started_at, id) AS cluster FROM filtered
    ), merged AS (
      SELECT ${MERGED_FIGURES} FROM clustered m GROUP BY m.dealer_id, m.caller, m.cluster
    )
    SELECT t.total, x.* FROM (SELECT count(*) AS total FROM merged) t
    LEFT JOIN LATERAL (SELECT * FROM merged ORDER BY started_at DESC, primary_id LIMIT ${limit} OFFSET ${offset}) x ON true`;
}

/**
 * Merged calls from their first calls (call_merge_starts), for filters that keep a caller's calls
 * whole: the page is read newest first from the index, each merged call's calls from its first to
 * the caller's next merged call (or `to`), and the total is the count of first calls (by day where
 * days are whole, from call_merge_daily). With `from`, a call in its first two minutes whose earlier
 * calls all fall before `from` begins a merged call too. Each kind of first call is read newest first
 * to the page's end on its own (together, PostgreSQL would read and sort every first call of the
 * period). Merged calls that begin at the same instant are ordered by their primary id, so the page
 * takes every one at its last instant before ordering and cutting (a limit and an equality, which
 * the planner sizes right: a range from a computed bound it takes for a third of the table). One row
 * with the total and no call when the page is past the end.
 */
function mergedFromStarts(caller: Caller, filters: CallFilters, limit: number, offset: number): Prisma.Sql {
  const period = { dealer_id: filters.dealer_id, from: filters.from, to: filters.to };
  const within = callFilterSql(caller.session, period);
  const window = Prisma.sql`make_interval(secs => ${MERGE_WINDOW_SECONDS})`;
  // Calls cut at `from`: in its first two minutes, with no earlier call of theirs inside the period.
  const cutAtFrom = filters.from
    ? Prisma.sql`SELECT c.id, c.started_at FROM calls c
      WHERE ${within} AND c.started_at < ${filters.from}::timestamptz + ${window} AND c.caller_number IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM call_merge_starts s WHERE s.call_id = c.id)
        AND NOT EXISTS (SELECT 1 FROM calls b WHERE b.dealer_group_id = c.dealer_group_id AND b.caller_number = c.caller_number
          AND b.dealer_id = c.dealer_id AND b.started_at >= greatest(${filters.from}::timestamptz, c.started_at - ${window})
          AND b.started_at <= c.started_at AND (b.started_at, b.id) < (c.started_at, c.id))`
    : Prisma.sql`SELECT NULL::uuid AS id, NULL::timestamptz AS started_at WHERE false`;
  // The total: first calls counted by day in call_merge_daily for the whole days, one by one for the
  // partial days at either end (or the whole period when it holds no whole day), and those cut at `from`.
  const firstCalls =
    rollupTotal(caller.session, 'calls', period, {
      rollupable: true,
      rollup: (conditions) => Prisma.sql`SELECT r.merged_calls FROM call_merge_daily r WHERE ${conditions}`,
      raw: (range) =>
        Prisma.sql`SELECT 1 AS merged_calls FROM call_merge_starts c WHERE ${callFilterSql(caller.session, { ...period, ...range })}`,
      measure: Prisma.sql`m.merged_calls`,
    }) ?? Prisma.sql`SELECT count(*) AS total FROM call_merge_starts c WHERE ${within}`;
  const until = filters.to ? Prisma.sql`AND m.started_at <= ${filters.to}::timestamptz` : Prisma.empty;
  return Prisma.sql`/* mergedCallsFromStarts */
    WITH cut AS MATERIALIZED (${cutAtFrom}), top AS MATERIALIZED (
      (SELECT c.call_id AS id, c.started_at FROM call_merge_starts c WHERE ${within} ORDER BY c.started_at DESC LIMIT ${offset + limit})
      UNION ALL (SELECT id, started_at FROM cut ORDER BY started_at DESC LIMIT ${offset + limit})
    ), last AS (
      SELECT started_at FROM top ORDER BY started_at DESC OFFSET ${offset + limit - 1} LIMIT 1
    ), page AS (
      (SELECT id, started_at FROM top ORDER BY started_at DESC LIMIT ${offset + limit})
      UNION
      SELECT c.call_id, c.started_at FROM call_merge_starts c WHERE ${within} AND c.started_at = (SELECT started_at FROM last)
      UNION
      SELECT id, started_at FROM cut WHERE started_at = (SELECT started_at FROM last)
    )
    SELECT (${firstCalls}) + (SELECT count(*) FROM cut) AS total, x.* FROM (SELECT 1) one
    LEFT JOIN LATERAL (
      SELECT merged.* FROM page p JOIN calls sc ON sc.id = p.id
      LEFT JOIN LATERAL (
        SELECT n.started_at, n.call_id FROM call_merge_starts n
        WHERE sc.caller_number IS NOT NULL AND n.dealer_group_id = sc.dealer_group_id AND n.caller_number = sc.caller_number
          AND n.dealer_id = sc.dealer_id AND (n.started_at, n.call_id) > (sc.started_at, sc.id)
        ORDER BY n.started_at, n.call_id LIMIT 1) next ON true
      CROSS JOIN LATERAL (
        SELECT ${MERGED_FIGURES} FROM (
          SELECT sc.id, sc.provider, sc.started_at, sc.duration_seconds, sc.status WHERE sc.caller_number IS NULL
          UNION ALL
          SELECT m.id, m.provider, m.started_at, m.duration_seconds, m.status FROM calls m
          WHERE sc.caller_number IS NOT NULL AND m.dealer_group_id = sc.dealer_group_id AND m.caller_number = sc.caller_number
            AND m.dealer_id = sc.dealer_id AND m.started_at >= sc.started_at AND m.started_at <= COALESCE(next.started_at, 'infinity')
            AND (m.started_at, m.id) >= (sc.started_at, sc.id) AND (next.call_id IS NULL OR (m.started_at, m.id) < (next.started_at, next.call_id))
            ${until}) m) merged
      ORDER BY merged.started_at DESC, merged.primary_id LIMIT ${limit} OFFSET ${offset}) x ON true`;
}

type MeasureRow = {
  calls: number;
  answered: number;
  missed: number;
  voicemail: number;
  first_time_callers: number;
  average_duration_seconds: number | null;
};

/**
 * What the stats aggregate, as rows of measures per source and day: whole UTC days from call_daily
 * (kept by triggers in every writer's transaction), the partial days at either end from the calls
 * themselves. Filters call_daily does not carry (status, direction, first-time, duration,
 * department, updated since) read the calls for the whole range.
 */
function callMeasureRows(caller: Caller, filters: CallFilters): Prisma.Sql {
  return measureRows(caller.session, 'calls', filters, callRollupPlan(caller, filters));
}

/**
 * How call_daily reads the filters; a status filter only where the reader sums the statuses' own
 * columns (`status`).
 */
function callRollupPlan(caller: Caller, filters: CallFilters, reads?: 'status'): MeasureRowsPlan {
  const on = callFieldFilters(filters);
  return {
    check: () => callFilterSql(caller.session, filters),
    rollupable: (reads === 'status' || !on.status) && !on.others,
    rollup: (
      conditions,
    ) => Prisma.sql`SELECT NULLIF(r.source_id, ${NO_SOURCE}::uuid) AS source_id, r.day, r.calls, r.answered,
        r.missed, r.voicemail, r.first_time_callers, r.answered_seconds FROM call_daily r WHERE ${conditions}`,
    rollupConditions: [sourceFilterSql('r', filters.source)],
    raw: (range) => Prisma.sql`SELECT c.source_id, (c.started_at AT TIME ZONE 'UTC')::date AS day, 1 AS calls,
        (c.status = 'answered')::int AS answered, (c.status = 'missed')::int AS missed, (c.status = 'voicemail')::int AS voicemail,
        c.first_time_caller::int AS first_time_callers, CASE WHEN c.status = 'answered' THEN c.duration_seconds ELSE 0 END AS answered_seconds
      FROM calls c WHERE ${callFilterSql(caller.session, { ...filters, ...range })}`,
  };
}

/**
 * Totals, answer rate, average duration, first-time callers, by source and by day (UTC), in one
 * statement: GROUPING SETS computes the three groupings together over the day rows.
 */
export async function callStats(caller: Caller, filters: CallFilters) {
  const rows = await caller.db.$queryRaw<
    Array<
      MeasureRow & {
        grouping: 'total' | 'source' | 'day';
        source_id: string | null;
        source_name: string | null;
        day: string | null;
      }
    >
  >(Prisma.sql`/* callStats */
    WITH measures AS (${callMeasureRows(caller, filters)}), grouped AS (
      SELECT CASE WHEN GROUPING(m.source_id) = 0 THEN 'source' WHEN GROUPING(m.day) = 0 THEN 'day' ELSE 'total' END AS grouping,
        m.source_id, to_char(m.day, 'YYYY-MM-DD') AS day,
        sum(m.calls)::int AS calls, sum(m.answered)::int AS answered, sum(m.missed)::int AS missed, sum(m.voicemail)::int AS voicemail,
        sum(m.first_time_callers)::int AS first_time_callers,
        round(sum(m.answered_seconds)::numeric / NULLIF(sum(m.answered), 0), 1)::float8 AS average_duration_seconds
      FROM measures m
      GROUP BY GROUPING SETS ((), (m.source_id), (m.day)) HAVING sum(m.calls) > 0)
    SELECT g.*, s.name::text AS source_name FROM grouped g LEFT JOIN sources s ON g.grouping = 'source' AND s.id = g.source_id`);
  const rate = <T extends MeasureRow>(row: T) => ({
    ...row,
    answer_rate: row.calls ? Math.round((row.answered / row.calls) * 1000) / 1000 : null,
  });
  const measures = ({
    grouping: _grouping,
    source_id: _source,
    source_name: _name,
    day: _day,
    ...row
  }: (typeof rows)[number]) => row;
  const total = rows.find((row) => row.grouping === 'total');
  return {
    ...rate(
      total
        ? measures(total)
        : { calls: 0, answered: 0, missed: 0, voicemail: 0, first_time_callers: 0, average_duration_seconds: null },
    ),
    by_source: rows
      .filter((row) => row.grouping === 'source')
      .map((row) => rate({ ...measures(row), source_id: row.source_id, source_name: row.source_name }))
      .sort((a, b) => b.calls - a.calls || (a.source_name ?? '\uffff').localeCompare(b.source_name ?? '\uffff')),
    by_day: rows
      .filter((row) => row.grouping === 'day')
      .map((row) => rate({ ...measures(row), day: row.day as string }))
      .sort((a, b) => a.day.localeCompare(b.day)),
  };
}
