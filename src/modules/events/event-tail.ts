import type { EventEmitter } from 'node:events';
import type pg from 'pg';
import { AUTH_CHANGES } from '../../auth/authenticate';
import { AppError } from '../../errors';
import type { Logger } from '../../logger';
import type { EventRow } from './events.service';
import { EVENT_COLUMNS_SQL, SETTLED_EVENT_SQL } from './event-types';

/**
 * Live events for GraphQL subscriptions. Each instance follows the events table itself, from the
 * moment its first subscriber arrives, with the change feed's visibility rule (an event shows once
 * every transaction that began writing before it has ended): an event recorded by any instance or
 * any writer reaches the subscribers of every instance, in order, with no broker between them.
 * It reads only while someone listens: one indexed statement per interval for all subscribers.
 */

export interface EventListener {
  accepts(event: EventRow): boolean;
  push(event: EventRow): void;
  end(): void;
  owner: string;
  stillHolds?: () => Promise<boolean>;
}

/** What a subscriber is: whose stream it is, and how to ask whether its access still stands. */
export interface Subscriber {
  /** The user or key the stream belongs to (each may hold SUBSCRIPTIONS_PER_CALLER at once on an instance). */
  owner: string;
  /** Asked whenever the database announces a change to users, keys or partner links; false ends the stream. */
  stillHolds?: () => Promise<boolean>;
}

const BATCH = 500;
/** Open subscriptions one user or key may hold on one instance. */
export const SUBSCRIPTIONS_PER_CALLER = 5;

export class EventTail {
  private readonly listeners = new Set<EventListener>();
  private at: { txid: string; position: string } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private reading: Promise<void> | null = null;
  private starting: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
    private readonly intervalMs = 250,
    /** Where the database announces changes to who callers are and what they may see (Database.notifications). */
    changes?: EventEmitter,
  ) {
    changes?.on(AUTH_CHANGES, () => void this.recheckAccess());
  }

  /** Ends the streams whose caller's access changed (a revoked key, a disabled user, a narrowed link). */
  private async recheckAccess(): Promise<void> {
    for (const listener of [...this.listeners]) {
      if (!listener.stillHolds) continue;
      const holds = await listener.stillHolds().catch(() => false);
      if (!holds) listener.end();
    }
  }

  /**
   * Events from now on that `accepts` takes, as an async iterator that ends when the subscriber
   * leaves. It resolves once the tail knows where "now" is, so anything recorded after the
   * subscription is answered reaches it.
   */
  async subscribe(
    accepts: (event: EventRow) => boolean,
    subscriber: Subscriber,
  ): Promise<AsyncIterableIterator<EventRow>> {
    const open = [...this.listeners].filter((listener) => listener.owner === subscriber.owner).length;
    if (open >= SUBSCRIPTIONS_PER_CALLER)
      throw new AppError(
        429,
        'RATE_LIMITED',
        `at most ${SUBSCRIPTIONS_PER_CALLER} open subscriptions per user or API key; close one first`,
      );
    const queue: EventRow[] = [];
    let wake: (() => void) | null = null;
    let done = false;
    const leave = () => {
      done = true;
      this.listeners.delete(listener);
      wake?.();
      if (!this.listeners.size) this.halt();
    };
    const listener: EventListener = {
      ...subscriber,
      accepts,
      push: (event) => {
        queue.push(event);
        wake?.();
      },
      end: leave,
    };
    this.listeners.add(listener);
    if (!this.at) await (this.starting ??= this.read().finally(() => (this.starting = null)));
    this.ensureRunning();
    const iterator: AsyncIterableIterator<EventRow> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        while (!queue.length && !done) await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
        if (queue.length) return { value: queue.shift()!, done: false };
        return { value: undefined, done: true };
      },
      return: async () => {
        leave();
        return { value: undefined, done: true };
      },
    };
    return iterator;
  }

  async stop(): Promise<void> {
    for (const listener of [...this.listeners]) listener.end();
    this.halt();
    await this.reading;
  }

  private ensureRunning() {
    if (this.timer || this.reading) return;
    const tick = () => {
      this.timer = null;
      this.reading = this.read()
        .catch((error: unknown) => this.logger.warn('event tail failed', { error: (error as Error).message }))
        .finally(() => {
          this.reading = null;
          if (this.listeners.size) this.timer = setTimeout(tick, this.intervalMs);
        });
    };
    tick();
  }

  private halt() {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // The next subscriber starts from its own present, not from where the last one left.
    this.at = null;
  }

  private async read(): Promise<void> {
    if (!this.at) {
      // Start at the newest event already visible: subscribers see what happens from now on.
      const head = await this.pool.query<{ txid: string; position: string }>(
        `SELECT coalesce(max(e.txid), 0) AS txid, coalesce(max(e.position), 0) AS position FROM events e
         WHERE ${SETTLED_EVENT_SQL}`,
      );
      this.at = head.rows[0]!;
      return;
    }
    for (;;) {
      const rows: pg.QueryResult<EventRow> = await this.pool.query<EventRow>(
        `/* eventTail */ SELECT ${EVENT_COLUMNS_SQL} FROM events e
         WHERE (e.txid, e.position) > ($1::bigint, $2::bigint) AND ${SETTLED_EVENT_SQL}
         ORDER BY e.txid, e.position LIMIT ${BATCH}`,
        [this.at!.txid, this.at!.position],
      );
      for (const event of rows.rows) {
        this.at = { txid: String(event.txid), position: String(event.position) };
        for (const listener of this.listeners) if (listener.accepts(event)) listener.push(event);
      }
      if (rows.rows.length < BATCH || !this.listeners.size) return;
    }
  }
}
