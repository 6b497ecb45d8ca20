import { Prisma } from '../../generated/prisma/client';
import type { Scope } from '../../auth/scopes';
import { kindOfScope, type Consent, type DataKind } from '../../auth/consent';

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
  'feed.lagging',
  'feed.silent',
  'feed.recovered',
  'api_key.rotation_due',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** An event is the data of its kind, so reading it takes the scope reading that data takes. */
const SCOPE_OF_KIND: Record<string, Scope> = {
  vehicle: 'inventory:read',
  lead: 'leads:read',
  call: 'calls:read',
  sale: 'sales:read',
  sync: 'integrations:read',
  feed: 'integrations:read',
  api_key: 'admin',
};

export const scopeOfEvent = (type: EventType): Scope => SCOPE_OF_KIND[type.slice(0, type.indexOf('.'))]!;

/** The kind of dealer data an event is, which a partner's link must allow (null: none, e.g. sync events). */
export const kindOfEvent = (type: EventType): DataKind | null => kindOfScope(scopeOfEvent(type));

/** Whether a partner's links allow it this event (the live tail's form of consentedEventSql). */
export function consentAllowsEvent(consent: Consent, event: { type: string; dealer_id: string | null }): boolean {
  const kind = (EVENT_TYPES as readonly string[]).includes(event.type) ? kindOfEvent(event.type as EventType) : null;
  return !!kind && consent.allows(kind, event.dealer_id);
}

/**
 * SQL over events `e`: whether the partner whose id `partnerId` gives (a column, or a parameter)
 * may receive the event: its link to the event's rooftop allows the event's kind of data. The
 * change feed and the webhook relay and deliveries read by it; the live tail asks the session's
 * Consent the same.
 */
export function consentedEventSql(partnerId: Prisma.Sql): Prisma.Sql {
  const kinds = Object.entries(SCOPE_OF_KIND)
    .flatMap(([prefix, scope]) => {
      const kind = kindOfScope(scope);
      return kind ? [`WHEN '${prefix}' THEN '${kind}'`] : [];
    })
    .join(' ');
  return Prisma.sql`EXISTS (SELECT 1 FROM partner_dealers pd WHERE pd.partner_id = ${partnerId} AND pd.dealer_id = e.dealer_id
    AND (CASE split_part(e.type, '.', 1) ${Prisma.raw(kinds)} END) = ANY(pd.data_permissions))`;
}

/**
 * The change feed's visibility rule, on events aliased `e`: an event shows once every transaction
 * that began writing before its own has ended, so nothing can later appear behind a position
 * already handed out. The feed, the live tail and the webhook relay all read by it.
 */
export const SETTLED_EVENT_SQL = 'e.txid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint';

/** An event's columns as the feed and the live tail read them (events aliased `e`). */
export const EVENT_COLUMNS_SQL =
  'e.id, e.txid, e.position, e.type, e.dealer_group_id, e.dealer_id, e.subject_id, e.data, e.sync_run_id, e.request_id, e.occurred_at';
