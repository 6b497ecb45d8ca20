import { Prisma } from '../../generated/prisma/client';
import type { Session } from '../../auth/session';
import { callerGroupsSql } from '../../tenancy';
import { dealerIds, enumList } from '../../validation';
import { rangeSql } from '../../sql-filters';
import { sourceFilterSql } from '../sources/source-filter';

/** The lead filters, checked once and rendered as one SQL condition over `leads l`. */

export const LEAD_TYPES = ['new', 'used', 'service', 'finance', 'trade_in'] as const;
/** The funnel, in order; `lost` leaves it. */
export const LEAD_STATUSES = ['new', 'contacted', 'appointment', 'showed', 'sold', 'lost'] as const;

export interface LeadFilters {
  status?: string[] | null;
  type?: string[] | null;
  source?: string | null;
  dealer_id?: string[] | null;
  from?: Date | null;
  to?: Date | null;
  updated_since?: Date | null;
}

export function leadFilterSql(session: Session, filters: LeadFilters): Prisma.Sql {
  const statuses = enumList('status', filters.status, LEAD_STATUSES);
  const types = enumList('type', filters.type, LEAD_TYPES);
  const dealers = dealerIds(filters.dealer_id);
  const parts = [callerGroupsSql(session, 'l'), ...rangeSql('l.received_at', filters.from, filters.to)];
  if (dealers) parts.push(Prisma.sql`l.dealer_id = ANY(${dealers}::uuid[])`);
  if (statuses?.length) parts.push(Prisma.sql`l.status = ANY(${statuses}::lead_status[])`);
  if (types?.length) parts.push(Prisma.sql`l.type = ANY(${types}::lead_type[])`);
  if (filters.updated_since) parts.push(Prisma.sql`l.updated_at >= ${filters.updated_since}`);
  const source = sourceFilterSql('l', filters.source);
  if (source) parts.push(source);
  return Prisma.join(parts, ' AND ');
}
