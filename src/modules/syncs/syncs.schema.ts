import type { SyncRun as SyncRunRow } from '../../generated/prisma/client';
import { builder } from '../../builder';
import { itemsWhere, pageOf } from '../../pages';
import { listArgs } from '../../schema-args';
import { restOperations } from '../../http/operations';
import { findIntegration } from '../integrations/integrations.service';
import { Integration } from '../integrations/integrations.schema';
import { findSyncRun, probeFeed, syncRunPage, triggerSync, type ConnectionTest } from './syncs.service';

/** Sync runs (the Integrations section of docs/operations.md): start one, test a feed's connection, read the history and a run's row errors. */

const operation = restOperations('Integrations');

const SyncCounts = builder.objectRef<SyncRunRow>('SyncCounts').implement({
  description: 'What a run did with the rows it read.',
  fields: (t) => ({
    read: t.int({ resolve: (run) => run.rowsRead }),
    created: t.exposeInt('created'),
    updated: t.exposeInt('updated'),
    unchanged: t.exposeInt('unchanged'),
    skipped: t.exposeInt('skipped', {
      description: 'Rows left out on purpose: duplicates, skip_row rules, update_only misses.',
    }),
    failed: t.exposeInt('failed', { description: 'Rows that failed validation; see row_errors.' }),
    flagged: t.exposeInt('flagged', {
      description: 'Rows taken with a flag from a transformation rule; see row_errors (kind flag).',
    }),
    presumed_sold: t.int({
      description: 'Vehicles the feed stopped listing, past the sold grace period.',
      resolve: (run) => run.presumedSold,
    }),
    returned: t.int({ description: 'Presumed-sold vehicles the feed listed again.', resolve: (run) => run.returned }),
  }),
});

const SyncProgress = builder.objectRef<SyncRunRow>('SyncProgress').implement({
  fields: (t) => ({
    bytes_read: t.float({ resolve: (run) => Number(run.bytesRead) }),
    bytes_total: t.float({
      nullable: true,
      resolve: (run) => (run.bytesTotal === null ? null : Number(run.bytesTotal)),
    }),
    percent: t.float({
      nullable: true,
      resolve: (run) =>
        run.status === 'succeeded'
          ? 100
          : run.bytesTotal
            ? Math.min(100, Math.round((Number(run.bytesRead) / Number(run.bytesTotal)) * 1000) / 10)
            : null,
    }),
  }),
});

builder.prismaObject('SyncRowError', {
  fields: (t) => ({
    row: t.exposeInt('row', { description: 'Line of the file (CSV) or record number (XML, JSON).' }),
    kind: t.exposeString('kind', { description: 'error (the row was not taken) or flag (taken; a rule flagged it)' }),
    field: t.exposeString('field', { nullable: true }),
    message: t.exposeString('message'),
    raw: t.expose('raw', { type: 'JSON', nullable: true, description: 'The row as the feed sent it.' }),
  }),
});

const SyncRun = builder.prismaObject('SyncRun', { description: 'One run of an integration.', fields: () => ({}) });

const SyncRunDetail = builder.prismaObject('SyncRun', {
  variant: 'SyncRunDetail',
  description: 'One run of an integration with its row-level errors.',
  fields: (t) => ({
    row_errors: t.relation('rowErrors', {
      args: {
        errors_limit: t.arg.int({ description: 'Row errors to return (default 100, max 1000).' }),
        errors_offset: t.arg.int(),
      },
      query: (args) => ({
        orderBy: [{ row: 'asc' }, { id: 'asc' }],
        take: Math.min(Math.max(args.errors_limit ?? 100, 1), 1000),
        skip: Math.max(args.errors_offset ?? 0, 0),
      }),
    }),
  }),
});

for (const ref of [SyncRun, SyncRunDetail])
  builder.prismaObjectFields(ref, (t) => ({
    id: t.exposeID('id'),
    integration_id: t.exposeID('integrationId'),
    status: t.exposeString('status', { description: 'running, succeeded or failed' }),
    trigger: t.exposeString('trigger', { description: 'manual, schedule, sftp or cli' }),
    file_name: t.exposeString('fileName', { nullable: true }),
    template_id: t.exposeID('templateId', { nullable: true }),
    template_version: t.exposeInt('templateVersion', {
      nullable: true,
      description: 'The mapping template version the run used.',
    }),
    counts: t.field({ type: SyncCounts, resolve: (run) => run }),
    progress: t.field({ type: SyncProgress, resolve: (run) => run }),
    error: t.exposeString('error', { nullable: true }),
    started_at: t.expose('startedAt', { type: 'DateTime' }),
    finished_at: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
    duration_ms: t.int({
      nullable: true,
      resolve: (run) => (run.finishedAt ? run.finishedAt.getTime() - run.startedAt.getTime() : null),
    }),
  }));

builder.prismaObjectField(Integration, 'last_sync', (t) =>
  t.field({
    type: SyncRun,
    nullable: true,
    description: 'The latest run.',
    select: { runs: { orderBy: { startedAt: 'desc' }, take: 1 } },
    resolve: (integration) => integration.runs[0] ?? null,
  }),
);

const SyncRunPage = pageOf('SyncRunPage', 'syncs', itemsWhere(SyncRun, [{ startedAt: 'desc' }, { id: 'asc' }]));

const SampleRow = builder.objectRef<ConnectionTest['sample'][number]>('ConnectionTestRow').implement({
  fields: (t) => ({
    row: t.exposeInt('row'),
    record: t.expose('record', { type: 'JSON', nullable: true }),
    error: t.exposeString('error', { nullable: true }),
  }),
});
const ConnectionTestRef = builder.objectRef<ConnectionTest>('ConnectionTest').implement({
  fields: (t) => ({
    ok: t.exposeBoolean('ok'),
    message: t.exposeString('message'),
    file_name: t.exposeString('file_name', { nullable: true }),
    headers: t.exposeStringList('headers'),
    sample: t.field({ type: [SampleRow], resolve: (test) => test.sample }),
  }),
});

builder.queryFields((t) => ({
  integrationSyncs: t.field({
    ...operation('GET /integrations/:id/syncs', "List an integration's syncs"),
    type: SyncRunPage,
    description: 'Sync history, newest first.',
    authScopes: { scope: 'integrations:read' },
    args: { id: t.arg.id({ required: true }), status: t.arg.string(), ...listArgs(t) },
    resolve: async (_root, { id, ...args }, context) =>
      syncRunPage(context, (await findIntegration(context, String(id), { disconnected: true })).id, args),
  }),
  syncRun: t.prismaField({
    ...operation('GET /syncs/:id', 'Get a sync run'),
    type: SyncRunDetail,
    authScopes: { scope: 'integrations:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) =>
      context.db.syncRun.findUniqueOrThrow({
        ...query,
        where: { id: (await findSyncRun(context, String(args.id))).id },
      }),
  }),
}));

builder.mutationFields((t) => ({
  testIntegration: t.field({
    // Each test reaches an address the tenant chose.
    ...operation('POST /integrations/:id/test', "Test an integration's connection", {
      rateLimit: { operation: 'testing connections', max: 10, window: '1m' },
    }),
    type: ConnectionTestRef,
    description: 'Reaches the feed and parses its first rows as a sync would, without writing anything.',
    authScopes: { scope: 'integrations:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (app, args, context) => probeFeed(app, await findIntegration(context, String(args.id))),
  }),
  syncIntegration: t.prismaField({
    // A run pulls and writes a whole feed: this bounds the runs one caller can start across its integrations.
    ...operation('POST /integrations/:id/sync', 'Start a sync', {
      status: 202,
      rateLimit: { operation: 'starting syncs', max: 30, window: '10m' },
    }),
    type: SyncRunDetail,
    description: 'Starts a run now (409 while one is running). With wait: true the answer comes when it ends.',
    authScopes: { scope: 'integrations:write' },
    args: { id: t.arg.id({ required: true }), wait: t.arg.boolean() },
    resolve: async (query, app, args, context) =>
      context.db.syncRun.findUniqueOrThrow({
        ...query,
        where: { id: await triggerSync(app, await findIntegration(context, String(args.id)), args.wait ?? false) },
      }),
  }),
}));
