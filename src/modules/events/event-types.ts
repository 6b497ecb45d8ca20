import type { Scope } from '../../auth/scopes';

/** The kinds of event the platform records, and the scope a caller needs to receive each. */

export const EVENT_TYPES = [
  'vehicle.created',
  'vehicle.updated',
  'vehicle.price_changed',
  'vehicle.status_changed',
  'vehicle.sold',
  'vehicle.presumed_sold',
  'lead.created',
  'lead.updated',
  'call.created',
  'sale.created',
  'sync.succeeded',
  'sync.failed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** An event is the data of its kind, so reading it takes the scope reading that data takes. */
const SCOPE_OF_KIND: Record<string, Scope> = {
  vehicle: 'inventory:read',
  lead: 'leads:read',
  call: 'calls:read',
  sale: 'sales:read',
  sync: 'integrations:read',
};

export const scopeOfEvent = (type: EventType): Scope => SCOPE_OF_KIND[type.slice(0, type.indexOf('.'))]!;

/**
 * The change feed's visibility rule, on events aliased `e`: an event shows once every transaction
 * that began writing before its own has ended, so nothing can later appear behind a position
 * already handed out. The feed, the live tail and the webhook relay all read by it.
 */
export const SETTLED_EVENT_SQL = 'e.txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint';

/** An event's columns as the feed and the live tail read them (events aliased `e`). */
export const EVENT_COLUMNS_SQL =
  'e.id, e.txid, e.position, e.type, e.dealer_group_id, e.dealer_id, e.subject_id, e.data, e.sync_run_id, e.request_id, e.occurred_at';
