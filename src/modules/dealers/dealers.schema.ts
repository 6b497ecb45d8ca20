import type { InputFieldMap, InputShapeFromFields } from '@pothos/core';
import { Prisma } from '../../generated/prisma/client';
import type PrismaTypes from '../../generated/pothos-types';
import { childPageLoader, fieldPlace } from '../../loaders';
import { inConsentedDealers, mayReadAt } from '../../tenancy';
import type { DataKind } from '../../auth/consent';
import { builder, Deletion, type BuilderTypes } from '../../builder';
import { pageArgs } from '../../pagination';
import { itemsWhere, pageOf, pickedRows } from '../../pages';
import { listArgs, type FieldArgsBuilder } from '../../schema-args';
import { dateRange, oneOf } from '../../validation';
import { VEHICLE_STATUSES } from '../inventory/inventory.filters';
import {
  addAlias,
  archiveDealer,
  createDealer,
  dealerPage,
  findDealer,
  matchDealers,
  removeAlias,
  updateDealer,
  type DealerInput,
} from './dealers.service';
import { matchReranker } from './match-reranker';
import { GRAPHQL_ONLY, restOperations } from '../../http/operations';

const operation = restOperations('Dealers');

/** The Dealers section of docs/operations.md: dealer groups and dealers (rooftops), aliases and matching. */

export const DealerGroup = builder.prismaObject('DealerGroup', {
  description: 'A tenant: a dealer group and its rooftops.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    slug: t.exposeString('slug'),
    dealers: t.relation('dealers', {
      description: "Its active rooftops (for a partner's key, those whose link allows dealers).",
      query: (_args, context) => ({
        where: { archivedAt: null, id: inConsentedDealers(context.session, 'dealers') },
        orderBy: { name: 'asc' },
      }),
    }),
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

type DealerFieldBuilder = Pick<
  PothosSchemaTypes.PrismaObjectFieldBuilder<BuilderTypes, PrismaTypes['Dealer'], PrismaTypes['Dealer']['Shape']>,
  'prismaField' | 'arg'
>;

/** What a rooftop's list picks from: the rows of `table` (aliased `alias`; both constants) that `filter` keeps, in `orderBy`. */
interface DealerList<Args extends InputFieldMap> {
  name: string;
  table: string;
  alias: string;
  orderBy: Prisma.Sql;
  args: Args;
  /** Checks the list's own arguments and answers the SQL conditions they add (`AND …`, or nothing). */
  filter: (args: InputShapeFromFields<Args>) => Prisma.Sql;
}

/** The kind of data each of a rooftop's lists holds (the scope it needs, what a partner's link must allow). */
const KIND_OF = { Vehicle: 'inventory', Call: 'calls', Lead: 'leads', Sale: 'sales' } as const;

/** A count of one kind of a rooftop's records: needs its scope, and is 0 where a partner's link does not allow the kind. */
const countOf = (kind: DataKind) => ({
  ...GRAPHQL_ONLY,
  authScopes: { scope: `${kind}:read` as const },
  description: `Needs ${kind}:read; 0 for a partner's key whose link to the rooftop does not allow ${kind}.`,
});

/**
 * A dashboard view of a rooftop: its latest records of `model`, filtered and paged. For a page of
 * dealers one statement picks every dealer's rows with a LATERAL … LIMIT, read with the GraphQL
 * selection (see childPageLoader and pickedRows).
 */
function dealerList<Model extends 'Vehicle' | 'Call' | 'Lead' | 'Sale', Args extends InputFieldMap>(
  t: DealerFieldBuilder,
  model: Model,
  list: DealerList<Args>,
) {
  const alias = Prisma.raw(list.alias);
  const kind = KIND_OF[model];
  return t.prismaField({
    type: [model],
    ...GRAPHQL_ONLY,
    description: `The rooftop's latest ${kind}: needs ${kind}:read; empty for a partner's key whose link to the rooftop does not allow ${kind}.`,
    authScopes: { scope: `${kind}:read` },
    args: { ...list.args, ...listArgs(t, { limit: '1-500, default 50.' }) },
    resolve: (query, dealer, args, context, info) => {
      const { limit, offset } = pageArgs(args);
      if (!mayReadAt(context.session, kind, dealer.id)) return [];
      // The arguments hold the list's own and the window; TypeScript cannot see the former in the merged shape.
      const filter = list.filter(args as unknown as InputShapeFromFields<Args>);
      return childPageLoader(context, `${list.name}:${fieldPlace(info)}:${JSON.stringify(args)}`, (ids) =>
        pickedRows<PrismaTypes[Model]['Shape']>(
          context.db,
          model,
          query,
          list.name,
          Prisma.sql`SELECT p.parent_id, ${alias}.id FROM unnest(${ids}::uuid[]) AS p(parent_id) CROSS JOIN LATERAL (
          SELECT ${alias}.id FROM ${Prisma.raw(`${list.table} ${list.alias}`)} WHERE ${alias}.dealer_id = p.parent_id ${filter}
          ORDER BY ${list.orderBy} LIMIT ${limit} OFFSET ${offset}) ${alias}`,
        ),
      ).load(dealer.id);
    },
  });
}

/** The `from` and `to` arguments of a rooftop's list, kept to `column` (`AND column >= from AND column <= to`, for the bounds given). */
const inPeriod = (t: FieldArgsBuilder, column: string) => ({
  args: { from: t.arg({ type: 'DateTime' }), to: t.arg({ type: 'DateTime' }) },
  filter: ({ from, to }: { from?: Date | null; to?: Date | null }) => {
    dateRange(from, to);
    return Prisma.sql`${from ? Prisma.sql`AND ${Prisma.raw(column)} >= ${from}` : Prisma.empty} ${to ? Prisma.sql`AND ${Prisma.raw(column)} <= ${to}` : Prisma.empty}`;
  },
});

export const Dealer = builder.prismaObject('Dealer', {
  description: 'A rooftop: one dealership location.',
  fields: (t) => {
    // Counts of calls, leads and deals come from dealer_activity (kept by triggers in every writer's
    // transaction), joined into the dealers' own statement, instead of counting the rows.
    const activityCount = (kind: 'calls' | 'leads' | 'sales') =>
      t.int({
        ...countOf(kind),
        select: { activity: true },
        resolve: (dealer, _args, context) =>
          mayReadAt(context.session, kind, dealer.id) ? (dealer.activity?.[kind] ?? 0) : 0,
      });
    return {
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
      external_ids: t.expose('externalIds', {
        type: 'JSON',
        description: 'Codes in other systems, by system: {"dms": "CDK-1234"}.',
      }),
      aliases: t.relation('aliases', {
        ...GRAPHQL_ONLY,
        description: "Its names in other systems (for a partner's key, only where its link allows dealers).",
        query: (_args, context) => ({
          where: { dealerId: inConsentedDealers(context.session, 'dealers') },
          orderBy: { alias: 'asc' },
        }),
      }),
      // Dashboard views: a rooftop's latest records, filtered and paged, loaded for a whole page of dealers at once.
      vehicles: dealerList(t, 'Vehicle', {
        name: 'dealerVehicles',
        table: 'vehicles',
        alias: 'v',
        orderBy: Prisma.sql`v.date_in_stock, v.id`,
        args: { status: t.arg.stringList() },
        filter: ({ status }) => {
          const statuses = status?.length ? status.map((each) => oneOf('status', each, VEHICLE_STATUSES)) : null;
          return statuses ? Prisma.sql`AND v.status = ANY(${statuses}::vehicle_status[])` : Prisma.empty;
        },
      }),
      calls: dealerList(t, 'Call', {
        name: 'dealerCalls',
        table: 'calls',
        alias: 'c',
        orderBy: Prisma.sql`c.started_at DESC, c.id`,
        ...inPeriod(t, 'c.started_at'),
      }),
      leads: dealerList(t, 'Lead', {
        name: 'dealerLeads',
        table: 'leads',
        alias: 'l',
        orderBy: Prisma.sql`l.received_at DESC, l.id`,
        ...inPeriod(t, 'l.received_at'),
      }),
      sales: dealerList(t, 'Sale', {
        name: 'dealerSales',
        table: 'sales',
        alias: 'd',
        orderBy: Prisma.sql`d.sold_at DESC, d.id`,
        ...inPeriod(t, 'd.sold_at'),
      }),
      vehicle_count: t.relationCount('vehicles', {
        ...countOf('inventory'),
        where: (_args, context) => ({ dealerId: inConsentedDealers(context.session, 'inventory') }),
      }),
      call_count: activityCount('calls'),
      lead_count: activityCount('leads'),
      sale_count: activityCount('sales'),
      created_at: t.expose('createdAt', { type: 'DateTime' }),
      updated_at: t.expose('updatedAt', { type: 'DateTime' }),
      archived_at: t.expose('archivedAt', { type: 'DateTime', nullable: true }),
    };
  },
});

const DealerPage = pageOf('DealerPage', 'dealers', itemsWhere(Dealer, [{ name: 'asc' }, { id: 'asc' }]));

const AliasList = builder.objectRef<{ dealerId: string }>('DealerAliasList').implement({
  fields: (t) => ({
    aliases: t.prismaField({
      type: [DealerAlias],
      resolve: (query, list, _args, context) =>
        context.db.dealerAlias.findMany({ ...query, where: { dealerId: list.dealerId }, orderBy: { alias: 'asc' } }),
    }),
  }),
});

const MatchCandidate = builder
  .objectRef<{ dealerId: string; score: number; reasons: string[] }>('DealerMatch')
  .implement({
    fields: (t) => ({
      dealer: t.prismaField({
        type: Dealer,
        resolve: (query, match, _args, context) =>
          context.db.dealer.findUniqueOrThrow({ ...query, where: { id: match.dealerId } }),
      }),
      score: t.exposeFloat('score', { description: '0 to 1.' }),
      reasons: t.exposeStringList('reasons', {
        description: 'The evidence: "phone matches", "name ~0.92 after normalising \\"llc\\"", …',
      }),
    }),
  });

const MatchResult = builder
  .objectRef<Array<{ dealerId: string; score: number; reasons: string[] }>>('DealerMatchResult')
  .implement({
    fields: (t) => ({ candidates: t.field({ type: [MatchCandidate], resolve: (candidates) => candidates }) }),
  });

const dealerFieldArgs = (t: FieldArgsBuilder) => ({
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
  external_ids: t.arg({
    type: 'JSON',
    description: 'Codes in other systems, by system: {"dms": "CDK-1234", "crm": "VIN-88"}.',
  }),
});

builder.queryFields((t) => ({
  dealers: t.field({
    ...operation('GET /dealers', 'List dealers'),
    type: DealerPage,
    description: "Your dealer groups' rooftops, by name.",
    authScopes: { scope: 'dealers:read' },
    args: {
      q: t.arg.string({ description: 'Name, code or alias contains.' }),
      include_archived: t.arg.boolean(),
      ...listArgs(t),
    },
    resolve: (_root, args, context) => dealerPage(context, args),
  }),
  dealer: t.prismaField({
    ...operation('GET /dealers/:id', 'Get a dealer'),
    type: Dealer,
    authScopes: { scope: 'dealers:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) =>
      context.db.dealer.findUniqueOrThrow({ ...query, where: { id: (await findDealer(context, String(args.id))).id } }),
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
    ...operation('POST /dealers/match', 'Match a dealer by name and address', {
      rateLimit: { operation: 'dealer matching', max: 120, window: '1m' },
    }),
    type: MatchResult,
    description:
      'Rank your dealers against a name and optionally an address, phone or website, with scores and reasons.',
    authScopes: { scope: 'dealers:read' },
    args: {
      name: t.arg.string(),
      street: t.arg.string(),
      city: t.arg.string(),
      state: t.arg.string(),
      postal_code: t.arg.string(),
      phone: t.arg.string(),
      website: t.arg.string(),
      limit: t.arg.int({
        description: 'Candidates to return, 1-50.',
        extensions: { openapi: { minimum: 1, maximum: 50, default: 5 } },
      }),
    },
    resolve: async (app, args, context) => {
      // With an assistant provider configured (and re-ranking on), it re-orders the top candidates; any failure keeps our order.
      const reranker = await matchReranker(context, app, () => {
        /* our ranking stands */
      });
      return (await matchDealers(context, args, reranker)).map((candidate) => ({
        dealerId: candidate.dealer.id,
        score: candidate.score,
        reasons: candidate.reasons,
      }));
    },
  }),
}));

builder.mutationFields((t) => ({
  createDealer: t.prismaField({
    ...operation('POST /dealers', 'Create a dealer', { status: 201 }),
    type: Dealer,
    authScopes: { scope: 'dealers:write' },
    args: {
      ...dealerFieldArgs(t),
      name: t.arg.string({ required: true }),
      code: t.arg.string({ required: true }),
      dealer_group_id: t.arg.id({ description: 'Needed when you belong to several groups.' }),
    },
    resolve: async (query, _root, args, context) =>
      context.db.dealer.findUniqueOrThrow({
        ...query,
        where: {
          id: await createDealer(context, {
            ...args,
            dealer_group_id: args.dealer_group_id?.toString(),
          } as DealerInput),
        },
      }),
  }),
  updateDealer: t.prismaField({
    ...operation('PATCH /dealers/:id', 'Update a dealer'),
    type: Dealer,
    authScopes: { scope: 'dealers:write' },
    args: { id: t.arg.id({ required: true }), ...dealerFieldArgs(t) },
    resolve: async (query, _root, { id, ...input }, context) =>
      context.db.dealer.findUniqueOrThrow({
        ...query,
        where: { id: await updateDealer(context, String(id), input as DealerInput) },
      }),
  }),
  archiveDealer: t.prismaField({
    ...operation('DELETE /dealers/:id', 'Archive a dealer'),
    type: Dealer,
    description: 'Archive a rooftop; its vehicles, calls, leads and sales stay.',
    authScopes: { scope: 'dealers:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) =>
      context.db.dealer.findUniqueOrThrow({ ...query, where: { id: await archiveDealer(context, String(args.id)) } }),
  }),
  addDealerAlias: t.prismaField({
    ...operation('POST /dealers/:id/aliases', 'Add a dealer alias', { status: 201 }),
    type: DealerAlias,
    authScopes: { scope: 'dealers:write' },
    args: {
      id: t.arg.id({ required: true }),
      alias: t.arg.string({ required: true }),
      system: t.arg.string({ description: 'Where the alias is used, e.g. crm.' }),
    },
    resolve: async (query, _root, args, context) =>
      context.db.dealerAlias.findUniqueOrThrow({
        ...query,
        where: { id: (await addAlias(context, String(args.id), args)).id },
      }),
  }),
  removeDealerAlias: t.field({
    ...operation('DELETE /dealers/:id/aliases/:aliasId', 'Remove a dealer alias'),
    type: Deletion,
    authScopes: { scope: 'dealers:write' },
    args: { id: t.arg.id({ required: true }), aliasId: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => ({
      id: await removeAlias(context, String(args.id), String(args.aliasId)),
    }),
  }),
}));
