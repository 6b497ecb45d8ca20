import type pg from 'pg';
import { Prisma } from '../../generated/prisma/client';
import type { Logger } from '../../logger';
import { feedStatesSql } from '../integrations/integrations.service';
import { ROTATION_DAYS } from '../api-keys/api-keys.service';

/**
 * Events no write causes, only time: a feed falling behind its cadence (`feed.lagging`, then
 * `feed.silent`) or data arriving again (`feed.recovered`), and an API key reaching its rotation
 * age (`api_key.rotation_due`). A clock looks every interval and records each change once: the
 * state it last recorded is kept beside the feed or key, and the statement that moves it writes
 * the event, so two instances looking at once record it once (the second finds it recorded).
 */

/** Which event a feed's move from one state to another is. */
const FEED_EVENT_SQL = `CASE f.state WHEN 'fresh' THEN 'feed.recovered' WHEN 'lagging' THEN 'feed.lagging' ELSE 'feed.silent' END`;

export interface TimedEventsScope {
  /** Only these dealer groups' feeds and keys (all when absent). */
  dealerGroupIds?: readonly string[];
}

/** Records the feed and key events due now; answers how many it recorded. */
export async function recordTimedEvents(pool: pg.Pool, scope: TimedEventsScope = {}): Promise<number> {
  const groups = scope.dealerGroupIds ? [...scope.dealerGroupIds] : null;
  const feeds = Prisma.sql`/* timedFeedEvents */
    WITH f AS (${feedStatesSql(Prisma.sql`(${groups}::uuid[] IS NULL OR i.dealer_group_id = ANY(${groups}::uuid[]))`)}),
    moved AS (
      UPDATE integrations i SET freshness_state = f.state FROM f
      WHERE i.id = f.integration_id AND i.freshness_state <> f.state
      RETURNING f.*)
    INSERT INTO events (type, dealer_group_id, dealer_id, subject_id, data)
    SELECT ${Prisma.raw(FEED_EVENT_SQL)}, f.dealer_group_id, f.dealer_id, f.integration_id,
      jsonb_build_object('integration', jsonb_build_object('id', f.integration_id, 'name', f.name, 'plugin_key', f.plugin_key,
        'dealer_id', f.dealer_id, 'expected_cadence_hours', f.expected_cadence_hours,
        'last_data_at', GREATEST(f.last_file_at, f.last_sync_at), 'hours_since_data', f.hours_since_data),
        'state', f.state, 'previous_state', f.recorded_state)
    FROM moved f`;
  const keys = Prisma.sql`/* timedKeyEvents */
    WITH due AS (
      UPDATE api_keys k SET rotation_due_at = now()
      WHERE k.rotation_due_at IS NULL AND (k.revoked_at IS NULL OR k.revoked_at > now())
        AND k.created_at <= now() - make_interval(days => ${ROTATION_DAYS})
        AND (${groups}::uuid[] IS NULL OR EXISTS (
          SELECT 1 FROM api_key_dealer_groups g WHERE g.api_key_id = k.id AND g.dealer_group_id = ANY(${groups}::uuid[])))
      RETURNING k.id, k.name, k.last_four, k.created_at, k.scopes, k.partner_id)
    INSERT INTO events (type, dealer_group_id, subject_id, data)
    SELECT 'api_key.rotation_due', g.dealer_group_id, due.id,
      jsonb_build_object('api_key', jsonb_build_object('id', due.id, 'name', due.name, 'masked_key', 'svc_live_…' || due.last_four,
        'created_at', due.created_at, 'age_days', floor(EXTRACT(EPOCH FROM now() - due.created_at) / 86400)::int,
        'scopes', due.scopes, 'partner_id', due.partner_id), 'rotation_days', ${ROTATION_DAYS}::int)
    FROM due JOIN api_key_dealer_groups g ON g.api_key_id = due.id`;
  const recorded = await pool.query(feeds.text, feeds.values);
  const reminded = await pool.query(keys.text, keys.values);
  return (recorded.rowCount ?? 0) + (reminded.rowCount ?? 0);
}

/** Looks every `intervalMs` (never two looks at once in one instance). */
export class TimedEventsClock {
  private timer: NodeJS.Timeout | null = null;
  private looking: Promise<unknown> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.looking ??= recordTimedEvents(this.pool)
        .catch((error: unknown) => this.logger.warn('timed events failed', { error: (error as Error).message }))
        .finally(() => {
          this.looking = null;
        });
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.looking;
  }
}
