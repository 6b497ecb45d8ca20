import { Prisma } from '../generated/prisma/client';
import type { Db } from '../db/database';
import type { Logger } from '../logger';

/**
 * Remembers when each API key was last used and writes it in one statement every interval
 * (30 s by default), so "last used" is accurate to the minute without a write per request. A key's
 * first use is written at once: an admin checking whether a partner's new key works sees it.
 */
export class LastUsedRecorder {
  private pending = new Map<string, Date>();
  private timer: NodeJS.Timeout;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
    flushMs: number,
  ) {
    this.timer = setInterval(() => void this.flush(), flushMs);
    this.timer.unref();
  }

  async touch(apiKeyId: string, firstUse = false): Promise<void> {
    const at = new Date();
    if (!firstUse) {
      this.pending.set(apiKeyId, at);
      return;
    }
    await this.db
      .$executeRaw`/* firstApiKeyUse */ UPDATE api_keys SET last_used_at = ${at} WHERE id = ${apiKeyId}::uuid AND last_used_at IS NULL`.catch(
      () => this.pending.set(apiKeyId, at),
    );
  }

  async flush(): Promise<void> {
    if (!this.pending.size) return;
    const batch = this.pending;
    this.pending = new Map();
    const rows = [...batch].map(([id, at]) => Prisma.sql`(${id}::uuid, ${at}::timestamptz)`);
    try {
      await this.db
        .$executeRaw`/* touchApiKeys */ UPDATE api_keys k SET last_used_at = v.at FROM (VALUES ${Prisma.join(rows)}) AS v(id, at)
        WHERE k.id = v.id AND (k.last_used_at IS NULL OR k.last_used_at < v.at)`;
    } catch (error) {
      for (const [id, at] of batch) if (!this.pending.has(id)) this.pending.set(id, at);
      this.logger.warn('could not record API key use; will retry', { error: (error as Error).message });
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
