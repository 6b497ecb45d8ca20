import { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import type { RawSqlClient } from '../../db/database';
import {
  cursorPageArgs,
  pageOfIds,
  type CursorPage,
  type CursorWindowArgs,
  type ItemsSelection,
} from '../../pagination';
import { callerDataSql, findInTenant } from '../../tenancy';
import { measureRows, rollupTotal, type MeasureRowsPlan } from '../../rollups';
import { SALE_SORT, saleFilterSql, type SaleFilters } from './sales.filters';

/** Deals as the DMS records them: filters, stats by month and salesperson, and lead/call linking. */

export { CONTRACT_TYPES, SALE_SORT, type SaleFilters } from './sales.filters';

/** A page of deals, newest first unless `sort` says otherwise: ids and total in one statement. */
export async function salePage(
  caller: Caller,
  filters: SaleFilters & CursorWindowArgs & { sort?: string | null },
  items: ItemsSelection | null = null,
): Promise<CursorPage> {
  return pageOfIds(caller.db, {
    name: 'salePage',
    table: 'sales',
    alias: 'd',
    where: saleFilterSql(caller.session, filters),
    order: SALE_SORT.order(filters.sort),
    window: cursorPageArgs(filters),
    items,
    // From sale_daily where it carries the filters (rooftops, period), else counted.
    count: rollupTotal(caller.session, 'sales', filters, {
      ...saleRollupPlan(caller, filters),
      measure: Prisma.sql`m.units`,
    }),
  });
}

export async function findSaleId(caller: Caller, id: string): Promise<string> {
  const sale = await findInTenant(
    caller.session,
    'sale',
    id,
    (where) => caller.db.sale.findFirst({ where, select: { id: true } }),
    'sales',
  );
  return sale.id;
}

const MEASURES = Prisma.sql`count(*)::int AS units, COALESCE(sum(d.sale_price), 0)::numeric(14,2)::text AS revenue,
  COALESCE(sum(d.front_gross), 0)::numeric(14,2)::text AS front_gross, COALESCE(sum(d.back_gross), 0)::numeric(14,2)::text AS back_gross,
  COALESCE(sum(d.front_gross + d.back_gross), 0)::numeric(14,2)::text AS total_gross, avg(d.sale_price)::numeric(14,2)::text AS average_sale_price,
  avg(d.front_gross)::numeric(14,2)::text AS average_front_gross, avg(d.back_gross)::numeric(14,2)::text AS average_back_gross`;

export interface SaleMeasures {
  units: number;
  revenue: string;
  front_gross: string;
  back_gross: string;
  total_gross: string;
  average_sale_price: string | null;
  average_front_gross: string | null;
  average_back_gross: string | null;
}

/** The same measures over rows of (day, units, revenue, front_gross, back_gross) `m`. */
const SUMMED = Prisma.sql`COALESCE(sum(m.units), 0)::int AS units, COALESCE(sum(m.revenue), 0)::numeric(14,2)::text AS revenue,
  COALESCE(sum(m.front_gross), 0)::numeric(14,2)::text AS front_gross, COALESCE(sum(m.back_gross), 0)::numeric(14,2)::text AS back_gross,
  COALESCE(sum(m.front_gross) + sum(m.back_gross), 0)::numeric(14,2)::text AS total_gross,
  (sum(m.revenue) / NULLIF(sum(m.units), 0))::numeric(14,2)::text AS average_sale_price,
  (sum(m.front_gross) / NULLIF(sum(m.units), 0))::numeric(14,2)::text AS average_front_gross,
  (sum(m.back_gross) / NULLIF(sum(m.units), 0))::numeric(14,2)::text AS average_back_gross`;

/**
 * The deals the stats sum, as rows per UTC day: whole days from sale_daily (kept by triggers in
 * every writer's transaction), the partial days at either end from the deals. Filters sale_daily
 * does not carry (salesperson, contract type, condition, updated since) read the deals.
 */
function saleDayRows(caller: Caller, filters: SaleFilters): Prisma.Sql {
  return measureRows(caller.session, 'sales', filters, saleRollupPlan(caller, filters));
}

/** How sale_daily reads the filters. */
function saleRollupPlan(caller: Caller, filters: SaleFilters): MeasureRowsPlan {
  return {
    check: () => saleFilterSql(caller.session, filters),
    rollupable:
      !filters.salesperson?.trim() && !filters.contract_type?.length && !filters.condition && !filters.updated_since,
    rollup: (conditions) =>
      Prisma.sql`SELECT r.day, r.units, r.revenue, r.front_gross, r.back_gross FROM sale_daily r WHERE ${conditions}`,
    raw: (range) => Prisma.sql`SELECT (d.sold_at AT TIME ZONE 'UTC')::date AS day, 1 AS units,
        d.sale_price AS revenue, d.front_gross, d.back_gross FROM sales d WHERE ${saleFilterSql(caller.session, { ...filters, ...range })}`,
  };
}

/** Totals and months (UTC) in one statement over the day rows. */
export async function saleStats(caller: Caller, filters: SaleFilters) {
  const rows = await caller.db.$queryRaw<Array<SaleMeasures & { month: string | null }>>(Prisma.sql`/* saleStats */
    SELECT to_char(m.day, 'YYYY-MM') AS month, ${SUMMED} FROM (${saleDayRows(caller, filters)}) m
    GROUP BY GROUPING SETS ((), (to_char(m.day, 'YYYY-MM'))) HAVING GROUPING(to_char(m.day, 'YYYY-MM')) = 1 OR sum(m.units) > 0
    ORDER BY 1 NULLS FIRST`);
  const [total, ...months] = rows;
  const { month: _total, ...totals } = total as SaleMeasures & { month: null };
  return { ...totals, by_month: months as Array<SaleMeasures & { month: string }> };
}

/** Per salesperson (names compared case-insensitively): units, revenue, gross, and close rate (their deals ÷ leads assigned to them). */
export async function salespeopleStats(caller: Caller, filters: SaleFilters) {
  const where = saleFilterSql(caller.session, filters);
  const leadRange = [
    callerDataSql(caller.session, 'l', 'leads'),
    ...(filters.from ? [Prisma.sql`l.received_at >= ${filters.from}`] : []),
    ...(filters.to ? [Prisma.sql`l.received_at <= ${filters.to}`] : []),
  ];
  const rows = await caller.db.$queryRaw<
    Array<SaleMeasures & { salesperson: string; assigned_leads: number }>
  >(Prisma.sql`/* salespeopleStats */
    WITH deals AS (SELECT mode() WITHIN GROUP (ORDER BY d.salesperson) AS salesperson, ${MEASURES} FROM sales d WHERE ${where} GROUP BY lower(d.salesperson)),
    assigned AS (SELECT lower(l.assignee) AS person, count(*)::int AS assigned_leads FROM leads l WHERE ${Prisma.join(leadRange, ' AND ')} AND l.assignee IS NOT NULL GROUP BY 1)
    SELECT deals.*, COALESCE(assigned.assigned_leads, 0) AS assigned_leads FROM deals LEFT JOIN assigned ON assigned.person = lower(deals.salesperson)
    ORDER BY deals.units DESC, deals.salesperson`);
  return rows.map((row) => ({
    ...row,
    close_rate: row.assigned_leads ? Math.round((row.units / row.assigned_leads) * 1000) / 1000 : null,
  }));
}

export const LINK_WINDOW_DAYS = 120;

/**
 * Links leads and calls to the deal they became: the first sale at the same dealer group within
 * 120 days after them to the same customer (email or phone for leads, phone for calls) or of the
 * vehicle the lead asked about (VIN). `only` narrows it to those leads and calls (records posted
 * through the API, linked in their own transaction). Returns how many records were linked.
 */
export async function linkLeadsAndCalls(
  db: RawSqlClient,
  dealerGroupIds: readonly string[],
  only?: { leadIds?: readonly string[]; callIds?: readonly string[] },
): Promise<{ leads: number; calls: number }> {
  const groups = [...dealerGroupIds];
  const listed = (column: string, ids: readonly string[] | undefined) =>
    only ? Prisma.sql`AND ${Prisma.raw(column)} = ANY(${[...(ids ?? [])]}::uuid[])` : Prisma.empty;
  // Equality joins (one per kind of evidence) let PostgreSQL hash-join leads and deals instead of
  // testing every pair; the earliest deal in the window wins.
  const within = (column: Prisma.Sql) =>
    Prisma.sql`d.sold_at >= ${column} AND d.sold_at <= ${column} + make_interval(days => ${LINK_WINDOW_DAYS})`;
  const leads =
    only && !only.leadIds?.length
      ? 0
      : await db.$executeRaw`/* linkLeads */
    WITH open_leads AS (SELECT id, dealer_group_id, received_at, lower(email) AS email, phone, vehicle_vin FROM leads
        WHERE dealer_group_id = ANY(${groups}::uuid[]) AND sale_id IS NULL ${listed('id', only?.leadIds)}),
      candidates AS (
        SELECT l.id AS lead_id, d.id AS sale_id, d.sold_at FROM open_leads l JOIN sales d ON d.dealer_group_id = l.dealer_group_id AND lower(d.customer_email) = l.email WHERE ${within(Prisma.sql`l.received_at`)}
        UNION ALL
        SELECT l.id, d.id, d.sold_at FROM open_leads l JOIN sales d ON d.dealer_group_id = l.dealer_group_id AND d.customer_phone = l.phone WHERE ${within(Prisma.sql`l.received_at`)}
        UNION ALL
        SELECT l.id, d.id, d.sold_at FROM open_leads l JOIN sales d ON d.dealer_group_id = l.dealer_group_id AND d.vin = l.vehicle_vin WHERE ${within(Prisma.sql`l.received_at`)}),
      best AS (SELECT DISTINCT ON (lead_id) lead_id, sale_id FROM candidates ORDER BY lead_id, sold_at, sale_id)
    UPDATE leads l SET sale_id = best.sale_id, updated_at = now() FROM best WHERE l.id = best.lead_id`;
  const calls =
    only && !only.callIds?.length
      ? 0
      : await db.$executeRaw`/* linkCalls */
    WITH best AS (
      SELECT DISTINCT ON (c.id) c.id AS call_id, d.id AS sale_id FROM calls c
      JOIN sales d ON d.dealer_group_id = c.dealer_group_id AND d.customer_phone = c.caller_number
      WHERE c.dealer_group_id = ANY(${groups}::uuid[]) AND c.sale_id IS NULL ${listed('c.id', only?.callIds)} AND ${within(Prisma.sql`c.started_at`)}
      ORDER BY c.id, d.sold_at, d.id)
    UPDATE calls c SET sale_id = best.sale_id, updated_at = now() FROM best WHERE c.id = best.call_id`;
  return { leads, calls };
}
