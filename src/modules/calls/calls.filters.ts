import { Prisma } from '../../generated/prisma/client';
import type { Session } from '../../auth/session';
import { badInput } from '../../errors';
import { callerGroupsSql } from '../../tenancy';
import { dateRange, dealerIds, enumList, isUuid, oneOf } from '../../validation';

/** The call filters, checked once and rendered as one SQL condition over `calls c`. */

export const CALL_STATUSES = ['answered', 'missed', 'voicemail'] as const;
export const CALL_DIRECTIONS = ['inbound', 'outbound'] as const;

export interface CallFilters {
  dealer_id?: string[] | null; from?: Date | null; to?: Date | null; source?: string | null; status?: string[] | null;
  direction?: string | null; first_time?: boolean | null; min_duration?: number | null; department?: string | null; updated_since?: Date | null;
}

/** A canonical source given by id, or by name (case-insensitive), on the `source_id` of `alias`. */
export function sourceFilterSql(alias: string, source: string | null | undefined): Prisma.Sql | null {
  if (!source?.trim()) return null;
  const column = Prisma.raw(`${alias}.source_id`);
  return isUuid(source) ? Prisma.sql`${column} = ${source}::uuid` : Prisma.sql`${column} IN (SELECT id FROM sources WHERE name = ${source.trim()}::citext)`;
}

/** Date-range bounds on `column`, after checking that from is not after to. */
export function rangeSql(column: string, from: Date | null | undefined, to: Date | null | undefined): Prisma.Sql[] {
  dateRange(from, to);
  return [...(from ? [Prisma.sql`${Prisma.raw(column)} >= ${from}`] : []), ...(to ? [Prisma.sql`${Prisma.raw(column)} <= ${to}`] : [])];
}

export function callFilterSql(session: Session, filters: CallFilters): Prisma.Sql {
  if (filters.min_duration != null && (!Number.isInteger(filters.min_duration) || filters.min_duration < 0)) throw badInput('min_duration', 'must be a whole number of seconds, 0 or more');
  const statuses = enumList('status', filters.status, CALL_STATUSES);
  const dealers = dealerIds(filters.dealer_id);
  const direction = filters.direction ? oneOf('direction', filters.direction, CALL_DIRECTIONS) : null;
  const parts = [callerGroupsSql(session, 'c'), ...rangeSql('c.started_at', filters.from, filters.to)];
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
