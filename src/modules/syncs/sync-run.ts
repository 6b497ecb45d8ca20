import type { Integration } from '../../generated/prisma/client';
import type { AppServices } from '../../app-services';
import { conflict } from '../../errors';
import { inCausedTransaction, inTransaction } from '../../db/bulk';
import { timeSlicer } from '../../time-slice';
import { enrich } from '../sources/sources.service';
import { linkLeadsAndCalls } from '../sales/sales.service';
import { pluginByKey, type PluginDefinition } from '../plugins/registry';
import type { SourcePriority, VehicleRecord } from '../multi-source/merge';
import { applySoldGrace, BatchTurns, writeVehicleBatch, type FeedContext } from '../multi-source/vehicle-writer';
import { FeedError } from './parsers';
import type { CallRecord, LeadRecord, SaleRecord } from './records';
import { upsertActivity } from './activity-writer';
import { loadPipeline, pipelineRows, type FeedSource, type Pipeline } from './pipeline';
import { deliveredName, fileToRead, markProcessed, pendingFiles } from './inbox';
import { RunLedger, type RowError, type RunCounts, type RunProgress, type SyncTrigger } from './run-ledger';

/** How long a run's set-based passes (sources, deal links) over a rooftop may take in one transaction. */
const SET_PASS_TIMEOUT_MS = 10 * 60_000;

/**
 * Runs syncs: one run per integration at a time (409 otherwise, across instances), rows streamed
 * through the pipeline into batched writes. Bad rows are recorded and skipped; a failure marks the
 * run failed and leaves the data as the last committed batch left it.
 */

const BATCH_ROWS = 5000;

/** What a run needs of the app. */
export type SyncServices = Pick<AppServices, 'database' | 'secrets' | 'logger' | 'feeds' | 'background'>;

/** Whether this process is running a sync of the integration. */
export const isSyncing = (app: Pick<AppServices, 'background'>, integrationId: string) =>
  app.background.isRunning('sync', integrationId);

/** Starts a run in the background and returns its id; `done` settles when it ends. */
export async function startSync(
  app: SyncServices,
  integrationId: string,
  trigger: SyncTrigger,
  options: { file?: string | null; onProgress?: (progress: RunProgress) => void } = {},
): Promise<{ runId: string; done: Promise<void> }> {
  const db = app.database.prisma;
  const integration = await db.integration.findUniqueOrThrow({ where: { id: integrationId } });
  const plugin = pluginByKey(integration.pluginKey);
  if (!plugin) throw new FeedError(`unknown plugin ${integration.pluginKey}`);
  const { file, fromInbox } =
    options.file || plugin.delivery !== 'sftp'
      ? { file: options.file ?? null, fromInbox: false }
      : await fileToRead(app.feeds.dataDir, integration);
  if (!file && plugin.delivery === 'sftp')
    throw conflict(`no file to read: upload one to the integration's SFTP inbox first`);
  if (isSyncing(app, integration.id)) throw conflict(`a sync of integration ${integration.id} is already running`);
  const pipeline = await loadPipeline(db, integration, plugin);
  const ledger = await RunLedger.open(db, integration, {
    trigger,
    fileName: file ? deliveredName(file) : null,
    templateVersion: pipeline.templateVersion,
    onProgress: options.onProgress,
  });
  const done = app.background.track(
    'sync',
    integration.id,
    execute(app, ledger, { integration, plugin, file }, pipeline, fromInbox),
  );
  return { runId: ledger.runId, done };
}

/** Starts a run when the integration's inbox holds a file its pattern accepts (an SFTP upload just closed). */
export async function startIfPending(app: SyncServices, integrationId: string, trigger: SyncTrigger): Promise<void> {
  const integration = await app.database.prisma.integration.findUnique({
    where: { id: integrationId },
    select: { id: true, config: true, pluginKey: true, enabled: true },
  });
  if (
    !integration?.enabled ||
    isSyncing(app, integrationId) ||
    !(await pendingFiles(app.feeds.dataDir, integration)).length
  )
    return;
  await startSync(app, integrationId, trigger);
}

async function execute(
  app: SyncServices,
  ledger: RunLedger,
  source: FeedSource,
  pipeline: Pipeline,
  fromInbox: boolean,
): Promise<void> {
  const { integration, plugin, file } = source;
  const { counts } = ledger;
  let writing: Promise<void> = Promise.resolve();
  try {
    const dealer = await app.database.prisma.dealer.findUniqueOrThrow({
      where: { id: integration.dealerId },
      select: { sourcePriority: true },
    });
    const feed: FeedContext = {
      dealerGroupId: integration.dealerGroupId,
      dealerId: integration.dealerId,
      source: integration.source,
      integrationId: integration.id,
      syncRunId: ledger.runId,
      strategy: integration.strategy,
      trackHistory: integration.trackHistory,
      priority: dealer.sourcePriority as SourcePriority,
    };
    const writer = batchWriter(app, plugin, feed, integration);
    // Duplicates are caught within a batch here, and across batches by the writers (keys already
    // written by this run), so memory stays flat however long the file.
    let seen = new Map<string, number>();
    let mentioned: string[] = [];
    let batch: Array<{ line: number; record: unknown }> = [];
    let errors: RowError[] = [];

    // The database and this process work side by side: while one batch commits, the next may be
    // written (vehicles; see writeVehicleBatch for how two batches of one rooftop keep out of each
    // other's way) and the one after it is read and parsed. Other records are written one batch
    // after the other, each once the one before it has committed. Errors are reported in file order.
    let before: Promise<void> = Promise.resolve();
    const flush = async () => {
      const entries = batch;
      const names = mentioned;
      const rowErrors = errors;
      batch = [];
      seen = new Map();
      mentioned = [];
      errors = [];
      const previous = writing;
      await (writer.overlaps ? before : previous);
      before = previous;
      const written =
        entries.length || names.length ? writer.write(entries, names, counts, rowErrors) : Promise.resolve();
      writing = (async () => {
        // Both settle before this batch counts as ended, so a failed run never leaves one writing.
        const [own, earlier] = await Promise.allSettled([written, previous]);
        if (earlier.status === 'rejected') throw earlier.reason;
        if (own.status === 'rejected') throw own.reason;
        await writer.afterBatch(counts);
        await ledger.report(rowErrors);
      })();
      // Its failure surfaces where it is awaited: at the next flush or after the last row.
      writing.catch(() => {});
    };

    // Short slices: the batch being written waits for this loop to yield before each of its
    // statements can be sent, so a long slice adds its length to every round trip.
    const breathe = timeSlicer(2);
    for await (const row of pipelineRows(
      app,
      { ...source, onProgress: (read) => Object.assign(ledger.progress, read) },
      pipeline,
    )) {
      counts.rowsRead += 1;
      const { outcome } = row;
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
          errors.push({
            row: row.line,
            field: null,
            message: `duplicate of line ${first} (same ${plugin.target === 'vehicles' ? 'VIN' : plugin.target === 'sales' ? 'deal number' : 'id'}); the first one was kept`,
            raw: row.values,
          });
        } else {
          seen.set(key, row.line);
          batch.push({ line: row.line, record: outcome.record });
          if (outcome.flags.length) {
            counts.flagged += 1;
            errors.push({
              row: row.line,
              field: null,
              message: outcome.flags.join('; '),
              raw: row.values,
              kind: 'flag',
            });
          }
        }
      }
      if (batch.length >= BATCH_ROWS || errors.length >= BATCH_ROWS) await flush();
    }
    await flush();
    await writing;

    await writer.finish(counts);
    await ledger.report([]);
    if (file && fromInbox) await markProcessed(app.feeds.dataDir, integration.id, file);
    await ledger.succeed(integration.id, file ? deliveredName(file) : null);
  } catch (error) {
    const message =
      error instanceof FeedError
        ? error.message
        : 'internal error while syncing; the data holds the batches committed before it';
    if (!(error instanceof FeedError))
      app.logger.error('sync failed', { runId: ledger.runId, integrationId: integration.id, error });
    // A batch still being written when reading failed: the run ends once it has committed or not.
    await writing.catch(() => {});
    await ledger.fail(message);
    if (file && fromInbox && error instanceof FeedError)
      await markProcessed(app.feeds.dataDir, integration.id, file).catch(() => {});
  }
}

/**
 * Where a run's records go: vehicles into the multi-source merge (with the sold grace period once
 * the feed is read), calls, leads and deals into their tables (then source resolution and deal links).
 */
function batchWriter(app: SyncServices, plugin: PluginDefinition, feed: FeedContext, integration: Integration) {
  const { pool } = app.database;
  const table = plugin.target === 'vehicles' ? 'vehicles, vehicle_source_records, vehicle_conflicts' : plugin.target;
  const provider =
    plugin.target === 'calls'
      ? String((integration.config as Record<string, unknown>).provider ?? 'call_tracking')
      : plugin.target === 'leads'
        ? 'adf'
        : integration.source;
  let analyzed = false;
  const turns = new BatchTurns();
  return {
    /** Whether a batch may be written while the one before it commits. */
    overlaps: plugin.target === 'vehicles',
    async write(
      batch: Array<{ line: number; record: unknown }>,
      mentioned: string[],
      counts: RunCounts,
      errors: RowError[],
    ) {
      const records = batch.map((entry) => entry.record);
      await inTransaction(
        pool,
        async (client) => {
          if (plugin.target === 'vehicles') {
            const outcome = await writeVehicleBatch(
              client,
              feed,
              records as VehicleRecord[],
              mentioned,
              new Date(),
              turns,
            );
            counts.created += outcome.created;
            counts.updated += outcome.updated;
            counts.unchanged += outcome.unchanged;
            counts.returned += outcome.returned;
            counts.skipped += outcome.skipped.length;
            const lineOf = new Map(batch.map((entry) => [(entry.record as VehicleRecord).vin, entry.line]));
            for (const skip of outcome.skipped)
              errors.push({
                row: lineOf.get(skip.vin) ?? 0,
                field: skip.reason.startsWith('condition') ? 'condition' : null,
                message: skip.reason,
                raw: { vin: skip.vin },
              });
            errors.sort((a, b) => a.row - b.row);
          } else {
            const outcome = await upsertActivity(
              client,
              plugin.target,
              { dealerGroupId: feed.dealerGroupId, dealerId: feed.dealerId, provider },
              records as Array<CallRecord | LeadRecord | SaleRecord>,
            );
            counts.created += outcome.created;
            counts.updated += outcome.updated;
            counts.unchanged += outcome.unchanged;
          }
        },
        { syncRunId: feed.syncRunId },
      );
    },
    /**
     * A first large batch into a rooftop can change the tables' shape (an empty rooftop filling up);
     * fresh statistics keep the next batches' plans sound.
     */
    async afterBatch(counts: RunCounts) {
      if (analyzed || counts.created + counts.updated < 1000) return;
      analyzed = true;
      await pool.query(`ANALYZE ${table}`);
    },
    /** After every row: the sold grace period for inventory feeds, source resolution and deal links for activity. */
    async finish(counts: RunCounts) {
      if (plugin.target === 'vehicles') {
        counts.presumedSold = await inTransaction(
          pool,
          (client) =>
            applySoldGrace(client, feed, { syncs: integration.soldGraceSyncs, hours: integration.soldGraceHours }),
          { syncRunId: feed.syncRunId },
        );
      } else {
        // Sources and deal links found for the run's records are the run's doing: their events name it.
        const cause = { syncRunId: feed.syncRunId };
        await inCausedTransaction(
          app.database.prisma,
          cause,
          async (tx) => {
            if (plugin.target === 'calls' || plugin.target === 'leads')
              await enrich(tx, [integration.dealerGroupId], plugin.target, { dealer_id: [integration.dealerId] });
            await linkLeadsAndCalls(tx, [integration.dealerGroupId]);
          },
          { timeout: SET_PASS_TIMEOUT_MS },
        );
      }
      // Planner statistics go stale after a large load; refresh them so the API keeps its plans.
      if (counts.created + counts.updated > 10_000)
        await pool.query(
          `ANALYZE ${plugin.target === 'vehicles' ? 'vehicles, vehicle_source_records' : plugin.target}`,
        );
    },
  };
}

function recordKey(target: PluginDefinition['target'], record: unknown): string {
  const value = record as Record<string, unknown>;
  return String(target === 'vehicles' ? value.vin : target === 'sales' ? value.deal_number : value.external_id);
}
