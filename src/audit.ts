import type { Prisma } from './generated/prisma/client';
import type { Db } from './db/database';
import type { Caller } from './caller';

/** The security audit trail. Callers pass facts, never secrets: no keys, passwords or tokens. */

export type AuditAction =
  | 'login.succeeded'
  | 'login.failed'
  | 'login.throttled'
  | 'logout'
  | 'refresh_token.reused'
  | 'api_key.created'
  | 'api_key.rotated'
  | 'api_key.revoked'
  | 'scope.denied'
  | 'credentials.changed'
  | 'integration.connected'
  | 'integration.disconnected'
  | 'sftp_credentials.sent'
  | 'mapping_template.published'
  | 'user.created'
  | 'user.invited'
  | 'user.updated'
  | 'user.disabled'
  | 'user.enabled'
  | 'password.changed'
  | 'invitation.accepted'
  | 'ai_config.changed';

export interface AuditInput {
  action: AuditAction;
  targetType?: string;
  targetId?: string;
  details?: Record<string, unknown>;
  /** The tenants the event belongs to; defaults to the caller's dealer groups. */
  dealerGroupIds?: readonly string[];
  /** The acting user when the session does not say (a login, say). */
  actorUserId?: string | null;
}

type Writer = Pick<Db, 'auditEvent'> | Prisma.TransactionClient;

/** Writes one audit event; pass the transaction client to record it atomically with the change. */
export async function recordAudit(
  writer: Writer,
  caller: Pick<Caller, 'session' | 'requestId' | 'ip'>,
  input: AuditInput,
): Promise<void> {
  await writer.auditEvent.create({
    data: {
      action: input.action,
      actorUserId: input.actorUserId ?? caller.session.userId,
      actorApiKeyId: caller.session.apiKeyId,
      targetType: input.targetType ?? null,
      targetId: input.targetId ?? null,
      ip: caller.ip,
      requestId: caller.requestId,
      dealerGroupIds: [...(input.dealerGroupIds ?? caller.session.dealerGroupIds)],
      details: (input.details ?? {}) as Prisma.InputJsonValue,
    },
  });
}
