import { RE2JS } from 're2js';
import { timeSlicer } from '../../time-slice';
import { mkdir, readdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Database } from '../../db/database';
import type { Logger } from '../../logger';
import type { SecretBox } from '../../secrets';
import { conflict } from '../../errors';
import type { Integration } from '../../generated/prisma/client';
import { enabledRules } from '../rules/rules.service';
import { enrich } from '../sources/sources.service';
import { linkLeadsAndCalls } from '../sales/sales.service';
import { pluginByKey, type PluginDefinition } from '../plugins/registry';
import type { SourcePriority } from '../multi-source/merge';
import { FeedError, pullJson, readAdf, readCsv, type ReadProgress, type SourceRow } from './parsers';
import { rowMapper, type ColumnMapping, type MappingLayers, type ValueMappings } from './mapping';
import { type CallRecord, type LeadRecord, type SaleRecord, type VehicleRecord } from './records';
import { applySoldGrace, writeVehicleBatch, type FeedContext } from './inventory-writer';
import { upsertActivity } from './activity-writer';
import { inTransaction } from '../../db/bulk';
import { runRow, type Pipeline } from './pipeline';

/**
 * Runs syncs: one run per integration at a time (409 otherwise, across instances), rows streamed
 * from the feed through column mapping, value mappings, transformation rules and validation into
 * batched writes. Bad rows are recorded and skipped; a failure marks the run failed and leaves
 * the data as the last committed batch left it.
 */

const BATCH_ROWS = 5000;
const MAX_STORED_ROW_ERRORS = 10_000;
/** A running run whose heartbeat is older than this belonged to a server that stopped. */
export const STALE_RUN_SECONDS = 120;
export const INTERRUPTED = 'interrupted: the server running it stopped before it finished';

/** A file's name as it was delivered (processed files carry a time stamp in front). */
export const deliveredName = (file: string) => path.basename(file).replace(/^\d{8}T\d{6}-/, '');

export type SyncTrigger = 'manual' | 'schedule' | 'sftp' | 'cli';

export interface RunCounts { rowsRead: number; created: number; updated: number; unchanged: number; skipped: number; failed: number; flagged: number; presumedSold: number; returned: number }
export interface RunProgress extends RunCounts { bytesRead: number; bytesTotal: number | null }

interface RowError { row: number; field: string | null; message: string; raw: unknown; kind?: 'error' | 'flag' }

export interface SyncRunnerOptions { dataDir: string | null; allowInsecureHttpPull: boolean; allowPrivateNetworks: boolean }

export class SyncRunner {
  private readonly active = new Map<string, Promise<void>>();

  constructor(private readonly database: Database, private readonly secrets: SecretBox, private readonly logger: Logger, readonly options: SyncRunnerOptions) {}

  /** Where an integration's uploaded files wait (incoming) and go once read (processed). */
  inbox(integrationId: string) {
    const root = path.join(this.options.dataDir ?? path.join(process.cwd(), 'data'), 'inbox', integrationId);
    return { root, incoming: path.join(root, 'incoming'), processed: path.join(root, 'processed') };
  }

  /** Files waiting in the inbox, oldest first, that the plugin's file pattern accepts. */
  async pendingFiles(integration: Pick<Integration, 'id' | 'config' | 'pluginKey'>, settledMs = 0): Promise<string[]> {
    const { incoming } = this.inbox(integration.id);
    const pattern = globPattern(String((integration.config as Record<string, unknown>).file_pattern ?? defaultPattern(integration.pluginKey)));
    const names = await readdir(incoming).catch(() => [] as string[]);
    const files = await Promise.all(names.filter((name) => !name.startsWith('.') && pattern.test(name)).map(async (name) => ({ name, info: await stat(path.join(incoming, name)).catch(() => null) })));
    return files
      .filter((file) => file.info?.isFile() && Date.now() - file.info.mtimeMs >= settledMs)
      .sort((a, b) => a.info!.mtimeMs - b.info!.mtimeMs)
      .map((file) => path.join(incoming, file.name));
  }

  /** The file a run (or a probe) reads: the oldest waiting upload, else the last file read again, which changes nothing. */
  async fileToRead(integration: Pick<Integration, 'id' | 'config' | 'pluginKey'>): Promise<{ file: string | null; fromInbox: boolean }> {
    const pending = (await this.pendingFiles(integration))[0];
    return pending ? { file: pending, fromInbox: true } : { file: await this.latestProcessed(integration.id), fromInbox: false };
  }

  /** An integration's column mapping, its template's (with value mappings), and the template version they come from. */
  async mappingLayers(integration: Pick<Integration, 'columnMapping' | 'templateId'>): Promise<{ layers: MappingLayers; templateVersion: number | null }> {
    const template = integration.templateId ? await this.database.prisma.mappingTemplate.findUnique({ where: { id: integration.templateId } }) : null;
    return {
      layers: {
        columns: integration.columnMapping as ColumnMapping,
        template: (template?.fieldMappings ?? {}) as ColumnMapping,
        values: (template?.valueMappings ?? {}) as ValueMappings,
      },
      templateVersion: template?.version ?? null,
    };
  }

  async latestProcessed(integrationId: string): Promise<string | null> {
    const { processed } = this.inbox(integrationId);
    const names = (await readdir(processed).catch(() => [] as string[])).sort();
    return names.length ? path.join(processed, names.at(-1)!) : null;
  }

  isRunning(integrationId: string) {
    return this.active.has(integrationId);
  }

  /**
   * Opens a run, or answers 409 when one is under way for the integration. The check and the
   * insert hold a transaction-scoped advisory lock, so two instances cannot both start one.
   */
  async open(integration: Integration, trigger: SyncTrigger, fileName: string | null, templateVersion: number | null): Promise<string> {
    if (this.active.has(integration.id)) throw conflict(`a sync of integration ${integration.id} is already running`);
    return this.database.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`sync:${integration.id}`}))`;
      const running = await tx.syncRun.findFirst({ where: { integrationId: integration.id, status: 'running' } });
      if (running) {
        if (Date.now() - running.heartbeatAt.getTime() < STALE_RUN_SECONDS * 1000) throw conflict(`a sync of integration ${integration.id} is already running (run ${running.id})`);
        await tx.syncRun.update({ where: { id: running.id }, data: { status: 'failed', error: INTERRUPTED, finishedAt: new Date() } });
      }
      const run = await tx.syncRun.create({
        data: { integrationId: integration.id, dealerGroupId: integration.dealerGroupId, trigger, fileName, templateId: integration.templateId, templateVersion },
      });
      return run.id;
    });
  }

  /** Starts a run in the background and returns its id; `done` settles when it ends. */
  async start(integrationId: string, trigger: SyncTrigger, options: { file?: string | null; onProgress?: (progress: RunProgress) => void } = {}): Promise<{ runId: string; done: Promise<void> }> {
    const integration = await this.database.prisma.integration.findUniqueOrThrow({ where: { id: integrationId } });
    const plugin = pluginByKey(integration.pluginKey);
    if (!plugin) throw new FeedError(`unknown plugin ${integration.pluginKey}`);
    const { file, fromInbox } = options.file || plugin.delivery !== 'sftp' ? { file: options.file ?? null, fromInbox: false } : await this.fileToRead(integration);
    if (!file && plugin.delivery === 'sftp') throw conflict(`no file to read: upload one to the integration's SFTP inbox first`);
    const mapping = await this.mappingLayers(integration);
    const runId = await this.open(integration, trigger, file ? deliveredName(file) : null, mapping.templateVersion);
    const done = this.execute(runId, integration, plugin, mapping.layers, file, fromInbox, options.onProgress).finally(() => this.active.delete(integration.id));
    this.active.set(integration.id, done);
    return { runId, done };
  }

  /** Starts a run when the integration's inbox holds a file its pattern accepts (an SFTP upload just closed). */
  async startIfPending(integrationId: string, trigger: SyncTrigger): Promise<void> {
    const integration = await this.database.prisma.integration.findUnique({ where: { id: integrationId }, select: { id: true, config: true, pluginKey: true, enabled: true } });
    if (!integration?.enabled || this.active.has(integrationId) || !(await this.pendingFiles(integration)).length) return;
    await this.start(integrationId, trigger);
  }

  /** Waits for the runs under way (on shutdown). */
  async drain() {
    await Promise.allSettled([...this.active.values()]);
  }

  private async execute(runId: string, integration: Integration, plugin: PluginDefinition, layers: MappingLayers, file: string | null, fromInbox: boolean, onProgress?: (progress: RunProgress) => void): Promise<void> {
    const db = this.database.prisma;
    const counts: RunCounts = { rowsRead: 0, created: 0, updated: 0, unchanged: 0, skipped: 0, failed: 0, flagged: 0, presumedSold: 0, returned: 0 };
    const progress: ReadProgress = { bytesRead: 0, bytesTotal: null };
    let storedErrors = 0;
    const heartbeat = setInterval(() => {
      db.syncRun.update({ where: { id: runId }, data: { heartbeatAt: new Date() } }).catch(() => {});
    }, 15_000);
    const report = async (errors: RowError[]) => {
      const keep = errors.slice(0, Math.max(0, MAX_STORED_ROW_ERRORS - storedErrors));
      storedErrors += keep.length;
      if (keep.length) await db.syncRowError.createMany({ data: keep.map((error) => ({ syncRunId: runId, row: error.row, kind: error.kind ?? 'error', field: error.field, message: error.message, raw: error.raw as object })) });
      await db.syncRun.update({
        where: { id: runId },
        data: { ...counts, bytesRead: BigInt(progress.bytesRead), bytesTotal: progress.bytesTotal === null ? null : BigInt(progress.bytesTotal), heartbeatAt: new Date() },
      });
      onProgress?.({ ...counts, ...progress });
    };
    try {
      const config = integration.config as Record<string, unknown>;
      const [ruleList, dealer] = await Promise.all([
        enabledRules(db, [integration.dealerGroupId]),
        db.dealer.findUniqueOrThrow({ where: { id: integration.dealerId }, select: { sourcePriority: true } }),
      ]);
      const pipeline: Pipeline = { target: plugin.target, mapRow: rowMapper(plugin.target, layers), rules: ruleList, defaultLeadType: String(config.default_lead_type ?? 'used') };
      const feed: FeedContext = {
        dealerGroupId: integration.dealerGroupId, dealerId: integration.dealerId, source: integration.source, integrationId: integration.id, syncRunId: runId,
        strategy: integration.strategy, trackHistory: integration.trackHistory, priority: dealer.sourcePriority as SourcePriority,
      };
      const provider = plugin.target === 'calls' ? String(config.provider ?? 'call_tracking') : plugin.target === 'leads' ? 'adf' : integration.source;
      const rows = this.rowsOf(integration, plugin, file, (read) => Object.assign(progress, read));
      // Duplicates are caught within a batch here, and across batches by the writers (keys already
      // written by this run), so memory stays flat however long the file.
      let seen = new Map<string, number>();
      let mentioned: string[] = [];
      let batch: Array<{ line: number; record: unknown }> = [];
      let errors: RowError[] = [];
      let analyzed = false;

      const flush = async () => {
        if (batch.length || mentioned.length) {
          const records = batch.map((entry) => entry.record);
          await inTransaction(this.database.pool, async (client) => {
            if (plugin.target === 'vehicles') {
              const outcome = await writeVehicleBatch(client, feed, records as VehicleRecord[], mentioned);
              counts.created += outcome.created;
              counts.updated += outcome.updated;
              counts.unchanged += outcome.unchanged;
              counts.returned += outcome.returned;
              counts.skipped += outcome.skipped.length;
              const lineOf = new Map(batch.map((entry) => [(entry.record as VehicleRecord).vin, entry.line]));
              for (const skip of outcome.skipped) errors.push({ row: lineOf.get(skip.vin) ?? 0, field: skip.reason.startsWith('condition') ? 'condition' : null, message: skip.reason, raw: { vin: skip.vin } });
              errors.sort((a, b) => a.row - b.row);
            } else {
              const outcome = await upsertActivity(client, plugin.target, { dealerGroupId: feed.dealerGroupId, dealerId: feed.dealerId, provider }, records as Array<CallRecord | LeadRecord | SaleRecord>);
              counts.created += outcome.created;
              counts.updated += outcome.updated;
              counts.unchanged += outcome.unchanged;
            }
          });
        }
        batch = [];
        seen = new Map();
        mentioned = [];
        // A first large batch into a rooftop can change the tables' shape (an empty rooftop filling
        // up); fresh statistics keep the next batches' plans sound.
        if (!analyzed && counts.created + counts.updated >= 1000) {
          analyzed = true;
          await this.database.pool.query(`ANALYZE ${plugin.target === 'vehicles' ? 'vehicles, vehicle_source_records, vehicle_conflicts' : plugin.target}`);
        }
        await report(errors);
        errors = [];
      };

      const breathe = timeSlicer();
      for await (const row of rows) {
        counts.rowsRead += 1;
        const outcome = runRow(pipeline, row.values);
        await breathe();
        if (outcome.kind === 'skipped') {
          counts.skipped += 1;
        } else if (outcome.kind === 'failed') {
          counts.failed += 1;
          if (outcome.vin) mentioned.push(outcome.vin);
          errors.push({ row: row.line, field: outcome.field, message: outcome.message, raw: row.values });
        } else {
          const key = recordKey(plugin.target, outcome.record);
          const first = seen.get(key);
          if (first !== undefined) {
            counts.skipped += 1;
            errors.push({ row: row.line, field: null, message: `duplicate of line ${first} (same ${plugin.target === 'vehicles' ? 'VIN' : plugin.target === 'sales' ? 'deal number' : 'id'}); the first one was kept`, raw: row.values });
          } else {
            seen.set(key, row.line);
            batch.push({ line: row.line, record: outcome.record });
            if (outcome.flags.length) {
              counts.flagged += 1;
              errors.push({ row: row.line, field: null, message: outcome.flags.join('; '), raw: row.values, kind: 'flag' });
            }
          }
        }
        if (batch.length >= BATCH_ROWS || errors.length >= BATCH_ROWS) await flush();
      }
      await flush();

      await this.finishFeed(integration, plugin, feed, counts);
      await report([]);
      if (file && fromInbox) await this.markProcessed(integration.id, file);
      const finishedAt = new Date();
      await db.$transaction([
        db.syncRun.update({ where: { id: runId }, data: { status: 'succeeded', finishedAt } }),
        db.integration.update({ where: { id: integration.id }, data: { ...(file ? { lastFileAt: finishedAt, lastFileName: deliveredName(file) } : {}) } }),
      ]);
    } catch (error) {
      const message = error instanceof FeedError ? error.message : 'internal error while syncing; the data holds the batches committed before it';
      if (!(error instanceof FeedError)) this.logger.error('sync failed', { runId, integrationId: integration.id, error });
      await db.syncRun.update({ where: { id: runId }, data: { status: 'failed', error: message, finishedAt: new Date(), ...counts } }).catch(() => {});
      if (file && fromInbox && error instanceof FeedError) await this.markProcessed(integration.id, file).catch(() => {});
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** After every row: the sold grace period for inventory feeds, source resolution and deal links for activity. */
  private async finishFeed(integration: Integration, plugin: PluginDefinition, feed: FeedContext, counts: RunCounts) {
    if (plugin.target === 'vehicles') {
      counts.presumedSold = await inTransaction(this.database.pool, (client) => applySoldGrace(client, feed, { syncs: integration.soldGraceSyncs, hours: integration.soldGraceHours }));
    } else {
      const db = this.database.prisma;
      if (plugin.target === 'calls' || plugin.target === 'leads') await enrich(db, [integration.dealerGroupId], plugin.target, { dealer_id: [integration.dealerId] });
      await linkLeadsAndCalls(db, [integration.dealerGroupId]);
    }
    // Planner statistics go stale after a large load; refresh them so the API keeps its plans.
    if (counts.created + counts.updated > 10_000) await this.database.pool.query(`ANALYZE ${plugin.target === 'vehicles' ? 'vehicles, vehicle_source_records' : plugin.target}`);
  }

  /** The feed's rows: its file read as a stream, or its API pulled page by page (`maxPages` for a probe). */
  rowsOf(integration: Integration, plugin: PluginDefinition, file: string | null, onProgress?: (progress: ReadProgress) => void, probe = false): AsyncIterable<SourceRow> {
    const config = integration.config as Record<string, unknown>;
    if (plugin.delivery === 'http_pull') {
      const credentials = integration.credentials ? (JSON.parse(this.secrets.open(integration.credentials, integration.id)) as Record<string, string>) : {};
      return pullJson({
        url: String(config.url),
        recordsPath: String(config.records_path ?? 'vehicles'),
        pageSize: Number(config.page_size ?? 100),
        apiKey: credentials.api_key ?? null,
        allowPrivateNetworks: this.options.allowPrivateNetworks,
        ...(probe ? { maxPages: 1, timeoutMs: 10_000 } : {}),
      }, onProgress);
    }
    if (!file) throw new FeedError('no file to read');
    if (plugin.formats.includes('xml')) return readAdf(file, onProgress);
    return readCsv(file, { delimiter: config.delimiter as string, encoding: config.encoding as string, headerRow: config.header_row as number }, onProgress);
  }

  private async markProcessed(integrationId: string, file: string) {
    const { processed } = this.inbox(integrationId);
    if (path.dirname(file) === processed) return;
    await mkdir(processed, { recursive: true });
    const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
    await rename(file, path.join(processed, `${stamp}-${path.basename(file)}`));
  }
}

function recordKey(target: PluginDefinition['target'], record: unknown): string {
  const value = record as Record<string, unknown>;
  return String(target === 'vehicles' ? value.vin : target === 'sales' ? value.deal_number : value.external_id);
}

const defaultPattern = (pluginKey: string) => String(pluginByKey(pluginKey)?.configSchema.find((field) => field.name === 'file_pattern')?.default ?? '*');

/**
 * A file glob ("inventory_*.csv", comma-separated alternatives) as a case-insensitive matcher. A
 * tenant writes it, so it runs on RE2: on a backtracking engine "*a*a*a*a*b" is polynomial in the name.
 */
export function globPattern(globs: string): { test(name: string): boolean } {
  const alternatives = globs.split(',').map((glob) => glob.trim()).filter(Boolean)
    .map((glob) => glob.split('').map((character) => (character === '*' ? '.*' : character === '?' ? '.' : RE2JS.quote(character))).join(''));
  const pattern = RE2JS.compile(`^(?:${alternatives.join('|') || '.*'})$`, RE2JS.CASE_INSENSITIVE);
  return { test: (name) => pattern.test(name) };
}
