import type { Db } from '../db/database';
import type { Logger } from '../logger';

/** One API request as the log keeps it. */
export interface RequestLogEntry {
  requestId: string;
  occurredAt: Date;
  method: string;
  path: string;
  operation: string | null;
  status: number;
  durationMs: number;
  ip: string | null;
  userAgent: string | null;
  userId: string | null;
  apiKeyId: string | null;
  dealerGroupIds: string[];
}

const BATCH_SIZE = 500;
const MAX_PENDING = 50_000;

/**
 * Collects request log entries in memory and writes them in batches (one INSERT per batch), so
 * logging never adds a database round trip to a request. `close()` writes what is left.
 */
export class RequestLogWriter {
  private pending: RequestLogEntry[] = [];
  private timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private dropped = 0;

  constructor(private readonly db: Db, private readonly logger: Logger, flushMs: number) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  record(entry: RequestLogEntry): void {
    this.pending.push(entry);
    if (this.pending.length > MAX_PENDING) {
      // The database has been unreachable for a long while; keep memory bounded.
      this.pending.splice(0, this.pending.length - MAX_PENDING);
      this.dropped += 1;
    }
    if (this.pending.length >= BATCH_SIZE) void this.flush();
  }

  /** Writes everything recorded so far; resolves when it is stored. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      while (this.pending.length) {
        const batch = this.pending.slice(0, BATCH_SIZE);
        try {
          await this.db.requestLog.createMany({ data: batch.map((entry) => ({ ...entry, durationMs: Math.round(entry.durationMs * 100) / 100 })) });
          this.pending.splice(0, batch.length);
        } catch (error) {
          this.logger.warn('request log write failed; will retry', { error: (error as Error).message, pending: this.pending.length });
          return;
        }
      }
      if (this.dropped) {
        this.logger.warn('request log entries dropped while the database was unreachable', { batches: this.dropped });
        this.dropped = 0;
      }
    });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
