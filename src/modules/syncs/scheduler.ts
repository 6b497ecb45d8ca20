import { PLUGINS } from '../plugins/registry';
import { failStaleRuns } from './run-ledger';
import { isSyncing, startSync, type SyncServices } from './sync-run';
import { pendingFiles } from './inbox';

/**
 * In-process scheduling: pulls that are due, files waiting in SFTP inboxes, and runs left
 * "running" by a server that stopped. With several instances each due pull is claimed by exactly
 * one (the claim moves next_sync_at under FOR UPDATE SKIP LOCKED), and a run's start holds the
 * integration's advisory lock, so nothing runs twice.
 */
export class SyncScheduler {
  private timer: NodeJS.Timeout | null = null;
  private tick: Promise<void> | null = null;

  constructor(
    private readonly app: SyncServices,
    private readonly intervalMs: number,
  ) {}

  start() {
    this.timer = setInterval(() => {
      this.tick ??= this.runOnce()
        .catch((error) => this.app.logger.warn('scheduler tick failed', { error }))
        .finally(() => {
          this.tick = null;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.tick;
  }

  async runOnce(): Promise<void> {
    const db = this.app.database.prisma;
    await failStaleRuns(db);
    const due = await db.$queryRaw<Array<{ id: string }>>`/* claimDuePulls */
      UPDATE integrations i SET next_sync_at = now() + make_interval(mins => i.schedule_minutes)
      WHERE i.id IN (SELECT id FROM integrations WHERE enabled AND disconnected_at IS NULL AND schedule_minutes IS NOT NULL AND next_sync_at <= now()
        ORDER BY next_sync_at LIMIT 20 FOR UPDATE SKIP LOCKED)
      RETURNING i.id`;
    for (const { id } of due) await this.launch(id, 'schedule');
    const fileFeeds = await db.integration.findMany({
      where: {
        enabled: true,
        disconnectedAt: null,
        pluginKey: { in: PLUGINS.filter((plugin) => plugin.delivery === 'sftp').map((plugin) => plugin.key) },
      },
      select: { id: true, config: true, pluginKey: true },
    });
    for (const integration of fileFeeds) {
      if (isSyncing(this.app, integration.id)) continue;
      // A file still being written is left for the next tick.
      if ((await pendingFiles(this.app.feeds.dataDir, integration, 2000)).length)
        await this.launch(integration.id, 'sftp');
    }
  }

  private async launch(id: string, trigger: 'schedule' | 'sftp') {
    try {
      await startSync(this.app, id, trigger);
    } catch (error) {
      const status = (error as { extensions?: { http?: { status?: number } } }).extensions?.http?.status;
      if (status !== 409) this.app.logger.warn('scheduled sync did not start', { integrationId: id, error });
    }
  }
}
