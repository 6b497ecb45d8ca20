import { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import { badInput } from '../../errors';
import {
  cursorPageArgs,
  pageOfIds,
  type CursorPage,
  type CursorWindowArgs,
  type ItemsSelection,
} from '../../pagination';
import { measureRows, NO_SOURCE, rollupTotal, type MeasureRowsPlan } from '../../rollups';
import { rangeSql } from '../../sql-filters';
import { sourceFilterSql } from '../sources/source-filter';
import { findInTenant } from '../../tenancy';
import { inCausedTransaction } from '../../db/bulk';
import { enumList, oneOf, optionalText } from '../../validation';
import { LEAD_SOLD_SQL, LEAD_SORT, LEAD_STATUSES, LEAD_TYPES, leadFilterSql, type LeadFilters } from './leads.filters';

/** Leads (ADF): filters, updates, and the three breakdowns with conversion rates, in SQL. */

export { LEAD_SOLD_SQL, LEAD_SORT, LEAD_STATUSES, LEAD_TYPES, type LeadFilters } from './leads.filters';

/** What a lead measure row `m` stands for in a list's total. */
const LEADS = Prisma.sql`m.leads`;

/** A page of leads, newest first unless `sort` says otherwise: ids and total in one statement. */
export async function leadPage(
  caller: Caller,
  filters: LeadFilters & CursorWindowArgs & { sort?: string | null },
  items: ItemsSelection | null = null,
): Promise<CursorPage> {
  return pageOfIds(caller.db, {
    name: 'leadPage',
    table: 'leads',
    alias: 'l',
    where: leadFilterSql(caller.session, filters),
    order: LEAD_SORT.order(filters.sort),
    window: cursorPageArgs(filters),
    items,
    // From lead_daily where it carries the filters (rooftops, period, source), or lead_stage_daily
    // (rooftops, period, statuses, types), else counted.
    count:
      rollupTotal(caller.session, 'leads', filters, { ...leadRollupPlan(caller, filters), measure: LEADS }) ??
      rollupTotal(caller.session, 'leads', filters, { ...leadStagePlan(caller, filters), measure: LEADS }),
  });
}

export async function findLeadId(caller: Caller, id: string): Promise<string> {
  const lead = await findInTenant(
    caller.session,
    'lead',
    id,
    (where) => caller.db.lead.findFirst({ where, select: { id: true } }),
    'leads',
  );
  return lead.id;
}

export async function updateLead(
  caller: Caller,
  id: string,
  input: { status?: string | null; assignee?: string | null },
): Promise<string> {
  await findLeadId(caller, id);
  if (input.status === undefined && input.assignee === undefined)
    throw badInput('status', 'give status or assignee to change');
  if (input.status === null) throw badInput('status', 'must not be null');
  const data = {
    ...(input.status !== undefined ? { status: oneOf('status', input.status, LEAD_STATUSES) } : {}),
    ...(input.assignee !== undefined ? { assignee: optionalText('assignee', input.assignee, 100) } : {}),
  };
  // The lead.updated event names this request as its cause.
  await inCausedTransaction(caller.db, { requestId: caller.requestId }, (tx) =>
    tx.lead.update({ where: { id }, data }),
  );
  return id;
}

const conversion = (sold: number, leads: number) => (leads ? Math.round((sold / leads) * 1000) / 1000 : null);

export async function leadsByType(caller: Caller, filters: LeadFilters) {
  const rows = await caller.db.$queryRaw<
    Array<{ type: string; leads: number; sold: number }>
  >(Prisma.sql`/* leadsByType */
    SELECT m.type::text AS type, sum(m.leads)::int AS leads, sum(m.sold)::int AS sold
    FROM (${leadStageRows(caller, filters)}) m GROUP BY m.type HAVING sum(m.leads) <> 0 ORDER BY leads DESC, type`);
  return rows.map((row) => ({ ...row, conversion_rate: conversion(row.sold, row.leads) }));
}

/**
 * Leads and sold leads per status and type, as measure rows: whole UTC days from lead_stage_daily
 * (kept by triggers in every writer's transaction), the partial days at either end from the leads.
 * Filters it does not carry (source, assignee, updated since) read the leads for the whole range.
 */
function leadStageRows(caller: Caller, filters: LeadFilters): Prisma.Sql {
  return measureRows(caller.session, 'leads', filters, leadStagePlan(caller, filters));
}

/** How lead_stage_daily reads the filters: rooftops, period, statuses and types. */
function leadStagePlan(caller: Caller, filters: LeadFilters): MeasureRowsPlan {
  const statuses = enumList('status', filters.status, LEAD_STATUSES);
  const types = enumList('type', filters.type, LEAD_TYPES);
  return {
    check: () => leadFilterSql(caller.session, filters),
    rollupable: !filters.source?.trim() && !filters.assignee?.trim() && !filters.updated_since,
    rollup: (conditions) =>
      Prisma.sql`SELECT r.status, r.type, r.leads, r.sold FROM lead_stage_daily r WHERE ${conditions}`,
    rollupConditions: [
      statuses?.length ? Prisma.sql`r.status = ANY(${statuses}::lead_status[])` : null,
      types?.length ? Prisma.sql`r.type = ANY(${types}::lead_type[])` : null,
    ],
    raw: (range) => Prisma.sql`SELECT l.status, l.type, 1 AS leads, (${LEAD_SOLD_SQL})::int AS sold
      FROM leads l WHERE ${leadFilterSql(caller.session, { ...filters, ...range })}`,
  };
}

/**
 * Leads per status now, each with how many of them count as sold (LEAD_SOLD_SQL), so the stages' `sold`
 * add up to the same total as by type and by source. The funnel places a lead counted as sold at `sold`,
 * whatever its status says: it has passed every stage, and is not lost.
 */
export async function leadsByStatus(caller: Caller, filters: LeadFilters) {
  const rows = await caller.db.$queryRaw<
    Array<{ status: string; leads: number; sold: number }>
  >(Prisma.sql`/* leadsByStatus */
    SELECT m.status::text AS status, sum(m.leads)::int AS leads, sum(m.sold)::int AS sold
    FROM (${leadStageRows(caller, filters)}) m GROUP BY m.status HAVING sum(m.leads) <> 0`);
  const byStatus = new Map(rows.map((row) => [row.status, row]));
  const leadsIn = (status: string) => byStatus.get(status)?.leads ?? 0;
  const soldIn = (status: string) => byStatus.get(status)?.sold ?? 0;
  const total = rows.reduce((sum, row) => sum + row.leads, 0);
  const sold = rows.reduce((sum, row) => sum + row.sold, 0);
  // Where each lead stands in the funnel: sold if it counts as sold, else its status.
  const standing = (status: string) => (status === 'sold' ? sold : leadsIn(status) - soldIn(status));
  const lost = standing('lost');
  // Reached: leads at this stage or past it (lost leads count only for `new`).
  const stages = LEAD_STATUSES.map((status, index) => ({
    status,
    leads: leadsIn(status),
    sold: soldIn(status),
    reached:
      status === 'lost'
        ? lost
        : LEAD_STATUSES.slice(index, 5).reduce((sum, later) => sum + standing(later), 0) + (index === 0 ? lost : 0),
  }));
  return { total, sold, lost, conversion_rate: conversion(sold, total), stages };
}

/**
 * Leads and sold leads per source: whole UTC days from lead_daily (kept by triggers in every writer's
 * transaction), the partial days at either end from the leads themselves. Filters lead_daily does not
 * carry (status, type, assignee, updated since) read the leads for the whole range.
 */
function leadMeasureRows(caller: Caller, filters: LeadFilters): Prisma.Sql {
  return measureRows(caller.session, 'leads', filters, leadRollupPlan(caller, filters));
}

/** How lead_daily reads the filters. */
function leadRollupPlan(caller: Caller, filters: LeadFilters): MeasureRowsPlan {
  return {
    rollupable: !filters.status?.length && !filters.type?.length && !filters.assignee?.trim() && !filters.updated_since,
    rollup: (conditions) => Prisma.sql`SELECT NULLIF(r.source_id, ${NO_SOURCE}::uuid) AS source_id, r.leads, r.sold
      FROM lead_daily r WHERE ${conditions}`,
    rollupConditions: [sourceFilterSql('r', filters.source)],
    raw: (range) => Prisma.sql`SELECT l.source_id, 1 AS leads, (${LEAD_SOLD_SQL})::int AS sold
      FROM leads l WHERE ${leadFilterSql(caller.session, { ...filters, ...range })}`,
  };
}

/**
 * The deals each source's leads became, with their gross: a deal counts once for each canonical source
 * of the leads linked to it, on the day that source's first such lead came in (lead_source_deals, kept
 * by triggers on leads and deals). Whole UTC days from lead_deal_daily, the partial days at either end
 * and filters it does not carry from the pairs themselves, through the lead that first brought each.
 */
function leadDealRows(caller: Caller, filters: LeadFilters): Prisma.Sql {
  return measureRows(caller.session, 'leads', filters, {
    ...leadRollupPlan(caller, filters),
    rollup: (conditions) => Prisma.sql`SELECT NULLIF(r.source_id, ${NO_SOURCE}::uuid) AS source_id, r.deals, r.gross
      FROM lead_deal_daily r WHERE ${conditions}`,
    raw: (range) => {
      const period = { ...filters, ...range };
      return Prisma.sql`SELECT NULLIF(t.source_id, ${NO_SOURCE}::uuid) AS source_id, 1 AS deals, t.gross
        FROM lead_source_deals t JOIN leads l ON l.id = t.lead_id AND l.dealer_group_id = t.dealer_group_id
        WHERE ${Prisma.join([...rangeSql('t.received_at', period.from, period.to), leadFilterSql(caller.session, period)], ' AND ')}`;
    },
  });
}

/** Per canonical source: leads, conversions, and the deals (and gross) they became. */
export async function leadsBySource(caller: Caller, filters: LeadFilters) {
  const rows = await caller.db.$queryRaw<
    Array<{
      source_id: string | null;
      source_name: string | null;
      category: string | null;
      cost_per_month: string | null;
      leads: number;
      sold: number;
      sales: number;
      gross: string;
    }>
  >(Prisma.sql`/* leadsBySource */
    WITH counted AS MATERIALIZED (
      SELECT m.source_id, sum(m.leads)::int AS leads, sum(m.sold)::int AS sold
      FROM (${leadMeasureRows(caller, filters)}) m GROUP BY m.source_id HAVING sum(m.leads) > 0),
    converted AS MATERIALIZED (
      SELECT m.source_id, sum(m.deals)::int AS sales, sum(m.gross) AS gross
      FROM (${leadDealRows(caller, filters)}) m GROUP BY m.source_id)
    SELECT c.source_id, s.name::text AS source_name, s.category::text AS category, s.cost_per_month::text AS cost_per_month,
      c.leads, c.sold, COALESCE(v.sales, 0) AS sales, COALESCE(v.gross, 0)::numeric(14,2)::text AS gross
    FROM counted c LEFT JOIN converted v ON v.source_id IS NOT DISTINCT FROM c.source_id LEFT JOIN sources s ON s.id = c.source_id
    ORDER BY c.leads DESC, source_name NULLS LAST`);
  const days = filters.from && filters.to ? (filters.to.getTime() - filters.from.getTime()) / 86_400_000 : null;
  return rows.map((row) => ({
    ...row,
    conversion_rate: conversion(row.sold, row.leads),
    cost_per_lead:
      row.cost_per_month && days && row.leads
        ? ((Number(row.cost_per_month) * days) / 30.4375 / row.leads).toFixed(2)
        : null,
  }));
}
