import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Identity, Store } from 'graphql-rate-limit';
import type { Logger } from '../logger';

/**
 * The call logs behind the per-field rate limits (graphql-rate-limit's `Store`), atomic so that
 * exactly `max` calls get through a window however many requests or instances race.
 */

/** One limit as the store applies it; `fieldIdentity` names the limit (its bucket). */
export interface StoredLimit {
  max: number;
  windowMs: number;
}
export type LimitLookup = (bucket: string) => StoredLimit;

// Store contract: getForIdentity atomically prunes expired calls, records this one if fewer than max remain and returns the earlier ones; setForIdentity only refreshes the expiry.
/**
 * A `Store` for graphql-rate-limit, which reads a caller's log and then writes it back, so racing calls
 * could both pass: the decision is made in getForIdentity instead. When the window is full the earlier
 * calls come back stamped now, so the library's own window filter cannot turn a refusal into a pass.
 */
export interface FieldCallStore extends Store {
  getForIdentity(identity: Identity): Promise<readonly number[]>;
  setForIdentity(identity: Identity, timestamps: readonly number[], windowMs?: number): Promise<void>;
  /** Milliseconds until the oldest counted call leaves the window (0 when there is room). */
  retryAfterMs(identity: Identity): Promise<number>;
  close(): void;
}

const keyOf = (identity: Identity) => `${identity.fieldIdentity}\u0000${identity.contextIdentity}`;

/** The verdict as the library expects it: the earlier calls when admitted, `max` fresh stamps when full. */
const answer = (admitted: boolean, earlier: readonly number[], now: number): number[] =>
  admitted ? [...earlier] : earlier.map(() => now);

/** In-process call logs: pruned on every access and swept periodically, so memory holds only calls still inside their window. */
export class MemoryFieldCallStore implements FieldCallStore {
  private readonly logs = new Map<string, { windowMs: number; calls: number[] }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly limitOf: LimitLookup,
    sweepEveryMs = 60_000,
  ) {
    this.sweeper = setInterval(() => this.sweep(), sweepEveryMs);
    this.sweeper.unref();
  }

  async getForIdentity(identity: Identity): Promise<readonly number[]> {
    return this.admit(identity, Date.now());
  }

  /** The synchronous heart of getForIdentity: nothing else runs between the read and the write. */
  admit(identity: Identity, now: number): number[] {
    const { max, windowMs } = this.limitOf(identity.fieldIdentity);
    const key = keyOf(identity);
    const earlier = (this.logs.get(key)?.calls ?? []).filter((at) => at > now - windowMs);
    const admitted = earlier.length < max;
    const calls = admitted ? [...earlier, now] : earlier;
    if (calls.length) this.logs.set(key, { windowMs, calls });
    else this.logs.delete(key);
    return answer(admitted, earlier, now);
  }

  async setForIdentity(): Promise<void> {
    // Entries expire by the sweep and by pruning on access; there is nothing to write.
  }

  async retryAfterMs(identity: Identity): Promise<number> {
    const { max, windowMs } = this.limitOf(identity.fieldIdentity);
    const now = Date.now();
    const calls = (this.logs.get(keyOf(identity))?.calls ?? []).filter((at) => at > now - windowMs);
    return calls.length < max ? 0 : calls[0]! + windowMs - now;
  }

  /** Drops every call that has left its window, and the logs left empty. */
  sweep(now = Date.now()): void {
    for (const [key, log] of this.logs) {
      const calls = log.calls.filter((at) => at > now - log.windowMs);
      if (calls.length) log.calls = calls;
      else this.logs.delete(key);
    }
  }

  /** How many callers' logs are held, for tests of the bound. */
  get size(): number {
    return this.logs.size;
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}

/*
 * One sorted set per caller and limit (score = call time in ms), expiring with its window.
 * KEYS[1] the set; ARGV now, window ms, max, a unique member. Returns { admitted (1/0), earlier call times… }.
 */
const ADMIT = `
local now, window, max = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local earlier = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local admitted = 0
if #earlier / 2 < max then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  admitted = 1
end
redis.call('PEXPIRE', KEYS[1], window)
local result = { admitted }
for i = 2, #earlier, 2 do result[#result + 1] = earlier[i] end
return result`;

/** Call logs in Redis shared by every instance (keys `ddp:fl:<limit>:<caller>`); in memory while Redis fails. */
export class RedisFieldCallStore implements FieldCallStore {
  private readonly fallback: MemoryFieldCallStore;
  private warned = false;

  constructor(
    private readonly redis: Redis,
    private readonly limitOf: LimitLookup,
    private readonly logger?: Logger,
  ) {
    this.fallback = new MemoryFieldCallStore(limitOf);
  }

  private key(identity: Identity): string {
    return `ddp:fl:${identity.fieldIdentity}:${identity.contextIdentity}`;
  }

  async getForIdentity(identity: Identity): Promise<readonly number[]> {
    const { max, windowMs } = this.limitOf(identity.fieldIdentity);
    const now = Date.now();
    try {
      const [admitted, ...earlier] = (await this.redis.eval(
        ADMIT,
        1,
        this.key(identity),
        now,
        windowMs,
        max,
        `${now}:${randomBytes(8).toString('hex')}`,
      )) as [number, ...string[]];
      this.warned = false;
      return answer(admitted === 1, earlier.map(Number), now);
    } catch (error) {
      this.redisFailed(error);
      return this.fallback.admit(identity, now);
    }
  }

  async setForIdentity(identity: Identity, _timestamps: readonly number[], windowMs?: number): Promise<void> {
    await this.redis
      .pexpire(this.key(identity), windowMs ?? this.limitOf(identity.fieldIdentity).windowMs)
      .catch((error) => this.redisFailed(error));
  }

  async retryAfterMs(identity: Identity): Promise<number> {
    const { max, windowMs } = this.limitOf(identity.fieldIdentity);
    const now = Date.now();
    try {
      const key = this.key(identity);
      const [count, oldest] = await Promise.all([
        this.redis.zcount(key, `(${now - windowMs}`, '+inf'),
        this.redis.zrangebyscore(key, `(${now - windowMs}`, '+inf', 'WITHSCORES', 'LIMIT', 0, 1),
      ]);
      return count < max || oldest[1] === undefined ? 0 : Math.max(0, Number(oldest[1]) + windowMs - now);
    } catch (error) {
      this.redisFailed(error);
      return this.fallback.retryAfterMs(identity);
    }
  }

  /** Warns once per outage. */
  private redisFailed(error: unknown): void {
    if (this.warned) return;
    this.warned = true;
    this.logger?.warn("field rate limits fall back to this instance's memory while Redis fails", {
      error: (error as Error).message,
    });
  }

  close(): void {
    this.fallback.close();
  }
}
