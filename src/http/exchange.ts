import { Kind, type DocumentNode, type SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Authenticator } from '../auth/authenticate';
import { rateLimited, type RateLimitState } from '../auth/rate-limit';
import type { Session } from '../auth/session';

/** How the answer cache served a request (answer-cache.ts), as RFC 9211's `Cache-Status` says it. */
export type CacheStatus = 'hit' | 'fwd=miss' | 'fwd=request';

/**
 * One HTTP request as the HTTP layer follows it, from arrival to its request-log entry: its id and
 * address, the caller it authenticated (once, on first need: static pages never need one), the
 * operation it ran and the API key's budget after it. It travels as Yoga's server context; the
 * resolvers' context only receives the session.
 */
export class Exchange {
  /** The REST route template ("GET /inventory/:vin") or the GraphQL operation name, for the log. */
  operation: string | null = null;
  /** The API key's budget after this request, for the RateLimit-* headers. */
  rateLimit: RateLimitState | null = null;
  /** The caller asked for an answer computed afresh (`Cache-Control: no-cache`), not a kept one. */
  freshAnswer = false;
  /** How the answer cache served this request, for the `Cache-Status` header; null when it had no part in it. */
  cacheStatus: CacheStatus | null = null;
  /** A REST read the REST layer keeps as bytes (answer-cache.ts restReadKey), not as an execution result. */
  keepsBytes = false;
  /** Set by the answer cache when this request's operation may be kept: its groups and read stamp. */
  keepable: { groups: readonly string[]; stamp: string } | null = null;
  /** The authenticated caller; null until authenticated, and when authentication refused the credential. */
  session: Session | null = null;
  private authenticated: Promise<Session> | null = null;
  /** Operations this request counted against the key's hour, so a free answer (a 304) can give them back. */
  private counted = 0;

  constructor(
    readonly requestId: string,
    readonly ip: string | null,
    private readonly authorization: string | null,
    private readonly authenticator: Authenticator,
  ) {}

  /** The caller's session: 401/403 for a bad credential, 429 once an API key's hour is spent. */
  caller(): Promise<Session> {
    this.authenticated ??= this.authenticator
      .authenticate(this.authorization, this.ip)
      .then(({ session, rateLimit }) => {
        this.session = session;
        this.countedAs(rateLimit, 1);
        return session;
      });
    return this.authenticated;
  }

  /** Counts the further root fields of a GraphQL operation against the key's hour, as if each were sent alone. */
  async countOperations(extra: number): Promise<void> {
    if (!this.session) return;
    this.countedAs(await this.authenticator.consume(this.session, extra), extra);
  }

  /** Gives back what this request counted against the key's hour: its answer was free (a 304, as on GitHub). */
  async refund(): Promise<void> {
    if (!this.session || !this.counted) return;
    const rateLimit = await this.authenticator.refund(this.session, this.counted);
    this.counted = 0;
    if (rateLimit) this.rateLimit = rateLimit;
  }

  private countedAs(rateLimit: RateLimitState | null, points: number): void {
    if (!rateLimit) return;
    this.rateLimit = rateLimit;
    if (rateLimit.limited) throw rateLimited(rateLimit);
    this.counted += points;
  }
}

/** What the HTTP layer hands Yoga with each request. */
export interface ExchangeServerContext {
  exchange: Exchange;
  /** The request body, already read and size-checked, for REST validation. */
  rawBody: Buffer | null;
}

/**
 * Names each GraphQL operation in the exchange (REST routes name themselves) and counts every root
 * field beyond the first against an API key's hour: the first was counted when the caller was
 * authenticated.
 */
export function useExchange(): Plugin {
  return {
    async onExecute({ args }) {
      const { exchange } = args.contextValue as unknown as ExchangeServerContext;
      exchange.operation ??= args.operationName ?? null;
      await exchange.countOperations(rootFieldCount(args.document, args.operationName) - 1);
    },
  };
}

/** Root fields an operation selects (aliases and fragments included; __typename is free). */
function rootFieldCount(document: DocumentNode, operationName: string | null | undefined): number {
  const operation = document.definitions.find(
    (definition) =>
      definition.kind === Kind.OPERATION_DEFINITION && (!operationName || definition.name?.value === operationName),
  );
  if (!operation || operation.kind !== Kind.OPERATION_DEFINITION) return 1;
  const fragments = new Map(
    document.definitions.flatMap((definition) =>
      definition.kind === Kind.FRAGMENT_DEFINITION ? [[definition.name.value, definition.selectionSet] as const] : [],
    ),
  );
  const count = (selectionSet: SelectionSetNode, seen: Set<string>): number =>
    selectionSet.selections.reduce((total, selection) => {
      if (selection.kind === Kind.FIELD) return total + (selection.name.value === '__typename' ? 0 : 1);
      if (selection.kind === Kind.INLINE_FRAGMENT) return total + count(selection.selectionSet, seen);
      const fragment = fragments.get(selection.name.value);
      if (!fragment || seen.has(selection.name.value)) return total;
      return total + count(fragment, new Set([...seen, selection.name.value]));
    }, 0);
  return count(operation.selectionSet, new Set());
}
