import type { AuditEvent as AuditRow, RequestLog as RequestRow } from '../../generated/prisma/client';
import { builder } from '../../builder';
import { itemsLoaded, pageOf } from '../../pages';
import { listArgs } from '../../schema-args';
import { listAuditEvents, listRequestLogs } from './logs.service';
import { restOperations } from '../../http/operations';

const operation = restOperations('Logs and audit');

/** The Logs and audit section of docs/operations.md: the API request log and the security audit trail. */

const RequestLogEntry = builder.objectRef<RequestRow>('RequestLogEntry').implement({
  fields: (t) => ({
    id: t.id({ resolve: (row) => String(row.id) }),
    request_id: t.exposeString('requestId'),
    occurred_at: t.expose('occurredAt', { type: 'DateTime' }),
    method: t.exposeString('method'),
    path: t.exposeString('path'),
    operation: t.exposeString('operation', { nullable: true }),
    status: t.exposeInt('status'),
    duration_ms: t.exposeFloat('durationMs'),
    ip: t.exposeString('ip', { nullable: true }),
    user_agent: t.exposeString('userAgent', { nullable: true }),
    user_id: t.exposeID('userId', { nullable: true }),
    api_key_id: t.exposeID('apiKeyId', { nullable: true }),
  }),
});

const AuditEntry = builder.objectRef<AuditRow>('AuditEvent').implement({
  fields: (t) => ({
    id: t.id({ resolve: (row) => String(row.id) }),
    occurred_at: t.expose('occurredAt', { type: 'DateTime' }),
    action: t.exposeString('action', {
      description: 'login.succeeded, login.failed, api_key.created, api_key.revoked, scope.denied, …',
    }),
    actor_user_id: t.exposeID('actorUserId', { nullable: true }),
    actor_api_key_id: t.exposeID('actorApiKeyId', { nullable: true }),
    target_type: t.exposeString('targetType', { nullable: true }),
    target_id: t.exposeString('targetId', { nullable: true }),
    ip: t.exposeString('ip', { nullable: true }),
    request_id: t.exposeString('requestId', { nullable: true }),
    details: t.expose('details', { type: 'JSON' }),
  }),
});

const RequestLogPage = pageOf('RequestLogPage', 'requests', itemsLoaded(RequestLogEntry));

const AuditPage = pageOf('AuditPage', 'events', itemsLoaded(AuditEntry));

builder.queryFields((t) => ({
  requestLogs: t.field({
    ...operation('GET /logs/requests', 'List requests'),
    type: RequestLogPage,
    description: 'API requests by users and keys of your dealer groups, newest first.',
    authScopes: { scope: 'logs:read' },
    args: {
      api_key_id: t.arg.id(),
      user_id: t.arg.id(),
      path: t.arg.string({ description: 'Path prefix, e.g. /api/v1/inventory.' }),
      method: t.arg.string(),
      status: t.arg.string({ description: 'A code (404) or a class (4xx).' }),
      from: t.arg({ type: 'DateTime' }),
      to: t.arg({ type: 'DateTime' }),
      ...listArgs(t),
    },
    resolve: (_root, args, context) =>
      listRequestLogs(context, { ...args, api_key_id: args.api_key_id?.toString(), user_id: args.user_id?.toString() }),
  }),
  auditEvents: t.field({
    ...operation('GET /logs/audit', 'List audit events'),
    type: AuditPage,
    description: 'The security audit trail of your dealer groups, newest first.',
    authScopes: { scope: 'logs:read' },
    args: {
      action: t.arg.string({ description: 'An action (api_key.revoked) or a family (api_key).' }),
      actor_user_id: t.arg.id(),
      actor_api_key_id: t.arg.id(),
      target_id: t.arg.string(),
      from: t.arg({ type: 'DateTime' }),
      to: t.arg({ type: 'DateTime' }),
      ...listArgs(t),
    },
    resolve: (_root, args, context) =>
      listAuditEvents(context, {
        ...args,
        actor_user_id: args.actor_user_id?.toString(),
        actor_api_key_id: args.actor_api_key_id?.toString(),
      }),
  }),
}));
