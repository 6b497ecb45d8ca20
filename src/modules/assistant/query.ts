import { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import { badInput } from '../../errors';
import { enumList } from '../../validation';
import {
  DAYS_ON_LOT_SQL,
  inventoryOrderBy,
  inventoryWhere,
  ON_LOT_STATUSES,
  VEHICLE_STATUSES,
  type InventoryFilterArgs,
} from '../inventory/inventory.filters';
import { LEAD_SOLD_SQL, LEAD_STATUSES, leadFilterSql, type LeadFilters } from '../leads/leads.filters';
import { callFilterSql, type CallFilters } from '../calls/calls.filters';
import { saleFilterSql, type SaleFilters } from '../sales/sales.filters';
import { SOURCE_CATEGORIES } from '../sources/sources.service';

/**
 * The assistant's structured queries: what both engines (the built-in one and a provider's tool
 * calls) ask of the data. Every query runs through the API's own filter builders with the caller's
 * session, so tenant scoping and scopes hold whoever wrote the query; nobody writes SQL.
 */

export const SUBJECTS = ['vehicles', 'leads', 'calls', 'sales'] as const;
export const MEASURES = ['count', 'list', 'average', 'max', 'min', 'sum', 'rate'] as const;
export const GROUPINGS = [
  'dealer',
  'make',
  'body_style',
  'condition',
  'source',
  'status',
  'type',
  'salesperson',
  'model',
  'contract_type',
  'trim',
  'color',
  'year',
  'age',
  'department',
] as const;
/** days_to_sell: a sold vehicle's days from stock-in to sale (its days on the lot when it sold). */
export const VEHICLE_FIELDS = [
  'price',
  'msrp',
  'internet_price',
  'days_on_lot',
  'mileage',
  'year',
  'days_to_sell',
] as const;
/** What a vehicle may be listed without: "no internet price", "no photos". */
const MISSING_SQL: Record<string, Prisma.Sql> = {
  price: Prisma.sql`v.price IS NULL`,
  internet_price: Prisma.sql`v.internet_price IS NULL`,
  msrp: Prisma.sql`v.msrp IS NULL`,
  photos: Prisma.sql`cardinality(v.photos) = 0`,
  mileage: Prisma.sql`v.mileage IS NULL`,
  trim: Prisma.sql`v.trim IS NULL`,
  color: Prisma.sql`v.exterior_color IS NULL`,
};
export const MISSING_FIELDS = Object.keys(MISSING_SQL);
/** What the rows of a last list are ordered by: a vehicle figure, or newest first for leads, calls and deals. */
export const WITHIN_FIELDS: readonly string[] = [...VEHICLE_FIELDS, 'newest'];
export const SALE_FIELDS = ['sale_price', 'front_gross', 'back_gross', 'total_gross', 'amount_financed'] as const;
/** An answered call's length, in seconds or in minutes. */
export const CALL_FIELDS = ['duration', 'duration_minutes'] as const;
const CALL_COLUMNS: Record<string, string> = {
  duration: 'c.duration_seconds',
  duration_minutes: '(c.duration_seconds / 60.0)',
};
/** What a rate counts: leads sold (close rate), calls answered, missed or sent to voicemail. */
export const RATE_FIELDS = ['sold', 'answered', 'missed', 'voicemail'] as const;

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
  /** Vehicles: trims ("XLE", "TRD Off-Road"). */
  trim?: string[];
  status?: string[];
  price_min?: number;
  price_max?: number;
  year_min?: number;
  year_max?: number;
  mileage_min?: number;
  mileage_max?: number;
  days_on_lot_min?: number;
  days_on_lot_max?: number;
  /** Leads, calls, sales, and vehicles sold (status sold): ISO dates or instants. */
  from?: string;
  to?: string;
  /** Vehicles: stocked in (their date in stock) from and to these ISO dates ("what came in this week"). */
  stocked_from?: string;
  stocked_to?: string;
  /** Vehicles: without a value for these ("no internet price", "no photos"): one of MISSING_FIELDS. */
  missing?: string[];
  source?: string;
  /** Vehicles: makes left out ("excluding jeeps"). */
  exclude_make?: string[];
  /** Leads and calls: any of several canonical sources ("facebook vs cargurus"). */
  sources?: string[];
  /** Leads and calls: canonical sources left out ("exclude walk-ins"); rows with no source stay. */
  exclude_source?: string[];
  /** Leads and calls: the kind of their source ("third-party sites": third_party_listing). */
  source_category?: string[];
  /** Calls: the department called (sales, service, parts). */
  department?: string;
  /** Deals: a bound on their gross ("over 4k total gross"), of `gross_field` (total gross unless named). */
  gross_min?: number;
  gross_max?: number;
  gross_field?: 'front_gross' | 'back_gross' | 'total_gross';
  type?: string[];
  first_time?: boolean;
  /** Deals: who sold them; leads: who they are assigned to. */
  salesperson?: string;
  /** Leads: assigned to no one. */
  unassigned?: boolean;
  /** Leads and calls: only those with a source ("exclude unattributed"), or with none (false: "source is null"). */
  attributed?: boolean;
  /** Deals: cash, finance, lease. */
  contract_type?: string[];
  /** Calls: inbound or outbound. */
  direction?: string;
  /** Calls: at least this many seconds long. */
  duration_min?: number;
  /** Deals: one deal by its number ("pull deal D100199"). */
  deal_number?: string;
  /** Vehicles: one vehicle by its stock number or VIN, whatever its status. */
  stock_number?: string;
  vin?: string;
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
  /** A list's rows to skip first ("the third one" of the last list: offset 2, limit 1). */
  offset?: number;
  /**
   * Only the rows the last list showed: the first `limit` of those matching `filters` (the query's own when absent)
   * in the order of `field` and `order` (a vehicle figure; `newest` for leads, calls and deals). The answer is over
   * those, narrowed by the query's filters ("cheapest of those" after "the last 5 in", "which of those were cash"
   * after "the last 5 deals").
   */
  within?: { field: string; order: 'asc' | 'desc'; limit: number; filters?: QueryFilters };
  /** With a list of one vehicle: the figure asked about it ("whats the miles on it"), said first. */
  asked?: 'price' | 'mileage' | 'days_on_lot';
  /** With a count: also the whole it is part of (the same rooftops and period, without the other filters). */
  share?: boolean;
  /** With `share`: what the whole is besides the rooftops and period ("what % of our new inventory is white": new). */
  whole_filters?: QueryFilters;
  /** With `share`: the whole is every rooftop's ("what share of revenue came from the Honda store"). */
  whole_of_group?: boolean;
  /**
   * With group_by, a ranking ("which source brought the most leads"): counted or summed, rows with no
   * group (no source, no salesperson) are counted apart, not ranked among the named ones.
   */
  ranked?: boolean;
  /** With group_by and a count: how many different groups there are ("how many different models do we stock"). */
  distinct?: boolean;
  /**
   * With `ranked`, once answered: the group at the end of the ranking the answer named ("who is dead last in units":
   * that salesperson), so "what's his front end" can name it; of the one deal an answer showed, its salesperson
   * ("that salesperson's deals"). Set by the engine, never by a provider.
   */
  leader?: string;
}

export interface ResultRow {
  key: string | null;
  label: string;
  count: number;
  /** For a rate: how many of `count` it counts (sold, answered…); `value` is then the percent. */
  part?: number;
  value: number | null;
}
export interface VehicleRow {
  vin: string;
  year: number;
  make: string;
  model: string;
  trim: string | null;
  price: string | null;
  days_on_lot: number;
  mileage: number | null;
  exterior_color: string | null;
  dealer_name: string;
  body_style: string | null;
  condition: string;
}
export interface ActivityRow {
  id: string;
  at: Date;
  label: string;
  dealer_name: string;
  source: string | null;
  detail: string;
  /** Deals: who sold it ("that salesperson's deals" after the one deal). */
  person?: string;
}

export interface QueryResult {
  query: AssistantQuery;
  count: number;
  /** With `share`: the count of the whole the answer is a part of. */
  whole?: number;
  /** With `share` of a sum: the whole's sum of the same figure. */
  whole_value?: number | null;
  /** For a rate: how many of `count` it counts (sold, answered…); `value` is then the percent. */
  part?: number;
  /** With `ranked`: how many of `count` have no group (no source, no salesperson), left out of `groups`. */
  unranked?: number;
  /** The figure asked for (an average, a maximum, a sum), when there is one. */
  value: number | null;
  groups: ResultRow[];
  vehicles: VehicleRow[];
  activity: ActivityRow[];
}

/** JSON Schema of a query: the tool's parameters for a provider, and the shape the built-in engine fills. */
export const QUERY_SCHEMA = {
  type: 'object',
  required: ['subject', 'measure'],
  additionalProperties: false,
  properties: {
    subject: {
      type: 'string',
      enum: SUBJECTS,
      description: 'What to look at: vehicles in inventory, leads, calls or sales (deals).',
    },
    measure: {
      type: 'string',
      enum: MEASURES,
      description:
        'count; list (records, ordered by field); average, max, min or sum of field; rate: the share of leads sold (field sold: linked to a deal or status sold) or of calls answered, missed or voicemail (field), in percent.',
    },
    field: {
      type: 'string',
      enum: [...VEHICLE_FIELDS, ...SALE_FIELDS, ...CALL_FIELDS, ...RATE_FIELDS],
      description:
        'The figure for average/max/min/sum/list order: vehicles price, msrp, internet_price, days_on_lot, mileage, year, days_to_sell (sold vehicles only: days from stock-in to sale); sales sale_price, front_gross, back_gross, total_gross, amount_financed (deals with one); calls duration (seconds) or duration_minutes. For rate: sold (leads), answered, missed or voicemail (calls).',
    },
    group_by: {
      type: 'string',
      enum: GROUPINGS,
      description:
        'Break the count or figure down: dealer (rooftop), make and model (vehicles, deals, leads), body_style, condition, source (leads, calls; deals count for the first lead or call that led to them), status, type (leads), salesperson (sales; for leads, the assignee), contract_type (sales: cash, finance, lease), trim, color, year (vehicles: model year) age (vehicles: aging buckets of days on the lot, 0-30, 31-60, 61-90 and 90+ meaning over 90; of sold vehicles, days to sell) and department (calls: sales, service, parts).',
    },
    limit: {
      type: 'integer',
      minimum: 1,
      maximum: 25,
      description: 'How many records a list returns (default 10); with ranked, how many groups the ranking keeps.',
    },
    offset: {
      type: 'integer',
      minimum: 0,
      maximum: 24,
      description: 'How many records of a list to skip first ("the third one" of a list: offset 2 with limit 1).',
    },
    share: {
      type: 'boolean',
      description:
        'With count or sum: also count (or sum) the whole (same rooftops and period, no other filters), for percentages.',
    },
    whole_of_group: {
      type: 'boolean',
      description: 'With share: the whole is every rooftop\'s ("what share of revenue came from the Honda store").',
    },
    whole_filters: {
      type: 'object',
      description:
        'With share: what the whole is besides the rooftops and period, as filters ("what % of our new inventory is white": condition new).',
    },
    ranked: {
      type: 'boolean',
      description:
        'With group_by and a count or sum, for "which … has the most" questions: rows with no group (no source, no salesperson) are counted apart instead of ranked.',
    },
    distinct: {
      type: 'boolean',
      description:
        'With group_by and count, for "how many different models" questions: the answer leads with how many groups there are.',
    },
    order: {
      type: 'string',
      enum: ['asc', 'desc'],
      description: 'A list ordered by field: desc (default, largest first) or asc.',
    },
    within: {
      type: 'object',
      additionalProperties: false,
      required: ['field', 'order', 'limit'],
      properties: {
        field: { type: 'string', enum: WITHIN_FIELDS },
        order: { type: 'string', enum: ['asc', 'desc'] },
        limit: { type: 'integer', minimum: 1, maximum: 25 },
      },
      description:
        'Answer over only the first `limit` rows in this order, the last list shown, narrowed by the filters ("cheapest of those" after the 5 newest arrivals: field days_on_lot, order asc, limit 5; "which of those were cash" after the last 5 deals: field newest, limit 5).',
    },
    filters: {
      type: 'object',
      additionalProperties: false,
      properties: {
        dealer: {
          type: 'array',
          items: { type: 'string' },
          description: 'Rooftop names or parts of them ("north", "Summit Honda Downtown").',
        },
        condition: { type: 'array', items: { type: 'string', enum: ['new', 'used', 'certified'] } },
        body_style: {
          type: 'array',
          items: { type: 'string' },
          description: 'SUV, Sedan, Truck, Coupe, Minivan, Wagon, …',
        },
        make: { type: 'array', items: { type: 'string' } },
        model: { type: 'array', items: { type: 'string' } },
        color: { type: 'array', items: { type: 'string' }, description: 'Exterior color words (white, black, …).' },
        trim: { type: 'array', items: { type: 'string' }, description: 'Vehicles: trims (XLE, TRD Off-Road, …).' },
        status: {
          type: 'array',
          items: { type: 'string' },
          description:
            'Vehicles: available, pending, in_transit, sold, presumed_sold (default: on the lot). Calls: answered, missed, voicemail. Leads: new, contacted, appointment, showed, sold, lost.',
        },
        price_min: { type: 'number' },
        price_max: { type: 'number' },
        year_min: {
          type: 'integer',
          description: 'Model year: of vehicles, or of the vehicle a lead asked about or a deal sold.',
        },
        year_max: {
          type: 'integer',
          description: 'Model year: of vehicles, or of the vehicle a lead asked about or a deal sold.',
        },
        mileage_min: { type: 'integer' },
        mileage_max: { type: 'integer' },
        days_on_lot_min: { type: 'integer' },
        days_on_lot_max: { type: 'integer' },
        from: {
          type: 'string',
          description:
            'Leads, calls, sales (and vehicles with status sold: sold in the period): from this ISO date or instant.',
        },
        to: {
          type: 'string',
          description:
            'Leads, calls, sales (and vehicles with status sold: sold in the period): up to this ISO date or instant.',
        },
        stocked_from: {
          type: 'string',
          description: 'Vehicles: stocked in on or after this ISO date ("what came in this week").',
        },
        stocked_to: { type: 'string', description: 'Vehicles: stocked in on or before this ISO date.' },
        missing: {
          type: 'array',
          items: { type: 'string', enum: MISSING_FIELDS },
          description: 'Vehicles without a value for these ("no internet price": internet_price; "no photos": photos).',
        },
        source: { type: 'string', description: 'Leads and calls: a canonical source name.' },
        exclude_make: {
          type: 'array',
          items: { type: 'string' },
          description: 'Vehicles: makes to leave out ("excluding Jeeps").',
        },
        sources: {
          type: 'array',
          items: { type: 'string' },
          description:
            'Leads and calls: any of several canonical source names (with group_by source, to compare them).',
        },
        type: {
          type: 'array',
          items: { type: 'string', enum: ['new', 'used', 'service', 'finance', 'trade_in'] },
          description: 'Lead type.',
        },
        first_time: { type: 'boolean', description: 'Calls from first-time callers only.' },
        salesperson: { type: 'string', description: 'Sales: who sold the deal; leads: who the lead is assigned to.' },
        unassigned: { type: 'boolean', description: 'Leads assigned to no salesperson; deals with no salesperson.' },
        attributed: {
          type: 'boolean',
          description: 'Leads and calls: true, only those with a source; false, only those with none.',
        },
        contract_type: { type: 'array', items: { type: 'string', enum: ['cash', 'finance', 'lease'] } },
        direction: { type: 'string', enum: ['inbound', 'outbound'], description: 'Calls only.' },
        department: { type: 'string', description: 'Calls: the department called (sales, service, parts).' },
        gross_min: { type: 'number', description: 'Deals: at least this much gross (of gross_field).' },
        gross_max: { type: 'number', description: 'Deals: at most this much gross (of gross_field).' },
        gross_field: {
          type: 'string',
          enum: ['front_gross', 'back_gross', 'total_gross'],
          description: 'Deals: which gross gross_min and gross_max bound (default total_gross).',
        },
        source_category: {
          type: 'array',
          items: { type: 'string', enum: SOURCE_CATEGORIES },
          description: 'Leads and calls: the kind of source ("third-party sites": third_party_listing).',
        },
        exclude_source: {
          type: 'array',
          items: { type: 'string' },
          description:
            'Leads and calls: canonical source names to leave out ("exclude walk-ins"); rows with no source stay.',
        },
        duration_min: { type: 'integer', description: 'Calls at least this many seconds long.' },
        deal_number: { type: 'string', description: 'Deals: the one deal with this deal number.' },
        stock_number: { type: 'string', description: 'Vehicles: the one with this stock number, whatever its status.' },
        vin: { type: 'string', description: 'Vehicles: the one with this VIN, whatever its status.' },
      },
    },
  },
} as const;

const LIST_FILTERS = [
  'dealer_id',
  'condition',
  'body_style',
  'make',
  'model',
  'color',
  'trim',
  'status',
  'type',
  'contract_type',
  'sources',
  'exclude_make',
  'exclude_source',
  'source_category',
] as const;
/** The ranges a vehicle question may bound: price, model year, mileage, days on the lot. */
export const VEHICLE_RANGE_FILTERS = [
  'price_min',
  'price_max',
  'year_min',
  'year_max',
  'mileage_min',
  'mileage_max',
  'days_on_lot_min',
  'days_on_lot_max',
] as const;
const NUMBER_FILTERS = [...VEHICLE_RANGE_FILTERS, 'duration_min', 'gross_min', 'gross_max'] as const;

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
      if (list.length > 50 || list.some((item) => typeof item !== 'string' || item.length > 100))
        throw badInput(`filters.${key}`, 'must be a list of names');
      filters[key as (typeof LIST_FILTERS)[number]] = list as string[];
    } else if ((NUMBER_FILTERS as readonly string[]).includes(key)) {
      const number = typeof value === 'string' && value.trim() !== '' ? Number(value.replace(/[$,]/g, '')) : value;
      if (typeof number !== 'number' || !Number.isFinite(number)) throw badInput(`filters.${key}`, 'must be a number');
      filters[key as (typeof NUMBER_FILTERS)[number]] = number;
    } else if (
      key === 'from' ||
      key === 'to' ||
      key === 'stocked_from' ||
      key === 'stocked_to' ||
      key === 'source' ||
      key === 'salesperson' ||
      key === 'direction' ||
      key === 'department'
    ) {
      if (typeof value !== 'string' || value.length > 100) throw badInput(`filters.${key}`, 'must be a string');
      filters[key] = value;
    } else if (key === 'deal_number' || key === 'stock_number' || key === 'vin') {
      if (typeof value !== 'string' || !/^[A-Za-z0-9-]{1,40}$/.test(value))
        throw badInput(`filters.${key}`, 'must be letters, digits and dashes (at most 40)');
      filters[key] = value;
    } else if (key === 'missing') {
      const list = Array.isArray(value) ? value : [value];
      if (list.some((item) => !MISSING_FIELDS.includes(item as string)))
        throw badInput('filters.missing', `must list some of ${MISSING_FIELDS.join(', ')}`);
      filters.missing = [...new Set(list as string[])];
    } else if (key === 'gross_field') {
      if (value !== 'front_gross' && value !== 'back_gross' && value !== 'total_gross')
        throw badInput('filters.gross_field', 'must be front_gross, back_gross or total_gross');
      filters.gross_field = value;
    } else if (key === 'first_time' || key === 'unassigned' || key === 'attributed') {
      if (typeof value !== 'boolean') throw badInput(`filters.${key}`, 'must be true or false');
      filters[key] = value;
    } else throw badInput(`filters.${key}`, 'is not a filter');
  }
  return filters;
}

const money = (value: number | undefined) => (value === undefined ? undefined : value.toFixed(2));
const day = (value: string | undefined, field: string, end = false): Date | undefined => {
  if (!value) return undefined;
  const date = new Date(
    /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : value,
  );
  if (Number.isNaN(date.getTime())) throw badInput(`filters.${field}`, 'must be an ISO date such as 2026-11-01');
  return date;
};

function inventoryArgs(filters: QueryFilters): InventoryFilterArgs {
  return {
    dealer_id: filters.dealer_id,
    condition: filters.condition,
    body_style: filters.body_style,
    make: filters.make,
    model: filters.model,
    exterior_color: filters.color,
    // One vehicle by its stock number or VIN is found whatever its status.
    status: filters.status?.length
      ? filters.status
      : filters.stock_number || filters.vin
        ? [...VEHICLE_STATUSES]
        : [...ON_LOT_STATUSES],
    price_min: money(filters.price_min),
    price_max: money(filters.price_max),
    year_min: filters.year_min,
    year_max: filters.year_max,
    mileage_min: filters.mileage_min,
    mileage_max: filters.mileage_max,
    days_on_lot_min: filters.days_on_lot_min,
    days_on_lot_max: filters.days_on_lot_max,
  };
}

const VEHICLE_FIELD_SQL: Record<string, Prisma.Sql> = {
  price: Prisma.sql`v.price`,
  msrp: Prisma.sql`v.msrp`,
  internet_price: Prisma.sql`v.internet_price`,
  days_on_lot: DAYS_ON_LOT_SQL,
  mileage: Prisma.sql`v.mileage::numeric`,
  year: Prisma.sql`v.year::numeric`,
  days_to_sell: Prisma.sql`((v.sold_at AT TIME ZONE 'UTC')::date - v.date_in_stock)`,
};
const VEHICLE_GROUP_SQL: Partial<Record<Grouping, Prisma.Sql>> = {
  dealer: Prisma.sql`d.name`,
  make: Prisma.sql`v.make::text`,
  body_style: Prisma.sql`v.body_style::text`,
  condition: Prisma.sql`v.condition::text`,
  status: Prisma.sql`v.status::text`,
  model: Prisma.sql`v.model::text`,
  trim: Prisma.sql`v.trim`,
  color: Prisma.sql`v.exterior_color`,
  year: Prisma.sql`v.year::text`,
  // Aging buckets of days on the lot (a sold vehicle's are its days to sell).
  age: Prisma.sql`CASE WHEN ${DAYS_ON_LOT_SQL} <= 30 THEN '0-30' WHEN ${DAYS_ON_LOT_SQL} <= 60 THEN '31-60' WHEN ${DAYS_ON_LOT_SQL} <= 90 THEN '61-90' ELSE '90+' END`,
};

async function vehicleRows(
  caller: Caller,
  where: Prisma.Sql,
  orderBy: Prisma.Sql,
  limit: number,
  offset = 0,
): Promise<VehicleRow[]> {
  return caller.db.$queryRaw<VehicleRow[]>(Prisma.sql`/* assistantVehicles */
    SELECT v.vin, v.year, v.make::text AS make, v.model::text AS model, v.trim, v.price::text AS price, ${DAYS_ON_LOT_SQL}::int AS days_on_lot, v.mileage,
      v.exterior_color, d.name AS dealer_name, v.body_style::text AS body_style, v.condition::text AS condition
    FROM vehicles v JOIN dealers d ON d.id = v.dealer_id WHERE ${where} ORDER BY ${orderBy} LIMIT ${limit} OFFSET ${offset}`);
}

/** Sold vehicles (status sold unless the query names another), sold in the query's period if it has one. */
function soldWhere(caller: Caller, filters: QueryFilters): Prisma.Sql {
  const from = day(filters.from, 'from');
  const to = day(filters.to, 'to', true);
  return Prisma.join(
    [
      inventoryWhere(caller.session, {
        ...inventoryArgs(filters),
        status: filters.status?.length ? filters.status : ['sold'],
      }),
      Prisma.sql`v.sold_at IS NOT NULL`,
      ...(from ? [Prisma.sql`v.sold_at >= ${from}`] : []),
      ...(to ? [Prisma.sql`v.sold_at <= ${to}`] : []),
    ],
    ' AND ',
  );
}

/** A vehicle list's order by its figure: a sold vehicle's days on the lot are its days to sell; the newest arrivals are the latest stocked in. */
const vehicleOrder = (field: string, order: 'asc' | 'desc' | undefined) =>
  field === 'days_on_lot' && order === 'asc'
    ? inventoryOrderBy('-date_in_stock')
    : inventoryOrderBy(`${order === 'asc' ? '' : '-'}${field === 'days_to_sell' ? 'days_on_lot' : field}`);

/** A vehicle's day in stock, from an ISO date (or an instant's UTC day). */
const stockDay = (value: string | undefined, field: string, end = false) =>
  day(value, field, end)?.toISOString().slice(0, 10);

/** The vehicles a query is over: its filters, and only the first rows of the last list when it names them. */
function vehiclesWhere(caller: Caller, query: AssistantQuery, field: string): Prisma.Sql {
  const { filters } = query;
  const soldOnly = filters.status?.length === 1 && filters.status[0] === 'sold';
  const chosen =
    field === 'days_to_sell' || (soldOnly && (filters.from || filters.to))
      ? soldWhere(caller, filters)
      : inventoryWhere(caller.session, inventoryArgs(filters));
  const excluded = filters.exclude_make?.map((make) => make.toLowerCase());
  const trims = filters.trim?.map((trim) => trim.toLowerCase());
  const stockedFrom = stockDay(filters.stocked_from, 'stocked_from');
  const stockedTo = stockDay(filters.stocked_to, 'stocked_to', true);
  const where = Prisma.join(
    [
      chosen,
      ...(excluded?.length ? [Prisma.sql`lower(v.make::text) <> ALL(${excluded}::text[])`] : []),
      ...(trims?.length ? [Prisma.sql`lower(v.trim) = ANY(${trims}::text[])`] : []),
      ...(stockedFrom ? [Prisma.sql`v.date_in_stock >= ${stockedFrom}::date`] : []),
      ...(stockedTo ? [Prisma.sql`v.date_in_stock <= ${stockedTo}::date`] : []),
      // As the DMS writes it or as typed ("u14345t"), so the (group, stock number) index finds it.
      ...(filters.stock_number
        ? [Prisma.sql`v.stock_number IN (${filters.stock_number}, ${filters.stock_number.toUpperCase()})`]
        : []),
      ...(filters.vin ? [Prisma.sql`v.vin = ${filters.vin.toUpperCase()}`] : []),
      ...(filters.missing ?? []).map((name) => {
        const missing = MISSING_SQL[name];
        if (!missing) throw badInput('filters.missing', `must list some of ${MISSING_FIELDS.join(', ')}`);
        return missing;
      }),
    ],
    ' AND ',
  );
  const within = query.within;
  if (!within) return where;
  const figure = VEHICLE_FIELD_SQL[within.field];
  if (!figure) throw badInput('within.field', `vehicles have ${VEHICLE_FIELDS.join(', ')}`);
  const first = Math.max(1, Math.min(within.limit, 25));
  const listed = vehiclesWhere(
    caller,
    { ...query, filters: within.filters ?? query.filters, within: undefined },
    within.field,
  );
  return Prisma.sql`${where} AND v.id IN (SELECT v.id FROM vehicles v WHERE ${listed} AND ${figure} IS NOT NULL ORDER BY ${vehicleOrder(within.field, within.order)} LIMIT ${first})`;
}

async function runVehicles(caller: Caller, query: AssistantQuery): Promise<QueryResult> {
  if (query.measure === 'rate') throw badInput('measure', 'a rate is of leads (sold) or calls (answered, missed)');
  const field =
    query.field && VEHICLE_FIELD_SQL[query.field] ? query.field : query.measure === 'list' ? 'days_on_lot' : 'price';
  const where = vehiclesWhere(caller, query, field);
  if (query.measure !== 'count' && query.measure !== 'list' && !(VEHICLE_FIELDS as readonly string[]).includes(field))
    throw badInput('field', `vehicles have ${VEHICLE_FIELDS.join(', ')}`);
  const figure = VEHICLE_FIELD_SQL[field]!;
  // "Avg MSRP": over the vehicles that have one, and "across N" counts those.
  const valued = ['average', 'sum', 'max', 'min'].includes(query.measure)
    ? Prisma.sql` AND ${figure} IS NOT NULL`
    : Prisma.empty;
  const limit = Math.min(query.limit ?? 10, 25);
  const [totals] = await caller.db.$queryRaw<
    Array<{ count: number; average: number | null; sum: number | null; max: number | null; min: number | null }>
  >(Prisma.sql`/* assistantVehicleTotals */
    SELECT count(*)::int AS count, avg(${figure})::float8 AS average, sum(${figure})::float8 AS sum, max(${figure})::float8 AS max, min(${figure})::float8 AS min
    FROM vehicles v WHERE ${where}${valued}`);
  const count = totals?.count ?? 0;
  const value =
    query.measure === 'average'
      ? (totals?.average ?? null)
      : query.measure === 'sum'
        ? (totals?.sum ?? null)
        : query.measure === 'max'
          ? (totals?.max ?? null)
          : query.measure === 'min'
            ? (totals?.min ?? null)
            : null;
  let groups: ResultRow[] = [];
  if (query.group_by) {
    const key = VEHICLE_GROUP_SQL[query.group_by];
    if (!key)
      throw badInput(
        'group_by',
        'vehicles group by dealer, make, model, trim, color, year, body_style, condition or status',
      );
    const aggregate =
      query.measure === 'average'
        ? Prisma.sql`avg(${figure})`
        : query.measure === 'sum'
          ? Prisma.sql`sum(${figure})`
          : query.measure === 'max'
            ? Prisma.sql`max(${figure})`
            : query.measure === 'min'
              ? Prisma.sql`min(${figure})`
              : Prisma.sql`NULL::numeric`;
    groups = await caller.db.$queryRaw<ResultRow[]>(Prisma.sql`/* assistantVehicleGroups */
      SELECT ${key} AS key, COALESCE(${key}, 'unknown') AS label, count(*)::int AS count, ${aggregate}::float8 AS value
      FROM vehicles v JOIN dealers d ON d.id = v.dealer_id WHERE ${where} GROUP BY 1 ORDER BY ${query.group_by === 'age' ? Prisma.sql`label` : query.measure === 'count' ? Prisma.sql`count DESC` : query.measure === 'min' || query.order === 'asc' ? Prisma.sql`value ASC NULLS LAST` : Prisma.sql`value DESC NULLS LAST`}, label`);
  }
  let vehicles: VehicleRow[] = [];
  if (query.measure === 'list') {
    vehicles = await vehicleRows(
      caller,
      Prisma.sql`${where} AND ${figure} IS NOT NULL`,
      vehicleOrder(field, query.order),
      limit,
      Math.min(query.offset ?? 0, 24),
    );
  } else if ((query.measure === 'max' || query.measure === 'min') && value !== null) {
    // The totals already hold the extreme: cite the vehicles that have it (ties included, up to five).
    vehicles = await vehicleRows(caller, Prisma.sql`${where} AND ${figure} = ${value}`, inventoryOrderBy('vin'), 5);
  } else if (query.measure === 'count' && count > 0 && !query.group_by) {
    vehicles = await vehicleRows(caller, where, inventoryOrderBy('-days_on_lot'), 10);
  }
  return { query: { ...query, field }, count, value, groups, vehicles, activity: [] };
}

/** Each activity subject's table, alias, time column and the columns a breakdown may use. */
const ACTIVITY_TABLES = {
  leads: {
    table: 'leads l',
    at: 'l.received_at',
    groups: {
      dealer: 'l.dealer_id',
      source: 'l.source_id',
      status: 'l.status',
      type: 'l.type',
      salesperson: 'l.assignee',
      make: 'l.vehicle_make',
      model: 'l.vehicle_model',
    },
  },
  calls: {
    table: 'calls c',
    at: 'c.started_at',
    groups: { dealer: 'c.dealer_id', source: 'c.source_id', status: 'c.status', department: 'lower(c.department)' },
  },
  sales: {
    table: 'sales d',
    at: 'd.sold_at',
    groups: {
      dealer: 'd.dealer_id',
      salesperson: 'd.salesperson',
      make: 'd.vehicle_make',
      model: 'd.vehicle_model',
      contract_type: 'd.contract_type',
      condition: 'd.vehicle_condition',
    },
  },
} as const;

const SALE_COLUMNS: Record<string, string> = {
  sale_price: 'd.sale_price',
  front_gross: 'd.front_gross',
  back_gross: 'd.back_gross',
  total_gross: '(d.front_gross + COALESCE(d.back_gross, 0))',
  amount_financed: 'd.amount_financed',
};
const grossColumn = (filters: QueryFilters) => Prisma.raw(SALE_COLUMNS[filters.gross_field ?? 'total_gross']!);

function saleFilters(query: AssistantQuery): SaleFilters {
  const { filters } = query;
  return {
    dealer_id: filters.dealer_id,
    from: day(filters.from, 'from'),
    to: day(filters.to, 'to', true),
    // One condition through the API's filter; several ("used incl. CPO") in vehicleOfSql.
    condition: filters.condition?.length === 1 ? filters.condition[0] : undefined,
    salesperson: filters.salesperson,
    contract_type: filters.contract_type,
  };
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
    WHERE ${activityWhere(caller, query)}
    GROUP BY 1, 2 ORDER BY count DESC, label`);
}

/** The vehicle a lead asked about or a deal sold, by make, model and model year (the API's filters have none of them). */
function vehicleOfSql(alias: 'l' | 'd', filters: QueryFilters): Prisma.Sql[] {
  const lower = (values: string[]) => values.map((value) => value.toLowerCase());
  const year = Prisma.raw(`${alias}.vehicle_year`);
  const conditions =
    alias === 'd' && (filters.condition?.length ?? 0) > 1
      ? enumList('condition', filters.condition, ['new', 'used', 'certified'] as const)
      : null;
  return [
    ...(conditions?.length ? [Prisma.sql`d.vehicle_condition = ANY(${conditions}::vehicle_condition[])`] : []),
    ...(filters.year_min !== undefined ? [Prisma.sql`${year} >= ${filters.year_min}`] : []),
    ...(filters.year_max !== undefined ? [Prisma.sql`${year} <= ${filters.year_max}`] : []),
    ...(filters.make?.length
      ? [Prisma.sql`lower(${Prisma.raw(`${alias}.vehicle_make`)}) = ANY(${lower(filters.make)}::text[])`]
      : []),
    ...(filters.model?.length
      ? [Prisma.sql`lower(${Prisma.raw(`${alias}.vehicle_model`)}) = ANY(${lower(filters.model)}::text[])`]
      : []),
  ];
}

/**
 * Any of several canonical sources, by name, on the `source_id` of `alias` (the API's filters take one),
 * and the sources left out (rows with no source stay).
 */
function anySourceSql(alias: 'l' | 'c', filters: QueryFilters): Prisma.Sql[] {
  const column = Prisma.raw(`${alias}.source_id`);
  return [
    ...(filters.attributed === true ? [Prisma.sql`${column} IS NOT NULL`] : []),
    ...(filters.attributed === false ? [Prisma.sql`${column} IS NULL`] : []),
    ...(filters.sources?.length
      ? [Prisma.sql`${column} IN (SELECT id FROM sources WHERE name = ANY(${filters.sources}::citext[]))`]
      : []),
    ...(filters.source_category?.length
      ? [
          Prisma.sql`${column} IN (SELECT id FROM sources WHERE category::text = ANY(${filters.source_category}::text[]))`,
        ]
      : []),
    ...(filters.exclude_source?.length
      ? [
          Prisma.sql`(${column} IS NULL OR ${column} NOT IN (SELECT id FROM sources WHERE name = ANY(${filters.exclude_source}::citext[])))`,
        ]
      : []),
  ];
}

/** The query's filters as SQL over its subject's table, through the API's own filter builders. */
/** Leads, calls or deals a query is over: its filters, and only the rows of the last list when it names them. */
function activityWhere(caller: Caller, query: AssistantQuery): Prisma.Sql {
  const where = activityFilterWhere(caller, query);
  const within = query.within;
  if (!within) return where;
  if (within.field !== 'newest') throw badInput('within.field', 'leads, calls and deals are listed newest first');
  const { table, at } = ACTIVITY_TABLES[query.subject as keyof typeof ACTIVITY_TABLES];
  const alias = table.split(' ')[1]!;
  const listed = activityFilterWhere(caller, { ...query, filters: within.filters ?? query.filters });
  const first = Math.max(1, Math.min(within.limit, 25));
  return Prisma.sql`${where} AND ${Prisma.raw(`${alias}.id`)} IN (SELECT ${Prisma.raw(`${alias}.id`)} FROM ${Prisma.raw(table)} WHERE ${listed} ORDER BY ${Prisma.raw(`${at} DESC, ${alias}.id DESC`)} LIMIT ${first})`;
}

function activityFilterWhere(caller: Caller, query: AssistantQuery): Prisma.Sql {
  const { filters } = query;
  const from = day(filters.from, 'from');
  const to = day(filters.to, 'to', true);
  if (query.subject === 'leads') {
    // Sold, for a lead, is LEAD_SOLD_SQL (a linked deal or the status), as in the lead stats.
    const statuses = enumList('filters.status', filters.status, LEAD_STATUSES);
    const sold = statuses?.includes('sold');
    const others = statuses?.filter((status) => status !== 'sold') ?? [];
    const parts = [
      leadFilterSql(caller.session, {
        dealer_id: filters.dealer_id,
        from,
        to,
        source: filters.source,
        status: sold ? null : statuses,
        type: filters.type,
        assignee: filters.salesperson,
      } satisfies LeadFilters),
      ...vehicleOfSql('l', filters),
      ...anySourceSql('l', filters),
      ...(filters.unassigned ? [Prisma.sql`l.assignee IS NULL`] : []),
    ];
    if (sold)
      parts.push(
        others.length ? Prisma.sql`(${LEAD_SOLD_SQL} OR l.status = ANY(${others}::lead_status[]))` : LEAD_SOLD_SQL,
      );
    return Prisma.join(parts, ' AND ');
  }
  if (query.subject === 'calls')
    return Prisma.join(
      [
        callFilterSql(caller.session, {
          dealer_id: filters.dealer_id,
          from,
          to,
          source: filters.source,
          status: filters.status,
          first_time: filters.first_time,
          direction: filters.direction,
          department: filters.department,
          min_duration: filters.duration_min,
        } satisfies CallFilters),
        ...anySourceSql('c', filters),
      ],
      ' AND ',
    );
  const price = [
    ...(filters.price_min !== undefined ? [Prisma.sql`d.sale_price >= ${filters.price_min}`] : []),
    ...(filters.price_max !== undefined ? [Prisma.sql`d.sale_price <= ${filters.price_max}`] : []),
    ...(filters.gross_min !== undefined ? [Prisma.sql`${grossColumn(filters)} >= ${filters.gross_min}`] : []),
    ...(filters.gross_max !== undefined ? [Prisma.sql`${grossColumn(filters)} <= ${filters.gross_max}`] : []),
  ];
  // A deal number as the DMS writes it or as typed ("d100199"); deals with no salesperson.
  const number = [
    ...(filters.deal_number
      ? [Prisma.sql`d.deal_number IN (${filters.deal_number}, ${filters.deal_number.toUpperCase()})`]
      : []),
    ...(filters.unassigned ? [Prisma.sql`(d.salesperson IS NULL OR d.salesperson = '')`] : []),
  ];
  return Prisma.join(
    [saleFilterSql(caller.session, saleFilters(query)), ...vehicleOfSql('d', filters), ...price, ...number],
    ' AND ',
  );
}

/** What a rate counts among its subject's rows: leads sold (LEAD_SOLD_SQL), or calls with a status. */
function rateSql(query: AssistantQuery): Prisma.Sql {
  const field = query.field ?? (query.subject === 'leads' ? 'sold' : 'answered');
  if (query.subject === 'leads' && field === 'sold') return LEAD_SOLD_SQL;
  if (query.subject === 'calls' && ['answered', 'missed', 'voicemail'].includes(field))
    return Prisma.sql`c.status = ${field}::call_status`;
  throw badInput('field', 'a rate is of leads sold (field sold) or of calls answered, missed or voicemail');
}

type FigureMeasure = 'average' | 'sum' | 'max' | 'min';
const AGGREGATES: Record<FigureMeasure, string> = { average: 'avg', sum: 'sum', max: 'max', min: 'min' };

const callField = (query: AssistantQuery) => (query.field === 'duration_minutes' ? 'duration_minutes' : 'duration');

/** average/sum/max/min of deals' figures or answered calls' durations. */
async function activityValue(
  caller: Caller,
  query: AssistantQuery,
  where: Prisma.Sql,
  measure: FigureMeasure,
): Promise<{ field: string; value: number | null }> {
  const aggregate = Prisma.raw(AGGREGATES[measure]);
  if (query.subject === 'sales') {
    const field = query.field && (SALE_FIELDS as readonly string[]).includes(query.field) ? query.field : 'sale_price';
    const [row] = await caller.db.$queryRaw<Array<{ value: number | null }>>(Prisma.sql`/* assistantSaleValue */
      SELECT ${aggregate}(${Prisma.raw(SALE_COLUMNS[field]!)})::float8 AS value FROM sales d WHERE ${where}`);
    return { field, value: row?.value ?? null };
  }
  if (query.subject === 'calls') {
    const [row] = await caller.db.$queryRaw<Array<{ value: number | null }>>(Prisma.sql`/* assistantCallDuration */
      SELECT ${aggregate}(${Prisma.raw(CALL_COLUMNS[callField(query)]!)})::float8 AS value FROM calls c WHERE ${where} AND c.status = 'answered'`);
    return { field: callField(query), value: row?.value ?? null };
  }
  throw badInput('measure', 'leads can be counted or listed');
}

/** Counts per dealer, source, status, type or salesperson, with names, and the figure asked for (a rate's percent, a deal's average gross…), largest first. */
async function activityGroups(
  caller: Caller,
  query: AssistantQuery,
  where: Prisma.Sql,
  field: string | undefined,
): Promise<ResultRow[]> {
  const groupBy = query.group_by!;
  const { table, groups: columns } = ACTIVITY_TABLES[query.subject as keyof typeof ACTIVITY_TABLES];
  const column = (columns as Record<string, string>)[groupBy];
  if (!column)
    throw badInput(
      'group_by',
      `${query.subject} group by dealer, source${query.subject === 'sales' ? ', salesperson, make, model, contract_type or condition' : ', status'}${query.subject === 'leads' ? ', type, salesperson, make or model' : ''}${query.subject === 'calls' ? ' or department' : ''}`,
    );
  const person = groupBy === 'salesperson';
  // DMS exports spell a salesperson's name several ways: one row per person, named as most of their rows spell it.
  const key = person ? Prisma.sql`lower(${Prisma.raw(column)})` : Prisma.sql`${Prisma.raw(column)}::text`;
  const label =
    groupBy === 'dealer'
      ? Prisma.sql`dealer.name::text`
      : groupBy === 'source'
        ? Prisma.sql`COALESCE(source.name::text, 'unattributed')`
        : person
          ? Prisma.sql`COALESCE(mode() WITHIN GROUP (ORDER BY ${Prisma.raw(column)}), 'unassigned')`
          : Prisma.sql`COALESCE(${Prisma.raw(column)}::text, 'unknown')`;
  const part = query.measure === 'rate' ? Prisma.sql`count(*) FILTER (WHERE ${rateSql(query)})::int` : Prisma.sql`0`;
  const value = groupValueSql(query, field);
  const groups = await caller.db.$queryRaw<ResultRow[]>(Prisma.sql`/* assistantActivityGroups */
    SELECT ${key} AS key, ${label} AS label, count(*)::int AS count, ${part} AS part, ${value}::float8 AS value
    FROM ${Prisma.raw(table)}
    ${groupBy === 'dealer' ? Prisma.sql`JOIN dealers dealer ON dealer.id = ${Prisma.raw(column)}` : groupBy === 'source' ? Prisma.sql`LEFT JOIN sources source ON source.id = ${Prisma.raw(column)}` : Prisma.empty}
    WHERE ${where} GROUP BY ${person ? Prisma.sql`1` : Prisma.sql`1, 2`}`);
  if (query.measure === 'rate') for (const group of groups) group.value = percent(group.part ?? 0, group.count);
  // Ranked by what was asked: a rate or figure when there is one, else the count.
  const ranked = query.measure !== 'count' && query.measure !== 'list';
  return groups.sort(
    (a, b) =>
      (ranked ? (query.measure === 'min' ? -1 : 1) * ((b.value ?? -Infinity) - (a.value ?? -Infinity)) || 0 : 0) ||
      b.count - a.count ||
      a.label.localeCompare(b.label),
  );
}

/** Per group: the average, sum, max or min of a deal's figure or an answered call's duration. */
function groupValueSql(query: AssistantQuery, field: string | undefined): Prisma.Sql {
  if (!['average', 'sum', 'max', 'min'].includes(query.measure)) return Prisma.sql`NULL`;
  const aggregate = Prisma.raw(AGGREGATES[query.measure as FigureMeasure]);
  if (query.subject === 'sales') return Prisma.sql`${aggregate}(${Prisma.raw(SALE_COLUMNS[field ?? 'sale_price']!)})`;
  if (query.subject === 'calls')
    return Prisma.sql`${aggregate}(${Prisma.raw(CALL_COLUMNS[callField(query)]!)}) FILTER (WHERE c.status = 'answered')`;
  throw badInput('measure', 'leads can be counted, listed or rated');
}

const percent = (part: number, whole: number) => (whole ? Math.round((part / whole) * 1000) / 10 : null);

/** The rows of a list to skip ("the third one"). */
const skipped = (query: AssistantQuery) => (query.measure === 'list' ? Math.min(query.offset ?? 0, 24) : 0);

/** The newest rows (or, for a deal's max/min, the extreme one), as the answer cites them. */
async function activityRows(
  caller: Caller,
  query: AssistantQuery,
  where: Prisma.Sql,
  field: string | undefined,
  take: number,
): Promise<ActivityRow[]> {
  if (query.subject === 'leads') {
    return caller.db.$queryRaw<ActivityRow[]>(Prisma.sql`/* assistantLeads */
      SELECT l.id, l.received_at AS at, COALESCE(NULLIF(concat_ws(' ', l.first_name, l.last_name), ''), l.email, 'unnamed lead') AS label, dealer.name::text AS dealer_name,
        COALESCE(source.name::text, l.raw_source) AS source,
        l.type || ' lead, ' || l.status || CASE WHEN l.assignee IS NOT NULL THEN ', assigned to ' || l.assignee ELSE ', not assigned' END || CASE WHEN l.vehicle_make IS NOT NULL THEN ', ' || concat_ws(' ', l.vehicle_year, l.vehicle_make, l.vehicle_model) ELSE '' END AS detail
      FROM leads l JOIN dealers dealer ON dealer.id = l.dealer_id LEFT JOIN sources source ON source.id = l.source_id
      WHERE ${where} ORDER BY l.received_at DESC, l.id DESC LIMIT ${take} OFFSET ${skipped(query)}`);
  }
  if (query.subject === 'calls') {
    return caller.db.$queryRaw<ActivityRow[]>(Prisma.sql`/* assistantCalls */
      SELECT c.id, c.started_at AS at, COALESCE(c.caller_number, 'unknown caller') AS label, dealer.name::text AS dealer_name,
        COALESCE(source.name::text, c.raw_source) AS source, c.status || ', ' || c.duration_seconds || ' s' AS detail
      FROM calls c JOIN dealers dealer ON dealer.id = c.dealer_id LEFT JOIN sources source ON source.id = c.source_id
      WHERE ${where} ORDER BY c.started_at DESC, c.id DESC LIMIT ${take} OFFSET ${skipped(query)}`);
  }
  // Newest first, unless ordered by a figure ("top 5 back end deals"; the highest or lowest one).
  const order =
    (query.measure === 'list' || query.measure === 'count') && !query.order
      ? Prisma.sql`d.sold_at DESC, d.id DESC`
      : Prisma.sql`${Prisma.raw(SALE_COLUMNS[field ?? 'sale_price'] ?? 'd.sale_price')} ${Prisma.raw(query.measure === 'max' || query.order === 'desc' ? 'DESC' : 'ASC')} NULLS LAST, d.id ${Prisma.raw(query.measure === 'max' || query.order === 'desc' ? 'DESC' : 'ASC')}`;
  const rows = await caller.db.$queryRaw<
    Array<
      Omit<ActivityRow, 'detail'> & { deal_number: string; sale_price: string; salesperson: string; vin: string | null }
    >
  >(Prisma.sql`/* assistantSales */
    SELECT d.id, d.sold_at AS at, COALESCE(NULLIF(concat_ws(' ', d.vehicle_year, d.vehicle_make, d.vehicle_model), ''), 'deal ' || d.deal_number) AS label,
      dealer.name::text AS dealer_name, NULL::text AS source, d.deal_number, d.sale_price::text AS sale_price, d.salesperson, d.vin
    FROM sales d JOIN dealers dealer ON dealer.id = d.dealer_id
    WHERE ${where} ORDER BY ${order} LIMIT ${take} OFFSET ${skipped(query)}`);
  return rows.map(({ deal_number, sale_price, salesperson, vin, ...row }) => ({
    ...row,
    detail: `deal ${deal_number}, $${Number(sale_price).toLocaleString('en-US')}, sold by ${salesperson}${vin ? `, VIN ${vin}` : ''}`,
    person: salesperson,
  }));
}

async function runActivity(caller: Caller, query: AssistantQuery): Promise<QueryResult> {
  const where = activityWhere(caller, query);
  const { table } = ACTIVITY_TABLES[query.subject as keyof typeof ACTIVITY_TABLES];
  const rate = query.measure === 'rate' ? rateSql(query) : null;
  const [counted] = await caller.db.$queryRaw<Array<{ count: number; part: number }>>(
    Prisma.sql`/* assistantActivityCount */ SELECT count(*)::int AS count, ${rate ? Prisma.sql`count(*) FILTER (WHERE ${rate})::int` : Prisma.sql`0`} AS part FROM ${Prisma.raw(table)} WHERE ${where}`,
  );
  const count = counted?.count ?? 0;
  let value: number | null = rate ? percent(counted?.part ?? 0, count) : null;
  let field = rate ? (query.field ?? (query.subject === 'leads' ? 'sold' : 'answered')) : query.field;
  if (query.measure === 'average' || query.measure === 'sum' || query.measure === 'max' || query.measure === 'min') {
    ({ field, value } = await activityValue(caller, query, where, query.measure));
  }
  const groups =
    query.group_by === 'source' && query.subject === 'sales'
      ? await salesBySource(caller, query)
      : query.group_by
        ? await activityGroups(caller, query, where, field)
        : [];
  let activity: ActivityRow[] = [];
  if (query.measure === 'list' || ((query.measure === 'max' || query.measure === 'min') && query.subject === 'sales')) {
    activity = await activityRows(
      caller,
      query,
      where,
      field,
      query.measure === 'list' ? Math.min(query.limit ?? 10, 25) : 1,
    );
  } else if (query.measure === 'count' && !query.group_by && count > 0) {
    // A count cites its newest rows, as a count of vehicles lists them ("deals since 11/10 w/ total gross over $3k").
    activity = await activityRows(caller, query, where, field, 10);
  }
  return {
    query: { ...query, ...(field ? { field } : {}) },
    count,
    ...(rate ? { part: counted?.part ?? 0 } : {}),
    value,
    groups,
    vehicles: [],
    activity,
  };
}

/**
 * A ranking by how many (or how much) ranks named groups: the rows with none (no source, no salesperson)
 * lump many together, so their count is no rival to one source's and is given beside the ranking. A rate
 * or an average of leads with no source compares fairly and keeps its place; leads or deals with no
 * salesperson are no one on the team, so a breakdown by salesperson always gives them beside it.
 */
function setAsideUnnamed(query: AssistantQuery, result: QueryResult): QueryResult {
  const ranked = query.ranked && (query.measure === 'count' || query.measure === 'sum');
  if (!query.group_by || (!ranked && query.group_by !== 'salesperson')) return result;
  const unnamed = result.groups.filter((group) => group.key === null);
  if (!unnamed.length) return result;
  return {
    ...result,
    groups: result.groups.filter((group) => group.key !== null),
    unranked: unnamed.reduce((sum, group) => sum + group.count, 0),
  };
}

/** "Top 3 sources": a ranking with a limit keeps its first groups (the last, for "the 3 worst"). */
function topGroups(query: AssistantQuery, result: QueryResult): QueryResult {
  if (!query.group_by || !query.ranked || !query.limit || result.groups.length <= query.limit) return result;
  const valued = query.measure !== 'count' && query.measure !== 'list';
  const figure = (group: ResultRow) => (valued ? (group.value ?? -Infinity) : group.count);
  const low = query.order === 'asc' || query.measure === 'min';
  const sorted = [...result.groups].sort((a, b) => (low ? figure(a) - figure(b) : figure(b) - figure(a)));
  return { ...result, groups: sorted.slice(0, query.limit) };
}

/** Runs a structured query as the caller. */
export async function runQuery(caller: Caller, query: AssistantQuery): Promise<QueryResult> {
  const run = (asked: AssistantQuery) =>
    asked.subject === 'vehicles' ? runVehicles(caller, asked) : runActivity(caller, asked);
  const result = topGroups(query, setAsideUnnamed(query, await run(query)));
  if (!query.share || (query.measure !== 'count' && query.measure !== 'sum')) return result;
  const { dealer_id, from, to } = query.filters;
  const whole = await run({
    subject: query.subject,
    measure: query.measure,
    ...(query.measure === 'sum' ? { field: result.query.field } : {}),
    filters: { ...query.whole_filters, ...(query.whole_of_group ? {} : { dealer_id }), from, to },
  });
  return { ...result, whole: whole.count, ...(query.measure === 'sum' ? { whole_value: whole.value } : {}) };
}
