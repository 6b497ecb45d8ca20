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
