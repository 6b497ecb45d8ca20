import { Prisma } from '../../generated/prisma/client';
import type { Db } from '../../db/database';
import type { Session } from '../../auth/session';
import { notFound } from '../../errors';
import {
  cursorPageArgs,
  pageOfIds,
  type CursorPage,
  type CursorWindowArgs,
  type ItemsSelection,
} from '../../pagination';
import { normalizeVin } from './vin';
import {
  DAYS_ON_LOT_SQL,
  inventoryOrder,
  onLotOnly,
  inventoryWhere,
  ON_LOT_STATUSES,
  type InventoryFilterArgs,
} from './inventory.filters';
import { inCallerData } from '../../tenancy';

/** Inventory reads: filtered pages, one vehicle, its history, and aggregates computed in SQL. */

/** The page's ids and the total in one statement, with the vehicles when their selection (`items`) is plain. */
export async function listVehicleIds(
  db: Db,
  session: Session,
  args: InventoryFilterArgs & CursorWindowArgs & { sort?: string | null },
  items: ItemsSelection | null = null,
): Promise<CursorPage> {
  const window = cursorPageArgs(args);
  return pageOfIds(db, {
    name: 'inventoryPage',
    table: 'vehicles',
    alias: 'v',
    where: inventoryWhere(session, args),
    order: inventoryOrder(args.sort, { onLot: onLotOnly(args), walkStart: window.walkStart }),
    window,
    items,
  });
}

/** The caller's vehicle with this VIN (the most recently updated if two rooftops hold it), else 404. */
export async function findVehicleIdByVin(db: Db, session: Session, vin: string): Promise<string> {
  const vehicle = await db.vehicle.findFirst({
    where: { vin: normalizeVin(vin), ...inCallerData(session, 'inventory') },
    orderBy: { updatedAt: 'desc' },
    select: { id: true },
  });
  if (!vehicle) throw notFound(`vehicle with VIN ${normalizeVin(vin)}`);
  return vehicle.id;
}

interface Aggregate {
  count: number;
  total_value: string;
  average_price: string | null;
  average_days_on_lot: number | null;
}

const AGGREGATE_SQL = Prisma.sql`count(*)::int AS count, COALESCE(sum(v.price), 0)::numeric(14,2)::text AS total_value,
  avg(v.price)::numeric(14,2)::text AS average_price, round(avg(${DAYS_ON_LOT_SQL}), 1)::float8 AS average_days_on_lot`;

/** Totals, value, average price and days on lot, overall and by status, make and dealer. */
export async function inventoryStats(db: Db, session: Session, args: InventoryFilterArgs) {
  const where = inventoryWhere(session, args, { statuses: ON_LOT_STATUSES });
  const [totals, byStatus, byMake, byDealer] = await Promise.all([
    db.$queryRaw<Aggregate[]>(
      Prisma.sql`/* inventoryStatsTotals */ SELECT ${AGGREGATE_SQL} FROM vehicles v WHERE ${where}`,
    ),
    db.$queryRaw<Array<Aggregate & { status: string }>>(
      Prisma.sql`/* inventoryStatsByStatus */ SELECT v.status::text AS status, ${AGGREGATE_SQL} FROM vehicles v WHERE ${where} GROUP BY v.status ORDER BY count DESC, status`,
    ),
    db.$queryRaw<Array<Aggregate & { make: string }>>(
      Prisma.sql`/* inventoryStatsByMake */ SELECT v.make, ${AGGREGATE_SQL} FROM vehicles v WHERE ${where} GROUP BY v.make ORDER BY count DESC, v.make`,
    ),
    db.$queryRaw<Array<Aggregate & { dealer_id: string; dealer_name: string }>>(
      Prisma.sql`/* inventoryStatsByDealer */ SELECT v.dealer_id, d.name AS dealer_name, ${AGGREGATE_SQL}
        FROM vehicles v JOIN dealers d ON d.id = v.dealer_id WHERE ${where} GROUP BY v.dealer_id, d.name ORDER BY count DESC, d.name`,
    ),
  ]);
  return { ...(totals[0] as Aggregate), by_status: byStatus, by_make: byMake, by_dealer: byDealer };
}

export const AGING_BUCKETS = [
  { bucket: '0-30', min_days: 0, max_days: 30 },
  { bucket: '31-60', min_days: 31, max_days: 60 },
  { bucket: '61-90', min_days: 61, max_days: 90 },
  { bucket: '90+', min_days: 91, max_days: null },
] as const;

/** Days-on-lot buckets with counts and value; current inventory unless a status filter says otherwise. */
export async function inventoryAging(db: Db, session: Session, args: InventoryFilterArgs) {
  const where = inventoryWhere(session, args, { statuses: ON_LOT_STATUSES });
  const rows = await db.$queryRaw<
    Array<{
      bucket: string;
      count: number;
      total_value: string;
      average_price: string | null;
      average_days_on_lot: number | null;
    }>
  >(
    Prisma.sql`/* inventoryAging */ SELECT CASE WHEN ${DAYS_ON_LOT_SQL} <= 30 THEN '0-30' WHEN ${DAYS_ON_LOT_SQL} <= 60 THEN '31-60'
        WHEN ${DAYS_ON_LOT_SQL} <= 90 THEN '61-90' ELSE '90+' END AS bucket, ${AGGREGATE_SQL}
      FROM vehicles v WHERE ${where} GROUP BY 1`,
  );
  const byBucket = new Map(rows.map((row) => [row.bucket, row]));
  const buckets = AGING_BUCKETS.map((bucket) => ({
    ...bucket,
    count: byBucket.get(bucket.bucket)?.count ?? 0,
    total_value: byBucket.get(bucket.bucket)?.total_value ?? '0.00',
    average_price: byBucket.get(bucket.bucket)?.average_price ?? null,
    average_days_on_lot: byBucket.get(bucket.bucket)?.average_days_on_lot ?? null,
  }));
  const totalValue = rows.reduce((sum, row) => sum + Math.round(Number(row.total_value) * 100), 0);
  return {
    buckets,
    total_count: rows.reduce((sum, row) => sum + row.count, 0),
    total_value: (totalValue / 100).toFixed(2),
  };
}

/** Counts per make, model, year, status, body style and condition under the other filters. */
export async function inventoryFacets(db: Db, session: Session, args: InventoryFilterArgs) {
  const where = inventoryWhere(session, args, { statuses: ON_LOT_STATUSES });
  const rows = await db.$queryRaw<Array<{ facet: string; value: string; make: string | null; count: number }>>(
    Prisma.sql`/* inventoryFacets */ WITH matching AS (SELECT v.make, v.model, v.year, v.status, v.body_style, v.condition FROM vehicles v WHERE ${where})
      SELECT 'make' AS facet, make AS value, NULL AS make, count(*)::int AS count FROM matching GROUP BY make
      UNION ALL SELECT 'model', model, make, count(*)::int FROM matching GROUP BY make, model
      UNION ALL SELECT 'year', year::text, NULL, count(*)::int FROM matching GROUP BY year
      UNION ALL SELECT 'status', status::text, NULL, count(*)::int FROM matching GROUP BY status
      UNION ALL SELECT 'body_style', body_style, NULL, count(*)::int FROM matching WHERE body_style IS NOT NULL GROUP BY body_style
      UNION ALL SELECT 'condition', condition::text, NULL, count(*)::int FROM matching GROUP BY condition`,
  );
  const facet = (name: string) =>
    rows
      .filter((row) => row.facet === name)
      .map((row) => ({ value: row.value, count: row.count, ...(name === 'model' ? { make: row.make } : {}) }))
      .sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
  return {
    makes: facet('make'),
    models: facet('model'),
    years: facet('year').sort((a, b) => Number(b.value) - Number(a.value)),
    statuses: facet('status'),
    body_styles: facet('body_style'),
    conditions: facet('condition'),
  };
}
