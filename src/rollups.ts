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
export function rollupSplit(
  session: Session,
  kind: DataKind,
  filters: { dealer_id?: string[] | null; from?: Date | null; to?: Date | null },
) {
  const days = wholeDays(filters.from, filters.to);
  if (!days) return null;
  // A partner's key reads the rows of each rooftop its link allows, never the whole group's.
  const dealers = visibleDealers(session, kind, dealerIds(filters.dealer_id));
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
