import { Prisma } from '../../generated/prisma/client';
import type { Session } from '../../auth/session';
import { callerDataSql } from '../../tenancy';
import { dealerIds, enumList } from '../../validation';
import { rangeSql } from '../../sql-filters';
import { KEY_TYPES, sortableBy } from '../../keyset';
import { sourceFilterSql } from '../sources/source-filter';

/** The lead filters, checked once and rendered as one SQL condition over `leads l`. */

export const LEAD_TYPES = ['new', 'used', 'service', 'finance', 'trade_in'] as const;
/** The funnel, in order; `lost` leaves it. */
export const LEAD_STATUSES = ['new', 'contacted', 'appointment', 'showed', 'sold', 'lost'] as const;

/**
 * When a lead counts as sold, everywhere (the three breakdowns, the assistant): it is linked to a deal,
 * or a person marked it sold. A CRM often leaves the status behind the deal, and a deal made outside
 * the DMS export has no link; either alone undercounts.
 */
export const LEAD_SOLD_SQL = Prisma.sql`(l.sale_id IS NOT NULL OR l.status = 'sold')`;

export interface LeadFilters {
  status?: string[] | null;
  type?: string[] | null;
  source?: string | null;
  /** The salesperson the lead is assigned to, any case. */
  assignee?: string | null;
  dealer_id?: string[] | null;
  from?: Date | null;
  to?: Date | null;
  updated_since?: Date | null;
}

export function leadFilterSql(session: Session, filters: LeadFilters): Prisma.Sql {
  const statuses = enumList('status', filters.status, LEAD_STATUSES);
  const types = enumList('type', filters.type, LEAD_TYPES);
  const dealers = dealerIds(filters.dealer_id);
  const parts = [callerDataSql(session, 'l', 'leads'), ...rangeSql('l.received_at', filters.from, filters.to)];
  if (dealers) parts.push(Prisma.sql`l.dealer_id = ANY(${dealers}::uuid[])`);
  if (statuses?.length) parts.push(Prisma.sql`l.status = ANY(${statuses}::lead_status[])`);
  if (types?.length) parts.push(Prisma.sql`l.type = ANY(${types}::lead_type[])`);
  if (filters.updated_since) parts.push(Prisma.sql`l.updated_at >= ${filters.updated_since}`);
  if (filters.assignee?.trim()) parts.push(Prisma.sql`lower(l.assignee) = lower(${filters.assignee.trim()})`);
  const source = sourceFilterSql('l', filters.source);
  if (source) parts.push(source);
  return Prisma.join(parts, ' AND ');
}

/**
 * What leads sort by: when they arrived (newest first by default) and when they last changed, the order a
 * sync pull walks (`sort=updated_at` with `updated_since`). The id breaks ties.
 */
export const LEAD_SORT = sortableBy(
  {
    received_at: { sql: Prisma.sql`l.received_at`, type: KEY_TYPES.timestamp },
    updated_at: { sql: Prisma.sql`l.updated_at`, type: KEY_TYPES.timestamp },
  },
  '-received_at',
  Prisma.sql`l.id`,
);
