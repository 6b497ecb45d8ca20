import type { Dealer as DealerRow, Vehicle as VehicleRow } from '../../generated/prisma/client';
import type PrismaTypes from '../../generated/pothos-types';
import { builder, type BuilderTypes } from '../../builder';
import { pageArgs } from '../../pagination';
import { cursorPageOf, itemsByIds, itemsSelection, Pagination, rowById } from '../../pages';
import { MERGED_FIELDS, sameValue, type MergedField } from './vehicle-fields';
import {
  CONDITIONS,
  daysOnLot,
  DEFAULT_SORT,
  SORT_KEYS,
  VEHICLE_STATUSES,
  type InventoryFilterArgs,
} from './inventory.filters';
import {
  findVehicleIdByVin,
  inventoryAging,
  inventoryFacets,
  inventoryStats,
  listVehicleIds,
} from './inventory.service';
import { choices, cursorListArgs, listArgs, sortKeys, type FieldArgsBuilder } from '../../schema-args';
import { GRAPHQL_ONLY, restOperations } from '../../http/operations';
import { Dealer } from '../dealers/dealers.schema';
import type { CacheableAnswers } from '../../http/answer-cache';

const operation = restOperations('Inventory');

/** The Inventory section of docs/operations.md: inventory pages, one vehicle with provenance, history, stats, aging, facets. */

export const VehicleStatus = builder.enumType('VehicleStatus', { values: VEHICLE_STATUSES });
export const VehicleCondition = builder.enumType('VehicleCondition', { values: CONDITIONS });

const VehicleSource = builder.prismaObject('VehicleSourceRecord', {
  name: 'VehicleSource',
  description: 'What one source (a feed) last said about the vehicle.',
  fields: (t) => ({
    source: t.exposeString('source'),
    seen_at: t.expose('seenAt', { type: 'DateTime' }),
    data: t.expose('data', { type: 'JSON' }),
  }),
});

interface Alternative {
  source: string;
  value: unknown;
  seen_at: Date;
}
interface FieldProvenance {
  field: string;
  value: unknown;
  source: string | null;
  seen_at: Date | null;
  alternatives: Alternative[];
}

const AlternativeValue = builder.objectRef<Alternative>('SourceValue').implement({
  description: 'A value another source reported for the field, which lost the merge.',
  fields: (t) => ({
    source: t.exposeString('source'),
    value: t.expose('value', { type: 'JSON', nullable: true }),
    seen_at: t.expose('seen_at', { type: 'DateTime' }),
  }),
});

const FieldProvenanceRef = builder.objectRef<FieldProvenance>('FieldProvenance').implement({
  description:
    "One field of the merged vehicle: its value, the source it came from, and other sources' differing values.",
  fields: (t) => ({
    field: t.exposeString('field'),
    value: t.expose('value', { type: 'JSON', nullable: true }),
    source: t.exposeString('source', { nullable: true }),
    seen_at: t.expose('seen_at', { type: 'DateTime', nullable: true }),
    alternatives: t.field({ type: [AlternativeValue], resolve: (row) => row.alternatives }),
  }),
});

type ProvenanceInput = Pick<VehicleRow, 'fieldSources'> & {
  sourceRecords: Array<{ source: string; data: unknown; seenAt: Date }>;
};

function provenanceOf(vehicle: ProvenanceInput, merged: Record<string, unknown>): FieldProvenance[] {
  const winners = (vehicle.fieldSources ?? {}) as Partial<Record<MergedField, string>>;
  return MERGED_FIELDS.map((field) => {
    const source = winners[field] ?? null;
    const winning = vehicle.sourceRecords.find((record) => record.source === source);
    const value = merged[field] ?? null;
    const alternatives = vehicle.sourceRecords
      .filter((record) => record.source !== source)
      .map((record) => ({
        source: record.source,
        value: (record.data as Record<string, unknown>)[field] ?? null,
        seen_at: record.seenAt,
      }))
      .filter((alternative) => alternative.value !== null && !sameValue(alternative.value, value));
    return { field, value, source, seen_at: winning?.seenAt ?? null, alternatives };
  });
}

const money = (value: { toFixed(digits: number): string } | null) => (value === null ? null : value.toFixed(2));

/** The merged field values in the shape sources report them, to compare against source records. */
function mergedValues(vehicle: VehicleRow): Record<string, unknown> {
  return {
    stock_number: vehicle.stockNumber,
    year: vehicle.year,
    make: vehicle.make,
    model: vehicle.model,
    trim: vehicle.trim,
    body_style: vehicle.bodyStyle,
    condition: vehicle.condition,
    mileage: vehicle.mileage,
    exterior_color: vehicle.exteriorColor,
    interior_color: vehicle.interiorColor,
    msrp: money(vehicle.msrp),
    price: money(vehicle.price),
    internet_price: money(vehicle.internetPrice),
    status: vehicle.status,
    date_in_stock: vehicle.dateInStock.toISOString().slice(0, 10),
    photos: vehicle.photos,
  };
}

const provenanceSelect = {
  fieldSources: true,
  sourceRecords: { select: { source: true, data: true, seenAt: true }, orderBy: { source: 'asc' } },
} as const;

type VehicleFieldBuilder = Pick<
  PothosSchemaTypes.PrismaObjectFieldBuilder<BuilderTypes, PrismaTypes['Vehicle'], PrismaTypes['Vehicle']['Shape']>,
  'exposeID' | 'exposeString' | 'exposeInt' | 'expose' | 'int' | 'exposeStringList' | 'field'
>;

/** Every field of the merged record, shared by the list and detail shapes. */
function vehicleFields(t: VehicleFieldBuilder) {
  return {
    id: t.exposeID('id'),
    vin: t.exposeString('vin'),
    stock_number: t.exposeString('stockNumber', { nullable: true }),
    year: t.exposeInt('year'),
    make: t.exposeString('make'),
    model: t.exposeString('model'),
    trim: t.exposeString('trim', { nullable: true }),
    body_style: t.exposeString('bodyStyle', { nullable: true }),
    condition: t.expose('condition', { type: VehicleCondition }),
    mileage: t.exposeInt('mileage', { nullable: true }),
    exterior_color: t.exposeString('exteriorColor', { nullable: true }),
    interior_color: t.exposeString('interiorColor', { nullable: true }),
    msrp: t.expose('msrp', { type: 'Money', nullable: true }),
    price: t.expose('price', { type: 'Money', nullable: true }),
    internet_price: t.expose('internetPrice', { type: 'Money', nullable: true }),
    status: t.expose('status', { type: VehicleStatus }),
    days_on_lot: t.int({
      description: 'Days from stock-in to today, or to the sale once sold.',
      resolve: (vehicle) => daysOnLot(vehicle.dateInStock, vehicle.soldAt),
    }),
    date_in_stock: t.expose('dateInStock', { type: 'Date' }),
    sold_at: t.expose('soldAt', { type: 'DateTime', nullable: true }),
    photos: t.exposeStringList('photos'),
    dealer_id: t.exposeID('dealerId'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
    // Read once for every vehicle of the answer that shares it (a page of 25 usually has a handful of
    // rooftops), not joined beside each vehicle; whole, so any of its fields can be asked.
    dealer: t.field({
      type: Dealer,
      resolve: (vehicle, _args, context) => rowById<DealerRow>(context, 'Dealer', vehicle.dealerId),
    }),
  };
}

/** The list shape: the merged record; provenance and sources are there for GraphQL callers. */
export const Vehicle = builder.prismaObject('Vehicle', {
  description: 'A vehicle at a rooftop: the merged, trusted record of what its sources say.',
  fields: (t) => ({
    ...vehicleFields(t),
    provenance: t.field({
      type: [FieldProvenanceRef],
      ...GRAPHQL_ONLY,
      description: 'Per field: the winning source, when it reported, and the values other sources gave.',
      select: provenanceSelect,
      resolve: (vehicle) => provenanceOf(vehicle, mergedValues(vehicle)),
    }),
    sources: t.relation('sourceRecords', {
      ...GRAPHQL_ONLY,
      type: VehicleSource,
      query: { orderBy: { source: 'asc' } },
    }),
  }),
});

/** The detail shape (`GET /inventory/:vin`): the merged record plus per-field provenance and its sources. */
export const VehicleDetail = builder.prismaObject('Vehicle', {
  variant: 'VehicleDetail',
  description: 'One vehicle with the provenance of every field and what each source said.',
  fields: (t) => ({
    ...vehicleFields(t),
    provenance: t.field({
      type: [FieldProvenanceRef],
      select: provenanceSelect,
      resolve: (vehicle) => provenanceOf(vehicle, mergedValues(vehicle)),
    }),
    sources: t.relation('sourceRecords', { type: VehicleSource, query: { orderBy: { source: 'asc' } } }),
  }),
});

const VehicleChange = builder.prismaObject('VehicleChange', {
  description: 'One change to one field, with the source and sync run that made it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    field: t.exposeString('field'),
    old_value: t.expose('oldValue', { type: 'JSON', nullable: true }),
    new_value: t.expose('newValue', { type: 'JSON', nullable: true }),
    source: t.exposeString('source', { nullable: true }),
    sync_run_id: t.exposeID('syncRunId', { nullable: true }),
    changed_at: t.expose('changedAt', { type: 'DateTime' }),
  }),
});

const InventoryPage = cursorPageOf('InventoryPage', 'vehicles', itemsByIds(Vehicle));

interface HistoryPageRef {
  vehicleId: string;
  vin: string;
  field: string | null;
  limit: number;
  offset: number;
}

const VehicleHistoryPage = builder.objectRef<HistoryPageRef>('VehicleHistory').implement({
  fields: (t) => ({
    vin: t.exposeString('vin'),
    changes: t.prismaField({
      type: [VehicleChange],
      description: 'Newest first.',
      resolve: (query, page, _args, context) =>
        context.db.vehicleChange.findMany({
          ...query,
          where: { vehicleId: page.vehicleId, ...(page.field ? { field: page.field } : {}) },
          orderBy: [{ changedAt: 'desc' }, { id: 'asc' }],
          take: page.limit,
          skip: page.offset,
        }),
    }),
    pagination: t.field({
      type: Pagination,
      resolve: async (page, _args, context) => ({
        total: await context.db.vehicleChange.count({
          where: { vehicleId: page.vehicleId, ...(page.field ? { field: page.field } : {}) },
        }),
        limit: page.limit,
        offset: page.offset,
      }),
    }),
  }),
});

interface AggregateShape {
  count: number;
  total_value: string;
  average_price: string | null;
  average_days_on_lot: number | null;
}

const InventoryAggregate = builder.interfaceRef<AggregateShape>('InventoryAggregate').implement({
  description: 'Count, value (sum of prices), average price and average days on lot of a set of vehicles.',
  fields: (t) => ({
    count: t.exposeInt('count'),
    total_value: t.field({ type: 'Money', resolve: (row) => row.total_value }),
    average_price: t.field({ type: 'Money', nullable: true, resolve: (row) => row.average_price }),
    average_days_on_lot: t.exposeFloat('average_days_on_lot', { nullable: true }),
  }),
});

const StatusAggregate = builder.objectRef<AggregateShape & { status: string }>('InventoryStatusStats').implement({
  interfaces: [InventoryAggregate],
  fields: (t) => ({
    status: t.field({ type: VehicleStatus, resolve: (row) => row.status as (typeof VEHICLE_STATUSES)[number] }),
  }),
});
const MakeAggregate = builder.objectRef<AggregateShape & { make: string }>('InventoryMakeStats').implement({
  interfaces: [InventoryAggregate],
  fields: (t) => ({ make: t.exposeString('make') }),
});
const DealerAggregate = builder
  .objectRef<AggregateShape & { dealer_id: string; dealer_name: string }>('InventoryDealerStats')
  .implement({
    interfaces: [InventoryAggregate],
    fields: (t) => ({ dealer_id: t.exposeID('dealer_id'), dealer_name: t.exposeString('dealer_name') }),
  });

const InventoryStats = builder.objectRef<Awaited<ReturnType<typeof inventoryStats>>>('InventoryStats').implement({
  description: 'Inventory totals; current inventory (available, pending, in transit) unless `status` says otherwise.',
  fields: (t) => ({
    total_vehicles: t.int({ resolve: (stats) => stats.count }),
    total_value: t.field({ type: 'Money', resolve: (stats) => stats.total_value }),
    average_price: t.field({ type: 'Money', nullable: true, resolve: (stats) => stats.average_price }),
    average_days_on_lot: t.float({ nullable: true, resolve: (stats) => stats.average_days_on_lot }),
    by_status: t.field({ type: [StatusAggregate], resolve: (stats) => stats.by_status }),
    by_make: t.field({ type: [MakeAggregate], resolve: (stats) => stats.by_make }),
    by_dealer: t.field({ type: [DealerAggregate], resolve: (stats) => stats.by_dealer }),
  }),
});

const AgingBucket = builder
  .objectRef<AggregateShape & { bucket: string; min_days: number; max_days: number | null }>('AgingBucket')
  .implement({
    interfaces: [InventoryAggregate],
    fields: (t) => ({
      bucket: t.exposeString('bucket', { description: '"0-30", "31-60", "61-90" or "90+".' }),
      min_days: t.exposeInt('min_days'),
      max_days: t.exposeInt('max_days', { nullable: true }),
    }),
  });

const InventoryAging = builder.objectRef<Awaited<ReturnType<typeof inventoryAging>>>('InventoryAging').implement({
  description: 'Days-on-lot buckets; current inventory unless `status` says otherwise.',
  fields: (t) => ({
    buckets: t.field({ type: [AgingBucket], resolve: (aging) => aging.buckets }),
    total_count: t.exposeInt('total_count'),
    total_value: t.field({ type: 'Money', resolve: (aging) => aging.total_value }),
  }),
});

const FacetValue = builder.objectRef<{ value: string; count: number; make?: string | null }>('FacetValue').implement({
  fields: (t) => ({
    value: t.exposeString('value'),
    count: t.exposeInt('count'),
    make: t.string({ nullable: true, description: 'For models: the make.', resolve: (facet) => facet.make ?? null }),
  }),
});

const InventoryFacets = builder.objectRef<Awaited<ReturnType<typeof inventoryFacets>>>('InventoryFacets').implement({
  description: 'Counts per value for filter UIs; current inventory unless `status` says otherwise.',
  fields: (t) => ({
    makes: t.field({ type: [FacetValue], resolve: (facets) => facets.makes }),
    models: t.field({ type: [FacetValue], resolve: (facets) => facets.models }),
    years: t.field({ type: [FacetValue], resolve: (facets) => facets.years }),
    statuses: t.field({ type: [FacetValue], resolve: (facets) => facets.statuses }),
    body_styles: t.field({ type: [FacetValue], resolve: (facets) => facets.body_styles }),
    conditions: t.field({ type: [FacetValue], resolve: (facets) => facets.conditions }),
  }),
});

/** The inventory filters of GET /inventory, shared by the list and the aggregates. */
function filterArgs(t: FieldArgsBuilder) {
  return {
    make: t.arg.stringList({ description: 'Make, case-insensitive; repeat or comma-separate for several.' }),
    model: t.arg.stringList({ description: 'Model, case-insensitive; repeat or comma-separate for several.' }),
    year_min: t.arg.int(),
    year_max: t.arg.int(),
    price_min: t.arg({ type: 'Money' }),
    price_max: t.arg({ type: 'Money' }),
    status: t.arg.stringList(choices(VEHICLE_STATUSES)),
    condition: t.arg.stringList(choices(CONDITIONS)),
    body_style: t.arg.stringList(),
    dealer_id: t.arg.idList({ description: 'Only these rooftops.' }),
    source: t.arg.stringList({ description: 'Only vehicles one of these sources reports.' }),
    days_on_lot_min: t.arg.int(),
    days_on_lot_max: t.arg.int(),
    exterior_color: t.arg.stringList({
      description: 'Part of the exterior color, case-insensitive ("white" finds "Oxford White"); several match any.',
    }),
    mileage_min: t.arg.int(),
    mileage_max: t.arg.int(),
    q: t.arg.string({ description: 'Free text over VIN, stock number, make, model and trim.' }),
    updated_since: t.arg({ type: 'DateTime', description: 'Only vehicles changed at or after this instant.' }),
  };
}

const asFilters = (args: Record<string, unknown>) => args as InventoryFilterArgs;

builder.queryFields((t) => ({
  inventory: t.field({
    ...operation('GET /inventory', 'List inventory'),
    type: InventoryPage,
    description: 'A filtered, sorted page of vehicles; `sort=updated_at` with `after` walks changes for a sync pull.',
    authScopes: { scope: 'inventory:read' },
    args: {
      ...filterArgs(t),
      sort: t.arg.string(sortKeys(SORT_KEYS, DEFAULT_SORT, '-days_on_lot,price')),
      ...cursorListArgs(t, { limit: 'Page size, 1-500, default 50.', offset: 'Zero-based offset.' }),
    },
    resolve: (_root, args, context, info) =>
      listVehicleIds(context.db, context.session, asFilters(args), itemsSelection(info)),
  }),
  vehicle: t.prismaField({
    ...operation('GET /inventory/:vin', 'Get a vehicle'),
    type: VehicleDetail,
    description: 'One vehicle by VIN, with per-field source provenance.',
    authScopes: { scope: 'inventory:read' },
    args: { vin: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, context) => {
      const id = await findVehicleIdByVin(context.db, context.session, args.vin);
      return context.db.vehicle.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  vehicleHistory: t.field({
    ...operation('GET /inventory/:vin/history', "A vehicle's history"),
    type: VehicleHistoryPage,
    description: "A vehicle's price, status and field changes, newest first.",
    authScopes: { scope: 'inventory:read' },
    args: { vin: t.arg.string({ required: true }), field: t.arg.string(), ...listArgs(t) },
    resolve: async (_root, args, context) => {
      const { limit, offset } = pageArgs(args);
      const vehicleId = await findVehicleIdByVin(context.db, context.session, args.vin);
      return { vehicleId, vin: args.vin.trim().toUpperCase(), field: args.field ?? null, limit, offset };
    },
  }),
  inventoryStats: t.field({
    ...operation('GET /inventory/stats', 'Inventory totals'),
    type: InventoryStats,
    authScopes: { scope: 'inventory:read' },
    args: filterArgs(t),
    resolve: (_root, args, context) => inventoryStats(context.db, context.session, asFilters(args)),
  }),
  inventoryAging: t.field({
    ...operation('GET /inventory/aging', 'Inventory aging buckets'),
    type: InventoryAging,
    authScopes: { scope: 'inventory:read' },
    args: filterArgs(t),
    resolve: (_root, args, context) => inventoryAging(context.db, context.session, asFilters(args)),
  }),
  inventoryFacets: t.field({
    ...operation('GET /inventory/facets', 'Inventory facet counts'),
    type: InventoryFacets,
    authScopes: { scope: 'inventory:read' },
    args: filterArgs(t),
    resolve: (_root, args, context) => inventoryFacets(context.db, context.session, asFilters(args)),
  }),
}));

/**
 * The inventory list as the answer cache may keep it (http/answer-cache.ts): these fields read the
 * vehicles and dealers rows of the caller's groups and nothing else, and those tables announce every
 * change (migration inventory_change_notifications). Provenance and sources read the source records,
 * and the `source` filter too: they are not here. A field added to this list must read only those rows.
 */
export const INVENTORY_ANSWERS: CacheableAnswers = {
  fields: [
    'Query.inventory',
    'Query.inventoryStats',
    'Query.inventoryAging',
    'Query.inventoryFacets',
    'InventoryPage.vehicles',
    'InventoryPage.pagination',
    ...['limit', 'offset', 'total', 'next_cursor'].map((field) => `CursorPagination.${field}`),
    ...['id', 'vin', ...MERGED_FIELDS, 'days_on_lot', 'sold_at', 'dealer_id', 'created_at', 'updated_at', 'dealer'].map(
      (field) => `Vehicle.${field}`,
    ),
    ...[
      'id',
      'dealer_group_id',
      'name',
      'code',
      'street',
      'city',
      'state',
      'postal_code',
      'phone',
      'website',
      'time_zone',
      'franchises',
      'external_ids',
      'created_at',
      'updated_at',
      'archived_at',
    ].map((field) => `Dealer.${field}`),
  ],
  // The aggregates: one statement over the same rows each, reshaped by the types below them.
  types: [
    'InventoryStats',
    'InventoryStatusStats',
    'InventoryMakeStats',
    'InventoryDealerStats',
    'InventoryAging',
    'AgingBucket',
    'InventoryFacets',
    'FacetValue',
  ],
  uncachedArguments: ['inventory', 'inventoryStats', 'inventoryAging', 'inventoryFacets'].map(
    (field) => `Query.${field}.source`,
  ),
};
