import type { AuditEvent, Prisma, RequestLog } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import { badInput } from '../../errors';
import { pageArgs, type Page, type WindowArgs } from '../../pagination';
import { dateRange, uuid } from '../../validation';
import { likeLiteral } from '../../sql-filters';

/** Reads of the request log and the audit trail, limited to the caller's dealer groups. */

const uuidArg = (name: string, value: string | null | undefined) => (value == null ? undefined : uuid(name, value));

export interface RequestLogFilters extends WindowArgs {
  api_key_id?: string | null;
  user_id?: string | null;
  path?: string | null;
  method?: string | null;
  status?: string | null;
  from?: Date | null;
  to?: Date | null;
}

/** `status` is an exact code ("404") or a class ("4xx"). */
function statusFilter(status: string | null | undefined): Prisma.IntFilter | undefined {
  if (!status) return undefined;
  if (/^[1-5]\d\d$/.test(status)) return { equals: Number(status) };
  const match = /^([1-5])xx$/i.exec(status);
  if (match) return { gte: Number(match[1]) * 100, lte: Number(match[1]) * 100 + 99 };
  throw badInput('status', 'must be a status code such as 404 or a class such as 4xx');
}

export async function listRequestLogs(caller: Caller, filters: RequestLogFilters): Promise<Page<RequestLog>> {
  const { limit, offset } = pageArgs(filters);
  const method = filters.method?.toUpperCase();
  if (method && !['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].includes(method))
    throw badInput('method', 'must be an HTTP method');
  const where: Prisma.RequestLogWhereInput = {
    dealerGroupIds: { hasSome: [...caller.session.dealerGroupIds] },
    apiKeyId: uuidArg('api_key_id', filters.api_key_id),
    userId: uuidArg('user_id', filters.user_id),
    path: filters.path ? { startsWith: likeLiteral(filters.path) } : undefined,
    method,
    status: statusFilter(filters.status),
    occurredAt: dateRange(filters.from, filters.to),
  };
  const [total, requests] = await Promise.all([
    caller.db.requestLog.count({ where }),
    caller.db.requestLog.findMany({
      where,
      orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }],
      take: limit,
      skip: offset,
    }),
  ]);
  return { items: requests, total, limit, offset };
}

export interface AuditFilters extends WindowArgs {
  action?: string | null;
  actor_user_id?: string | null;
  actor_api_key_id?: string | null;
  target_id?: string | null;
  from?: Date | null;
  to?: Date | null;
}

export async function listAuditEvents(caller: Caller, filters: AuditFilters): Promise<Page<AuditEvent>> {
  const { limit, offset } = pageArgs(filters);
  if (filters.action && !/^[a-z_]+(\.[a-z_]+)?$/.test(filters.action))
    throw badInput('action', 'must be an action such as api_key.revoked, or a prefix such as api_key');
  const where: Prisma.AuditEventWhereInput = {
    dealerGroupIds: { hasSome: [...caller.session.dealerGroupIds] },
    action: filters.action
      ? filters.action.includes('.')
        ? filters.action
        : { startsWith: `${likeLiteral(filters.action)}.` }
      : undefined,
    actorUserId: uuidArg('actor_user_id', filters.actor_user_id),
    actorApiKeyId: uuidArg('actor_api_key_id', filters.actor_api_key_id),
    targetId: filters.target_id ?? undefined,
    occurredAt: dateRange(filters.from, filters.to),
  };
  const [total, events] = await Promise.all([
    caller.db.auditEvent.count({ where }),
    caller.db.auditEvent.findMany({
      where,
      orderBy: [{ occurredAt: 'desc' }, { id: 'desc' }],
      take: limit,
      skip: offset,
    }),
  ]);
  return { items: events, total, limit, offset };
}
