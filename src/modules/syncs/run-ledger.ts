import type { Db } from '../../db/database';
import type { Integration } from '../../generated/prisma/client';
import { conflict } from '../../errors';
import type { ReadProgress } from './parsers';

/**
 * The record of one sync run: opened under the integration's lock (one run at a time, across
 * instances), kept alive by a heartbeat, its counts and row errors written batch by batch, and
 * finished once, succeeded or failed.
 */

/** A running run whose heartbeat is older than this belonged to a server that stopped. */
export const STALE_RUN_SECONDS = 120;
export const INTERRUPTED = 'interrupted: the server running it stopped before it finished';
const HEARTBEAT_MS = 15_000;
const MAX_STORED_ROW_ERRORS = 10_000;

export type SyncTrigger = 'manual' | 'schedule' | 'sftp' | 'cli';

export interface RunCounts {
  rowsRead: number;
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  failed: number;
  flagged: number;
  presumedSold: number;
  returned: number;
}
export interface RunProgress extends RunCounts {
  bytesRead: number;
  bytesTotal: number | null;
}

export interface RowError {
  row: number;
  field: string | null;
  message: string;
  raw: unknown;
  kind?: 'error' | 'flag';
}

/** Marks runs failed whose server stopped heartbeating (a crash, a kill), so their feeds can run again. */
export async function failStaleRuns(db: Db): Promise<void> {
  await db.$executeRaw`/* failStaleRuns */ UPDATE sync_runs SET status = 'failed', finished_at = now(), error = ${INTERRUPTED}
    WHERE status = 'running' AND heartbeat_at < now() - make_interval(secs => ${STALE_RUN_SECONDS})`;
}

export class RunLedger {
  readonly counts: RunCounts = {
    rowsRead: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    skipped: 0,
    failed: 0,
    flagged: 0,
    presumedSold: 0,
    returned: 0,
  };
  readonly progress: ReadProgress = { bytesRead: 0, bytesTotal: null };
  private storedErrors = 0;
  private readonly heartbeat: NodeJS.Timeout;

  private constructor(
    private readonly db: Db,
    readonly runId: string,
    private readonly onProgress?: (progress: RunProgress) => void,
  ) {
    this.heartbeat = setInterval(() => {
      db.syncRun.update({ where: { id: runId }, data: { heartbeatAt: new Date() } }).catch(() => {});
    }, HEARTBEAT_MS);
  }

  /**
   * Opens a run, or answers 409 when one is under way for the integration. The check and the insert
   * hold a transaction-scoped advisory lock, so two instances cannot both start one; a run whose
   * server stopped heartbeating is marked failed first.
   */
  static async open(
    db: Db,
    integration: Pick<Integration, 'id' | 'dealerGroupId' | 'templateId'>,
    run: {
      trigger: SyncTrigger;
      fileName: string | null;
      templateVersion: number | null;
      onProgress?: (progress: RunProgress) => void;
    },
  ): Promise<RunLedger> {
    const runId = await db.$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`sync:${integration.id}`}))`;
      const running = await tx.syncRun.findFirst({ where: { integrationId: integration.id, status: 'running' } });
      if (running) {
        if (Date.now() - running.heartbeatAt.getTime() < STALE_RUN_SECONDS * 1000)
          throw conflict(`a sync of integration ${integration.id} is already running (run ${running.id})`);
        await tx.syncRun.update({
          where: { id: running.id },
          data: { status: 'failed', error: INTERRUPTED, finishedAt: new Date() },
        });
      }
      const created = await tx.syncRun.create({
        data: {
          integrationId: integration.id,
          dealerGroupId: integration.dealerGroupId,
          trigger: run.trigger,
          fileName: run.fileName,
          templateId: integration.templateId,
          templateVersion: run.templateVersion,
        },
      });
      return created.id;
    });
    return new RunLedger(db, runId, run.onProgress);
  }

  /** Writes the counts and read progress so far with a batch's row errors (the first 10,000 of a run are kept). */
  async report(errors: RowError[]): Promise<void> {
    const keep = errors.slice(0, Math.max(0, MAX_STORED_ROW_ERRORS - this.storedErrors));
    this.storedErrors += keep.length;
    if (keep.length) {
      await this.db.syncRowError.createMany({
        data: keep.map((error) => ({
          syncRunId: this.runId,
          row: error.row,
          kind: error.kind ?? 'error',
          field: error.field,
          message: error.message,
          raw: error.raw as object,
        })),
      });
    }
    await this.db.syncRun.update({
      where: { id: this.runId },
      data: {
        ...this.counts,
        bytesRead: BigInt(this.progress.bytesRead),
        bytesTotal: this.progress.bytesTotal === null ? null : BigInt(this.progress.bytesTotal),
        heartbeatAt: new Date(),
      },
    });
    this.onProgress?.({ ...this.counts, ...this.progress });
  }

  /** Finishes the run as succeeded; a run that read a file records it on the integration. */
  async succeed(integrationId: string, fileName: string | null): Promise<void> {
    clearInterval(this.heartbeat);
    const finishedAt = new Date();
    await this.db.$transaction([
      this.db.syncRun.update({ where: { id: this.runId }, data: { status: 'succeeded', finishedAt } }),
      this.db.integration.update({
        where: { id: integrationId },
        data: { ...(fileName ? { lastFileAt: finishedAt, lastFileName: fileName } : {}) },
      }),
    ]);
  }

  /** Finishes the run as failed with what the feed's owner should read; never throws. */
  async fail(message: string): Promise<void> {
    clearInterval(this.heartbeat);
    await this.db.syncRun
      .update({
        where: { id: this.runId },
        data: { status: 'failed', error: message, finishedAt: new Date(), ...this.counts },
      })
      .catch(() => {});
  }
}
