import type { Db } from '../db/database';
import { unauthenticated } from '../errors';
import { ROLE_SCOPES, type Role } from './scopes';
import { Session } from './session';
import type { TokenService } from './tokens';

/** Turns an Authorization header into a Session: user JWT, then (later) API key, else anonymous. */
export async function resolveSession(authorization: string | null, db: Db, tokens: TokenService): Promise<Session> {
  if (!authorization) return Session.anonymous();
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match?.[1]) throw unauthenticated('Authorization header must be "Bearer <token>"');
  const credential = match[1];
  if (credential.startsWith('svc_live_')) throw unauthenticated('invalid API key');

  const claims = await tokens.verify(credential);
  // The token proves identity; role, groups and whether the account is enabled are read fresh, so
  // a change to any of them applies from the next request on.
  const where = tokens.external
    ? { email: typeof claims.email === 'string' ? claims.email.toLowerCase() : '\u0000' }
    : { id: claims.sub ?? '' };
  const user = isUuidOrEmail(where) ? await db.user.findUnique({
    where,
    select: { id: true, email: true, role: true, disabledAt: true, dealerGroups: { select: { dealerGroupId: true } } },
  }) : null;
  if (!user) throw unauthenticated(tokens.external ? 'no account for this identity' : 'invalid token: unknown user');
  if (user.disabledAt) throw unauthenticated('account disabled');
  return new Session(
    { kind: 'user', userId: user.id, email: user.email, role: user.role as Role },
    ROLE_SCOPES[user.role as Role],
    user.dealerGroups.map((membership) => membership.dealerGroupId),
  );
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isUuidOrEmail(where: { id: string } | { email: string }): boolean {
  return 'id' in where ? UUID.test(where.id) : where.email !== '\u0000';
}
