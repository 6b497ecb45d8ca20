import { Prisma } from '../generated/prisma/client';
import type { Db } from '../db/database';
import type { Logger } from '../logger';
import type { RequestCredential } from '../auth/authenticate';

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
  credential?: RequestCredential | null;
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

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    flushMs: number,
  ) {
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
          await this.write(batch);
          this.pending.splice(0, batch.length);
        } catch (error) {
          this.logger.warn('request log write failed; will retry', {
            error: (error as Error).message,
            pending: this.pending.length,
          });
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

  /** One INSERT for a batch; credentials without a session are resolved to their key, user and dealer groups here. */
  private async write(batch: RequestLogEntry[]): Promise<void> {
    const rows = batch.map(({ credential, ...entry }) => ({
      ...entry,
      durationMs: Math.round(entry.durationMs * 100) / 100,
      userId: entry.userId ?? (credential && 'userId' in credential ? credential.userId : null),
      apiKeyHash: credential && 'apiKeyHash' in credential ? credential.apiKeyHash : null,
    }));
    await this.db.$executeRaw(Prisma.sql`/* requestLogBatch */
      INSERT INTO request_logs (request_id, occurred_at, method, path, operation, status, duration_ms, ip, user_agent, user_id, api_key_id, dealer_group_ids)
      SELECT e."requestId", e."occurredAt", e.method, e.path, e.operation, e.status, e."durationMs", e.ip, e."userAgent", e."userId",
        COALESCE(e."apiKeyId", k.id),
        CASE
          WHEN cardinality(e."dealerGroupIds") > 0 THEN e."dealerGroupIds"
          WHEN k.id IS NOT NULL THEN ARRAY(SELECT g.dealer_group_id FROM api_key_dealer_groups g WHERE g.api_key_id = k.id)
          WHEN e."userId" IS NOT NULL THEN ARRAY(SELECT g.dealer_group_id FROM user_dealer_groups g WHERE g.user_id = e."userId")
          ELSE '{}'::uuid[]
        END
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS e("requestId" text, "occurredAt" timestamptz, method text, path text, operation text,
        status int, "durationMs" float8, ip text, "userAgent" text, "userId" uuid, "apiKeyId" uuid, "apiKeyHash" text, "dealerGroupIds" uuid[])
      LEFT JOIN api_keys k ON e."apiKeyId" IS NULL AND e."apiKeyHash" IS NOT NULL AND k.key_hash = e."apiKeyHash"`);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
