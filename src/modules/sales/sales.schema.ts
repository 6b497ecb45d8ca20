import type { CursorWindowArgs, WindowArgs } from '../../pagination';
import { withDealerIds } from '../../validation';
import { builder } from '../../builder';
import { cursorPageOf, itemsByIds, itemsSelection } from '../../pages';
import { inCallerData } from '../../tenancy';
import { rangeLongerThan, type FieldRateLimit } from '../../http/field-rate-limits';
import {
  CONTRACT_TYPES,
  findSaleId,
  SALE_SORT,
  salePage,
  saleStats,
  salespeopleStats,
  type SaleFilters,
  type SaleMeasures,
} from './sales.service';
import { choices, cursorListArgs, rooftopPeriodArgs, sortKeys, type FieldArgsBuilder } from '../../schema-args';
import { GRAPHQL_ONLY, restOperations } from '../../http/operations';

const operation = restOperations('Sales');

/** The Sales section of docs/operations.md: deals, one deal, stats by month and per salesperson. */

const ContractTypeEnum = builder.enumType('ContractType', { values: CONTRACT_TYPES });

export const Sale = builder.prismaObject('Sale', {
  select: { id: true },
  description: 'A deal as the DMS records it.',
  fields: (t) => ({
    id: t.exposeID('id'),
    dealer_id: t.exposeID('dealerId'),
    deal_number: t.exposeString('dealNumber'),
    sold_at: t.expose('soldAt', { type: 'DateTime' }),
    delivered_at: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    salesperson: t.exposeString('salesperson'),
    contract_type: t.expose('contractType', { type: ContractTypeEnum }),
    vehicle_condition: t.exposeString('vehicleCondition'),
    vin: t.exposeString('vin', { nullable: true }),
    vehicle_year: t.exposeInt('vehicleYear', { nullable: true }),
    vehicle_make: t.exposeString('vehicleMake', { nullable: true }),
    vehicle_model: t.exposeString('vehicleModel', { nullable: true }),
    sale_price: t.expose('salePrice', { type: 'Money' }),
    front_gross: t.expose('frontGross', { type: 'Money' }),
    back_gross: t.expose('backGross', { type: 'Money' }),
    amount_financed: t.expose('amountFinanced', { type: 'Money', nullable: true }),
    trade_in_value: t.expose('tradeInValue', { type: 'Money', nullable: true }),
    trade_in_vin: t.exposeString('tradeInVin', { nullable: true }),
    customer_name: t.exposeString('customerName', { nullable: true }),
    customer_email: t.exposeString('customerEmail', { nullable: true }),
    customer_phone: t.exposeString('customerPhone', { nullable: true }),
    leads: t.relation('leads', {
      ...GRAPHQL_ONLY,
      description:
        "Leads that became this deal: needs leads:read; for a partner's key, those at rooftops whose link allows leads.",
      authScopes: { scope: 'leads:read' },
      query: (_args, context) => ({ where: inCallerData(context.session, 'leads') }),
    }),
    calls: t.relation('calls', {
      ...GRAPHQL_ONLY,
      description:
        "Calls that became this deal: needs calls:read; for a partner's key, those at rooftops whose link allows calls.",
      authScopes: { scope: 'calls:read' },
      query: (_args, context) => ({ where: inCallerData(context.session, 'calls') }),
    }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const SalePage = cursorPageOf('SalePage', 'sales', itemsByIds(Sale));

const SaleMeasuresRef = builder.interfaceRef<SaleMeasures>('SaleMeasures').implement({
  fields: (t) => ({
    units: t.exposeInt('units'),
    revenue: t.field({ type: 'Money', resolve: (row) => row.revenue }),
    front_gross: t.field({ type: 'Money', resolve: (row) => row.front_gross }),
    back_gross: t.field({ type: 'Money', resolve: (row) => row.back_gross }),
    total_gross: t.field({ type: 'Money', resolve: (row) => row.total_gross }),
    average_sale_price: t.field({ type: 'Money', nullable: true, resolve: (row) => row.average_sale_price }),
    average_front_gross: t.field({ type: 'Money', nullable: true, resolve: (row) => row.average_front_gross }),
    average_back_gross: t.field({ type: 'Money', nullable: true, resolve: (row) => row.average_back_gross }),
  }),
});

const MonthStats = builder.objectRef<SaleMeasures & { month: string }>('SaleMonthStats').implement({
  interfaces: [SaleMeasuresRef],
  fields: (t) => ({ month: t.exposeString('month', { description: 'YYYY-MM (UTC).' }) }),
});
const SaleStats = builder.objectRef<Awaited<ReturnType<typeof saleStats>>>('SaleStats').implement({
  interfaces: [SaleMeasuresRef],
  fields: (t) => ({ by_month: t.field({ type: [MonthStats], resolve: (stats) => stats.by_month }) }),
});
const SalespersonStats = builder
  .objectRef<Awaited<ReturnType<typeof salespeopleStats>>[number]>('SalespersonStats')
  .implement({
    interfaces: [SaleMeasuresRef],
    fields: (t) => ({
      salesperson: t.exposeString('salesperson'),
      assigned_leads: t.exposeInt('assigned_leads'),
      close_rate: t.exposeFloat('close_rate', {
        nullable: true,
        description: 'Deals ÷ leads assigned to them in the period; null without assigned leads.',
      }),
    }),
  });
const SalespeopleStats = builder.objectRef<Awaited<ReturnType<typeof salespeopleStats>>>('SalespeopleStats').implement({
  fields: (t) => ({ salespeople: t.field({ type: [SalespersonStats], resolve: (rows) => rows }) }),
});

export function saleFilterArgs(t: FieldArgsBuilder) {
  return {
    salesperson: t.arg.string({ description: 'Exact name, case-insensitive.' }),
    contract_type: t.arg.stringList(choices(CONTRACT_TYPES)),
    condition: t.arg.string({ description: 'new, used or certified.' }),
    ...rooftopPeriodArgs(t, 'Sold'),
    updated_since: t.arg({ type: 'DateTime' }),
  };
}

// Stats read whole days from sale_daily, but salesperson figures and the filters it lacks read every matching deal,
// so a long range still costs in proportion to its deals. Both breakdowns share one count.
const LONG_RANGE_STATS: FieldRateLimit = {
  operation: 'asking for sale stats over more than 90 days',
  bucket: 'sale-stats-long-range',
  max: 30,
  window: '1m',
  countsWhen: rangeLongerThan(90),
};

const asFilters = (args: object) => withDealerIds<SaleFilters & WindowArgs>(args);
const asCursorPage = (args: object) => withDealerIds<SaleFilters & CursorWindowArgs & { sort?: string | null }>(args);

builder.queryFields((t) => ({
  sales: t.field({
    ...operation('GET /sales', 'List sales'),
    type: SalePage,
    description: `Deals, newest first unless \`sort\` says otherwise; \`sort=updated_at\` with \`after\` walks changes for a sync pull.`,
    authScopes: { scope: 'sales:read' },
    args: {
      ...saleFilterArgs(t),
      sort: t.arg.string(sortKeys(SALE_SORT.keys, SALE_SORT.fallback)),
      ...cursorListArgs(t),
    },
    resolve: (_root, args, context, info) => salePage(context, asCursorPage(args), itemsSelection(info)),
  }),
  sale: t.prismaField({
    ...operation('GET /sales/:id', 'Get a sale'),
    type: Sale,
    authScopes: { scope: 'sales:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) =>
      context.db.sale.findUniqueOrThrow({ ...query, where: { id: await findSaleId(context, String(args.id)) } }),
  }),
  saleStats: t.field({
    ...operation('GET /sales/stats', 'Sales statistics', { rateLimit: LONG_RANGE_STATS }),
    type: SaleStats,
    authScopes: { scope: 'sales:read' },
    args: saleFilterArgs(t),
    resolve: (_root, args, context) => saleStats(context, asFilters(args)),
  }),
  salespeopleStats: t.field({
    ...operation('GET /sales/stats/salespeople', 'Sales by salesperson', { rateLimit: LONG_RANGE_STATS }),
    type: SalespeopleStats,
    authScopes: { scope: 'sales:read' },
    args: saleFilterArgs(t),
    resolve: (_root, args, context) => salespeopleStats(context, asFilters(args)),
  }),
}));
