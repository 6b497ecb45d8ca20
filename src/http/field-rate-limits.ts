import { defaultFieldResolver, type GraphQLResolveInfo, type GraphQLSchema } from 'graphql';
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { getGraphQLRateLimiter } from 'graphql-rate-limit';
import type { Redis } from 'ioredis';
import { AppError } from '../errors';
import type { Context } from '../context';
import type { Logger } from '../logger';
import {
  MemoryFieldCallStore,
  RedisFieldCallStore,
  type FieldCallStore,
  type StoredLimit,
} from './field-rate-limit-store';

/**
 * Per-caller limits on expensive fields, for users, API keys and anonymous callers alike. Each limit
 * is declared beside its field, with its route (`...operation('POST /dealers/match', …, { rateLimit: { … } })`,
 * operations.ts), as the field's `rateLimit` extension; the app wraps those fields' resolvers
 * once at start, so fields without one pay nothing. Every execution counts: aliases too, and REST
 * calls, which run through the same resolvers.
 */

/** A limit on one field, as declared in the module's schema file. */
export interface FieldRateLimit {
  /** What the caller is doing, as the 429 names it: "dealer matching". */
  operation: string;
  max: number;
  /** A number of seconds, minutes or hours: `30s`, `1m`, `1h`. */
  window: string;
  /** Fields naming the same bucket share one count; by default each field counts alone (`Query.matchDealers`). */
  bucket?: string;
  /** Counts only the calls whose arguments this accepts (`rangeLongerThan(90)`); the others pass free. */
  countsWhen?: (args: Record<string, unknown>) => boolean;
}

interface ResolvedLimit extends StoredLimit {
  operation: string;
  window: string;
  bucket: string;
}

const UNITS = { s: 1000, m: 60_000, h: 3_600_000 } as const;
const UNIT_NAMES = { s: 'second', m: 'minute', h: 'hour' } as const;

function windowMs(window: string): number {
  const match = /^([1-9]\d{0,4})([smh])$/.exec(window);
  if (!match) throw new Error(`rate limit window "${window}" must be a number of s, m or h, e.g. 1m`);
  return Number(match[1]) * UNITS[match[2] as keyof typeof UNITS];
}

/** "per minute", "per 5 minutes". */
function perWindow(window: string): string {
  const [, count, unit] = /^(\d+)([smh])$/.exec(window)!;
  const name = UNIT_NAMES[unit as keyof typeof UNIT_NAMES];
  return count === '1' ? `per ${name}` : `per ${count} ${name}s`;
}

/** Who is counted: the signed-in user, the API key, or for anonymous callers their address. */
export function callerIdentity(context: Pick<Context, 'session' | 'ip'>): string {
  const { principal } = context.session;
  if (principal.kind === 'user') return `user:${principal.userId}`;
  if (principal.kind === 'apiKey') return `key:${principal.apiKeyId}`;
  return `ip:${context.ip ?? 'unknown'}`;
}

/** For `countsWhen`: the call's `from`-`to` range is open-ended or longer than `days` (`to` defaults to now). */
export const rangeLongerThan =
  (days: number) =>
  (args: Record<string, unknown>): boolean => {
    const from = args.from instanceof Date ? args.from : null;
    if (!from) return true;
    const to = args.to instanceof Date ? args.to : new Date();
    return to.getTime() - from.getTime() > days * 86_400_000;
  };

export const tooManyCalls = (limit: Pick<ResolvedLimit, 'operation' | 'max' | 'window'>, retryAfterSeconds: number) =>
  new AppError(
    429,
    'RATE_LIMITED',
    `${limit.operation} is limited to ${limit.max} ${limit.max === 1 ? 'call' : 'calls'} ${perWindow(limit.window)}; retry in ${retryAfterSeconds} s`,
    { operation: limit.operation, limit: limit.max, window: limit.window, retryAfterSeconds },
    { 'Retry-After': String(retryAfterSeconds) },
  );

/** The limits and their store for one app: `apply` wraps a schema's limited fields. */
export class FieldRateLimiter {
  private readonly limits = new Map<string, ResolvedLimit>();
  private readonly overrides: Record<string, { max: number; window: string }>;
  readonly store: FieldCallStore;

  /** `overrides` replace declared limits by bucket name (FIELD_RATE_LIMITS). */
  constructor(options: {
    redis: Redis | null;
    overrides?: Record<string, { max: number; window: string }>;
    logger?: Logger;
  }) {
    this.overrides = options.overrides ?? {};
    const limitOf = (bucket: string) => {
      const limit = this.limits.get(bucket);
      if (!limit) throw new Error(`no field rate limit named ${bucket}`);
      return limit;
    };
    this.store = options.redis
      ? new RedisFieldCallStore(options.redis, limitOf, options.logger)
      : new MemoryFieldCallStore(limitOf);
  }

  /** The schema with every field that declares a `rateLimit` extension counting its calls. */
  apply(schema: GraphQLSchema): GraphQLSchema {
    const limiter = getGraphQLRateLimiter({
      identifyContext: (context: Context) => callerIdentity(context),
      store: this.store,
      // Only whether the call is refused matters here: the 429 is built below, with the wait.
      formatError: ({ fieldName }) => fieldName,
    });
    const wrapped = mapSchema(schema, {
      [MapperKind.OBJECT_FIELD]: (field, fieldName, typeName) => {
        const declared = (field.extensions as { rateLimit?: FieldRateLimit } | undefined)?.rateLimit;
        if (!declared) return field;
        const limit = this.register(declared, `${typeName}.${fieldName}`);
        const resolve = field.resolve ?? defaultFieldResolver;
        const store = this.store;
        return {
          ...field,
          async resolve(source, args: Record<string, unknown>, context: Context, info) {
            if (declared.countsWhen && !declared.countsWhen(args)) return resolve(source, args, context, info);
            // The library keys its count by info.fieldName: the bucket, so fields sharing one share the count.
            const refused = await limiter(
              { parent: source, args, context, info: { fieldName: limit.bucket } as GraphQLResolveInfo },
              { max: limit.max, window: limit.window, uncountRejected: true },
            );
            if (refused) {
              const waitMs = await store.retryAfterMs({
                contextIdentity: callerIdentity(context),
                fieldIdentity: limit.bucket,
              });
              throw tooManyCalls(limit, Math.max(1, Math.ceil(waitMs / 1000)));
            }
            return resolve(source, args, context, info);
          },
        };
      },
    });
    const unknown = Object.keys(this.overrides).filter((bucket) => !this.limits.has(bucket));
    if (unknown.length) {
      throw new Error(
        `FIELD_RATE_LIMITS names ${unknown.join(', ')}, which no field declares; the limits are ${[...this.limits.keys()].join(', ')}`,
      );
    }
    return wrapped;
  }

  /** The declared limits by bucket, with overrides applied, for documentation and tests. */
  get declared(): ReadonlyMap<string, Readonly<ResolvedLimit>> {
    return this.limits;
  }

  private register(declared: FieldRateLimit, coordinate: string): ResolvedLimit {
    const bucket = declared.bucket ?? coordinate;
    const override = this.overrides[bucket];
    const window = override?.window ?? declared.window;
    const limit: ResolvedLimit = {
      operation: declared.operation,
      bucket,
      max: override?.max ?? declared.max,
      window,
      windowMs: windowMs(window),
    };
    const existing = this.limits.get(bucket);
    if (existing && (existing.max !== limit.max || existing.windowMs !== limit.windowMs)) {
      throw new Error(
        `fields sharing the rate limit ${bucket} declare different limits (${existing.max}/${existing.window} and ${limit.max}/${limit.window})`,
      );
    }
    if (!existing) this.limits.set(bucket, limit);
    return existing ?? limit;
  }

  close(): void {
    this.store.close();
  }
}
