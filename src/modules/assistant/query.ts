import { Prisma } from '../../generated/prisma/client';
import type { Context } from '../../context';
import { badInput } from '../../errors';
import { DAYS_ON_LOT_SQL, inventoryOrderBy, inventoryWhere, ON_LOT_STATUSES, type InventoryFilterArgs } from '../inventory/inventory.filters';
import { leadWhere, type LeadFilters } from '../leads/leads.service';
import { callWhere, type CallFilters } from '../calls/calls.service';
import { saleSql, saleWhere, type SaleFilters } from '../sales/sales.service';

/**
 * The assistant's structured queries: what both engines (the built-in one and a provider's tool
 * calls) ask of the data. Every query runs through the API's own filter builders with the caller's
 * session, so tenant scoping and scopes hold whoever wrote the query; nobody writes SQL.
 */

export const SUBJECTS = ['vehicles', 'leads', 'calls', 'sales'] as const;
export const MEASURES = ['count', 'list', 'average', 'max', 'min', 'sum'] as const;
export const GROUPINGS = ['dealer', 'make', 'body_style', 'condition', 'source', 'status', 'type', 'salesperson'] as const;
export const VEHICLE_FIELDS = ['price', 'days_on_lot', 'mileage', 'year'] as const;
export const SALE_FIELDS = ['sale_price', 'front_gross', 'back_gross', 'total_gross'] as const;

export type Subject = (typeof SUBJECTS)[number];
export type Measure = (typeof MEASURES)[number];
export type Grouping = (typeof GROUPINGS)[number];

export interface QueryFilters {
  dealer_id?: string[];
  condition?: string[];
  body_style?: string[];
  make?: string[];
  model?: string[];
  color?: string[];
  status?: string[];
  price_min?: number; price_max?: number;
  year_min?: number; year_max?: number;
  mileage_min?: number; mileage_max?: number;
  days_on_lot_min?: number; days_on_lot_max?: number;
  /** Leads, calls, sales: ISO dates or instants. */
  from?: string; to?: string;
  source?: string;
  type?: string[];
  first_time?: boolean;
}

export interface AssistantQuery {
  subject: Subject;
  measure: Measure;
  field?: string;
  group_by?: Grouping;
  filters: QueryFilters;
  limit?: number;
  /** A list's order by `field`: desc (default) or asc. */
  order?: 'asc' | 'desc';
  /** With a count: also the whole it is part of (the same rooftops and period, without the other filters). */
  share?: boolean;
}

export interface ResultRow { key: string | null; label: string; count: number; value: number | null }
export interface VehicleRow { vin: string; year: number; make: string; model: string; trim: string | null; price: string | null; days_on_lot: number; mileage: number | null; exterior_color: string | null; dealer_name: string; body_style: string | null; condition: string }
export interface ActivityRow { id: string; at: Date; label: string; dealer_name: string; source: string | null; detail: string }

export interface QueryResult {
  query: AssistantQuery;
  count: number;
  /** With `share`: the count of the whole the answer is a part of. */
  whole?: number;
  /** The figure asked for (an average, a maximum, a sum), when there is one. */
  value: number | null;
  groups: ResultRow[];
  vehicles: VehicleRow[];
  activity: ActivityRow[];
}

type Caller = Pick<Context, 'db' | 'session'>;

/** JSON Schema of a query: the tool's parameters for a provider, and the shape the built-in engine fills. */
export const QUERY_SCHEMA = {
  type: 'object',
  required: ['subject', 'measure'],
  additionalProperties: false,
  properties: {
    subject: { type: 'string', enum: SUBJECTS, description: 'What to look at: vehicles in inventory, leads, calls or sales (deals).' },
    measure: { type: 'string', enum: MEASURES, description: 'count; list (records, ordered by field); average, max, min or sum of field.' },
    field: { type: 'string', enum: [...VEHICLE_FIELDS, ...SALE_FIELDS, 'duration'], description: 'The figure for average/max/min/sum/list order: vehicles price, days_on_lot, mileage, year; sales sale_price, front_gross, back_gross, total_gross; calls duration.' },
    group_by: { type: 'string', enum: GROUPINGS, description: 'Break the count or figure down: dealer (rooftop), make, body_style, condition, source (leads, calls; deals count for the first lead or call that led to them), status, type (leads), salesperson (sales).' },
    limit: { type: 'integer', minimum: 1, maximum: 25, description: 'How many records a list returns (default 10).' },
    share: { type: 'boolean', description: 'With count: also count the whole (same rooftops and period, no other filters), for percentages.' },
    order: { type: 'string', enum: ['asc', 'desc'], description: 'A list ordered by field: desc (default, largest first) or asc.' },
    filters: {
      type: 'object',
      additionalProperties: false,
      properties: {
        dealer: { type: 'array', items: { type: 'string' }, description: 'Rooftop names or parts of them ("north", "Summit Honda Downtown").' },
        condition: { type: 'array', items: { type: 'string', enum: ['new', 'used', 'certified'] } },
        body_style: { type: 'array', items: { type: 'string' }, description: 'SUV, Sedan, Truck, Coupe, Minivan, Wagon, …' },
        make: { type: 'array', items: { type: 'string' } },
        model: { type: 'array', items: { type: 'string' } },
        color: { type: 'array', items: { type: 'string' }, description: 'Exterior color words (white, black, …).' },
        status: { type: 'array', items: { type: 'string' }, description: 'Vehicles: available, pending, in_transit, sold, presumed_sold (default: on the lot). Calls: answered, missed, voicemail. Leads: new, contacted, appointment, showed, sold, lost.' },
        price_min: { type: 'number' }, price_max: { type: 'number' },
        year_min: { type: 'integer' }, year_max: { type: 'integer' },
        mileage_min: { type: 'integer' }, mileage_max: { type: 'integer' },
        days_on_lot_min: { type: 'integer' }, days_on_lot_max: { type: 'integer' },
        from: { type: 'string', description: 'Leads, calls, sales: from this ISO date or instant.' },
        to: { type: 'string', description: 'Leads, calls, sales: up to this ISO date or instant.' },
        source: { type: 'string', description: 'Leads and calls: a canonical source name.' },
        type: { type: 'array', items: { type: 'string', enum: ['new', 'used', 'service', 'finance', 'trade_in'] }, description: 'Lead type.' },
        first_time: { type: 'boolean', description: 'Calls from first-time callers only.' },
      },
    },
  },
} as const;

const LIST_FILTERS = ['dealer_id', 'condition', 'body_style', 'make', 'model', 'color', 'status', 'type'] as const;
const NUMBER_FILTERS = ['price_min', 'price_max', 'year_min', 'year_max', 'mileage_min', 'mileage_max', 'days_on_lot_min', 'days_on_lot_max'] as const;

/** Filters from outside (a provider's tool call), checked field by field: lists of short strings, finite numbers, ISO dates. */
export function cleanFilters(raw: unknown): QueryFilters {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badInput('filters', 'must be an object');
  const input = raw as Record<string, unknown>;
  const filters: QueryFilters = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || value === null) continue;
    if ((LIST_FILTERS as readonly string[]).includes(key)) {
      const list = Array.isArray(value) ? value : [value];
      if (list.length > 50 || list.some((item) => typeof item !== 'string' || item.length > 100)) throw badInput(`filters.${key}`, 'must be a list of names');
      filters[key as (typeof LIST_FILTERS)[number]] = list as string[];
    } else if ((NUMBER_FILTERS as readonly string[]).includes(key)) {
      const number = typeof value === 'string' && value.trim() !== '' ? Number(value.replace(/[$,]/g, '')) : value;
      if (typeof number !== 'number' || !Number.isFinite(number)) throw badInput(`filters.${key}`, 'must be a number');
      filters[key as (typeof NUMBER_FILTERS)[number]] = number;
    } else if (key === 'from' || key === 'to' || key === 'source') {
      if (typeof value !== 'string' || value.length > 100) throw badInput(`filters.${key}`, 'must be a string');
      filters[key] = value;
    } else if (key === 'first_time') {
      if (typeof value !== 'boolean') throw badInput('filters.first_time', 'must be true or false');
      filters.first_time = value;
    } else throw badInput(`filters.${key}`, 'is not a filter');
  }
  return filters;
}

const money = (value: number | undefined) => (value === undefined ? undefined : value.toFixed(2));
const day = (value: string | undefined, field: string, end = false): Date | undefined => {
  if (!value) return undefined;
  const date = new Date(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : value);
  if (Number.isNaN(date.getTime())) throw badInput(`filters.${field}`, 'must be an ISO date such as 2026-11-01');
  return date;
};

function inventoryArgs(filters: QueryFilters): InventoryFilterArgs {
  return {
    dealer_id: filters.dealer_id, condition: filters.condition, body_style: filters.body_style, make: filters.make, model: filters.model,
    exterior_color: filters.color, status: filters.status?.length ? filters.status : [...ON_LOT_STATUSES],
    price_min: money(filters.price_min), price_max: money(filters.price_max), year_min: filters.year_min, year_max: filters.year_max,
    mileage_min: filters.mileage_min, mileage_max: filters.mileage_max, days_on_lot_min: filters.days_on_lot_min, days_on_lot_max: filters.days_on_lot_max,
  };
}

const VEHICLE_FIELD_SQL: Record<string, Prisma.Sql> = { price: Prisma.sql`v.price`, days_on_lot: DAYS_ON_LOT_SQL, mileage: Prisma.sql`v.mileage::numeric`, year: Prisma.sql`v.year::numeric` };
const VEHICLE_GROUP_SQL: Partial<Record<Grouping, Prisma.Sql>> = {
  dealer: Prisma.sql`d.name`, make: Prisma.sql`v.make::text`, body_style: Prisma.sql`v.body_style::text`, condition: Prisma.sql`v.condition::text`, status: Prisma.sql`v.status::text`,
};

async function vehicleRows(caller: Caller, where: Prisma.Sql, orderBy: Prisma.Sql, limit: number): Promise<VehicleRow[]> {
  return caller.db.$queryRaw<VehicleRow[]>(Prisma.sql`/* assistantVehicles */
    SELECT v.vin, v.year, v.make::text AS make, v.model::text AS model, v.trim, v.price::text AS price, ${DAYS_ON_LOT_SQL}::int AS days_on_lot, v.mileage,
      v.exterior_color, d.name AS dealer_name, v.body_style::text AS body_style, v.condition::text AS condition
    FROM vehicles v JOIN dealers d ON d.id = v.dealer_id WHERE ${where} ORDER BY ${orderBy} LIMIT ${limit}`);
}

async function runVehicles(caller: Caller, query: AssistantQuery): Promise<QueryResult> {
  const where = inventoryWhere(caller.session, inventoryArgs(query.filters));
  const field = query.field && VEHICLE_FIELD_SQL[query.field] ? query.field : query.measure === 'list' ? 'days_on_lot' : 'price';
  if (query.measure !== 'count' && query.measure !== 'list' && !(VEHICLE_FIELDS as readonly string[]).includes(field)) throw badInput('field', `vehicles have ${VEHICLE_FIELDS.join(', ')}`);
  const figure = VEHICLE_FIELD_SQL[field]!;
  const limit = Math.min(query.limit ?? 10, 25);
  const [totals] = await caller.db.$queryRaw<Array<{ count: number; average: number | null; sum: number | null; max: number | null; min: number | null }>>(Prisma.sql`/* assistantVehicleTotals */
    SELECT count(*)::int AS count, avg(${figure})::float8 AS average, sum(${figure})::float8 AS sum, max(${figure})::float8 AS max, min(${figure})::float8 AS min
    FROM vehicles v WHERE ${where}`);
  const count = totals?.count ?? 0;
  const value = query.measure === 'average' ? totals?.average ?? null : query.measure === 'sum' ? totals?.sum ?? null
    : query.measure === 'max' ? totals?.max ?? null : query.measure === 'min' ? totals?.min ?? null : null;
  let groups: ResultRow[] = [];
  if (query.group_by) {
    const key = VEHICLE_GROUP_SQL[query.group_by];
    if (!key) throw badInput('group_by', 'vehicles group by dealer, make, body_style, condition or status');
    const aggregate = query.measure === 'average' ? Prisma.sql`avg(${figure})` : query.measure === 'sum' ? Prisma.sql`sum(${figure})`
      : query.measure === 'max' ? Prisma.sql`max(${figure})` : query.measure === 'min' ? Prisma.sql`min(${figure})` : Prisma.sql`NULL::numeric`;
    groups = await caller.db.$queryRaw<ResultRow[]>(Prisma.sql`/* assistantVehicleGroups */
      SELECT ${key} AS key, COALESCE(${key}, 'unknown') AS label, count(*)::int AS count, ${aggregate}::float8 AS value
      FROM vehicles v JOIN dealers d ON d.id = v.dealer_id WHERE ${where} GROUP BY 1 ORDER BY ${query.measure === 'count' ? Prisma.sql`count DESC` : Prisma.sql`value DESC NULLS LAST`}, label`);
  }
  let vehicles: VehicleRow[] = [];
  if (query.measure === 'list') {
    vehicles = await vehicleRows(caller, Prisma.sql`${where} AND ${figure} IS NOT NULL`, inventoryOrderBy(`${query.order === 'asc' ? '' : '-'}${field}`), limit);
  } else if ((query.measure === 'max' || query.measure === 'min') && value !== null) {
    // The totals already hold the extreme: cite the vehicles that have it (ties included, up to five).
    vehicles = await vehicleRows(caller, Prisma.sql`${where} AND ${figure} = ${value}`, inventoryOrderBy('vin'), 5);
  } else if (query.measure === 'count' && count > 0 && !query.group_by) {
    vehicles = await vehicleRows(caller, where, inventoryOrderBy('-days_on_lot'), 10);
  }
  return { query: { ...query, field }, count, value, groups, vehicles, activity: [] };
}

type ActivityWhere = Prisma.LeadWhereInput & Prisma.CallWhereInput & Prisma.SaleWhereInput;

function saleFilters(query: AssistantQuery): SaleFilters {
  const { filters } = query;
  return { dealer_id: filters.dealer_id, from: day(filters.from, 'from'), to: day(filters.to, 'to', true), condition: filters.condition?.[0] };
}

/** Deals per source: each deal counts for the source of the first lead or call that led to it. */
async function salesBySource(caller: Caller, query: AssistantQuery): Promise<ResultRow[]> {
  return caller.db.$queryRaw<ResultRow[]>(Prisma.sql`/* assistantSalesBySource */
    SELECT first_touch.source_id::text AS key, COALESCE(s.name::text, 'unattributed') AS label, count(*)::int AS count, NULL::float8 AS value
    FROM sales d
    LEFT JOIN LATERAL (
      SELECT t.source_id FROM (
        SELECT l.source_id, l.received_at AS at, l.id FROM leads l WHERE l.sale_id = d.id
        UNION ALL SELECT c.source_id, c.started_at, c.id FROM calls c WHERE c.sale_id = d.id) t
      ORDER BY t.at, t.id LIMIT 1) first_touch ON true
    LEFT JOIN sources s ON s.id = first_touch.source_id
    WHERE ${saleSql(caller.session, saleFilters(query))}
    GROUP BY 1, 2 ORDER BY count DESC, label`);
}

function activityWhere(caller: Caller, query: AssistantQuery): ActivityWhere {
  const { filters } = query;
  const from = day(filters.from, 'from');
  const to = day(filters.to, 'to', true);
  if (query.subject === 'leads') return leadWhere(caller.session, { dealer_id: filters.dealer_id, from, to, source: filters.source, status: filters.status, type: filters.type } satisfies LeadFilters) as ActivityWhere;
  if (query.subject === 'calls') return callWhere(caller.session, { dealer_id: filters.dealer_id, from, to, source: filters.source, status: filters.status, first_time: filters.first_time } satisfies CallFilters) as ActivityWhere;
  return saleWhere(caller.session, saleFilters(query)) as ActivityWhere;
}

async function runActivity(caller: Caller, query: AssistantQuery): Promise<QueryResult> {
  const where = activityWhere(caller, query);
  const limit = Math.min(query.limit ?? 10, 25);
  const model = query.subject === 'leads' ? caller.db.lead : query.subject === 'calls' ? caller.db.call : caller.db.sale;
  const count = await (model as typeof caller.db.lead).count({ where });
  let value: number | null = null;
  let field = query.field;
  if (query.measure === 'average' || query.measure === 'sum' || query.measure === 'max' || query.measure === 'min') {
    if (query.subject === 'sales') {
      field = field && (SALE_FIELDS as readonly string[]).includes(field) ? field : 'sale_price';
      if (field === 'total_gross' && (query.measure === 'max' || query.measure === 'min')) field = 'front_gross';
      const measures = { salePrice: true, frontGross: true, backGross: true } as const;
      const aggregate = await caller.db.sale.aggregate({ where, _avg: measures, _sum: measures, _max: measures, _min: measures });
      const pick = { average: aggregate._avg, sum: aggregate._sum, max: aggregate._max, min: aggregate._min }[query.measure];
      const number = (decimal: Prisma.Decimal | null) => (decimal === null ? null : Number(decimal));
      value = field === 'total_gross'
        ? (pick.frontGross === null ? null : Number(pick.frontGross) + Number(pick.backGross ?? 0))
        : number(pick[{ sale_price: 'salePrice', front_gross: 'frontGross', back_gross: 'backGross' }[field] as 'salePrice']);
    } else if (query.subject === 'calls') {
      field = 'duration';
      const aggregate = await caller.db.call.aggregate({ where: { ...where, status: 'answered' }, _avg: { durationSeconds: true }, _max: { durationSeconds: true }, _min: { durationSeconds: true }, _sum: { durationSeconds: true } });
      value = query.measure === 'average' ? aggregate._avg.durationSeconds : query.measure === 'sum' ? aggregate._sum.durationSeconds : query.measure === 'max' ? aggregate._max.durationSeconds : aggregate._min.durationSeconds;
    } else throw badInput('measure', 'leads can be counted or listed');
  }
  let groups: ResultRow[] = [];
  if (query.group_by === 'source' && query.subject === 'sales') groups = await salesBySource(caller, query);
  else if (query.group_by) {
    const by = query.group_by === 'dealer' ? 'dealerId' : query.group_by === 'source' && query.subject !== 'sales' ? 'sourceId'
      : query.group_by === 'salesperson' && query.subject === 'sales' ? 'salesperson'
      : query.group_by === 'status' && query.subject !== 'sales' ? 'status' : query.group_by === 'type' && query.subject === 'leads' ? 'type' : null;
    if (!by) throw badInput('group_by', `${query.subject} group by dealer, source${query.subject === 'sales' ? ' or salesperson' : ', status'}${query.subject === 'leads' ? ' or type' : ''}`);
    type Grouped = Array<Record<string, string | null> & { _count: { _all: number } }>;
    const rows = await (model as unknown as { groupBy(args: object): Promise<Grouped> }).groupBy({ by: [by], where, _count: { _all: true } });
    const keys = rows.map((row) => row[by] ?? null);
    const names = by === 'dealerId'
      ? new Map((await caller.db.dealer.findMany({ where: { id: { in: keys.filter((key): key is string => key !== null) } }, select: { id: true, name: true } })).map((dealer) => [dealer.id, dealer.name]))
      : by === 'sourceId' ? new Map((await caller.db.source.findMany({ where: { id: { in: keys.filter((key): key is string => key !== null) } }, select: { id: true, name: true } })).map((source) => [source.id, source.name])) : new Map<string, string>();
    groups = rows.map((row) => ({ key: row[by] ?? null, label: row[by] ? names.get(row[by]!) ?? row[by]! : by === 'sourceId' ? 'unattributed' : 'unknown', count: row._count._all, value: null }));
    if (by === 'salesperson') {
      // DMS exports spell a salesperson's name several ways: one row per person, named as most deals spell it.
      const people = new Map<string, ResultRow & { spelled: number }>();
      for (const group of groups) {
        const person = people.get(group.label.toLowerCase());
        if (!person) people.set(group.label.toLowerCase(), { ...group, spelled: group.count });
        else {
          if (group.count > person.spelled) Object.assign(person, { key: group.key, label: group.label, spelled: group.count });
          person.count += group.count;
        }
      }
      groups = [...people.values()].map(({ spelled: _spelled, ...group }) => group);
    }
    groups.sort((a, b) => b.count - a.count || a.label.localeCompare(b.label));
  }
  let activity: ActivityRow[] = [];
  if (query.measure === 'list' || ((query.measure === 'max' || query.measure === 'min') && query.subject === 'sales')) {
    const take = query.measure === 'list' ? limit : 1;
    if (query.subject === 'leads') {
      const leads = await caller.db.lead.findMany({ where, orderBy: [{ receivedAt: 'desc' }, { id: 'asc' }], take, include: { dealer: { select: { name: true } }, source: { select: { name: true } } } });
      activity = leads.map((lead) => ({ id: lead.id, at: lead.receivedAt, label: [lead.firstName, lead.lastName].filter(Boolean).join(' ') || lead.email || 'unnamed lead', dealer_name: lead.dealer.name, source: lead.source?.name ?? lead.rawSource, detail: `${lead.type} lead, ${lead.status}${lead.vehicleMake ? `, ${[lead.vehicleYear, lead.vehicleMake, lead.vehicleModel].filter(Boolean).join(' ')}` : ''}` }));
    } else if (query.subject === 'calls') {
      const calls = await caller.db.call.findMany({ where, orderBy: [{ startedAt: 'desc' }, { id: 'asc' }], take, include: { dealer: { select: { name: true } }, source: { select: { name: true } } } });
      activity = calls.map((call) => ({ id: call.id, at: call.startedAt, label: call.callerNumber ?? 'unknown caller', dealer_name: call.dealer.name, source: call.source?.name ?? call.rawSource, detail: `${call.status}, ${call.durationSeconds} s` }));
    } else {
      const orderField = { sale_price: 'salePrice', front_gross: 'frontGross', back_gross: 'backGross', total_gross: 'salePrice' }[field ?? 'sale_price'] ?? 'salePrice';
      const orderBy = query.measure === 'list' ? [{ soldAt: 'desc' as const }, { id: 'asc' as const }] : [{ [orderField]: query.measure === 'max' ? 'desc' : 'asc' }, { id: 'asc' as const }];
      const sales = await caller.db.sale.findMany({ where, orderBy, take, include: { dealer: { select: { name: true } } } });
      activity = sales.map((sale) => ({ id: sale.id, at: sale.soldAt, label: [sale.vehicleYear, sale.vehicleMake, sale.vehicleModel].filter(Boolean).join(' ') || `deal ${sale.dealNumber}`, dealer_name: sale.dealer.name, source: null, detail: `deal ${sale.dealNumber}, $${Number(sale.salePrice).toLocaleString('en-US')}, sold by ${sale.salesperson}${sale.vin ? `, VIN ${sale.vin}` : ''}` }));
    }
  }
  return { query: { ...query, ...(field ? { field } : {}) }, count, value, groups, vehicles: [], activity };
}

/** Runs a structured query as the caller. */
export async function runQuery(caller: Caller, query: AssistantQuery): Promise<QueryResult> {
  const run = (asked: AssistantQuery) => (asked.subject === 'vehicles' ? runVehicles(caller, asked) : runActivity(caller, asked));
  const result = await run(query);
  if (!query.share || query.measure !== 'count') return result;
  const { dealer_id, from, to } = query.filters;
  const whole = await run({ subject: query.subject, measure: 'count', filters: { dealer_id, from, to } });
  return { ...result, whole: whole.count };
}
