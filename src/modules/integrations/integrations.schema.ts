import { builder, Deletion } from '../../builder';
import { itemsWhere, pageOf } from '../../pages';
import { pluginByKey } from '../plugins/registry';
import {
  createIntegration,
  disconnectIntegration,
  findIntegration,
  freshness,
  integrationPage,
  setCredentials,
  STRATEGIES,
  updateIntegration,
  type Freshness,
  type IntegrationInput,
  type SftpAccount,
} from './integrations.service';
import { choice, listArgs } from '../../schema-args';
import { restOperations } from '../../http/operations';

const operation = restOperations('Integrations');

/** Integrations (the Integrations section of docs/operations.md): connecting feeds, their settings, credentials, SFTP accounts and freshness; their runs are the syncs module's. */

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

/** A connected feed; the syncs module adds its last run (last_sync). */
export const Integration = builder.prismaObject('Integration', {
  description: 'A plugin connected to one rooftop.',
  fields: (t) => ({
    id: t.exposeID('id'),
    dealer_group_id: t.exposeID('dealerGroupId'),
    dealer_id: t.exposeID('dealerId'),
    plugin_key: t.exposeString('pluginKey'),
    category: t.string({ resolve: (integration) => pluginByKey(integration.pluginKey)?.category ?? 'unknown' }),
    name: t.exposeString('name'),
    source: t.exposeString('source', { description: 'The source name its records carry in multi-source merges.' }),
    config: t.expose('config', {
      type: 'JSON',
      description: "Settings per the plugin's config schema; secrets are never here.",
    }),
    enabled: t.exposeBoolean('enabled'),
    strategy: t.exposeString('strategy', {
      description:
        'overwrite: each row replaces what this feed said before; merge: blank cells keep earlier values; update_only: vehicles not yet in inventory are skipped.',
    }),
    sold_grace_syncs: t.exposeInt('soldGraceSyncs', {
      nullable: true,
      description: 'Missing from this many consecutive runs, a vehicle becomes presumed_sold.',
    }),
    sold_grace_hours: t.exposeInt('soldGraceHours', { nullable: true, description: 'Or missing for this many hours.' }),
    track_history: t.exposeBoolean('trackHistory'),
    schedule_minutes: t.exposeInt('scheduleMinutes', {
      nullable: true,
      description: 'Pulls run this often; file feeds sync when a file arrives.',
    }),
    expected_cadence_hours: t.exposeInt('expectedCadenceHours'),
    has_credentials: t.boolean({
      select: { credentials: true },
      resolve: (integration) => integration.credentials !== null,
    }),
    column_mapping: t.expose('columnMapping', { type: 'JSON' }),
    template_id: t.exposeID('templateId', { nullable: true }),
    sftp_username: t.exposeString('sftpUsername', { nullable: true }),
    last_file_at: t.expose('lastFileAt', { type: 'DateTime', nullable: true }),
    last_file_name: t.exposeString('lastFileName', { nullable: true }),
    next_sync_at: t.expose('nextSyncAt', { type: 'DateTime', nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const IntegrationConnection = builder
  .objectRef<{ id: string; sftpAccount: SftpAccount | null }>('IntegrationConnection')
  .implement({
    fields: (t) => ({
      integration: t.prismaField({
        type: Integration,
        resolve: (query, connection, _args, context) =>
          context.db.integration.findUniqueOrThrow({ ...query, where: { id: connection.id } }),
      }),
      sftp_account: t.field({
        type: SftpAccountRef,
        nullable: true,
        description: 'For file feeds: the SFTP account to give the data provider (password shown only now).',
        resolve: (connection) => connection.sftpAccount,
      }),
    }),
  });

const IntegrationPage = pageOf(
  'IntegrationPage',
  'integrations',
  itemsWhere(Integration, [{ createdAt: 'desc' }, { id: 'asc' }]),
);

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
    state: t.exposeString('state', {
      description: 'fresh, lagging (later than its cadence) or silent (nothing for three cadences, or never)',
    }),
  }),
});
const FreshnessList = builder.objectRef<Freshness[]>('FeedFreshnessList').implement({
  fields: (t) => ({
    feeds: t.field({ type: [FreshnessRef], resolve: (rows) => rows }),
    lagging: t.int({ resolve: (rows) => rows.filter((row) => row.state === 'lagging').length }),
    silent: t.int({ resolve: (rows) => rows.filter((row) => row.state === 'silent').length }),
  }),
});

const settingArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  name: t.arg.string(),
  source: t.arg.string({ description: "Source name for multi-source merges; defaults to the plugin's." }),
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
    args: { dealer_id: t.arg.idList(), plugin_key: t.arg.string(), enabled: t.arg.boolean(), ...listArgs(t) },
    resolve: (_root, args, context) => integrationPage(context, { ...args, dealer_id: args.dealer_id?.map(String) }),
  }),
  integrationFreshness: t.field({
    ...operation('GET /integrations/freshness', 'Integration data freshness'),
    type: FreshnessList,
    description: 'Per feed: expected cadence, last data, and whether it is lagging or silent. Worst first.',
    authScopes: { scope: 'integrations:read' },
    args: { state: t.arg.stringList({ description: 'fresh, lagging, silent' }), dealer_id: t.arg.idList() },
    resolve: (_root, args, context) =>
      freshness(context, { state: args.state, dealer_id: args.dealer_id?.map(String) }),
  }),
  integration: t.prismaField({
    ...operation('GET /integrations/:id', 'Get an integration'),
    type: Integration,
    authScopes: { scope: 'integrations:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) =>
      context.db.integration.findUniqueOrThrow({
        ...query,
        where: { id: (await findIntegration(context, String(args.id))).id },
      }),
  }),
}));

builder.mutationFields((t) => ({
  createIntegration: t.field({
    ...operation('POST /integrations', 'Connect an integration', { status: 201 }),
    type: IntegrationConnection,
    authScopes: { scope: 'integrations:write' },
    args: { ...settingArgs(t), plugin_key: t.arg.string({ required: true }), dealer_id: t.arg.id({ required: true }) },
    resolve: (app, args, context) =>
      createIntegration(context, app, {
        ...args,
        dealer_id: String(args.dealer_id),
        template_id: args.template_id?.toString(),
      } as IntegrationInput),
  }),
  updateIntegration: t.prismaField({
    ...operation('PATCH /integrations/:id', 'Update an integration'),
    type: Integration,
    authScopes: { scope: 'integrations:write' },
    args: { id: t.arg.id({ required: true }), ...settingArgs(t) },
    resolve: async (query, app, { id, ...input }, context) =>
      context.db.integration.findUniqueOrThrow({
        ...query,
        where: {
          id: await updateIntegration(context, app, String(id), {
            ...input,
            template_id: input.template_id === undefined ? undefined : (input.template_id?.toString() ?? null),
          } as IntegrationInput),
        },
      }),
  }),
  disconnectIntegration: t.field({
    ...operation('DELETE /integrations/:id', 'Disconnect an integration'),
    type: Deletion,
    description: 'Stops syncing and drops credentials and SFTP access; runs and data are kept.',
    authScopes: { scope: 'integrations:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (app, args, context) => ({ id: await disconnectIntegration(context, app, String(args.id)) }),
  }),
  setIntegrationCredentials: t.prismaField({
    ...operation('PUT /integrations/:id/credentials', 'Set integration credentials'),
    type: Integration,
    description:
      "Stores the plugin's secret settings encrypted (AES-256-GCM); they are never returned, only has_credentials.",
    authScopes: { scope: 'integrations:write' },
    args: {
      id: t.arg.id({ required: true }),
      credentials: t.arg({ type: 'JSON', required: true, description: '{ "api_key": "…" }; {} clears them.' }),
    },
    resolve: async (query, app, args, context) =>
      context.db.integration.findUniqueOrThrow({
        ...query,
        where: { id: await setCredentials(context, app, String(args.id), args.credentials) },
      }),
  }),
}));
