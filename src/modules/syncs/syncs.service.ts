import type { Prisma, Integration } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import type { AppServices } from '../../app-services';
import { badInput, conflict } from '../../errors';
import { pageArgs, pageRef } from '../../pagination';
import { findInTenant, inCallerGroups } from '../../tenancy';
import { oneOf } from '../../validation';
import { pluginByKey } from '../plugins/registry';
import { FeedError } from './parsers';
import { deliveredName, fileToRead, newestFile } from './inbox';
import { loadPipeline, pipelineRows, type Pipeline } from './pipeline';
import { startSync, type SyncServices } from './sync-run';

/**
 * The syncs module's front door: what other modules and the app use of the sync engine (starting
 * runs, probing a feed, sampling its rows, its inbox) and the sync runs a caller may read.
 */

export { isSyncing, startIfPending, startSync, type SyncServices } from './sync-run';
export { inboxOf } from './inbox';
export type { RunProgress, SyncTrigger } from './run-ledger';

const SAMPLE_ROWS = 5;

/** Starts a run of one of the caller's integrations now; with `wait`, answers when it ends (up to two minutes). */
export async function triggerSync(
  app: SyncServices,
  integration: Pick<Integration, 'id' | 'enabled'>,
  wait: boolean,
): Promise<string> {
  if (!integration.enabled)
    throw conflict(`integration ${integration.id} is disabled; enable it with PATCH /integrations/${integration.id}`);
  try {
    const { runId, done } = await startSync(app, integration.id, 'manual');
    if (wait) await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 120_000))]);
    return runId;
  } catch (error) {
    if (error instanceof FeedError) throw badInput('integration', error.message);
    throw error;
  }
}

export interface ConnectionTest {
  ok: boolean;
  message: string;
  file_name: string | null;
  headers: string[];
  sample: Array<{ row: number; record: unknown; error: string | null }>;
}

/** Reaches the feed and runs its first rows through the sync's own pipeline, rules included; changes nothing. */
export async function probeFeed(
  app: Pick<AppServices, 'database' | 'secrets' | 'feeds'>,
  integration: Integration,
): Promise<ConnectionTest> {
  const plugin = pluginByKey(integration.pluginKey)!;
  const { file } = plugin.delivery === 'sftp' ? await fileToRead(app.feeds.dataDir, integration) : { file: null };
  if (plugin.delivery === 'sftp' && !file)
    return {
      ok: false,
      message: "no file has arrived yet: upload one to the integration's SFTP inbox",
      file_name: null,
      headers: [],
      sample: [],
    };
  const fileName = file ? deliveredName(file) : null;
  const pipeline = await loadPipeline(app.database.prisma, integration, plugin);
  const sample: ConnectionTest['sample'] = [];
  let headers: string[] = [];
  try {
    for await (const { line, values, outcome } of pipelineRows(
      app,
      { integration, plugin, file, probe: true },
      pipeline,
    )) {
      if (!headers.length) headers = Object.keys(values);
      if (outcome.kind === 'record') sample.push({ row: line, record: outcome.record, error: null });
      else if (outcome.kind === 'failed') sample.push({ row: line, record: null, error: outcome.message });
      else
        sample.push({
          row: line,
          record: null,
          error: `skipped by a transformation rule${outcome.reason ? `: ${outcome.reason}` : ''}`,
        });
      if (sample.length >= SAMPLE_ROWS) break;
    }
  } catch (error) {
    if (error instanceof FeedError) return { ok: false, message: error.message, file_name: fileName, headers, sample };
    throw error;
  }
  const good = sample.filter((entry) => !entry.error).length;
  return {
    ok: good > 0,
    message: sample.length
      ? `read ${sample.length} sample rows, ${good} valid`
      : 'reached the feed, but it holds no rows',
    file_name: fileName,
    headers,
    sample,
  };
}

/** The first rows of a feed's newest file (or of its API) as the feed sent them, with the pipeline they went through; null when no file has arrived. */
export async function sampleFeed(
  app: Pick<AppServices, 'database' | 'secrets' | 'feeds'>,
  integration: Integration,
): Promise<{ fileName: string | null; rows: Array<Record<string, unknown>>; pipeline: Pipeline } | null> {
  const plugin = pluginByKey(integration.pluginKey)!;
  const file = plugin.delivery === 'sftp' ? await newestFile(app.feeds.dataDir, integration) : null;
  if (plugin.delivery === 'sftp' && !file) return null;
  const pipeline = await loadPipeline(app.database.prisma, integration, plugin);
  const rows: Array<Record<string, unknown>> = [];
  for await (const { values } of pipelineRows(app, { integration, plugin, file, probe: true }, pipeline)) {
    rows.push(values);
    if (rows.length >= SAMPLE_ROWS) break;
  }
  return { fileName: file ? deliveredName(file) : null, rows, pipeline };
}

/** A page of an integration's runs, newest first; the caller has checked the integration is theirs. */
export async function syncRunPage(
  caller: Caller,
  integrationId: string,
  args: { status?: string | null; limit?: number | null; offset?: number | null },
) {
  const { limit, offset } = pageArgs(args);
  const where: Prisma.SyncRunWhereInput = {
    integrationId,
    dealerGroupId: inCallerGroups(caller.session),
    ...(args.status ? { status: oneOf('status', args.status, ['running', 'succeeded', 'failed'] as const) } : {}),
  };
  return pageRef(where, { limit, offset }, () => caller.db.syncRun.count({ where }));
}

export function findSyncRun(caller: Pick<Caller, 'db' | 'session'>, id: string) {
  return findInTenant(caller.session, 'sync run', id, (where) => caller.db.syncRun.findFirst({ where }));
}
