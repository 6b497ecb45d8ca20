import { randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type { Caller } from '../../caller';
import type { AppServices } from '../../app-services';
import { badInput, conflict, forbidden, notFound } from '../../errors';
import { isPrivateAddress } from '../../net/outbound';
import { pageArgs, type Page, type WindowArgs } from '../../pagination';
import { inCallerGroups, targetGroup } from '../../tenancy';
import { enumList, isUuid, optionalText, uuid } from '../../validation';
import { EVENT_TYPES, scopeOfEvent } from '../events/event-types';
import { EVENT_BODY_SQL, queueSubjects, secretContext } from './webhook-dispatcher';

/** Webhook endpoints of the caller's groups: create, change, rotate their secret, test, and their delivery log. */

export interface EndpointInput {
  url?: string | null;
  event_types?: readonly string[] | null;
  dealer_ids?: readonly string[] | null;
  description?: string | null;
  enabled?: boolean | null;
  dealer_group_id?: string | null;
}

export interface EndpointView {
  id: string;
  dealer_group_id: string;
  url: string;
  description: string | null;
  event_types: string[];
  dealer_ids: string[];
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  /** The partner whose key created it; only what that partner's links allow is delivered to it. */
  partner_id: string | null;
  created_at: Date;
  updated_at: Date;
}

const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

function targetUrl(services: AppServices, value: string | null | undefined): string {
  const text = value?.trim() ?? '';
  if (!text) throw badInput('url', 'is required: where to POST events');
  if (text.length > 2000) throw badInput('url', 'must be at most 2000 characters');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badInput('url', `"${text}" is not an absolute URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw badInput('url', 'must be https (or http)');
  if (url.username || url.password) throw badInput('url', 'must not carry a user name or password');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!services.feeds.allowPrivateNetworks && (host === 'localhost' || (isIP(host) && isPrivateAddress(host))))
    throw badInput('url', `${host} is a private or reserved address; endpoints must be reachable on the internet`);
  return url.toString();
}

function eventTypes(caller: Caller, values: readonly string[] | null | undefined): string[] {
  const types = [...new Set(enumList('event_types', values, EVENT_TYPES) ?? [])];
  if (!types.length) throw badInput('event_types', `name at least one of ${EVENT_TYPES.join(', ')}`);
  for (const type of types) {
    const scope = scopeOfEvent(type);
    if (!caller.session.has(scope))
      throw forbidden(`missing scope ${scope} for ${type} events`, { requiredScope: scope });
  }
  return types;
}

async function rooftops(caller: Caller, groupId: string, values: readonly string[] | null | undefined) {
  const ids = (values ?? [])
    .flatMap((value) => String(value).split(','))
    .map((value) => value.trim())
    .filter(Boolean);
  if (!ids.length) return [];
  for (const id of ids) uuid('dealer_ids', id);
  // A partner's key names only rooftops linked to its partner.
  const linked = caller.session.consent?.linkedDealers();
  if (linked && ids.some((id) => !linked.includes(id)))
    throw badInput('dealer_ids', "name rooftops linked to this key's partner");
  const found = await caller.db.dealer.count({ where: { id: { in: ids }, dealerGroupId: groupId } });
  if (found !== new Set(ids).size) throw badInput('dealer_ids', 'name rooftops of the endpoint dealer group');
  return [...new Set(ids)];
}

export const viewOf = (row: {
  id: string;
  dealerGroupId: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  dealerIds: string[];
  enabled: boolean;
  disabledReason: string | null;
  failingSince: Date | null;
  partnerId: string | null;
  createdAt: Date;
  updatedAt: Date;
}): EndpointView => ({
  id: row.id,
  dealer_group_id: row.dealerGroupId,
  url: row.url,
  description: row.description,
  event_types: row.eventTypes,
  dealer_ids: row.dealerIds,
  enabled: row.enabled,
  disabled_reason: row.disabledReason,
  failing_since: row.failingSince,
  partner_id: row.partnerId,
  created_at: row.createdAt,
  updated_at: row.updatedAt,
});

/**
 * The endpoints a caller manages: its groups'; a partner's key, only those its partner's keys
 * created (the group's admins see and manage those too).
 */
const callerEndpoints = (caller: Caller) => ({
  dealerGroupId: inCallerGroups(caller.session),
  ...(caller.session.consent ? { partnerId: caller.session.consent.partnerId } : {}),
});

/** The caller's endpoint, else 404 (another group's endpoint does not exist for it). */
async function findEndpoint(caller: Caller, id: string) {
  const endpoint = isUuid(id)
    ? await caller.db.webhookEndpoint.findFirst({ where: { id, ...callerEndpoints(caller) } })
    : null;
  if (!endpoint) throw notFound(`webhook endpoint ${id}`);
  return endpoint;
}

/** Endpoints one dealer group may have: each event is copied to every matching one. */
export const MAX_ENDPOINTS_PER_GROUP = 20;

export async function createEndpoint(services: AppServices, caller: Caller, input: EndpointInput) {
  const groupId = targetGroup(caller.session, input.dealer_group_id);
  const existing = await caller.db.webhookEndpoint.count({ where: { dealerGroupId: groupId } });
  if (existing >= MAX_ENDPOINTS_PER_GROUP)
    throw conflict(
      `the dealer group already has ${existing} webhook endpoints, the most it may have (${MAX_ENDPOINTS_PER_GROUP}); delete one first`,
    );
  const id = randomUUID();
  const secret = newSecret();
  const row = await caller.db.webhookEndpoint.create({
    data: {
      id,
      dealerGroupId: groupId,
      url: targetUrl(services, input.url),
      description: optionalText('description', input.description, 500) ?? null,
      eventTypes: eventTypes(caller, input.event_types),
      dealerIds: await rooftops(caller, groupId, input.dealer_ids),
      secret: services.secrets.seal(secret, secretContext(id)),
      partnerId: caller.session.consent?.partnerId ?? null,
    },
  });
  return { endpoint: viewOf(row), secret };
}

export async function listEndpoints(caller: Caller, args: WindowArgs): Promise<Page<EndpointView>> {
  const { limit, offset } = pageArgs(args);
  const where = callerEndpoints(caller);
  const [total, rows] = await Promise.all([
    caller.db.webhookEndpoint.count({ where }),
    caller.db.webhookEndpoint.findMany({
      where,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: limit,
      skip: offset,
    }),
  ]);
  return { items: rows.map(viewOf), total, limit, offset };
}

export const getEndpoint = async (caller: Caller, id: string) => viewOf(await findEndpoint(caller, id));

export async function updateEndpoint(services: AppServices, caller: Caller, id: string, input: EndpointInput) {
  const endpoint = await findEndpoint(caller, id);
  const reenabled = input.enabled === true && !endpoint.enabled;
  const row = await caller.db.webhookEndpoint.update({
    where: { id },
    data: {
      ...(input.url !== undefined ? { url: targetUrl(services, input.url) } : {}),
      ...(input.event_types !== undefined ? { eventTypes: eventTypes(caller, input.event_types) } : {}),
      ...(input.dealer_ids !== undefined
        ? { dealerIds: await rooftops(caller, endpoint.dealerGroupId, input.dealer_ids) }
        : {}),
      ...(input.description !== undefined
        ? { description: optionalText('description', input.description, 500) ?? null }
        : {}),
      ...(input.enabled !== undefined && input.enabled !== null
        ? { enabled: input.enabled, ...(input.enabled ? { disabledReason: null, failingSince: null } : {}) }
        : {}),
    },
  });
  // Enabled again: what waited goes out now, each subject in order.
  if (reenabled) await requeuePending(services, id);
  return viewOf(row);
}

async function requeuePending(services: AppServices, endpointId: string) {
  const pool = services.database.pool;
  const pending = await pool.query<{ endpoint_id: string; subject: string }>(
    `UPDATE webhook_deliveries SET next_attempt_at = now(), first_attempt_at = NULL
     WHERE endpoint_id = $1 AND status = 'pending' RETURNING endpoint_id, subject`,
    [endpointId],
  );
  await queueSubjects(pool, pending.rows, new Date());
}

export async function deleteEndpoint(caller: Caller, id: string) {
  await findEndpoint(caller, id);
  await caller.db.webhookEndpoint.delete({ where: { id } });
  return id;
}

/** A new secret, shown once; the old one keeps signing (beside it) for `graceHours`. */
export async function rotateSecret(services: AppServices, caller: Caller, id: string, graceHours: number | null) {
  const endpoint = await findEndpoint(caller, id);
  const grace = graceHours ?? 0;
  if (!Number.isInteger(grace) || grace < 0 || grace > 168)
    throw badInput('grace_hours', 'must be a whole number of hours from 0 to 168');
  const secret = newSecret();
  const row = await caller.db.webhookEndpoint.update({
    where: { id },
    data: {
      secret: services.secrets.seal(secret, secretContext(id)),
      previousSecret: grace ? endpoint.secret : null,
      previousSecretExpiresAt: grace ? new Date(Date.now() + grace * 3_600_000) : null,
    },
  });
  return { endpoint: viewOf(row), secret };
}

/** Records a webhook.test event for this endpoint alone and queues its delivery now. */
export async function sendTestEvent(services: AppServices, caller: Caller, id: string) {
  const endpoint = await findEndpoint(caller, id);
  const pool = services.database.pool;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const event = await client.query<{ id: string; txid: string; position: string }>(
      `INSERT INTO events (type, dealer_group_id, data, request_id)
       VALUES ('webhook.test', $1, jsonb_build_object('endpoint_id', $2::uuid, 'message', 'A test event: your endpoint received it.'), $3)
       RETURNING id, txid, position`,
      [endpoint.dealerGroupId, endpoint.id, caller.requestId],
    );
    const { id: eventId, txid, position } = event.rows[0]!;
    const delivery = await client.query<{ id: string }>(
      `INSERT INTO webhook_deliveries (endpoint_id, event_id, subject, txid, position) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
      [endpoint.id, eventId, eventId, txid, position],
    );
    await queueSubjects(client, [{ endpoint_id: endpoint.id, subject: eventId }], new Date());
    await client.query('COMMIT');
    return { delivery_id: delivery.rows[0]!.id, event_id: eventId };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

export interface DeliveryView {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
  body: string;
}

export async function listDeliveries(
  services: AppServices,
  caller: Caller,
  id: string,
  args: WindowArgs & { status?: string | null },
): Promise<Page<DeliveryView>> {
  await findEndpoint(caller, id);
  const { limit, offset } = pageArgs(args);
  const status = args.status ? enumList('status', [args.status], ['pending', 'delivered', 'failed'])![0]! : null;
  const pool = services.database.pool;
  const [rows, count] = await Promise.all([
    pool.query<DeliveryView>(
      `/* webhookDeliveries */ SELECT d.id, d.event_id, e.type AS event_type, d.status, d.attempts, d.response_status, d.duration_ms,
         d.error, CASE WHEN d.status = 'pending' THEN d.next_attempt_at END AS next_attempt_at, d.delivered_at, d.created_at,
         ${EVENT_BODY_SQL} AS body
       FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
       WHERE d.endpoint_id = $1 AND ($2::text IS NULL OR d.status = $2)
       ORDER BY d.created_at DESC, d.txid DESC, d.position DESC LIMIT $3 OFFSET $4`,
      [id, status, limit, offset],
    ),
    pool.query<{ total: number }>(
      'SELECT count(*)::int AS total FROM webhook_deliveries WHERE endpoint_id = $1 AND ($2::text IS NULL OR status = $2)',
      [id, status],
    ),
  ]);
  return { items: rows.rows, total: count.rows[0]!.total, limit, offset };
}

export interface AttemptView {
  attempted_at: Date;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  next_attempt_at: Date | null;
}

export async function attemptsOf(services: AppServices, deliveryId: string): Promise<AttemptView[]> {
  const rows = await services.database.pool.query<AttemptView>(
    `SELECT attempted_at, response_status, duration_ms, error, next_attempt_at FROM webhook_attempts
     WHERE delivery_id = $1 ORDER BY attempted_at, id`,
    [deliveryId],
  );
  return rows.rows;
}

/** Delivers that event to that endpoint again, now (whatever its state). */
export async function redeliver(services: AppServices, caller: Caller, id: string, deliveryId: string) {
  const endpoint = await findEndpoint(caller, id);
  if (!endpoint.enabled) throw badInput('id', 'the endpoint is disabled: enable it first (PATCH {"enabled": true})');
  const pool = services.database.pool;
  const updated = isUuid(deliveryId)
    ? await pool.query<{ endpoint_id: string; subject: string }>(
        `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), first_attempt_at = NULL
         WHERE id = $1 AND endpoint_id = $2 RETURNING endpoint_id, subject`,
        [deliveryId, id],
      )
    : { rows: [] };
  if (!updated.rows.length) throw notFound(`delivery ${deliveryId}`);
  await queueSubjects(pool, updated.rows, new Date());
  return { delivery_id: deliveryId, status: 'pending' };
}
