import { Logger as WorkerLogger, run, runMigrations, type Runner } from 'graphile-worker';
import type pg from 'pg';
import { Webhook } from 'standardwebhooks';
import type { Logger } from '../../logger';
import type { Mailer } from '../../mail';
import type { SecretBox } from '../../secrets';
import { OutboundError, outboundRequest } from '../../net/outbound';
import { VERSION } from '../../project-root';
import { Prisma } from '../../generated/prisma/client';
import { consentedEventSql, SETTLED_EVENT_SQL } from '../events/event-types';

/**
 * Pushes events to webhook endpoints (the Standard Webhooks specification) through a job queue in
 * PostgreSQL (graphile-worker), so deliveries survive restarts and spread over instances.
 *
 * The relay hands new events to the endpoints that want them: in one transaction it reads the
 * events after its cursor (only those every earlier transaction has settled, as the change feed
 * does), records a delivery per endpoint, queues one job per endpoint and subject (the vehicle,
 * lead, ...), and moves the cursor; an event is thus handed over exactly once, whichever instance
 * relays. A job delivers its subject's pending deliveries in event order and stops at the first
 * failure, which it retries later, so a receiver sees each record's events in order. Attempts wait
 * base x 4^n (at most 6 hours) for up to the retry window (3 days); an endpoint that has failed for
 * the whole window is disabled and its group's admins are emailed.
 */

const TASK = 'webhook_deliver';
const MAX_DELAY_MS = 6 * 3_600_000;
const RELAY_BATCH = 1000;
/** Deliveries one dealer group may have under way at once, across every instance. */
export const GROUP_LANES = 2;
const SWEEP_EVERY_MS = 10 * 60_000;
const SWEEP_BATCH = 10_000;

export interface WebhookSettings {
  deliver: boolean;
  retentionDays: number;
  retryBaseMs: number;
  retryHours: number;
  relayIntervalMs: number;
  concurrency: number;
  allowPrivateNetworks: boolean;
}

interface PendingDelivery {
  id: string;
  subject: string;
  event_id: string;
  attempts: number;
  first_attempt_at: Date | null;
  next_attempt_at: Date | null;
  body: string;
  consented: boolean;
}

interface EndpointRow {
  id: string;
  dealer_group_id: string;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  enabled: boolean;
  failing_since: Date | null;
}

/** The context a sealed signing secret is bound to. */
export const secretContext = (endpointId: string) => `webhook-endpoint:${endpointId}`;

/** Whether the endpoint's partner (`w`) may receive the event (`e`): its link to the rooftop allows the kind of data. */
const PARTNER_CONSENTS = consentedEventSql(Prisma.raw('w.partner_id')).text;

/** The JSON body of an event, as the change feed shows it. */
export const EVENT_BODY_SQL = `json_build_object('id', e.id, 'type', e.type, 'occurred_at', e.occurred_at, 'dealer_group_id', e.dealer_group_id,
  'dealer_id', e.dealer_id, 'subject_id', e.subject_id, 'sync_run_id', e.sync_run_id, 'request_id', e.request_id, 'data', e.data)::text`;

export class WebhookDispatcher {
  private runner: Runner | null = null;
  private relayTimer: NodeJS.Timeout | null = null;
  private relaying: Promise<void> | null = null;
  private stopped = false;
  private sweptAt = 0;

  constructor(
    private readonly deps: {
      pool: pg.Pool;
      secrets: SecretBox;
      mailer: Mailer;
      logger: Logger;
      settings: WebhookSettings;
    },
  ) {}

  async start(): Promise<void> {
    const { pool, settings } = this.deps;
    // The queue's own tables (schema graphile_worker), which every instance may add jobs to.
    await runMigrations({ pgPool: pool, logger: quietLogger() });
    if (!settings.deliver) return;
    this.runner = await run({
      pgPool: pool,
      concurrency: settings.concurrency,
      noHandleSignals: true,
      // The embedded engine serves every connection from one session, where named statements collide.
      noPreparedStatements: true,
      pollInterval: Math.min(2000, Math.max(100, settings.relayIntervalMs)),
      logger: quietLogger(),
      taskList: {
        [TASK]: async (payload) => {
          const { endpoint_id: endpointId, subject } = payload as { endpoint_id: string; subject: string };
          await this.deliverSubject(endpointId, subject);
        },
      },
    });
    const tick = () => {
      if (this.stopped) return;
      this.relaying = this.relay()
        .then(() => this.sweep())
        .then(() => undefined)
        .catch((error: unknown) => this.deps.logger.warn('webhook relay failed', { error: (error as Error).message }))
        .finally(() => {
          this.relaying = null;
          if (!this.stopped) this.relayTimer = setTimeout(tick, settings.relayIntervalMs);
        });
    };
    tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.relayTimer) clearTimeout(this.relayTimer);
    await this.relaying;
    await this.runner?.stop();
    this.runner = null;
  }

  /** Hands the events recorded since the last relay to the endpoints that want them; answers how many deliveries it made. */
  async relay(): Promise<number> {
    const client = await this.deps.pool.connect();
    try {
      await client.query('BEGIN');
      // One relay at a time across instances; the others skip this round.
      const cursor = await client.query<{ txid: string; position: string }>(
        'SELECT txid, position FROM webhook_relay WHERE id = 1 FOR UPDATE SKIP LOCKED',
      );
      const at = cursor.rows[0];
      if (!at) {
        await client.query('COMMIT');
        return 0;
      }
      const batch = await client.query<{ txid: string; position: string }>(
        `/* webhookRelayBatch */ SELECT e.txid, e.position FROM events e
         WHERE (e.txid, e.position) > ($1::bigint, $2::bigint) AND ${SETTLED_EVENT_SQL}
         ORDER BY e.txid, e.position LIMIT ${RELAY_BATCH}`,
        [at.txid, at.position],
      );
      const last = batch.rows.at(-1);
      if (!last) {
        await client.query('COMMIT');
        return 0;
      }
      const made = await client.query<{ endpoint_id: string; subject: string }>(
        `/* webhookRelay */ INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, txid, position)
         SELECT w.id, e.id, coalesce(e.subject_id::text, e.id::text), e.txid, e.position
         FROM events e JOIN webhook_endpoints w ON w.dealer_group_id = e.dealer_group_id AND w.enabled
           AND e.type = ANY(w.event_types) AND (cardinality(w.dealer_ids) = 0 OR e.dealer_id = ANY(w.dealer_ids))
           AND e.occurred_at >= w.created_at AND (w.partner_id IS NULL OR ${PARTNER_CONSENTS})
         WHERE (e.txid, e.position) > ($1::bigint, $2::bigint) AND (e.txid, e.position) <= ($3::bigint, $4::bigint)
         ORDER BY e.txid, e.position
         ON CONFLICT (endpoint_id, event_id) DO NOTHING
         RETURNING endpoint_id, subject`,
        [at.txid, at.position, last.txid, last.position],
      );
      await queueSubjects(client, made.rows);
      await client.query('UPDATE webhook_relay SET txid = $1, position = $2 WHERE id = 1', [last.txid, last.position]);
      await client.query('COMMIT');
      return made.rowCount ?? 0;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * Every ten minutes, on each instance that delivers: events older than the retention period (none a
   * delivery still waits for) and settled deliveries as old, in batches so no statement runs long.
   */
  async sweep(force = false): Promise<number> {
    if (!force && Date.now() - this.sweptAt < SWEEP_EVERY_MS) return 0;
    this.sweptAt = Date.now();
    const { pool, settings } = this.deps;
    const before = new Date(Date.now() - settings.retentionDays * 86_400_000);
    let removed = 0;
    for (;;) {
      const deliveries = await pool.query(
        `DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries
           WHERE created_at < $1 AND status <> 'pending' LIMIT ${SWEEP_BATCH})`,
        [before],
      );
      const events = await pool.query(
        `DELETE FROM events WHERE id IN (SELECT e.id FROM events e WHERE e.occurred_at < $1
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id) LIMIT ${SWEEP_BATCH})`,
        [before],
      );
      removed += events.rowCount ?? 0;
      if ((deliveries.rowCount ?? 0) < SWEEP_BATCH && (events.rowCount ?? 0) < SWEEP_BATCH) return removed;
    }
  }

  /** Delivers one subject's pending deliveries to one endpoint, in event order, until one fails or none is due. */
  async deliverSubject(endpointId: string, subject: string): Promise<void> {
    const { pool } = this.deps;
    for (;;) {
      const endpoint = (
        await pool.query<EndpointRow>(
          `SELECT id, dealer_group_id, url, secret, previous_secret, previous_secret_expires_at, enabled, failing_since
           FROM webhook_endpoints WHERE id = $1`,
          [endpointId],
        )
      ).rows[0];
      if (!endpoint?.enabled) return;
      const next = (
        await pool.query<PendingDelivery>(
          `/* webhookNext */ SELECT d.id, d.subject, d.event_id, d.attempts, d.first_attempt_at, d.next_attempt_at, ${EVENT_BODY_SQL} AS body,
             (w.partner_id IS NULL OR e.type = 'webhook.test' OR ${PARTNER_CONSENTS}) AS consented
           FROM webhook_deliveries d JOIN events e ON e.id = d.event_id JOIN webhook_endpoints w ON w.id = d.endpoint_id
           WHERE d.endpoint_id = $1 AND d.subject = $2 AND d.status = 'pending'
           ORDER BY d.txid, d.position LIMIT 1`,
          [endpointId, subject],
        )
      ).rows[0];
      if (!next) return;
      // A partner's link changed since the event was handed out: it is not sent, and the log says why.
      if (!next.consented) {
        await pool.query(
          `UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, error = $2 WHERE id = $1`,
          [next.id, "not sent: the partner's links no longer allow this event"],
        );
        continue;
      }
      if (next.next_attempt_at && next.next_attempt_at.getTime() > Date.now()) {
        await queueSubjects(pool, [{ endpoint_id: endpointId, subject }], next.next_attempt_at);
        return;
      }
      const delivered = await this.attempt(endpoint, next);
      if (!delivered) return;
    }
  }

  /** One attempt: POST, log it, and settle the delivery (delivered, retry later, or given up). */
  private async attempt(endpoint: EndpointRow, delivery: PendingDelivery): Promise<boolean> {
    const { pool, settings, logger } = this.deps;
    const started = Date.now();
    let status: number | null = null;
    let error: string | null = null;
    try {
      const response = await outboundRequest(endpoint.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': `DealershipDataPlatform-Webhooks/${VERSION}`,
          ...this.signatureHeaders(endpoint, delivery.event_id, delivery.body, new Date(started)),
        },
        body: delivery.body,
        timeoutMs: 15_000,
        maxBytes: 64_000,
        allowPrivateNetworks: settings.allowPrivateNetworks,
      });
      status = response.status;
      if (status < 200 || status > 299) error = `answered ${status}`;
    } catch (failure) {
      error = failure instanceof OutboundError ? failure.message : `could not deliver: ${(failure as Error).message}`;
    }
    const duration = Date.now() - started;
    const now = new Date();
    const attempts = delivery.attempts + 1;
    const firstAttempt = delivery.first_attempt_at ?? now;
    const windowMs = settings.retryHours * 3_600_000;
    const givingUp = error !== null && now.getTime() - firstAttempt.getTime() >= windowMs;
    const nextAttempt =
      error === null || givingUp
        ? null
        : new Date(now.getTime() + Math.min(MAX_DELAY_MS, settings.retryBaseMs * 4 ** (attempts - 1)));
    const outcome = error === null ? 'delivered' : givingUp ? 'failed' : 'pending';
    await pool.query(
      `WITH logged AS (
         INSERT INTO webhook_attempts (delivery_id, attempted_at, response_status, duration_ms, error, next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, $6))
       UPDATE webhook_deliveries SET status = $7, attempts = $8, response_status = $3, duration_ms = $4, error = $5,
         next_attempt_at = $6, first_attempt_at = $9, delivered_at = CASE WHEN $7 = 'delivered' THEN $2 ELSE NULL END
       WHERE id = $1`,
      [delivery.id, now, status, duration, error, nextAttempt, outcome, attempts, firstAttempt],
    );
    if (error === null) {
      if (endpoint.failing_since)
        await pool.query('UPDATE webhook_endpoints SET failing_since = NULL WHERE id = $1', [endpoint.id]);
      return true;
    }
    const failingSince = endpoint.failing_since ?? now;
    if (now.getTime() - failingSince.getTime() >= windowMs) {
      await this.disable(endpoint, `every delivery failed for ${settings.retryHours} hours; last: ${error}`);
      return false;
    }
    if (!endpoint.failing_since)
      await pool.query('UPDATE webhook_endpoints SET failing_since = $2 WHERE id = $1 AND failing_since IS NULL', [
        endpoint.id,
        now,
      ]);
    logger.debug('webhook delivery failed', { endpoint: endpoint.id, delivery: delivery.id, error });
    if (nextAttempt) await queueSubjects(pool, [{ endpoint_id: endpoint.id, subject: delivery.subject }], nextAttempt);
    // Given up on this event: the subject's next events go on.
    return givingUp;
  }

  /** Standard Webhooks headers: the event id, the time, and v1 signatures by the secret (and the previous one in its grace). */
  private signatureHeaders(endpoint: EndpointRow, eventId: string, body: string, at: Date): Record<string, string> {
    const { secrets } = this.deps;
    const context = secretContext(endpoint.id);
    const signWith = [secrets.open(endpoint.secret, context)];
    if (endpoint.previous_secret && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > at)
      signWith.push(secrets.open(endpoint.previous_secret, context));
    const signatures = signWith.map((secret) => new Webhook(secret).sign(eventId, at, body));
    return {
      'webhook-id': eventId,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signatures.join(' '),
    };
  }

  private async disable(endpoint: EndpointRow, reason: string): Promise<void> {
    const { pool, mailer, logger } = this.deps;
    const changed = await pool.query(
      'UPDATE webhook_endpoints SET enabled = false, disabled_reason = $2 WHERE id = $1 AND enabled RETURNING id',
      [endpoint.id, reason],
    );
    if (!changed.rowCount) return;
    logger.warn('webhook endpoint disabled', { endpoint: endpoint.id });
    const admins = await pool.query<{ email: string }>(
      `SELECT u.email FROM users u JOIN user_dealer_groups m ON m.user_id = u.id
       WHERE m.dealer_group_id = $1 AND u.role = 'admin' AND u.disabled_at IS NULL ORDER BY u.email`,
      [endpoint.dealer_group_id],
    );
    for (const { email } of admins.rows) {
      await mailer
        .send({
          to: email,
          subject: 'A webhook endpoint was disabled',
          text: `The webhook endpoint ${endpoint.url} (${endpoint.id}) was disabled: ${reason}.\n\nNo events are sent to it while it is disabled; the change feed (GET /api/v1/events) keeps them. Fix the receiver, then enable the endpoint again (PATCH /api/v1/webhook-endpoints/${endpoint.id} with {"enabled": true}): deliveries still pending resume, and new events follow.`,
        })
        .catch((error: unknown) =>
          logger.warn('could not email about a disabled webhook endpoint', { error: (error as Error).message }),
        );
    }
  }
}

/**
 * Queues the delivery job of each endpoint and subject: one job per pair (its key) in a queue of
 * its own (so a subject's events go out one at a time); a job already waiting for a retry keeps
 * its time unless `runAt` sets it.
 */
export async function queueSubjects(
  client: { query: pg.Pool['query'] },
  pairs: Array<{ endpoint_id: string; subject: string }>,
  runAt: Date | null = null,
): Promise<void> {
  const unique = [...new Map(pairs.map((pair) => [`${pair.endpoint_id}:${pair.subject}`, pair])).values()];
  if (!unique.length) return;
  // Each dealer group's deliveries run in GROUP_LANES named queues (a subject always in the same
  // one, so its events stay in order), and a named queue runs one job at a time across every
  // instance: one group's slow or failing receivers hold at most GROUP_LANES delivery slots, and
  // the other slots stay free for the other groups.
  await client.query(
    `SELECT graphile_worker.add_job($1, json_build_object('endpoint_id', p.endpoint_id, 'subject', p.subject),
       queue_name := 'webhook:' || w.dealer_group_id || ':' || (abs(hashtext(p.subject)::bigint) % $5),
       run_at := $4::timestamptz, max_attempts := 10,
       job_key := 'webhook:' || p.endpoint_id || ':' || p.subject,
       job_key_mode := CASE WHEN $4::timestamptz IS NULL THEN 'preserve_run_at' ELSE 'replace' END)
     FROM unnest($2::text[], $3::text[]) AS p(endpoint_id, subject) JOIN webhook_endpoints w ON w.id = p.endpoint_id::uuid`,
    [TASK, unique.map((pair) => pair.endpoint_id), unique.map((pair) => pair.subject), runAt, GROUP_LANES],
  );
}

/** graphile-worker's own log lines stay out of ours; failures reach us through the tasks. */
const quietLogger = () => new WorkerLogger(() => () => {});
