import { Prisma } from '../../generated/prisma/client';
import type { Session } from '../../auth/session';
import { callerDataSql } from '../../tenancy';
import { dealerIds, enumList, oneOf } from '../../validation';
import { rangeSql } from '../../sql-filters';
import { KEY_TYPES, sortableBy } from '../../keyset';

/** The deal filters, checked once and rendered as one SQL condition over `sales d`. */

export const CONTRACT_TYPES = ['cash', 'finance', 'lease'] as const;

export interface SaleFilters {
  salesperson?: string | null;
  contract_type?: string[] | null;
  condition?: string | null;
  dealer_id?: string[] | null;
  from?: Date | null;
  to?: Date | null;
  updated_since?: Date | null;
}

export function saleFilterSql(session: Session, filters: SaleFilters): Prisma.Sql {
  const contracts = enumList('contract_type', filters.contract_type, CONTRACT_TYPES);
  const dealers = dealerIds(filters.dealer_id);
  const condition = filters.condition
    ? oneOf('condition', filters.condition, ['new', 'used', 'certified'] as const)
    : null;
  const parts = [callerDataSql(session, 'd', 'sales'), ...rangeSql('d.sold_at', filters.from, filters.to)];
  if (dealers) parts.push(Prisma.sql`d.dealer_id = ANY(${dealers}::uuid[])`);
  if (filters.salesperson?.trim()) parts.push(Prisma.sql`lower(d.salesperson) = lower(${filters.salesperson.trim()})`);
  if (contracts?.length) parts.push(Prisma.sql`d.contract_type = ANY(${contracts}::contract_type[])`);
  if (condition) parts.push(Prisma.sql`d.vehicle_condition = ${condition}::vehicle_condition`);
  if (filters.updated_since) parts.push(Prisma.sql`d.updated_at >= ${filters.updated_since}`);
  return Prisma.join(parts, ' AND ');
}

/**
 * What sales sort by: when they were sold (newest first by default) and when they last changed, the order a
 * sync pull walks (`sort=updated_at` with `updated_since`). The id breaks ties.
 */
export const SALE_SORT = sortableBy(
  {
    sold_at: { sql: Prisma.sql`d.sold_at`, type: KEY_TYPES.timestamp },
    updated_at: { sql: Prisma.sql`d.updated_at`, type: KEY_TYPES.timestamp },
  },
  '-sold_at',
  Prisma.sql`d.id`,
);
