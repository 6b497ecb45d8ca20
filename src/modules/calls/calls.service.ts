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
import { CALL_SORT, CALL_STATUSES, callFilterSql, type CallFilters } from './calls.filters';
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

export const MERGE_WINDOW_SECONDS = 120;

export interface MergedCallRow {
  primary_id: string;
  call_ids: string[];
  providers: string[];
  started_at: Date;
  duration_seconds: number;
  status: string;
  count: number;
}

/**
 * One row per real call: calls from different providers with the same caller at the same rooftop
 * starting within two minutes of the previous one are the same call. The longest recording wins.
 */
export async function mergedCalls(caller: Caller, filters: CallFilters & WindowArgs): Promise<Page<MergedCallRow>> {
  const { limit, offset } = pageArgs(filters);
  const where = callFilterSql(caller.session, filters);
  const rows = await caller.db.$queryRaw<Array<MergedCallRow & { total: bigint }>>(Prisma.sql`/* mergedCalls */
    WITH filtered AS (
      SELECT c.id, c.dealer_id, c.provider, c.started_at, c.duration_seconds, c.status, COALESCE(c.caller_number, c.id::text) AS caller,
        CASE WHEN c.started_at - lag(c.started_at) OVER w <= make_interval(secs => ${MERGE_WINDOW_SECONDS}) THEN 0 ELSE 1 END AS starts_cluster
      FROM calls c WHERE ${where}
      WINDOW w AS (PARTITION BY c.dealer_id, COALESCE(c.caller_number, c.id::text) ORDER BY c.started_at, c.id)
    ), clustered AS (
      SELECT *, sum(starts_cluster) OVER (PARTITION BY dealer_id, caller ORDER BY started_at, id) AS cluster FROM filtered
    )
    SELECT (array_agg(id ORDER BY duration_seconds DESC, started_at, id))[1] AS primary_id, array_agg(id ORDER BY started_at, id) AS call_ids,
      array_agg(DISTINCT provider ORDER BY provider) AS providers, min(started_at) AS started_at, max(duration_seconds) AS duration_seconds,
      CASE WHEN bool_or(status = 'answered') THEN 'answered' WHEN bool_or(status = 'voicemail') THEN 'voicemail' ELSE 'missed' END AS status,
      count(*)::int AS count, count(*) OVER () AS total
    FROM clustered GROUP BY dealer_id, caller, cluster
    ORDER BY min(started_at) DESC, 1 LIMIT ${limit} OFFSET ${offset}`);
  return { items: rows, total: Number(rows[0]?.total ?? 0), limit, offset };
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
  return {
    check: () => callFilterSql(caller.session, filters),
    rollupable:
      (reads === 'status' || !filters.status?.length) &&
      !filters.direction &&
      filters.first_time == null &&
      filters.min_duration == null &&
      !filters.department &&
      !filters.updated_since,
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
