import { Prisma } from './generated/prisma/client';
import type { DataKind } from './auth/consent';
import type { Session } from './auth/session';
import { callerGroupsSql, visibleDealers } from './tenancy';
import { dealerIds } from './validation';

/**
 * Daily rollups (call_daily, lead_daily, sale_daily): rows per dealer group, rooftop and UTC day, kept by
 * triggers in every writer's transaction (see the migration that creates them). The rows for all
 * of a group's rooftops together carry the nil UUID as their rooftop.
 */

export const ALL_ROOFTOPS = '00000000-0000-0000-0000-000000000000';
/** call_daily's and lead_daily's source for rows without a canonical source (the key has no null). */
export const NO_SOURCE = ALL_ROOFTOPS;
const DAY_MS = 86_400_000;

/**
 * The whole UTC days inside [from, to] (to inclusive, to the millisecond), as [start, end): null
 * when there is none. Open bounds stay open.
 */
function wholeDays(from: Date | null | undefined, to: Date | null | undefined) {
  const start = from ? new Date(Math.ceil(from.getTime() / DAY_MS) * DAY_MS) : null;
  const end = to ? new Date(Math.floor((to.getTime() + 1) / DAY_MS) * DAY_MS) : null;
  return start && end && start >= end ? null : { start, end };
}

/**
 * How to read [from, to] for the caller's groups and `dealer_id` rooftops: the conditions on rollup
 * rows `r` for the whole days, and the partial days at either end (each a from-to range, to
 * inclusive) to read from the rows themselves. Null when the range holds no whole day.
 */
function rollupSplit(
  session: Session,
  kind: DataKind,
  filters: { dealer_id?: string[] | null; from?: Date | null; to?: Date | null },
) {
  const days = wholeDays(filters.from, filters.to);
  if (!days) return null;
  // A partner's key reads the rows of each rooftop its link allows, never the whole group's.
  // The nil UUID names no rooftop (a list of it is empty), never the rows for all rooftops together.
  const dealers = visibleDealers(session, kind, dealerIds(filters.dealer_id))?.filter((id) => id !== ALL_ROOFTOPS);
  const conditions = [
    callerGroupsSql(session, 'r'),
    // Without a rooftop filter, the rows for all rooftops together.
    dealers ? Prisma.sql`r.dealer_id = ANY(${dealers}::uuid[])` : Prisma.sql`r.dealer_id = ${ALL_ROOFTOPS}::uuid`,
    ...(days.start ? [Prisma.sql`r.day >= ${days.start}::date`] : []),
    ...(days.end ? [Prisma.sql`r.day < ${days.end}::date`] : []),
  ];
  const edges: Array<{ from: Date; to: Date }> = [];
  if (filters.from && days.start && filters.from < days.start)
    edges.push({ from: filters.from, to: new Date(days.start.getTime() - 1) });
  if (filters.to && days.end && filters.to >= days.end) edges.push({ from: days.end, to: filters.to });
  return { conditions, edges };
}

/** How a kind's stats read their measure rows: from its rollup, from its own rows, or both. */
export interface MeasureRowsPlan {
  /** Whether the filters are all ones the rollup carries (rooftop, period, and `rollupConditions`). */
  rollupable: boolean;
  /** The rollup's rows `r` under these conditions, as measure rows. */
  rollup: (conditions: Prisma.Sql) => Prisma.Sql;
  /** Further conditions on rollup rows `r` (a source filter), when any. */
  rollupConditions?: Array<Prisma.Sql | null>;
  /** The kind's own rows as measure rows, over the filters' range or the one given. */
  raw: (range: { from?: Date; to?: Date }) => Prisma.Sql;
  /** Checks the filters when the rollup alone reads them (`raw` checks them whenever it is read). */
  check?: () => void;
}

/** The measure rows for the whole days from the rollup and the partial days from the rows, or null when the rollup cannot serve. */
function rollupMeasureRows(
  session: Session,
  kind: DataKind,
  filters: { dealer_id?: string[] | null; from?: Date | null; to?: Date | null },
  plan: MeasureRowsPlan,
): Prisma.Sql | null {
  const split = plan.rollupable ? rollupSplit(session, kind, filters) : null;
  if (!split) return null;
  plan.check?.();
  const conditions = [...split.conditions, ...(plan.rollupConditions ?? []).filter((sql) => sql !== null)];
  return Prisma.join([plan.rollup(Prisma.join(conditions, ' AND ')), ...split.edges.map(plan.raw)], ' UNION ALL ');
}

/**
 * The measure rows stats aggregate: the rollup's rows for the whole UTC days of the range and the
 * kind's own rows for the partial days at either end (UNION ALL, each with the same columns); the
 * own rows for the whole range when a filter is one the rollup does not carry, or no day is whole.
 */
export function measureRows(
  session: Session,
  kind: DataKind,
  filters: { dealer_id?: string[] | null; from?: Date | null; to?: Date | null },
  plan: MeasureRowsPlan,
): Prisma.Sql {
  return rollupMeasureRows(session, kind, filters, plan) ?? plan.raw({});
}

/**
 * How many rows a list's filters match, as a statement answering `total`: the plan's `measure` (how
 * many of the list's rows a measure row `m` stands for) summed over the same measure rows the stats read, so the whole
 * days come from the rollup and only the partial days at either end are counted. Null when the
 * rollup cannot serve (a filter it does not carry, or no whole day), and the list counts its rows:
 * an unfiltered list of a million calls then sums a few thousand rollup rows instead.
 */
export function rollupTotal(
  session: Session,
  kind: DataKind,
  filters: { dealer_id?: string[] | null; from?: Date | null; to?: Date | null },
  plan: MeasureRowsPlan & { measure: Prisma.Sql },
): Prisma.Sql | null {
  const rows = rollupMeasureRows(session, kind, filters, plan);
  return rows && Prisma.sql`SELECT coalesce(sum(${plan.measure}), 0)::bigint AS total FROM (${rows}) m`;
}
