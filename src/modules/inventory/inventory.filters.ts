import { Prisma } from '../../generated/prisma/client';
import { badInput } from '../../errors';
import { dealerIds, oneOf } from '../../validation';
import type { Session } from '../../auth/session';
import { callerDataSql } from '../../tenancy';
import { equalsAny, likeLiteral } from '../../sql-filters';
import { enumKeyType, KEY_TYPES, orderBySql, sortOrder, type ListOrder, type SortColumn } from '../../keyset';

/** Validates the inventory filters (GET /inventory and its aggregates) and turns them into one SQL WHERE clause. */

export const VEHICLE_STATUSES = ['available', 'pending', 'in_transit', 'sold', 'presumed_sold'] as const;
export const CONDITIONS = ['new', 'used', 'certified'] as const;
/** Statuses that count as current inventory where an endpoint says so. */
export const ON_LOT_STATUSES = ['available', 'pending', 'in_transit'] as const;

export interface InventoryFilterArgs {
  make?: string[] | null;
  model?: string[] | null;
  year_min?: number | null;
  year_max?: number | null;
  price_min?: string | null;
  price_max?: string | null;
  status?: string[] | null;
  condition?: string[] | null;
  body_style?: string[] | null;
  dealer_id?: string[] | null;
  source?: string[] | null;
  days_on_lot_min?: number | null;
  days_on_lot_max?: number | null;
  exterior_color?: string[] | null;
  mileage_min?: number | null;
  mileage_max?: number | null;
  q?: string | null;
  updated_since?: Date | null;
}

/**
 * What free text (q) is matched against, as the trigram index on vehicles indexes it: the VIN, the
 * stock number, "year make model" and the trim, each apart from the next by a control character no
 * q may hold, so a match never spans two of them: q matches this when, and only when, it is in one
 * of them (make and model are inside "year make model").
 */
const SEARCH_TEXT_SQL = Prisma.sql`(v.vin || chr(1) || coalesce(v.stock_number, '') || chr(1) || v.year::text || ' ' || v.make::text || ' ' || v.model::text || chr(1) || coalesce(v.trim, ''))`;

/** Days on lot: from the stock-in date to today, or to the sale for sold vehicles (UTC dates). */
export const DAYS_ON_LOT_SQL = Prisma.sql`((COALESCE(v.sold_at, now()) AT TIME ZONE 'UTC')::date - v.date_in_stock)`;

export function daysOnLot(dateInStock: Date, soldAt: Date | null, now = new Date()): number {
  const end = soldAt ?? now;
  const endDay = Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), end.getUTCDate());
  return Math.round((endDay - dateInStock.getTime()) / 86_400_000);
}

function range(name: string, value: number | null | undefined, min: number, max: number) {
  if (value === null || value === undefined) return;
  if (!Number.isInteger(value) || value < min || value > max)
    throw badInput(name, `must be a whole number from ${min} to ${max}`);
}

function ordered(minName: string, min: unknown, maxName: string, max: unknown) {
  if (min !== null && min !== undefined && max !== null && max !== undefined && Number(min) > Number(max)) {
    throw badInput(minName, `must not be greater than ${maxName}`);
  }
}

function textList(name: string, values: string[] | null | undefined): string[] | null {
  if (!values?.length) return null;
  const cleaned = values
    .flatMap((value) => value.split(','))
    .map((value) => value.trim())
    .filter(Boolean);
  if (cleaned.some((value) => value.length > 100)) throw badInput(name, 'values must be at most 100 characters');
  if (cleaned.length > 100) throw badInput(name, 'at most 100 values');
  return cleaned.length ? cleaned : null;
}

const oneOfEach = (name: string, values: string[] | null, allowed: readonly string[]) =>
  values?.map((value) => oneOf(name, value, allowed)) ?? null;

/**
 * The WHERE clause for the caller's vehicles matching the filters. The tenant condition comes
 * from the session, always first, so no caller can see past their dealer groups.
 */
export function inventoryWhere(
  session: Session,
  args: InventoryFilterArgs,
  defaults: { statuses?: readonly string[] } = {},
): Prisma.Sql {
  range('year_min', args.year_min, 1900, 2100);
  range('year_max', args.year_max, 1900, 2100);
  ordered('year_min', args.year_min, 'year_max', args.year_max);
  ordered('price_min', args.price_min, 'price_max', args.price_max);
  if (args.price_min && Number(args.price_min) < 0) throw badInput('price_min', 'must not be negative');
  range('days_on_lot_min', args.days_on_lot_min, 0, 100_000);
  range('days_on_lot_max', args.days_on_lot_max, 0, 100_000);
  ordered('days_on_lot_min', args.days_on_lot_min, 'days_on_lot_max', args.days_on_lot_max);
  range('mileage_min', args.mileage_min, 0, 2_000_000);
  range('mileage_max', args.mileage_max, 0, 2_000_000);
  ordered('mileage_min', args.mileage_min, 'mileage_max', args.mileage_max);
  const colors = textList('exterior_color', args.exterior_color);
  const makes = textList('make', args.make);
  const models = textList('model', args.model);
  const bodyStyles = textList('body_style', args.body_style);
  const sources = textList('source', args.source);
  const statuses = oneOfEach('status', textList('status', args.status), VEHICLE_STATUSES) ?? defaults.statuses ?? null;
  const conditions = oneOfEach('condition', textList('condition', args.condition), CONDITIONS);
  const dealers = dealerIds(args.dealer_id);
  const q = args.q?.trim();
  if (q && q.length > 100) throw badInput('q', 'must be at most 100 characters');
  // A control character would let q reach across the fields of the search text.
  if (q && /\p{Cc}/u.test(q)) throw badInput('q', 'must not contain control characters');

  const lower = (values: string[]) => values.map((value) => value.toLowerCase());
  const conditionsSql: Prisma.Sql[] = [callerDataSql(session, 'v', 'inventory')];
  // make, model and body_style are citext for display; filters compare lower(…) as plain text,
  // which their expression indexes answer without citext's per-entry case folding.
  if (makes) conditionsSql.push(equalsAny(Prisma.sql`lower(v.make::text)`, lower(makes), 'text'));
  if (models) conditionsSql.push(equalsAny(Prisma.sql`lower(v.model::text)`, lower(models), 'text'));
  if (bodyStyles) conditionsSql.push(equalsAny(Prisma.sql`lower(v.body_style::text)`, lower(bodyStyles), 'text'));
  if (statuses) conditionsSql.push(equalsAny(Prisma.sql`v.status`, statuses, 'vehicle_status'));
  if (conditions) conditionsSql.push(equalsAny(Prisma.sql`v.condition`, conditions, 'vehicle_condition'));
  if (dealers) conditionsSql.push(equalsAny(Prisma.sql`v.dealer_id`, dealers, 'uuid'));
  if (args.year_min != null) conditionsSql.push(Prisma.sql`v.year >= ${args.year_min}`);
  if (args.year_max != null) conditionsSql.push(Prisma.sql`v.year <= ${args.year_max}`);
  if (args.price_min != null) conditionsSql.push(Prisma.sql`v.price >= ${args.price_min}::numeric`);
  if (args.price_max != null) conditionsSql.push(Prisma.sql`v.price <= ${args.price_max}::numeric`);
  if (args.days_on_lot_min != null) conditionsSql.push(Prisma.sql`${DAYS_ON_LOT_SQL} >= ${args.days_on_lot_min}`);
  if (args.days_on_lot_max != null) conditionsSql.push(Prisma.sql`${DAYS_ON_LOT_SQL} <= ${args.days_on_lot_max}`);
  if (args.mileage_min != null) conditionsSql.push(Prisma.sql`v.mileage >= ${args.mileage_min}`);
  if (args.mileage_max != null) conditionsSql.push(Prisma.sql`v.mileage <= ${args.mileage_max}`);
  if (colors)
    conditionsSql.push(
      Prisma.sql`v.exterior_color ILIKE ANY(${colors.map((color) => `%${likeLiteral(color)}%`)}::text[])`,
    );
  if (args.updated_since) conditionsSql.push(Prisma.sql`v.updated_at >= ${args.updated_since}`);
  if (sources) {
    conditionsSql.push(
      Prisma.sql`EXISTS (SELECT 1 FROM vehicle_source_records r WHERE r.vehicle_id = v.id AND r.source = ANY(${lower(sources)}))`,
    );
  }
  if (q) {
    const pattern = `%${likeLiteral(q)}%`;
    conditionsSql.push(Prisma.sql`${SEARCH_TEXT_SQL} ILIKE ${pattern}`);
  }
  return Prisma.join(conditionsSql, ' AND ');
}

/** Days on lot counted to `today` (a UTC date) instead of now: a walk by cursor counts to the day it began. */
const daysOnLotAt = (today: Date) =>
  Prisma.sql`(COALESCE((v.sold_at AT TIME ZONE 'UTC')::date, ${today.toISOString().slice(0, 10)}::date) - v.date_in_stock)`;

/** Sort keys and their SQL; `nullable` columns keep vehicles without a value last either way. */
const SORT_COLUMNS: Record<string, SortColumn> = {
  price: { sql: Prisma.sql`v.price`, type: KEY_TYPES.decimal, nullable: true },
  internet_price: { sql: Prisma.sql`v.internet_price`, type: KEY_TYPES.decimal, nullable: true },
  msrp: { sql: Prisma.sql`v.msrp`, type: KEY_TYPES.decimal, nullable: true },
  year: { sql: Prisma.sql`v.year`, type: KEY_TYPES.integer },
  mileage: { sql: Prisma.sql`v.mileage`, type: KEY_TYPES.integer, nullable: true },
  make: { sql: Prisma.sql`v.make`, type: KEY_TYPES.citext },
  model: { sql: Prisma.sql`v.model`, type: KEY_TYPES.citext },
  // Counted to the day a walk began, or read as the stock-in date: see inventoryOrder.
  days_on_lot: { sql: DAYS_ON_LOT_SQL, type: KEY_TYPES.integer },
  date_in_stock: { sql: Prisma.sql`v.date_in_stock`, type: KEY_TYPES.date },
  stock_number: { sql: Prisma.sql`v.stock_number`, type: KEY_TYPES.text, nullable: true },
  vin: { sql: Prisma.sql`v.vin`, type: KEY_TYPES.text },
  status: { sql: Prisma.sql`v.status`, type: enumKeyType('vehicle_status', VEHICLE_STATUSES) },
  created_at: { sql: Prisma.sql`v.created_at`, type: KEY_TYPES.timestamp },
  updated_at: { sql: Prisma.sql`v.updated_at`, type: KEY_TYPES.timestamp },
};
export const SORT_KEYS = Object.keys(SORT_COLUMNS);
export const DEFAULT_SORT = '-updated_at';

/**
 * `price`, `-days_on_lot` or a comma list of them; the id breaks ties (keyset.ts), so pages are
 * stable. Written so an index can return rows in order: NULLS LAST only where a column can be null,
 * and, for vehicles on the lot only (`onLot`: no sale date, a check constraint ensures it), days on
 * lot as the stock-in date the other way round. Otherwise days on lot count to the UTC day of
 * `walkStart` (default now), so the order holds for a whole walk by cursor, across midnight too.
 */
export function inventoryOrder(
  sort: string | null | undefined,
  options: { onLot?: boolean; walkStart?: Date } = {},
): ListOrder {
  return sortOrder(sort, {
    fallback: DEFAULT_SORT,
    id: Prisma.sql`v.id`,
    keys: SORT_KEYS,
    column: (name) => {
      if (name !== 'days_on_lot') return SORT_COLUMNS[name];
      return options.onLot
        ? { sql: Prisma.sql`v.date_in_stock`, type: KEY_TYPES.date, reversed: true, variant: 'on the lot' }
        : { ...SORT_COLUMNS.days_on_lot!, sql: daysOnLotAt(options.walkStart ?? new Date()) };
    },
  });
}

/** The ORDER BY of `inventoryOrder`, for reads that take the first rows only. */
export function inventoryOrderBy(sort: string | null | undefined, options: { onLot?: boolean } = {}): Prisma.Sql {
  return orderBySql(inventoryOrder(sort, options));
}

/** Whether the filters keep to vehicles on the lot (every status asked for is an on-lot one). */
export function onLotOnly(args: Pick<InventoryFilterArgs, 'status'>): boolean {
  const statuses = textList('status', args.status);
  return !!statuses && statuses.every((status) => (ON_LOT_STATUSES as readonly string[]).includes(status));
}
