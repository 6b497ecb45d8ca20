import { Prisma } from '../../generated/prisma/client';
import { childPageLoader } from '../../loaders';
import { builder, Deletion } from '../../builder';
import { pageArgs } from '../../pagination';
import { itemsWhere, pageOf } from '../../pages';
import { listArgs } from '../../schema-args';
import { dateRange, oneOf } from '../../validation';
import { VEHICLE_STATUSES } from '../inventory/inventory.filters';
import {
  addAlias, archiveDealer, createDealer, dealerPage, findDealer, matchDealers, removeAlias, updateDealer, type DealerInput,
} from './dealers.service';
import { matchReranker } from '../assistant/assistant.service';
import { GRAPHQL_ONLY, restOperations } from '../../http/operations';

const operation = restOperations('Dealers');

/** Catalog rows 63-71: dealer groups and dealers (rooftops), aliases and matching. */

export const DealerGroup = builder.prismaObject('DealerGroup', {
  description: 'A tenant: a dealer group and its rooftops.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    dealers: t.relation('dealers', { query: { where: { archivedAt: null }, orderBy: { name: 'asc' } } }),
  }),
});

const DealerAlias = builder.prismaObject('DealerAlias', {
  description: 'A name the dealer has in another system.',
  fields: (t) => ({
    id: t.exposeID('id'),
    alias: t.exposeString('alias'),
    system: t.exposeString('system', { nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

/** `AND column >= from AND column <= to`, for whichever bounds are given. */
const range = (column: Prisma.Sql, args: { from?: Date | null; to?: Date | null }) =>
  Prisma.sql`${args.from ? Prisma.sql`AND ${column} >= ${args.from}` : Prisma.empty} ${args.to ? Prisma.sql`AND ${column} <= ${args.to}` : Prisma.empty}`;

const nestedTake = (args: { limit?: number | null; offset?: number | null }) => {
  const { limit, offset } = pageArgs(args);
  return { take: limit, skip: offset };
};

export const Dealer = builder.prismaObject('Dealer', {
  description: 'A rooftop: one dealership location.',
  fields: (t) => ({
    id: t.exposeID('id'),
    dealer_group_id: t.exposeID('dealerGroupId'),
    name: t.exposeString('name'),
    code: t.exposeString('code'),
    street: t.exposeString('street', { nullable: true }),
    city: t.exposeString('city', { nullable: true }),
    state: t.exposeString('state', { nullable: true }),
    postal_code: t.exposeString('postalCode', { nullable: true }),
    phone: t.exposeString('phone', { nullable: true }),
    website: t.exposeString('website', { nullable: true }),
    time_zone: t.exposeString('timeZone'),
    franchises: t.exposeStringList('franchises'),
    external_ids: t.expose('externalIds', { type: 'JSON', description: 'Codes in other systems, by system: {"dms": "CDK-1234"}.' }),
    aliases: t.relation('aliases', { ...GRAPHQL_ONLY, query: { orderBy: { alias: 'asc' } } }),
    // Dashboard views: a rooftop's latest records, filtered and paged, loaded for a whole page of dealers at once.
    vehicles: t.prismaField({
      type: ['Vehicle'],
      ...GRAPHQL_ONLY,
      args: { status: t.arg.stringList(), limit: t.arg.int({ description: '1-500, default 50.' }), offset: t.arg.int() },
      resolve: (query, dealer, args, context) => {
        const { take, skip } = nestedTake(args);
        const statuses = args.status?.length ? args.status.map((status) => oneOf('status', status, VEHICLE_STATUSES)) : null;
        return childPageLoader(context, `Dealer.vehicles:${JSON.stringify([args, query])}`,
          (ids) => context.db.$queryRaw(Prisma.sql`/* dealerVehicles */ SELECT p.parent_id, v.id FROM unnest(${ids}::uuid[]) AS p(parent_id) CROSS JOIN LATERAL (
            SELECT v.id FROM vehicles v WHERE v.dealer_id = p.parent_id ${statuses ? Prisma.sql`AND v.status = ANY(${statuses}::vehicle_status[])` : Prisma.empty}
            ORDER BY v.date_in_stock, v.id LIMIT ${take} OFFSET ${skip}) v`),
          (ids) => context.db.vehicle.findMany({ ...query, where: { id: { in: ids } }, orderBy: [{ dateInStock: 'asc' }, { id: 'asc' }] }),
        ).load(dealer.id);
      },
    }),
    calls: t.prismaField({
      type: ['Call'],
      ...GRAPHQL_ONLY,
      args: { from: t.arg({ type: 'DateTime' }), to: t.arg({ type: 'DateTime' }), limit: t.arg.int({ description: '1-500, default 50.' }), offset: t.arg.int() },
      resolve: (query, dealer, args, context) => {
        const { take, skip } = nestedTake(args);
        dateRange(args.from, args.to);
        return childPageLoader(context, `Dealer.calls:${JSON.stringify([args, query])}`,
          (ids) => context.db.$queryRaw(Prisma.sql`/* dealerCalls */ SELECT p.parent_id, c.id FROM unnest(${ids}::uuid[]) AS p(parent_id) CROSS JOIN LATERAL (
            SELECT c.id FROM calls c WHERE c.dealer_id = p.parent_id ${range(Prisma.sql`c.started_at`, args)}
            ORDER BY c.started_at DESC, c.id LIMIT ${take} OFFSET ${skip}) c`),
          (ids) => context.db.call.findMany({ ...query, where: { id: { in: ids } }, orderBy: [{ startedAt: 'desc' }, { id: 'asc' }] }),
        ).load(dealer.id);
      },
    }),
    leads: t.prismaField({
      type: ['Lead'],
      ...GRAPHQL_ONLY,
      args: { from: t.arg({ type: 'DateTime' }), to: t.arg({ type: 'DateTime' }), limit: t.arg.int({ description: '1-500, default 50.' }), offset: t.arg.int() },
      resolve: (query, dealer, args, context) => {
        const { take, skip } = nestedTake(args);
        dateRange(args.from, args.to);
        return childPageLoader(context, `Dealer.leads:${JSON.stringify([args, query])}`,
          (ids) => context.db.$queryRaw(Prisma.sql`/* dealerLeads */ SELECT p.parent_id, l.id FROM unnest(${ids}::uuid[]) AS p(parent_id) CROSS JOIN LATERAL (
            SELECT l.id FROM leads l WHERE l.dealer_id = p.parent_id ${range(Prisma.sql`l.received_at`, args)}
            ORDER BY l.received_at DESC, l.id LIMIT ${take} OFFSET ${skip}) l`),
          (ids) => context.db.lead.findMany({ ...query, where: { id: { in: ids } }, orderBy: [{ receivedAt: 'desc' }, { id: 'asc' }] }),
        ).load(dealer.id);
      },
    }),
    sales: t.prismaField({
      type: ['Sale'],
      ...GRAPHQL_ONLY,
      args: { from: t.arg({ type: 'DateTime' }), to: t.arg({ type: 'DateTime' }), limit: t.arg.int({ description: '1-500, default 50.' }), offset: t.arg.int() },
      resolve: (query, dealer, args, context) => {
        const { take, skip } = nestedTake(args);
        dateRange(args.from, args.to);
        return childPageLoader(context, `Dealer.sales:${JSON.stringify([args, query])}`,
          (ids) => context.db.$queryRaw(Prisma.sql`/* dealerSales */ SELECT p.parent_id, d.id FROM unnest(${ids}::uuid[]) AS p(parent_id) CROSS JOIN LATERAL (
            SELECT d.id FROM sales d WHERE d.dealer_id = p.parent_id ${range(Prisma.sql`d.sold_at`, args)}
            ORDER BY d.sold_at DESC, d.id LIMIT ${take} OFFSET ${skip}) d`),
          (ids) => context.db.sale.findMany({ ...query, where: { id: { in: ids } }, orderBy: [{ soldAt: 'desc' }, { id: 'asc' }] }),
        ).load(dealer.id);
      },
    }),
    vehicle_count: t.relationCount('vehicles', GRAPHQL_ONLY),
    call_count: t.relationCount('calls', GRAPHQL_ONLY),
    lead_count: t.relationCount('leads', GRAPHQL_ONLY),
    sale_count: t.relationCount('sales', GRAPHQL_ONLY),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
    archived_at: t.expose('archivedAt', { type: 'DateTime', nullable: true }),
  }),
});

const DealerPage = pageOf('DealerPage', 'dealers', itemsWhere(Dealer, [{ name: 'asc' }, { id: 'asc' }]));

const AliasList = builder.objectRef<{ dealerId: string }>('DealerAliasList').implement({
  fields: (t) => ({
    aliases: t.prismaField({
      type: [DealerAlias],
      resolve: (query, list, _args, context) => context.db.dealerAlias.findMany({ ...query, where: { dealerId: list.dealerId }, orderBy: { alias: 'asc' } }),
    }),
  }),
});

const MatchCandidate = builder.objectRef<{ dealerId: string; score: number; reasons: string[] }>('DealerMatch').implement({
  fields: (t) => ({
    dealer: t.prismaField({ type: Dealer, resolve: (query, match, _args, context) => context.db.dealer.findUniqueOrThrow({ ...query, where: { id: match.dealerId } }) }),
    score: t.exposeFloat('score', { description: '0 to 1.' }),
    reasons: t.exposeStringList('reasons', { description: 'The evidence: "phone matches", "name ~0.92 after normalising \\"llc\\"", …' }),
  }),
});

const MatchResult = builder.objectRef<Array<{ dealerId: string; score: number; reasons: string[] }>>('DealerMatchResult').implement({
  fields: (t) => ({ candidates: t.field({ type: [MatchCandidate], resolve: (candidates) => candidates }) }),
});

const dealerFieldArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  name: t.arg.string(),
  code: t.arg.string({ description: 'Short code, unique in the dealer group.' }),
  street: t.arg.string(),
  city: t.arg.string(),
  state: t.arg.string(),
  postal_code: t.arg.string(),
  phone: t.arg.string({ description: 'Stored in E.164 (+13035550101).' }),
  website: t.arg.string(),
  time_zone: t.arg.string({ description: 'IANA name, e.g. America/Denver.' }),
  franchises: t.arg.stringList({ description: 'Makes the rooftop is franchised for.' }),
  external_ids: t.arg({ type: 'JSON', description: 'Codes in other systems, by system: {"dms": "CDK-1234", "crm": "VIN-88"}.' }),
});

builder.queryFields((t) => ({
  dealers: t.field({
    ...operation('GET /dealers', 'List dealers'),
    type: DealerPage,
    description: "Your dealer groups' rooftops, by name.",
    authScopes: { scope: 'dealers:read' },
    args: { q: t.arg.string({ description: 'Name, code or alias contains.' }), include_archived: t.arg.boolean(), ...listArgs(t) },
    resolve: (_root, args, context) => dealerPage(context, args),
  }),
  dealer: t.prismaField({
    ...operation('GET /dealers/:id', 'Get a dealer'),
    type: Dealer,
    authScopes: { scope: 'dealers:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) => context.db.dealer.findUniqueOrThrow({ ...query, where: { id: (await findDealer(context, String(args.id))).id } }),
  }),
  dealerAliases: t.field({
    ...operation('GET /dealers/:id/aliases', "List a dealer's aliases"),
    type: AliasList,
    description: 'Names the dealer has in other systems.',
    authScopes: { scope: 'dealers:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => ({ dealerId: (await findDealer(context, String(args.id))).id }),
  }),
}));

builder.queryFields((t) => ({
  matchDealers: t.field({
    // Compares against every rooftop, and may ask the assistant's provider to re-rank.
    ...operation('POST /dealers/match', 'Match a dealer by name and address', { rateLimit: { operation: 'dealer matching', max: 120, window: '1m' } }),
    type: MatchResult,
    description: 'Rank your dealers against a name and optionally an address, phone or website, with scores and reasons.',
    authScopes: { scope: 'dealers:read' },
    args: {
      name: t.arg.string(), street: t.arg.string(), city: t.arg.string(), state: t.arg.string(), postal_code: t.arg.string(),
      phone: t.arg.string(), website: t.arg.string(), limit: t.arg.int({ description: 'Candidates to return, 1-50.', extensions: { openapi: { minimum: 1, maximum: 50, default: 5 } } }),
    },
    resolve: async (_root, args, context) => {
      // With an assistant provider configured (and re-ranking on), it re-orders the top candidates; any failure keeps our order.
      const reranker = await matchReranker(context, () => { /* our ranking stands */ });
      return (await matchDealers(context, args, reranker)).map((candidate) => ({ dealerId: candidate.dealer.id, score: candidate.score, reasons: candidate.reasons }));
    },
  }),
}));

builder.mutationFields((t) => ({
  createDealer: t.prismaField({
    ...operation('POST /dealers', 'Create a dealer', { status: 201 }),
    type: Dealer,
    authScopes: { scope: 'dealers:write' },
    args: { ...dealerFieldArgs(t), name: t.arg.string({ required: true }), code: t.arg.string({ required: true }), dealer_group_id: t.arg.id({ description: 'Needed when you belong to several groups.' }) },
    resolve: async (query, _root, args, context) =>
      context.db.dealer.findUniqueOrThrow({ ...query, where: { id: await createDealer(context, { ...args, dealer_group_id: args.dealer_group_id?.toString() } as DealerInput) } }),
  }),
  updateDealer: t.prismaField({
    ...operation('PATCH /dealers/:id', 'Update a dealer'),
    type: Dealer,
    authScopes: { scope: 'dealers:write' },
    args: { id: t.arg.id({ required: true }), ...dealerFieldArgs(t) },
    resolve: async (query, _root, { id, ...input }, context) =>
      context.db.dealer.findUniqueOrThrow({ ...query, where: { id: await updateDealer(context, String(id), input as DealerInput) } }),
  }),
  archiveDealer: t.prismaField({
    ...operation('DELETE /dealers/:id', 'Archive a dealer'),
    type: Dealer,
    description: 'Archive a rooftop; its vehicles, calls, leads and sales stay.',
    authScopes: { scope: 'dealers:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) => context.db.dealer.findUniqueOrThrow({ ...query, where: { id: await archiveDealer(context, String(args.id)) } }),
  }),
  addDealerAlias: t.prismaField({
    ...operation('POST /dealers/:id/aliases', 'Add a dealer alias', { status: 201 }),
    type: DealerAlias,
    authScopes: { scope: 'dealers:write' },
    args: { id: t.arg.id({ required: true }), alias: t.arg.string({ required: true }), system: t.arg.string({ description: 'Where the alias is used, e.g. crm.' }) },
    resolve: async (query, _root, args, context) =>
      context.db.dealerAlias.findUniqueOrThrow({ ...query, where: { id: (await addAlias(context, String(args.id), args)).id } }),
  }),
  removeDealerAlias: t.field({
    ...operation('DELETE /dealers/:id/aliases/:aliasId', 'Remove a dealer alias'),
    type: Deletion,
    authScopes: { scope: 'dealers:write' },
    args: { id: t.arg.id({ required: true }), aliasId: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => ({ id: await removeAlias(context, String(args.id), String(args.aliasId)) }),
  }),
}));
