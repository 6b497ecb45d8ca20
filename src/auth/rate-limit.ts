import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { AppError } from '../errors';

/** The outcome of counting one request against a key's hourly budget, as the headers report it. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  limited: boolean;
}

const WINDOW_SECONDS = 3600;

/**
 * Per-key hourly budgets shared by REST and GraphQL. In Redis (atomic counters, so several
 * instances share one budget exactly) when a client is given, else in memory (entries expire
 * with their window, so memory stays bounded).
 */
export class KeyRateLimiter {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(private readonly redis: Redis | null) {}

  private limiterFor(points: number): RateLimiterAbstract {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      const options = { keyPrefix: `ddp:rl:key:${points}`, points, duration: WINDOW_SECONDS };
      limiter = this.redis
        ? new RateLimiterRedis({
            ...options,
            storeClient: this.redis,
            insuranceLimiter: new RateLimiterMemory(options),
          })
        : new RateLimiterMemory(options);
      this.limiters.set(points, limiter);
    }
    return limiter;
  }

  /** Counts `points` requests against the key's hour (a GraphQL request counts one per root field). */
  async consume(apiKeyId: string, limit: number, points = 1): Promise<RateLimitState> {
    try {
      const result = await this.limiterFor(limit).consume(apiKeyId, points);
      return {
        limit,
        remaining: result.remainingPoints,
        resetSeconds: Math.ceil(result.msBeforeNext / 1000),
        limited: false,
      };
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      return { limit, remaining: 0, resetSeconds: Math.max(1, Math.ceil(error.msBeforeNext / 1000)), limited: true };
    }
  }

  /**
   * Gives back `points` counted against the key's hour by a request that turned out free (a 304).
   * One atomic step, like counting, so concurrent requests on other instances lose nothing.
   */
  async refund(apiKeyId: string, limit: number, points: number): Promise<RateLimitState> {
    const result = await this.limiterFor(limit).reward(apiKeyId, points);
    return {
      limit,
      // A window that ended in between restarts below zero; the key still has no more than its limit.
      remaining: Math.min(limit, result.remainingPoints),
      resetSeconds: Math.ceil(result.msBeforeNext / 1000),
      limited: false,
    };
  }
}

export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  const reset = String(state.resetSeconds);
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(state.limit),
    'RateLimit-Remaining': String(state.remaining),
    'RateLimit-Reset': reset,
    'X-RateLimit-Limit': String(state.limit),
    'X-RateLimit-Remaining': String(state.remaining),
    // GitHub's convention: the reset as a Unix time in seconds.
    'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + state.resetSeconds),
  };
  if (state.limited) headers['Retry-After'] = reset;
  return headers;
}

export const rateLimited = (state: RateLimitState) =>
  new AppError(
    429,
    'RATE_LIMITED',
    `rate limit of ${state.limit} requests per hour reached; retry in ${state.resetSeconds} s`,
    { retryAfterSeconds: state.resetSeconds },
  );

/** Slows password guessing: failures are counted per account and per IP address. */
export class LoginThrottle {
  private readonly perAccount: RateLimiterAbstract;
  private readonly perIp: RateLimiterAbstract;

  constructor(redis: Redis | null, limits = { account: 10, ip: 50, windowSeconds: 900 }) {
    const make = (keyPrefix: string, points: number) => {
      const options = { keyPrefix, points, duration: limits.windowSeconds };
      return redis
        ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: new RateLimiterMemory(options) })
        : new RateLimiterMemory(options);
    };
    this.perAccount = make('ddp:login:account', limits.account);
    this.perIp = make('ddp:login:ip', limits.ip);
  }

  /** Seconds to wait before another attempt, or 0 when one is allowed now. */
  async blockedFor(email: string, ip: string | null): Promise<number> {
    const [account, address] = await Promise.all([this.perAccount.get(email), ip ? this.perIp.get(ip) : null]);
    const over = [
      [account, this.perAccount.points],
      [address, this.perIp.points],
    ] as const;
    let wait = 0;
    for (const [result, points] of over) {
      if (result && result.consumedPoints >= points) wait = Math.max(wait, Math.ceil(result.msBeforeNext / 1000));
    }
    return wait;
  }

  async recordFailure(email: string, ip: string | null): Promise<void> {
    await Promise.all([this.perAccount.penalty(email, 1), ip ? this.perIp.penalty(ip, 1) : null]);
  }

  async recordSuccess(email: string): Promise<void> {
    await this.perAccount.delete(email);
  }
}
