import type pg from 'pg';
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
}

const BATCH = 500;

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
  ) {}

  /**
   * Events from now on that `accepts` takes, as an async iterator that ends when the subscriber
   * leaves. It resolves once the tail knows where "now" is, so anything recorded after the
   * subscription is answered reaches it.
   */
  async subscribe(accepts: (event: EventRow) => boolean): Promise<AsyncIterableIterator<EventRow>> {
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
