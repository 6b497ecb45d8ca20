import type { Prisma, SyncRun as SyncRunRow } from '../../generated/prisma/client';
import type { PageRef } from '../../pagination';
import { builder, Deletion, Pagination } from '../../builder';
import { pluginByKey } from '../plugins/registry';
import {
  createIntegration, disconnectIntegration, findSyncRun, freshness, integrationPage, setCredentials, STRATEGIES, syncRunPage,
  testIntegration, triggerSync, updateIntegration, type ConnectionTest, type Freshness, type IntegrationInput, type SftpAccount,
} from './integrations.service';
import { choice } from '../../schema-args';
import { restOperations } from '../../http/operations';
import { findIntegration } from './integration-lookup';

const operation = restOperations('Integrations');

/** The Integrations section of docs/operations.md: integrations, their credentials, connection tests, sync runs and feed freshness. */

const SyncCounts = builder.objectRef<SyncRunRow>('SyncCounts').implement({
  description: 'What a run did with the rows it read.',
  fields: (t) => ({
    read: t.int({ resolve: (run) => run.rowsRead }),
    created: t.exposeInt('created'),
    updated: t.exposeInt('updated'),
    unchanged: t.exposeInt('unchanged'),
    skipped: t.exposeInt('skipped', { description: 'Rows left out on purpose: duplicates, skip_row rules, update_only misses.' }),
    failed: t.exposeInt('failed', { description: 'Rows that failed validation; see row_errors.' }),
    flagged: t.exposeInt('flagged', { description: 'Rows taken with a flag from a transformation rule; see row_errors (kind flag).' }),
    presumed_sold: t.int({ description: 'Vehicles the feed stopped listing, past the sold grace period.', resolve: (run) => run.presumedSold }),
    returned: t.int({ description: 'Presumed-sold vehicles the feed listed again.', resolve: (run) => run.returned }),
  }),
});

const SyncProgress = builder.objectRef<SyncRunRow>('SyncProgress').implement({
  fields: (t) => ({
    bytes_read: t.float({ resolve: (run) => Number(run.bytesRead) }),
    bytes_total: t.float({ nullable: true, resolve: (run) => (run.bytesTotal === null ? null : Number(run.bytesTotal)) }),
    percent: t.float({ nullable: true, resolve: (run) => (run.status === 'succeeded' ? 100 : run.bytesTotal ? Math.min(100, Math.round((Number(run.bytesRead) / Number(run.bytesTotal)) * 1000) / 10) : null) }),
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
      args: { errors_limit: t.arg.int({ description: 'Row errors to return (default 100, max 1000).' }), errors_offset: t.arg.int() },
      query: (args) => ({ orderBy: [{ row: 'asc' }, { id: 'asc' }], take: Math.min(Math.max(args.errors_limit ?? 100, 1), 1000), skip: Math.max(args.errors_offset ?? 0, 0) }),
    }),
  }),
});

for (const ref of [SyncRun, SyncRunDetail]) builder.prismaObjectFields(ref, (t) => ({
  id: t.exposeID('id'),
  integration_id: t.exposeID('integrationId'),
  status: t.exposeString('status', { description: 'running, succeeded or failed' }),
  trigger: t.exposeString('trigger', { description: 'manual, schedule, sftp or cli' }),
  file_name: t.exposeString('fileName', { nullable: true }),
  template_id: t.exposeID('templateId', { nullable: true }),
  template_version: t.exposeInt('templateVersion', { nullable: true, description: 'The mapping template version the run used.' }),
  counts: t.field({ type: SyncCounts, resolve: (run) => run }),
  progress: t.field({ type: SyncProgress, resolve: (run) => run }),
  error: t.exposeString('error', { nullable: true }),
  started_at: t.expose('startedAt', { type: 'DateTime' }),
  finished_at: t.expose('finishedAt', { type: 'DateTime', nullable: true }),
  duration_ms: t.int({ nullable: true, resolve: (run) => (run.finishedAt ? run.finishedAt.getTime() - run.startedAt.getTime() : null) }),
}));

const SftpAccountRef = builder.objectRef<SftpAccount>('SftpAccount').implement({
  description: 'Where a data provider uploads files. The password is shown once; only its hash is kept.',
  fields: (t) => ({
    host: t.exposeString('host'),
    port: t.exposeInt('port', { nullable: true, description: 'Null while the SFTP server is off (SFTP_PORT).' }),
    username: t.exposeString('username'),
    password: t.exposeString('password'),
    path: t.exposeString('path'),
    enabled: t.exposeBoolean('enabled', { description: 'Whether this server accepts SFTP logins now.' }),
  }),
});

const Integration = builder.prismaObject('Integration', {
  description: 'A plugin connected to one rooftop.',
  fields: (t) => ({
    id: t.exposeID('id'),
    dealer_group_id: t.exposeID('dealerGroupId'),
    dealer_id: t.exposeID('dealerId'),
    plugin_key: t.exposeString('pluginKey'),
    category: t.string({ resolve: (integration) => pluginByKey(integration.pluginKey)?.category ?? 'unknown' }),
    name: t.exposeString('name'),
    source: t.exposeString('source', { description: 'The source name its records carry in multi-source merges.' }),
    config: t.expose('config', { type: 'JSON', description: 'Settings per the plugin\'s config schema; secrets are never here.' }),
    enabled: t.exposeBoolean('enabled'),
    strategy: t.exposeString('strategy', { description: 'overwrite: each row replaces what this feed said before; merge: blank cells keep earlier values; update_only: vehicles not yet in inventory are skipped.' }),
    sold_grace_syncs: t.exposeInt('soldGraceSyncs', { nullable: true, description: 'Missing from this many consecutive runs, a vehicle becomes presumed_sold.' }),
    sold_grace_hours: t.exposeInt('soldGraceHours', { nullable: true, description: 'Or missing for this many hours.' }),
    track_history: t.exposeBoolean('trackHistory'),
    schedule_minutes: t.exposeInt('scheduleMinutes', { nullable: true, description: 'Pulls run this often; file feeds sync when a file arrives.' }),
    expected_cadence_hours: t.exposeInt('expectedCadenceHours'),
    has_credentials: t.boolean({ select: { credentials: true }, resolve: (integration) => integration.credentials !== null }),
    column_mapping: t.expose('columnMapping', { type: 'JSON' }),
    template_id: t.exposeID('templateId', { nullable: true }),
    sftp_username: t.exposeString('sftpUsername', { nullable: true }),
    last_file_at: t.expose('lastFileAt', { type: 'DateTime', nullable: true }),
    last_file_name: t.exposeString('lastFileName', { nullable: true }),
    next_sync_at: t.expose('nextSyncAt', { type: 'DateTime', nullable: true }),
    last_sync: t.field({
      type: SyncRun,
      nullable: true,
      description: 'The latest run.',
      select: { runs: { orderBy: { startedAt: 'desc' }, take: 1 } },
      resolve: (integration) => integration.runs[0] ?? null,
    }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const IntegrationConnection = builder.objectRef<{ id: string; sftpAccount: SftpAccount | null }>('IntegrationConnection').implement({
  fields: (t) => ({
    integration: t.prismaField({ type: Integration, resolve: (query, connection, _args, context) => context.db.integration.findUniqueOrThrow({ ...query, where: { id: connection.id } }) }),
    sftp_account: t.field({ type: SftpAccountRef, nullable: true, description: 'For file feeds: the SFTP account to give the data provider (password shown only now).', resolve: (connection) => connection.sftpAccount }),
  }),
});

const IntegrationPage = builder.objectRef<PageRef<Prisma.IntegrationWhereInput>>('IntegrationPage').implement({
  fields: (t) => ({
    integrations: t.prismaField({
      type: [Integration],
      resolve: (query, page, _args, context) => context.db.integration.findMany({ ...query, where: page.where, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], take: page.limit, skip: page.offset }),
    }),
    pagination: t.field({ type: Pagination, resolve: ({ total, limit, offset }) => ({ total, limit, offset }) }),
  }),
});

const SyncRunPage = builder.objectRef<PageRef<Prisma.SyncRunWhereInput>>('SyncRunPage').implement({
  fields: (t) => ({
    syncs: t.prismaField({
      type: [SyncRun],
      resolve: (query, page, _args, context) => context.db.syncRun.findMany({ ...query, where: page.where, orderBy: [{ startedAt: 'desc' }, { id: 'asc' }], take: page.limit, skip: page.offset }),
    }),
    pagination: t.field({ type: Pagination, resolve: ({ total, limit, offset }) => ({ total, limit, offset }) }),
  }),
});

const FreshnessRef = builder.objectRef<Freshness>('FeedFreshness').implement({
  fields: (t) => ({
    integration_id: t.exposeID('integration_id'),
    name: t.exposeString('name'),
    plugin_key: t.exposeString('plugin_key'),
    dealer_id: t.exposeID('dealer_id'),
    expected_cadence_hours: t.exposeInt('expected_cadence_hours'),
    last_file_at: t.expose('last_file_at', { type: 'DateTime', nullable: true }),
    last_sync_at: t.expose('last_sync_at', { type: 'DateTime', nullable: true }),
    last_run_status: t.exposeString('last_run_status', { nullable: true }),
    hours_since_data: t.exposeFloat('hours_since_data', { nullable: true }),
    state: t.exposeString('state', { description: 'fresh, lagging (later than its cadence) or silent (nothing for three cadences, or never)' }),
  }),
});
const FreshnessList = builder.objectRef<Freshness[]>('FeedFreshnessList').implement({
  fields: (t) => ({
    feeds: t.field({ type: [FreshnessRef], resolve: (rows) => rows }),
    lagging: t.int({ resolve: (rows) => rows.filter((row) => row.state === 'lagging').length }),
    silent: t.int({ resolve: (rows) => rows.filter((row) => row.state === 'silent').length }),
  }),
});

const SampleRow = builder.objectRef<ConnectionTest['sample'][number]>('ConnectionTestRow').implement({
  fields: (t) => ({ row: t.exposeInt('row'), record: t.expose('record', { type: 'JSON', nullable: true }), error: t.exposeString('error', { nullable: true }) }),
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

const settingArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  name: t.arg.string(),
  source: t.arg.string({ description: 'Source name for multi-source merges; defaults to the plugin\'s.' }),
  config: t.arg({ type: 'JSON', description: 'Settings per GET /plugins/:key.' }),
  enabled: t.arg.boolean(),
  strategy: t.arg.string(choice(STRATEGIES)),
  sold_grace_syncs: t.arg.int(),
  sold_grace_hours: t.arg.int(),
  track_history: t.arg.boolean(),
  schedule_minutes: t.arg.int(),
  expected_cadence_hours: t.arg.int(),
  template_id: t.arg.id({ description: 'A mapping template (yours or a published one).' }),
});

builder.queryFields((t) => ({
  integrations: t.field({
    ...operation('GET /integrations', 'List integrations'),
    type: IntegrationPage,
    authScopes: { scope: 'integrations:read' },
    args: { dealer_id: t.arg.idList(), plugin_key: t.arg.string(), enabled: t.arg.boolean(), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context) => integrationPage(context, { ...args, dealer_id: args.dealer_id?.map(String) }),
  }),
  integrationFreshness: t.field({
    ...operation('GET /integrations/freshness', 'Integration data freshness'),
    type: FreshnessList,
    description: 'Per feed: expected cadence, last data, and whether it is lagging or silent. Worst first.',
    authScopes: { scope: 'integrations:read' },
    args: { state: t.arg.stringList({ description: 'fresh, lagging, silent' }), dealer_id: t.arg.idList() },
    resolve: (_root, args, context) => freshness(context, { state: args.state, dealer_id: args.dealer_id?.map(String) }),
  }),
  integration: t.prismaField({
    ...operation('GET /integrations/:id', 'Get an integration'),
    type: Integration,
    authScopes: { scope: 'integrations:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) => context.db.integration.findUniqueOrThrow({ ...query, where: { id: (await findIntegration(context, String(args.id))).id } }),
  }),
  integrationSyncs: t.field({
    ...operation('GET /integrations/:id/syncs', "List an integration's syncs"),
    type: SyncRunPage,
    description: 'Sync history, newest first.',
    authScopes: { scope: 'integrations:read' },
    args: { id: t.arg.id({ required: true }), status: t.arg.string(), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, { id, ...args }, context) => syncRunPage(context, String(id), args),
  }),
  syncRun: t.prismaField({
    ...operation('GET /syncs/:id', 'Get a sync run'),
    type: SyncRunDetail,
    authScopes: { scope: 'integrations:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) => context.db.syncRun.findUniqueOrThrow({ ...query, where: { id: (await findSyncRun(context, String(args.id))).id } }),
  }),
}));

builder.mutationFields((t) => ({
  createIntegration: t.field({
    ...operation('POST /integrations', 'Connect an integration', { status: 201 }),
    type: IntegrationConnection,
    authScopes: { scope: 'integrations:write' },
    args: { ...settingArgs(t), plugin_key: t.arg.string({ required: true }), dealer_id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => createIntegration(context, { ...args, dealer_id: String(args.dealer_id), template_id: args.template_id?.toString() } as IntegrationInput),
  }),
  updateIntegration: t.prismaField({
    ...operation('PATCH /integrations/:id', 'Update an integration'),
    type: Integration,
    authScopes: { scope: 'integrations:write' },
    args: { id: t.arg.id({ required: true }), ...settingArgs(t) },
    resolve: async (query, _root, { id, ...input }, context) =>
      context.db.integration.findUniqueOrThrow({ ...query, where: { id: await updateIntegration(context, String(id), { ...input, template_id: input.template_id === undefined ? undefined : input.template_id?.toString() ?? null } as IntegrationInput) } }),
  }),
  disconnectIntegration: t.field({
    ...operation('DELETE /integrations/:id', 'Disconnect an integration'),
    type: Deletion,
    description: 'Stops syncing and drops credentials and SFTP access; runs and data are kept.',
    authScopes: { scope: 'integrations:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => ({ id: await disconnectIntegration(context, String(args.id)) }),
  }),
  setIntegrationCredentials: t.prismaField({
    ...operation('PUT /integrations/:id/credentials', 'Set integration credentials'),
    type: Integration,
    description: 'Stores the plugin\'s secret settings encrypted (AES-256-GCM); they are never returned, only has_credentials.',
    authScopes: { scope: 'integrations:write' },
    args: { id: t.arg.id({ required: true }), credentials: t.arg({ type: 'JSON', required: true, description: '{ "api_key": "…" }; {} clears them.' }) },
    resolve: async (query, _root, args, context) => context.db.integration.findUniqueOrThrow({ ...query, where: { id: await setCredentials(context, String(args.id), args.credentials) } }),
  }),
  testIntegration: t.field({
    // Each test reaches an address the tenant chose.
    ...operation('POST /integrations/:id/test', "Test an integration's connection", { rateLimit: { operation: 'testing connections', max: 10, window: '1m' } }),
    type: ConnectionTestRef,
    description: 'Reaches the feed and parses its first rows as a sync would, without writing anything.',
    authScopes: { scope: 'integrations:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => testIntegration(context, String(args.id)),
  }),
  syncIntegration: t.prismaField({
    // A run pulls and writes a whole feed: this bounds the runs one caller can start across its integrations.
    ...operation('POST /integrations/:id/sync', 'Start a sync', { status: 202, rateLimit: { operation: 'starting syncs', max: 30, window: '10m' } }),
    type: SyncRunDetail,
    description: 'Starts a run now (409 while one is running). With wait: true the answer comes when it ends.',
    authScopes: { scope: 'integrations:write' },
    args: { id: t.arg.id({ required: true }), wait: t.arg.boolean() },
    resolve: async (query, _root, args, context) => context.db.syncRun.findUniqueOrThrow({ ...query, where: { id: await triggerSync(context, String(args.id), args.wait ?? false) } }),
  }),
}));
