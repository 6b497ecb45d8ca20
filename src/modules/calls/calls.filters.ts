import { Prisma } from '../../generated/prisma/client';
import type { Session } from '../../auth/session';
import { badInput } from '../../errors';
import { callerDataSql } from '../../tenancy';
import { dealerIds, enumList, oneOf } from '../../validation';
import { rangeSql } from '../../sql-filters';
import { KEY_TYPES, sortableBy } from '../../keyset';
import { sourceFilterSql } from '../sources/source-filter';

/** The call filters, checked once and rendered as one SQL condition over `calls c`. */

export const CALL_STATUSES = ['answered', 'missed', 'voicemail'] as const;
export const CALL_DIRECTIONS = ['inbound', 'outbound'] as const;

export interface CallFilters {
  dealer_id?: string[] | null;
  from?: Date | null;
  to?: Date | null;
  source?: string | null;
  status?: string[] | null;
  direction?: string | null;
  first_time?: boolean | null;
  min_duration?: number | null;
  department?: string | null;
  updated_since?: Date | null;
}

/**
 * Which of the filters look at what each call is, beyond who may see it, its rooftop, period and
 * source (the ones the rollups and the merged calls' first calls carry): its status, and the rest.
 */
export const callFieldFilters = (filters: CallFilters) => ({
  status: Boolean(filters.status?.length),
  others:
    Boolean(filters.direction) ||
    filters.first_time != null ||
    filters.min_duration != null ||
    Boolean(filters.department) ||
    Boolean(filters.updated_since),
});

export function callFilterSql(session: Session, filters: CallFilters): Prisma.Sql {
  if (filters.min_duration != null && (!Number.isInteger(filters.min_duration) || filters.min_duration < 0))
    throw badInput('min_duration', 'must be a whole number of seconds, 0 or more');
  const statuses = enumList('status', filters.status, CALL_STATUSES);
  const dealers = dealerIds(filters.dealer_id);
  const direction = filters.direction ? oneOf('direction', filters.direction, CALL_DIRECTIONS) : null;
  const parts = [callerDataSql(session, 'c', 'calls'), ...rangeSql('c.started_at', filters.from, filters.to)];
  if (dealers) parts.push(Prisma.sql`c.dealer_id = ANY(${dealers}::uuid[])`);
  if (statuses?.length) parts.push(Prisma.sql`c.status = ANY(${statuses}::call_status[])`);
  if (direction) parts.push(Prisma.sql`c.direction = ${direction}::call_direction`);
  if (filters.first_time != null) parts.push(Prisma.sql`c.first_time_caller = ${filters.first_time}`);
  if (filters.min_duration != null) parts.push(Prisma.sql`c.duration_seconds >= ${filters.min_duration}`);
  if (filters.department) parts.push(Prisma.sql`lower(c.department) = lower(${filters.department})`);
  if (filters.updated_since) parts.push(Prisma.sql`c.updated_at >= ${filters.updated_since}`);
  const source = sourceFilterSql('c', filters.source);
  if (source) parts.push(source);
  return Prisma.join(parts, ' AND ');
}

/**
 * What calls sort by: when they started (newest first by default) and when they last changed, the order a
 * sync pull walks (`sort=updated_at` with `updated_since`). The id breaks ties.
 */
export const CALL_SORT = sortableBy(
  {
    started_at: { sql: Prisma.sql`c.started_at`, type: KEY_TYPES.timestamp },
    updated_at: { sql: Prisma.sql`c.updated_at`, type: KEY_TYPES.timestamp },
  },
  '-started_at',
  Prisma.sql`c.id`,
);
