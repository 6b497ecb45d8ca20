import type { CursorWindowArgs, WindowArgs } from '../../pagination';
import { withDealerIds } from '../../validation';
import { inCausedTransaction } from '../../db/bulk';
import { builder } from '../../builder';
import { cursorPageOf, itemsByIds, itemsLoaded, pageOf, itemsSelection, rowsWithSelection } from '../../pages';
import type { Call as CallShape } from '../../generated/prisma/client';
import { rangeLongerThan } from '../../http/field-rate-limits';
import { enrich } from '../sources/sources.service';
import {
  CALL_DIRECTIONS,
  CALL_SORT,
  CALL_STATUSES,
  callPage,
  callStats,
  findCallId,
  mergedCalls,
  mergesWhole,
  type CallFilters,
  type MergedCallRow,
} from './calls.service';
import {
  choice,
  choices,
  cursorListArgs,
  listArgs,
  rooftopPeriodArgs,
  sortKeys,
  type FieldArgsBuilder,
} from '../../schema-args';
import { restOperations } from '../../http/operations';

const operation = restOperations('Calls');

/** The Calls section of docs/operations.md: calls, one call, the merged view, stats and enrichment. */

export const CallStatusEnum = builder.enumType('CallStatus', { values: CALL_STATUSES });
export const CallDirectionEnum = builder.enumType('CallDirection', { values: CALL_DIRECTIONS });

export const Call = builder.prismaObject('Call', {
  select: { id: true },
  description: 'A phone call as a call-tracking provider reported it, with its canonical source once enriched.',
  fields: (t) => ({
    id: t.exposeID('id'),
    dealer_id: t.exposeID('dealerId'),
    provider: t.exposeString('provider'),
    external_id: t.exposeString('externalId'),
    started_at: t.expose('startedAt', { type: 'DateTime' }),
    duration_seconds: t.exposeInt('durationSeconds'),
    direction: t.expose('direction', { type: CallDirectionEnum }),
    status: t.expose('status', { type: CallStatusEnum }),
    caller_number: t.exposeString('callerNumber', { nullable: true }),
    tracking_number: t.exposeString('trackingNumber', { nullable: true }),
    raw_source: t.exposeString('rawSource', { nullable: true }),
    campaign: t.exposeString('campaign', { nullable: true }),
    first_time_caller: t.exposeBoolean('firstTimeCaller'),
    recording_url: t.exposeString('recordingUrl', { nullable: true }),
    department: t.exposeString('department', { nullable: true }),
    source_id: t.exposeID('sourceId', { nullable: true }),
    source: t.relation('source', {
      nullable: true,
      description: 'The canonical source, with its category and channel.',
    }),
    sale_id: t.exposeID('saleId', {
      nullable: true,
      description: 'The deal this call became, when one matches (customer phone).',
    }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const CallPage = cursorPageOf('CallPage', 'calls', itemsByIds(Call));

const MergedCall = builder.objectRef<MergedCallRow>('MergedCall').implement({
  description: 'One real call, with the record of every provider that reported it.',
  fields: (t) => ({
    id: t.exposeID('primary_id', {
      description: "The id of the primary record (the provider's with the longest duration).",
    }),
    started_at: t.expose('started_at', { type: 'DateTime' }),
    duration_seconds: t.exposeInt('duration_seconds'),
    status: t.field({ type: CallStatusEnum, resolve: (row) => row.status as (typeof CALL_STATUSES)[number] }),
    providers: t.exposeStringList('providers'),
    record_count: t.exposeInt('count'),
    // A page's primary calls and provider records are read together, one statement each.
    call: t.prismaField({
      type: Call,
      resolve: async (query, row, _args, context) =>
        (await rowsWithSelection<CallShape>(context, 'Call', query, [row.primary_id]))[0]!,
    }),
    sources: t.prismaField({
      type: [Call],
      description: 'Every provider record of this call, by provider and start time.',
      // call_ids come in that order.
      resolve: (query, row, _args, context) => rowsWithSelection<CallShape>(context, 'Call', query, row.call_ids),
    }),
  }),
});
const MergedCallPage = pageOf('MergedCallPage', 'calls', itemsLoaded(MergedCall));

type Stats = Awaited<ReturnType<typeof callStats>>;
interface Measures {
  calls: number;
  answered: number;
  missed: number;
  voicemail: number;
  answer_rate: number | null;
  first_time_callers: number;
  average_duration_seconds: number | null;
}

const CallMeasures = builder.interfaceRef<Measures>('CallMeasures').implement({
  fields: (t) => ({
    calls: t.exposeInt('calls'),
    answered: t.exposeInt('answered'),
    missed: t.exposeInt('missed'),
    voicemail: t.exposeInt('voicemail'),
    answer_rate: t.exposeFloat('answer_rate', { nullable: true, description: 'Answered ÷ calls, 0 to 1.' }),
    first_time_callers: t.exposeInt('first_time_callers'),
    average_duration_seconds: t.exposeFloat('average_duration_seconds', {
      nullable: true,
      description: 'Of answered calls.',
    }),
  }),
});

const CallSourceStats = builder.objectRef<Stats['by_source'][number]>('CallSourceStats').implement({
  interfaces: [CallMeasures],
  fields: (t) => ({
    source_id: t.exposeID('source_id', { nullable: true }),
    source_name: t.exposeString('source_name', {
      nullable: true,
      description: 'Null for calls not yet mapped to a source.',
    }),
  }),
});
const CallDayStats = builder.objectRef<Measures & { day: string }>('CallDayStats').implement({
  interfaces: [CallMeasures],
  fields: (t) => ({ day: t.exposeString('day', { description: 'UTC date, YYYY-MM-DD.' }) }),
});
const CallStats = builder.objectRef<Stats>('CallStats').implement({
  interfaces: [CallMeasures],
  fields: (t) => ({
    by_source: t.field({ type: [CallSourceStats], resolve: (stats) => stats.by_source }),
    by_day: t.field({ type: [CallDayStats], resolve: (stats) => stats.by_day }),
  }),
});

const EnrichResult = builder
  .objectRef<{ examined: number; enriched: number; unmapped: number }>('EnrichResult')
  .implement({
    fields: (t) => ({
      examined: t.exposeInt('examined'),
      enriched: t.exposeInt('enriched', { description: 'Records that got (or changed) their canonical source.' }),
      unmapped: t.exposeInt('unmapped', {
        description: 'Records whose raw source nothing maps yet: see GET /sources/unmapped.',
      }),
    }),
  });

export function callFilterArgs(t: FieldArgsBuilder) {
  return {
    ...rooftopPeriodArgs(t, 'Calls started'),
    source: t.arg.string({ description: 'Canonical source id or name.' }),
    status: t.arg.stringList(choices(CALL_STATUSES)),
    direction: t.arg.string(choice(CALL_DIRECTIONS)),
    first_time: t.arg.boolean({ description: 'Only first-time callers (true) or only repeat callers (false).' }),
    min_duration: t.arg.int({ description: 'Seconds.' }),
    department: t.arg.string(),
    updated_since: t.arg({ type: 'DateTime' }),
  };
}

const asFilters = (args: object) => withDealerIds<CallFilters & WindowArgs>(args);
const asCursorPage = (args: object) => withDealerIds<CallFilters & CursorWindowArgs & { sort?: string | null }>(args);

builder.queryFields((t) => ({
  calls: t.field({
    ...operation('GET /calls', 'List calls'),
    type: CallPage,
    description: `Calls, newest first unless \`sort\` says otherwise; \`sort=updated_at\` with \`after\` walks changes for a sync pull.`,
    authScopes: { scope: 'calls:read' },
    args: {
      ...callFilterArgs(t),
      sort: t.arg.string(sortKeys(CALL_SORT.keys, CALL_SORT.fallback)),
      ...cursorListArgs(t),
    },
    resolve: (_root, args, context, info) => callPage(context, asCursorPage(args), itemsSelection(info)),
  }),
  call: t.prismaField({
    ...operation('GET /calls/:id', 'Get a call'),
    type: Call,
    authScopes: { scope: 'calls:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) =>
      context.db.call.findUniqueOrThrow({ ...query, where: { id: await findCallId(context, String(args.id)) } }),
  }),
  mergedCalls: t.field({
    // A filter on what calls are (status, source, duration…) changes which calls merge, so those calls are
    // read and ordered (about 6 s over a million): such a request over a long range is limited like the
    // stats. Other merged-call pages are read from the merged calls' first calls, kept by triggers.
    ...operation('GET /calls/merged', 'List calls merged across sources', {
      rateLimit: {
        operation: 'asking for merged calls over more than 90 days by status, source or other call fields',
        max: 30,
        window: '1m',
        countsWhen: (args) => rangeLongerThan(90)(args) && !mergesWhole(asFilters(args)),
      },
    }),
    type: MergedCallPage,
    description: `Calls deduplicated across providers: same caller at the same rooftop within two minutes.`,
    authScopes: { scope: 'calls:read' },
    args: { ...callFilterArgs(t), ...listArgs(t) },
    resolve: (_root, args, context) => mergedCalls(context, asFilters(args)),
  }),
  callStats: t.field({
    // Whole days come from call_daily, but a filter it lacks (status, direction, department…) reads every matching call,
    // so a long range still costs in proportion to its calls.
    ...operation('GET /calls/stats', 'Call statistics', {
      rateLimit: {
        operation: 'asking for call stats over more than 90 days',
        max: 30,
        window: '1m',
        countsWhen: rangeLongerThan(90),
      },
    }),
    type: CallStats,
    authScopes: { scope: 'calls:read' },
    args: callFilterArgs(t),
    resolve: (_root, args, context) => callStats(context, asFilters(args)),
  }),
}));

builder.mutationFields((t) => ({
  enrichCalls: t.field({
    ...operation('POST /calls/enrich', 'Enrich calls'),
    type: EnrichResult,
    description: 'Attach canonical sources (from the mappings) to calls: all of them, or a time range or rooftops.',
    authScopes: { scope: 'sources:write' },
    args: {
      from: t.arg({ type: 'DateTime' }),
      to: t.arg({ type: 'DateTime' }),
      dealer_id: t.arg.idList(),
      overwrite: t.arg.boolean({ description: 'Also re-resolve calls that already have a source.' }),
    },
    resolve: (_root, args, context) =>
      inCausedTransaction(context.db, { requestId: context.requestId }, (tx) =>
        enrich(tx, context.session.dealerGroupIds, 'calls', { ...args, dealer_id: args.dealer_id?.map(String) }),
      ),
  }),
}));
