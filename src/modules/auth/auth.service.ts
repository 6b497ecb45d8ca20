import { randomUUID } from 'node:crypto';
import { AppError, badInput, unauthenticated } from '../../errors';
import { verifyPassword } from '../../auth/passwords';
import { hashToken, newRefreshToken, type TokenService } from '../../auth/tokens';
import type { Caller } from '../../caller';
import type { AuthServices } from '../../app-services';
import { recordAudit } from '../../audit';

/** Login, token refresh with reuse detection, logout and the caller's profile. */

export interface TokenPair {
  token: string;
  tokenType: 'Bearer';
  expiresAt: Date;
  expiresIn: number;
  refreshToken: string;
  refreshExpiresAt: Date;
  userId: string;
  /** The user signed in with an initial password an admin chose: POST /auth/password before anything else. */
  passwordChangeRequired: boolean;
}

const invalidCredentials = () => new AppError(401, 'INVALID_CREDENTIALS', 'email or password is incorrect');

function assertBuiltInProvider(tokens: TokenService): void {
  if (tokens.external) {
    throw new AppError(
      400,
      'EXTERNAL_IDENTITY_PROVIDER',
      'sign-in is handled by the configured identity provider; send its token as the Bearer token',
    );
  }
}

async function issuePair(caller: Caller, auth: AuthServices, userId: string, familyId: string): Promise<TokenPair> {
  const user = await caller.db.user.findUniqueOrThrow({
    where: { id: userId },
    select: {
      id: true,
      email: true,
      role: true,
      mustChangePassword: true,
      dealerGroups: { select: { dealerGroupId: true } },
    },
  });
  const access = await auth.tokens.issueAccessToken({
    userId: user.id,
    email: user.email,
    role: user.role,
    dealerGroupIds: user.dealerGroups.map((membership) => membership.dealerGroupId),
  });
  const refresh = newRefreshToken();
  const refreshExpiresAt = new Date(Date.now() + auth.refreshTokenTtlSeconds * 1000);
  await caller.db.refreshToken.create({
    data: { userId, familyId, tokenHash: refresh.hash, expiresAt: refreshExpiresAt },
  });
  return {
    token: access.token,
    tokenType: 'Bearer',
    expiresAt: access.expiresAt,
    expiresIn: Math.round((access.expiresAt.getTime() - Date.now()) / 1000),
    refreshToken: refresh.token,
    refreshExpiresAt,
    userId,
    passwordChangeRequired: user.mustChangePassword,
  };
}

export async function login(
  caller: Caller,
  auth: AuthServices,
  input: { email: string; password: string },
): Promise<TokenPair> {
  assertBuiltInProvider(auth.tokens);
  const email = input.email.trim().toLowerCase();
  if (!email) throw badInput('email', 'is required');
  if (!input.password) throw badInput('password', 'is required');
  const wait = await auth.loginThrottle.blockedFor(email, caller.ip);
  if (wait > 0) {
    await recordAudit(caller.db, caller, { action: 'login.throttled', details: { email }, dealerGroupIds: [] });
    throw new AppError(
      429,
      'RATE_LIMITED',
      `too many failed sign-ins; try again in ${wait} s`,
      { retryAfterSeconds: wait },
      { 'Retry-After': String(wait) },
    );
  }
  const user =
    email.length <= 320 && input.password.length <= 1024
      ? await caller.db.user.findUnique({
          where: { email },
          select: { id: true, passwordHash: true, disabledAt: true, dealerGroups: { select: { dealerGroupId: true } } },
        })
      : null;
  const valid = await verifyPassword(input.password.slice(0, 1024), user?.passwordHash ?? null);
  const groups = user?.dealerGroups.map((membership) => membership.dealerGroupId) ?? [];
  if (!user || !valid || user.disabledAt) {
    await auth.loginThrottle.recordFailure(email, caller.ip);
    await recordAudit(caller.db, caller, {
      action: 'login.failed',
      actorUserId: user?.id ?? null,
      details: { email, reason: !user ? 'unknown account' : user.disabledAt ? 'account disabled' : 'wrong password' },
      dealerGroupIds: groups,
    });
    throw invalidCredentials();
  }
  await auth.loginThrottle.recordSuccess(email);
  await caller.db.$transaction([
    caller.db.user.update({ where: { id: user.id }, data: { lastLoginAt: new Date() } }),
    caller.db.auditEvent.create({
      data: {
        action: 'login.succeeded',
        actorUserId: user.id,
        ip: caller.ip,
        requestId: caller.requestId,
        dealerGroupIds: groups,
      },
    }),
  ]);
  return issuePair(caller, auth, user.id, randomUUID());
}

/**
 * Exchanges a refresh token for a new pair. Each token works once: presenting a spent one means
 * it was copied, so the whole family (every token descended from that login) is revoked.
 */
export async function refresh(caller: Caller, auth: AuthServices, refreshToken: string): Promise<TokenPair> {
  assertBuiltInProvider(auth.tokens);
  if (!refreshToken.trim()) throw badInput('refresh_token', 'is required');
  const tokenHash = hashToken(refreshToken.trim());
  const now = new Date();
  const spent = await caller.db.refreshToken.updateMany({
    where: { tokenHash, usedAt: null, revokedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now },
  });
  const record = await caller.db.refreshToken.findUnique({
    where: { tokenHash },
    select: {
      userId: true,
      familyId: true,
      usedAt: true,
      revokedAt: true,
      expiresAt: true,
      user: { select: { disabledAt: true } },
    },
  });
  if (!record) throw unauthenticated('invalid refresh token');
  if (spent.count === 0) {
    if (record.usedAt || record.revokedAt) {
      const groups = await caller.db.userDealerGroup.findMany({
        where: { userId: record.userId },
        select: { dealerGroupId: true },
      });
      await caller.db.$transaction(async (tx) => {
        const revoked = await tx.refreshToken.updateMany({
          where: { familyId: record.familyId, revokedAt: null },
          data: { revokedAt: now },
        });
        await recordAudit(tx, caller, {
          action: 'refresh_token.reused',
          actorUserId: record.userId,
          targetType: 'refresh_token_family',
          targetId: record.familyId,
          details: { revoked: revoked.count },
          dealerGroupIds: groups.map((group) => group.dealerGroupId),
        });
      });
      throw new AppError(
        401,
        'REFRESH_TOKEN_REUSED',
        'refresh token already used or revoked; every session from that login has been signed out',
      );
    }
    throw unauthenticated('refresh token expired: log in again');
  }
  if (record.user.disabledAt) throw unauthenticated('account disabled');
  return issuePair(caller, auth, record.userId, record.familyId);
}

/** A new session for a user who just proved who they are another way (an accepted invitation). */
export function signIn(caller: Caller, auth: AuthServices, userId: string): Promise<TokenPair> {
  assertBuiltInProvider(auth.tokens);
  return issuePair(caller, auth, userId, randomUUID());
}

/** Revokes one of the caller's refresh tokens (its whole family), or all of them when none is named. */
export async function logout(caller: Caller, refreshToken: string | null): Promise<number> {
  const userId = caller.session.userId;
  if (!userId) throw badInput('refresh_token', 'API keys have no refresh tokens; revoke the key instead');
  const now = new Date();
  const revoke = async (where: { familyId: string } | { userId: string; usedAt: null }) => {
    return caller.db.$transaction(async (tx) => {
      const { count } = await tx.refreshToken.updateMany({
        where: { ...where, revokedAt: null },
        data: { revokedAt: now },
      });
      await recordAudit(tx, caller, {
        action: 'logout',
        targetType: 'user',
        targetId: userId,
        details: { revoked: count },
      });
      return count;
    });
  };
  if (refreshToken) {
    const record = await caller.db.refreshToken.findUnique({
      where: { tokenHash: hashToken(refreshToken.trim()) },
      select: { userId: true, familyId: true },
    });
    if (!record || record.userId !== userId) throw badInput('refresh_token', 'is not a refresh token of yours');
    return revoke({ familyId: record.familyId });
  }
  return revoke({ userId, usedAt: null });
}
