import type { Database } from '../../db/database';
import type { Logger } from '../../logger';
import { PLUGINS } from '../plugins/registry';
import { INTERRUPTED, STALE_RUN_SECONDS, type SyncRunner } from './sync-runner';

/**
 * In-process scheduling: pulls that are due, files waiting in SFTP inboxes, and runs left
 * "running" by a server that stopped. With several instances each due pull is claimed by exactly
 * one (the claim moves next_sync_at under FOR UPDATE SKIP LOCKED), and a run's start holds the
 * integration's advisory lock, so nothing runs twice.
 */
export class SyncScheduler {
  private timer: NodeJS.Timeout | null = null;
  private tick: Promise<void> | null = null;

  constructor(private readonly database: Database, private readonly syncs: SyncRunner, private readonly logger: Logger, private readonly intervalMs: number) {}

  start() {
    this.timer = setInterval(() => {
      this.tick ??= this.runOnce().catch((error) => this.logger.warn('scheduler tick failed', { error })).finally(() => { this.tick = null; });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.tick;
  }

  async runOnce(): Promise<void> {
    const db = this.database.prisma;
    await db.$executeRaw`/* failStaleRuns */ UPDATE sync_runs SET status = 'failed', finished_at = now(), error = ${INTERRUPTED}
      WHERE status = 'running' AND heartbeat_at < now() - make_interval(secs => ${STALE_RUN_SECONDS})`;
    const due = await db.$queryRaw<Array<{ id: string }>>`/* claimDuePulls */
      UPDATE integrations i SET next_sync_at = now() + make_interval(mins => i.schedule_minutes)
      WHERE i.id IN (SELECT id FROM integrations WHERE enabled AND disconnected_at IS NULL AND schedule_minutes IS NOT NULL AND next_sync_at <= now()
        ORDER BY next_sync_at LIMIT 20 FOR UPDATE SKIP LOCKED)
      RETURNING i.id`;
    for (const { id } of due) await this.launch(id, 'schedule');
    const fileFeeds = await db.integration.findMany({
      where: { enabled: true, disconnectedAt: null, pluginKey: { in: PLUGINS.filter((plugin) => plugin.delivery === 'sftp').map((plugin) => plugin.key) } },
      select: { id: true, config: true, pluginKey: true },
    });
    for (const integration of fileFeeds) {
      if (this.syncs.isRunning(integration.id)) continue;
      // A file still being written is left for the next tick.
      if ((await this.syncs.pendingFiles(integration, 2000)).length) await this.launch(integration.id, 'sftp');
    }
  }

  private async launch(id: string, trigger: 'schedule' | 'sftp') {
    try {
      await this.syncs.start(id, trigger);
    } catch (error) {
      const status = (error as { extensions?: { http?: { status?: number } } }).extensions?.http?.status;
      if (status !== 409) this.logger.warn('scheduled sync did not start', { integrationId: id, error });
    }
  }
}
