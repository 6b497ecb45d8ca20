import { randomUUID } from 'node:crypto';
import type { Db } from '../../db/database';
import { AppError, badInput, unauthenticated } from '../../errors';
import { verifyPassword } from '../../auth/passwords';
import { ROLE_SCOPES, type Role } from '../../auth/scopes';
import type { Session } from '../../auth/session';
import { hashToken, newRefreshToken, type TokenService } from '../../auth/tokens';

/** Login, token refresh with reuse detection, logout and the caller's profile. */

export interface TokenPair {
  token: string;
  tokenType: 'Bearer';
  expiresAt: Date;
  expiresIn: number;
  refreshToken: string;
  refreshExpiresAt: Date;
  userId: string;
}

interface AuthDeps {
  db: Db;
  tokens: TokenService;
  refreshTokenTtlSeconds: number;
}

const invalidCredentials = () => new AppError(401, 'INVALID_CREDENTIALS', 'email or password is incorrect');

function assertBuiltInProvider(tokens: TokenService): void {
  if (tokens.external) {
    throw new AppError(400, 'EXTERNAL_IDENTITY_PROVIDER', 'sign-in is handled by the configured identity provider; send its token as the Bearer token');
  }
}

async function issuePair(deps: AuthDeps, userId: string, familyId: string): Promise<TokenPair> {
  const user = await deps.db.user.findUniqueOrThrow({
    where: { id: userId },
    select: { id: true, email: true, role: true, dealerGroups: { select: { dealerGroupId: true } } },
  });
  const access = await deps.tokens.issueAccessToken({
    userId: user.id,
    email: user.email,
    role: user.role,
    dealerGroupIds: user.dealerGroups.map((membership) => membership.dealerGroupId),
  });
  const refresh = newRefreshToken();
  const refreshExpiresAt = new Date(Date.now() + deps.refreshTokenTtlSeconds * 1000);
  await deps.db.refreshToken.create({ data: { userId, familyId, tokenHash: refresh.hash, expiresAt: refreshExpiresAt } });
  return {
    token: access.token,
    tokenType: 'Bearer',
    expiresAt: access.expiresAt,
    expiresIn: Math.round((access.expiresAt.getTime() - Date.now()) / 1000),
    refreshToken: refresh.token,
    refreshExpiresAt,
    userId,
  };
}

export async function login(deps: AuthDeps, input: { email: string; password: string }): Promise<TokenPair> {
  assertBuiltInProvider(deps.tokens);
  const email = input.email.trim().toLowerCase();
  if (!email) throw badInput('email', 'is required');
  if (!input.password) throw badInput('password', 'is required');
  if (email.length > 320 || input.password.length > 1024) throw invalidCredentials();
  const user = await deps.db.user.findUnique({ where: { email }, select: { id: true, passwordHash: true, disabledAt: true } });
  const valid = await verifyPassword(input.password, user?.passwordHash ?? null);
  if (!user || !valid || user.disabledAt) throw invalidCredentials();
  await deps.db.user.update({ where: { id: user.id }, data: { lastLoginAt: new Date() } });
  return issuePair(deps, user.id, randomUUID());
}

/**
 * Exchanges a refresh token for a new pair. Each token works once: presenting a spent one means
 * it was copied, so the whole family (every token descended from that login) is revoked.
 */
export async function refresh(deps: AuthDeps, refreshToken: string): Promise<TokenPair> {
  assertBuiltInProvider(deps.tokens);
  if (!refreshToken.trim()) throw badInput('refresh_token', 'is required');
  const tokenHash = hashToken(refreshToken.trim());
  const now = new Date();
  const spent = await deps.db.refreshToken.updateMany({
    where: { tokenHash, usedAt: null, revokedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  const record = await deps.db.refreshToken.findUnique({
    where: { tokenHash },
    select: { userId: true, familyId: true, usedAt: true, revokedAt: true, expiresAt: true, user: { select: { disabledAt: true } } },
  });
  if (!record) throw unauthenticated('invalid refresh token');
  if (spent.count === 0) {
    if (record.usedAt || record.revokedAt) {
      await deps.db.refreshToken.updateMany({ where: { familyId: record.familyId, revokedAt: null }, data: { revokedAt: now } });
      throw new AppError(401, 'REFRESH_TOKEN_REUSED', 'refresh token already used or revoked; every session from that login has been signed out');
    }
    throw unauthenticated('refresh token expired: log in again');
  }
  if (record.user.disabledAt) throw unauthenticated('account disabled');
  return issuePair(deps, record.userId, record.familyId);
}

/** Revokes one of the caller's refresh tokens (its whole family), or all of them when none is named. */
export async function logout(deps: AuthDeps, session: Session, refreshToken: string | null): Promise<number> {
  session.assertAuthenticated();
  const userId = session.userId;
  if (!userId) throw unauthenticated();
  const now = new Date();
  if (refreshToken) {
    const record = await deps.db.refreshToken.findUnique({ where: { tokenHash: hashToken(refreshToken.trim()) }, select: { userId: true, familyId: true } });
    if (!record || record.userId !== userId) throw badInput('refresh_token', 'is not a refresh token of yours');
    const { count } = await deps.db.refreshToken.updateMany({ where: { familyId: record.familyId, revokedAt: null }, data: { revokedAt: now } });
    return count;
  }
  const { count } = await deps.db.refreshToken.updateMany({ where: { userId, revokedAt: null, usedAt: null }, data: { revokedAt: now } });
  return count;
}

export function scopesOf(role: Role) {
  return ROLE_SCOPES[role];
}
