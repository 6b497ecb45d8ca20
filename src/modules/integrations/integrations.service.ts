import { randomBytes } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import type { AppServices, FeedSettings } from '../../app-services';
import type { SecretBox } from '../../secrets';
import type { Db } from '../../db/database';
import { badInput, conflict } from '../../errors';
import { pageArgs, pageRef } from '../../pagination';
import { callerGroupsSql, findInTenant, inCallerGroups, inputDealer } from '../../tenancy';
import { visibleTo as templatesVisibleTo } from '../mapping-templates/mapping-templates.service';
import { dealerIds, isUuid, oneOf, requiredText } from '../../validation';
import { recordAudit } from '../../audit';
import { hashPassword } from '../../auth/passwords';
import { pluginByKey, validateConfig, type PluginDefinition } from '../plugins/registry';

/**
 * Integrations: a plugin connected to one rooftop, with its settings, credentials, SFTP account and
 * freshness. The syncs module runs them.
 */

/**
 * One of the caller's integrations, else 404; disconnected ones only with `disconnected` (their runs
 * stay readable).
 */
export function findIntegration(
  caller: Pick<Caller, 'db' | 'session'>,
  id: string,
  options: { disconnected?: boolean } = {},
) {
  return findInTenant(caller.session, 'integration', id, (where) =>
    caller.db.integration.findFirst({ where: { ...where, ...(options.disconnected ? {} : { disconnectedAt: null }) } }),
  );
}

export const STRATEGIES = ['overwrite', 'merge', 'update_only'] as const;

export interface IntegrationInput {
  plugin_key?: string | null;
  dealer_id?: string | null;
  name?: string | null;
  source?: string | null;
  config?: unknown;
  enabled?: boolean | null;
  strategy?: string | null;
  sold_grace_syncs?: number | null;
  sold_grace_hours?: number | null;
  track_history?: boolean | null;
  schedule_minutes?: number | null;
  expected_cadence_hours?: number | null;
  template_id?: string | null;
}

export interface SftpAccount {
  host: string;
  port: number | null;
  username: string;
  password: string;
  path: string;
  enabled: boolean;
}

function bounded(field: string, value: number | null | undefined, min: number, max: number): number | null | undefined {
  if (value === null || value === undefined) return value;
  if (!Number.isInteger(value) || value < min || value > max)
    throw badInput(field, `must be a whole number from ${min} to ${max}`);
  return value;
}

function sourceName(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  const name = value.trim().toLowerCase();
  if (!/^[a-z][a-z0-9_]{1,39}$/.test(name))
    throw badInput(
      'source',
      'must be 2-40 lower-case letters, digits or underscores, starting with a letter (e.g. "dms", "homenet")',
    );
  // Writes through the API are recorded as these sources (PUT /inventory/:vin); a feed must not share them.
  if (name === 'manual' || name.startsWith('api_'))
    throw badInput('source', `"${name}" is kept for writes through the API (manual, api_…); name the feed otherwise`);
  return name;
}

function checkedConfig(feeds: FeedSettings, plugin: PluginDefinition, config: unknown): Prisma.InputJsonValue {
  const [first] = validateConfig(plugin, config ?? {}, { allowInsecureHttp: feeds.allowInsecureHttpPull });
  if (first) throw badInput(`config.${first.field}`, first.message);
  return (config ?? {}) as Prisma.InputJsonValue;
}

async function checkedTemplate(
  caller: Caller,
  templateId: string | null | undefined,
): Promise<string | null | undefined> {
  if (templateId === undefined || templateId === null) return templateId;
  const template = isUuid(templateId)
    ? await caller.db.mappingTemplate.findFirst({ where: { id: templateId, ...templatesVisibleTo(caller) } })
    : null;
  if (!template) throw badInput('template_id', `no mapping template ${templateId} among yours or the community's`);
  return template.id;
}

/** Settings shared by create and update, validated; undefined leaves a setting as it is. */
function settings(input: IntegrationInput) {
  return {
    ...(input.name !== undefined && input.name !== null ? { name: requiredText('name', input.name, 100) } : {}),
    ...(input.strategy ? { strategy: oneOf('strategy', input.strategy, STRATEGIES) } : {}),
    ...(input.sold_grace_syncs !== undefined
      ? { soldGraceSyncs: bounded('sold_grace_syncs', input.sold_grace_syncs, 1, 365) }
      : {}),
    ...(input.sold_grace_hours !== undefined
      ? { soldGraceHours: bounded('sold_grace_hours', input.sold_grace_hours, 1, 24 * 90) }
      : {}),
    ...(input.track_history != null ? { trackHistory: input.track_history } : {}),
    ...(input.schedule_minutes !== undefined
      ? { scheduleMinutes: bounded('schedule_minutes', input.schedule_minutes, 5, 7 * 1440) }
      : {}),
    ...(input.expected_cadence_hours != null
      ? { expectedCadenceHours: bounded('expected_cadence_hours', input.expected_cadence_hours, 1, 24 * 31)! }
      : {}),
    ...(input.enabled != null ? { enabled: input.enabled } : {}),
  };
}

const newSftpPassword = () => randomBytes(18).toString('base64url');

/** A fresh SFTP account for an integration; the password is returned once and stored hashed. */
export async function issueSftpAccount(db: Db, feeds: FeedSettings, integrationId: string): Promise<SftpAccount> {
  const password = newSftpPassword();
  const current = await db.integration.findUniqueOrThrow({
    where: { id: integrationId },
    select: { sftpUsername: true },
  });
  const username = current.sftpUsername ?? `feed_${randomBytes(5).toString('hex')}`;
  await db.integration.update({
    where: { id: integrationId },
    data: { sftpUsername: username, sftpPasswordHash: await hashPassword(password) },
  });
  return {
    host: feeds.sftp?.host ?? 'localhost',
    port: feeds.sftp?.port ?? null,
    username,
    password,
    path: '/',
    enabled: feeds.sftp !== null,
  };
}

export async function createIntegration(
  caller: Caller,
  app: Pick<AppServices, 'feeds'>,
  input: IntegrationInput,
): Promise<{ id: string; sftpAccount: SftpAccount | null }> {
  const plugin = pluginByKey(input.plugin_key ?? '');
  if (!plugin) throw badInput('plugin_key', `unknown plugin "${input.plugin_key}"; see GET /plugins`);
  const dealer = await inputDealer(caller, input.dealer_id, {
    purpose: 'the rooftop the feed belongs to',
    active: true,
  });
  const config = checkedConfig(app.feeds, plugin, input.config);
  const values = config as Record<string, unknown>;
  const integration = await caller.db.integration.create({
    data: {
      dealerGroupId: dealer.dealerGroupId,
      dealerId: dealer.id,
      pluginKey: plugin.key,
      name: `${plugin.name} – ${dealer.name}`,
      source: sourceName(input.source) ?? plugin.defaultSource,
      config,
      soldGraceSyncs: plugin.target === 'vehicles' ? 3 : null,
      expectedCadenceHours: Number(values.expected_cadence_hours ?? 24),
      scheduleMinutes: plugin.delivery === 'http_pull' ? Number(values.schedule_minutes ?? 60) : null,
      templateId: await checkedTemplate(caller, input.template_id),
      ...settings(input),
      nextSyncAt: plugin.delivery === 'http_pull' ? new Date() : null,
    },
  });
  const sftpAccount = plugin.delivery === 'sftp' ? await issueSftpAccount(caller.db, app.feeds, integration.id) : null;
  await recordAudit(caller.db, caller, {
    action: 'integration.connected',
    targetType: 'integration',
    targetId: integration.id,
    dealerGroupIds: [dealer.dealerGroupId],
    details: { plugin: plugin.key, dealer_id: dealer.id },
  });
  return { id: integration.id, sftpAccount };
}

export async function updateIntegration(
  caller: Caller,
  app: Pick<AppServices, 'feeds'>,
  id: string,
  input: IntegrationInput,
): Promise<string> {
  const integration = await findIntegration(caller, id);
  const plugin = pluginByKey(integration.pluginKey)!;
  const changes = settings(input);
  await caller.db.integration.update({
    where: { id },
    data: {
      ...changes,
      ...(input.config !== undefined && input.config !== null
        ? { config: checkedConfig(app.feeds, plugin, input.config) }
        : {}),
      ...(input.source !== undefined && input.source !== null ? { source: sourceName(input.source) } : {}),
      ...(input.template_id !== undefined ? { templateId: await checkedTemplate(caller, input.template_id) } : {}),
      ...(changes.scheduleMinutes !== undefined
        ? { nextSyncAt: changes.scheduleMinutes ? new Date(Date.now() + changes.scheduleMinutes * 60_000) : null }
        : {}),
    },
  });
  return id;
}

/** Disconnects: no more syncs, credentials and SFTP access dropped; its runs and data stay. */
export async function disconnectIntegration(
  caller: Caller,
  app: Pick<AppServices, 'background'>,
  id: string,
): Promise<string> {
  const integration = await findIntegration(caller, id);
  if (app.background.isRunning('sync', id))
    throw conflict(`integration ${id} is syncing; disconnect it when the run ends`);
  await caller.db.integration.update({
    where: { id },
    data: {
      disconnectedAt: new Date(),
      enabled: false,
      credentials: null,
      sftpUsername: null,
      sftpPasswordHash: null,
      nextSyncAt: null,
    },
  });
  await recordAudit(caller.db, caller, {
    action: 'integration.disconnected',
    targetType: 'integration',
    targetId: id,
    dealerGroupIds: [integration.dealerGroupId],
  });
  return id;
}

/** Stores the plugin's secret settings sealed with AES-256-GCM; an empty object clears them. */
export async function setCredentials(
  caller: Caller,
  app: Pick<AppServices, 'secrets'>,
  id: string,
  credentials: unknown,
): Promise<string> {
  const integration = await findIntegration(caller, id);
  const plugin = pluginByKey(integration.pluginKey)!;
  if (!credentials || typeof credentials !== 'object' || Array.isArray(credentials))
    throw badInput('credentials', "must be an object of the plugin's secret settings");
  const secretFields = plugin.configSchema.filter((field) => field.secret).map((field) => field.name);
  const entries = Object.entries(credentials as Record<string, unknown>);
  for (const [name, value] of entries) {
    if (!secretFields.includes(name)) {
      throw badInput(
        `credentials.${name}`,
        secretFields.length
          ? `is not a secret setting of ${plugin.key} (${secretFields.join(', ')})`
          : `${plugin.key} takes no credentials: files arrive by SFTP`,
      );
    }
    if (typeof value !== 'string' || !value || value.length > 4096)
      throw badInput(`credentials.${name}`, 'must be a non-empty string of at most 4096 characters');
  }
  const sealed = entries.length ? app.secrets.seal(JSON.stringify(credentials), id) : null;
  await caller.db.$transaction(async (tx) => {
    await tx.integration.update({ where: { id }, data: { credentials: sealed } });
    await recordAudit(tx, caller, {
      action: 'credentials.changed',
      targetType: 'integration',
      targetId: id,
      dealerGroupIds: [integration.dealerGroupId],
      details: { fields: entries.map(([name]) => name) },
    });
  });
  return id;
}

export async function integrationPage(
  caller: Caller,
  args: {
    dealer_id?: string[] | null;
    plugin_key?: string | null;
    enabled?: boolean | null;
    limit?: number | null;
    offset?: number | null;
  },
) {
  const { limit, offset } = pageArgs(args);
  const dealers = dealerIds(args.dealer_id);
  const where: Prisma.IntegrationWhereInput = {
    dealerGroupId: inCallerGroups(caller.session),
    disconnectedAt: null,
    ...(dealers?.length ? { dealerId: { in: dealers } } : {}),
    ...(args.plugin_key ? { pluginKey: args.plugin_key } : {}),
    ...(args.enabled != null ? { enabled: args.enabled } : {}),
  };
  return pageRef(where, { limit, offset }, () => caller.db.integration.count({ where }));
}

export interface Freshness {
  integration_id: string;
  name: string;
  plugin_key: string;
  dealer_id: string;
  expected_cadence_hours: number;
  last_file_at: Date | null;
  last_sync_at: Date | null;
  last_run_status: string | null;
  hours_since_data: number | null;
  state: 'fresh' | 'lagging' | 'silent';
}

export const FEED_STATES = ['fresh', 'lagging', 'silent'] as const;

/**
 * Per active feed picked by `where` (over integrations `i`): its cadence and when data last came
 * (the last file, or the last successful run for pulls), and its state. Lagging: later than its
 * cadence; silent: nothing for three cadences, or never. The freshness endpoint and the clock that
 * records feed.lagging, feed.silent and feed.recovered read this one definition.
 */
export function feedStatesSql(where: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`WITH feeds AS (
      SELECT i.id AS integration_id, i.dealer_group_id, i.name, i.plugin_key, i.dealer_id, i.expected_cadence_hours, i.last_file_at,
        i.created_at, i.freshness_state AS recorded_state, last_ok.finished_at AS last_sync_at, last_run.status::text AS last_run_status
      FROM integrations i
      LEFT JOIN LATERAL (SELECT r.finished_at FROM sync_runs r WHERE r.integration_id = i.id AND r.status = 'succeeded' ORDER BY r.started_at DESC LIMIT 1) last_ok ON true
      LEFT JOIN LATERAL (SELECT r.status FROM sync_runs r WHERE r.integration_id = i.id ORDER BY r.started_at DESC LIMIT 1) last_run ON true
      WHERE ${where} AND i.disconnected_at IS NULL AND i.enabled),
    aged AS (
      SELECT feeds.*, EXTRACT(EPOCH FROM (now() - COALESCE(GREATEST(last_file_at, last_sync_at), created_at))) / 3600 AS hours,
        GREATEST(last_file_at, last_sync_at) IS NULL AS never FROM feeds)
    SELECT integration_id, dealer_group_id, name, plugin_key, dealer_id, expected_cadence_hours, last_file_at, last_sync_at,
      last_run_status, recorded_state, hours / expected_cadence_hours AS lateness,
      CASE WHEN never THEN NULL ELSE round(hours::numeric, 1)::float8 END AS hours_since_data,
      CASE WHEN hours > 3 * expected_cadence_hours OR (never AND hours > expected_cadence_hours) THEN 'silent'
           WHEN hours > expected_cadence_hours THEN 'lagging' ELSE 'fresh' END AS state
    FROM aged`;
}

/** Per active feed of the caller's: its cadence, when data last came, and whether it is lagging or silent. Worst first. */
export async function freshness(
  caller: Caller,
  args: { state?: string[] | null; dealer_id?: string[] | null },
): Promise<Freshness[]> {
  const states = args.state?.map((state) => oneOf('state', state, FEED_STATES));
  const dealers = dealerIds(args.dealer_id);
  const where = Prisma.sql`${callerGroupsSql(caller.session, 'i')}
    AND (${dealers ?? null}::uuid[] IS NULL OR i.dealer_id = ANY(${dealers ?? null}::uuid[]))`;
  const rows = await caller.db.$queryRaw<Array<Freshness & { lateness: number }>>`/* integrationFreshness */
    SELECT integration_id, name, plugin_key, dealer_id, expected_cadence_hours, last_file_at, last_sync_at, last_run_status,
      hours_since_data, state, lateness
    FROM (${feedStatesSql(where)}) f ORDER BY lateness DESC, name`;
  const shown = rows.map(({ lateness: _lateness, ...row }) => row);
  return states?.length ? shown.filter((row) => states.includes(row.state)) : shown;
}

/** After a new key is put first in CREDENTIALS_KEYS: re-encrypts credentials still sealed with an older key. */
export async function resealCredentials(db: Db, secrets: SecretBox): Promise<number> {
  const integrations = await db.integration.findMany({
    where: { credentials: { not: null } },
    select: { id: true, credentials: true },
  });
  return secrets.resealAll(
    integrations.map((integration) => ({ context: integration.id, sealed: integration.credentials! })),
    (id, credentials) => db.integration.update({ where: { id }, data: { credentials } }),
  );
}
