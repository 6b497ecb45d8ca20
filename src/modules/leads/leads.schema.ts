import type { CursorWindowArgs, WindowArgs } from '../../pagination';
import { withDealerIds } from '../../validation';
import { builder } from '../../builder';
import { cursorPageOf, itemsByIds, pickedRows, itemsSelection } from '../../pages';
import { Prisma } from '../../generated/prisma/client';
import type PrismaTypes from '../../generated/pothos-types';
import { childPageLoader, fieldPlace } from '../../loaders';
import { callerDataSql } from '../../tenancy';
import { rangeLongerThan, type FieldRateLimit } from '../../http/field-rate-limits';
import {
  findLeadId,
  LEAD_SORT,
  LEAD_STATUSES,
  LEAD_TYPES,
  leadPage,
  leadsBySource,
  leadsByStatus,
  leadsByType,
  updateLead,
  type LeadFilters,
} from './leads.service';
import { choice, choices, cursorListArgs, rooftopPeriodArgs, sortKeys, type FieldArgsBuilder } from '../../schema-args';
import { GRAPHQL_ONLY, restOperations } from '../../http/operations';

const operation = restOperations('Leads');

/** The Leads section of docs/operations.md: leads, one lead, updates and the three breakdowns. */

export const LeadTypeEnum = builder.enumType('LeadType', { values: LEAD_TYPES });
export const LeadStatusEnum = builder.enumType('LeadStatus', { values: LEAD_STATUSES });

export const Lead = builder.prismaObject('Lead', {
  select: { id: true },
  description: 'A sales or service lead in the shape of ADF: customer, vehicle of interest, raw and canonical source.',
  fields: (t) => ({
    id: t.exposeID('id'),
    dealer_id: t.exposeID('dealerId'),
    provider: t.exposeString('provider'),
    external_id: t.exposeString('externalId'),
    received_at: t.expose('receivedAt', { type: 'DateTime' }),
    type: t.expose('type', { type: LeadTypeEnum }),
    status: t.expose('status', { type: LeadStatusEnum }),
    first_name: t.exposeString('firstName', { nullable: true }),
    last_name: t.exposeString('lastName', { nullable: true }),
    email: t.exposeString('email', { nullable: true }),
    phone: t.exposeString('phone', { nullable: true }),
    vehicle_year: t.exposeInt('vehicleYear', { nullable: true }),
    vehicle_make: t.exposeString('vehicleMake', { nullable: true }),
    vehicle_model: t.exposeString('vehicleModel', { nullable: true }),
    vehicle_vin: t.exposeString('vehicleVin', { nullable: true }),
    raw_source: t.exposeString('rawSource', { nullable: true }),
    source_id: t.exposeID('sourceId', { nullable: true }),
    source: t.relation('source', { nullable: true }),
    comments: t.exposeString('comments', { nullable: true }),
    assignee: t.exposeString('assignee', { nullable: true }),
    sale_id: t.exposeID('saleId', { nullable: true, description: 'The deal this lead became, when one matches.' }),
    sale: t.prismaField({
      type: 'Sale',
      nullable: true,
      ...GRAPHQL_ONLY,
      description:
        "The deal this lead became: needs sales:read; null for a partner's key whose link to the deal's rooftop does not allow sales.",
      authScopes: { scope: 'sales:read' },
      select: { saleId: true },
      resolve: async (query, lead, _args, context, info) => {
        if (!lead.saleId) return null;
        // One statement picks the page's deals the caller may read, with the selection.
        const [sale] = await childPageLoader(context, `leadSale:${fieldPlace(info)}`, (ids) =>
          pickedRows<PrismaTypes['Sale']['Shape']>(
            context.db,
            'Sale',
            query,
            'leadSales',
            Prisma.sql`SELECT d.id AS parent_id, d.id FROM sales d
            WHERE d.id = ANY(${ids}::uuid[]) AND ${callerDataSql(context.session, 'd', 'sales')}`,
          ),
        ).load(lead.saleId);
        return sale ?? null;
      },
    }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

// One definition of a sale for a lead (LEAD_SOLD_SQL), said the same way on every breakdown.
const SOLD_RULE = 'linked to a deal, or with status sold';
const SOLD = `Leads that count as sold: ${SOLD_RULE}.`;

const LeadPage = cursorPageOf('LeadPage', 'leads', itemsByIds(Lead));

const TypeRow = builder.objectRef<Awaited<ReturnType<typeof leadsByType>>[number]>('LeadTypeStats').implement({
  fields: (t) => ({
    type: t.field({ type: LeadTypeEnum, resolve: (row) => row.type as (typeof LEAD_TYPES)[number] }),
    leads: t.exposeInt('leads'),
    sold: t.exposeInt('sold', { description: SOLD }),
    conversion_rate: t.exposeFloat('conversion_rate', { nullable: true, description: 'Sold ÷ leads.' }),
  }),
});
const TypeStats = builder.objectRef<Awaited<ReturnType<typeof leadsByType>>>('LeadsByType').implement({
  fields: (t) => ({ types: t.field({ type: [TypeRow], resolve: (rows) => rows }) }),
});

type Funnel = Awaited<ReturnType<typeof leadsByStatus>>;
const Stage = builder.objectRef<Funnel['stages'][number]>('LeadFunnelStage').implement({
  fields: (t) => ({
    status: t.field({ type: LeadStatusEnum, resolve: (row) => row.status }),
    leads: t.exposeInt('leads', { description: 'Leads in this status now.' }),
    sold: t.exposeInt('sold', {
      description: `Of these, the leads that count as sold (${SOLD_RULE}); the stages' sold add up to the total sold.`,
    }),
    reached: t.exposeInt('reached', {
      description:
        'Leads at this stage or past it; a lead that counts as sold has passed every stage (for lost: the lost ones not sold).',
    }),
  }),
});
const FunnelStats = builder.objectRef<Funnel>('LeadsByStatus').implement({
  fields: (t) => ({
    total: t.exposeInt('total'),
    sold: t.exposeInt('sold', { description: SOLD }),
    lost: t.exposeInt('lost', { description: 'Leads with status lost that do not count as sold.' }),
    conversion_rate: t.exposeFloat('conversion_rate', { nullable: true, description: 'Sold ÷ total.' }),
    stages: t.field({ type: [Stage], resolve: (funnel) => funnel.stages }),
  }),
});

const SourceRow = builder.objectRef<Awaited<ReturnType<typeof leadsBySource>>[number]>('LeadSourceStats').implement({
  fields: (t) => ({
    source_id: t.exposeID('source_id', { nullable: true }),
    source_name: t.exposeString('source_name', {
      nullable: true,
      description: 'Null for leads not mapped to a source yet.',
    }),
    category: t.exposeString('category', { nullable: true }),
    leads: t.exposeInt('leads'),
    sold: t.exposeInt('sold', { description: SOLD }),
    conversion_rate: t.exposeFloat('conversion_rate', { nullable: true, description: 'Sold ÷ leads.' }),
    sales: t.exposeInt('sales', {
      description:
        "Deals the leads became: each deal once for each source of the leads linked to it, in the period of that source's first such lead (so periods add up).",
    }),
    gross: t.field({
      type: 'Money',
      description: 'Front plus back gross of those deals, each deal once.',
      resolve: (row) => row.gross,
    }),
    cost_per_month: t.field({ type: 'Money', nullable: true, resolve: (row) => row.cost_per_month }),
    cost_per_lead: t.field({
      type: 'Money',
      nullable: true,
      description: 'Cost over the from-to period ÷ leads; needs from and to.',
      resolve: (row) => row.cost_per_lead,
    }),
  }),
});
const SourceStats = builder.objectRef<Awaited<ReturnType<typeof leadsBySource>>>('LeadsBySource').implement({
  fields: (t) => ({ sources: t.field({ type: [SourceRow], resolve: (rows) => rows }) }),
});

export function leadFilterArgs(t: FieldArgsBuilder) {
  return {
    status: t.arg.stringList(choices(LEAD_STATUSES)),
    type: t.arg.stringList(choices(LEAD_TYPES)),
    source: t.arg.string({ description: 'Canonical source id or name.' }),
    ...rooftopPeriodArgs(t, 'Received'),
    updated_since: t.arg({ type: 'DateTime' }),
  };
}

// Whole days come from the daily rollups, but a filter they lack (assignee, updated since…) reads every matching
// lead, so a long range still costs in proportion to its leads. The three breakdowns share one count.
const LONG_RANGE_STATS: FieldRateLimit = {
  operation: 'asking for lead stats over more than 90 days',
  bucket: 'lead-stats-long-range',
  max: 30,
  window: '1m',
  countsWhen: rangeLongerThan(90),
};

const asFilters = (args: object) => withDealerIds<LeadFilters & WindowArgs>(args);
const asCursorPage = (args: object) => withDealerIds<LeadFilters & CursorWindowArgs & { sort?: string | null }>(args);

builder.queryFields((t) => ({
  leads: t.field({
    ...operation('GET /leads', 'List leads'),
    type: LeadPage,
    description: `Leads, newest first unless \`sort\` says otherwise; \`sort=updated_at\` with \`after\` walks changes for a sync pull.`,
    authScopes: { scope: 'leads:read' },
    args: {
      ...leadFilterArgs(t),
      sort: t.arg.string(sortKeys(LEAD_SORT.keys, LEAD_SORT.fallback)),
      ...cursorListArgs(t),
    },
    resolve: (_root, args, context, info) => leadPage(context, asCursorPage(args), itemsSelection(info)),
  }),
  lead: t.prismaField({
    ...operation('GET /leads/:id', 'Get a lead'),
    type: Lead,
    authScopes: { scope: 'leads:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) =>
      context.db.lead.findUniqueOrThrow({ ...query, where: { id: await findLeadId(context, String(args.id)) } }),
  }),
  leadsByType: t.field({
    ...operation('GET /leads/stats/by-type', 'Leads by type', { rateLimit: LONG_RANGE_STATS }),
    type: TypeStats,
    authScopes: { scope: 'leads:read' },
    args: leadFilterArgs(t),
    resolve: (_root, args, context) => leadsByType(context, asFilters(args)),
  }),
  leadsByStatus: t.field({
    ...operation('GET /leads/stats/by-status', 'Leads by status', { rateLimit: LONG_RANGE_STATS }),
    type: FunnelStats,
    authScopes: { scope: 'leads:read' },
    args: leadFilterArgs(t),
    resolve: (_root, args, context) => leadsByStatus(context, asFilters(args)),
  }),
  leadsBySource: t.field({
    ...operation('GET /leads/stats/by-source', 'Leads by source', { rateLimit: LONG_RANGE_STATS }),
    type: SourceStats,
    authScopes: { scope: 'leads:read' },
    args: leadFilterArgs(t),
    resolve: (_root, args, context) => leadsBySource(context, asFilters(args)),
  }),
}));

builder.mutationFields((t) => ({
  updateLead: t.prismaField({
    ...operation('PATCH /leads/:id', 'Update a lead'),
    type: Lead,
    description: "Change a lead's status or assignee.",
    authScopes: { scope: 'leads:write' },
    args: { id: t.arg.id({ required: true }), status: t.arg.string(choice(LEAD_STATUSES)), assignee: t.arg.string() },
    resolve: async (query, _root, { id, ...input }, context) =>
      context.db.lead.findUniqueOrThrow({ ...query, where: { id: await updateLead(context, String(id), input) } }),
  }),
}));
