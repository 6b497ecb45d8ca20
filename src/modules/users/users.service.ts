import { randomBytes } from 'node:crypto';
import type { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import type { AppServices, AuthServices } from '../../app-services';
import { recordAudit } from '../../audit';
import { hashPassword, MIN_PASSWORD_LENGTH, passwordProblem, verifyPassword } from '../../auth/passwords';
import { hashToken } from '../../auth/tokens';
import type { Role } from '../../auth/scopes';
import { AppError, badInput, conflict, notFound } from '../../errors';
import { pageArgs, type Page, type WindowArgs } from '../../pagination';
import { emailAddress, isUuid, oneOf, optionalText, requiredText } from '../../validation';
import { inCallerGroups } from '../../tenancy';
import { likeLiteral } from '../../sql-filters';

/**
 * Users of the admin's dealer groups (/admin/users): list, create with a role and groups
 * (an invitation, or an initial password the user must change), change role or groups, disable.
 * An admin sees a user through the groups they share, and only those memberships.
 */

export const ROLES = ['admin', 'analyst', 'viewer'] as const;
export const INVITE_DAYS = 7;

const visibleTo = (caller: Caller): Prisma.UserWhereInput => ({
  dealerGroups: { some: { dealerGroupId: inCallerGroups(caller.session) } },
});

export const userInclude = { dealerGroups: { select: { dealerGroupId: true } } } as const;
export type UserRow = Prisma.UserGetPayload<{ include: typeof userInclude }>;

/** The user's memberships the caller may see: the groups they share. */
export const sharedGroups = (caller: Pick<Caller, 'session'>, user: UserRow) =>
  user.dealerGroups
    .map((membership) => membership.dealerGroupId)
    .filter((id) => caller.session.dealerGroupIds.includes(id));

export async function listUsers(
  caller: Caller,
  args: WindowArgs & { q?: string | null; role?: string | null; include_disabled?: boolean | null },
): Promise<Page<UserRow>> {
  const { limit, offset } = pageArgs(args);
  const q = optionalText('q', args.q, 100);
  const where: Prisma.UserWhereInput = {
    ...visibleTo(caller),
    ...(args.role ? { role: oneOf('role', args.role, ROLES) } : {}),
    ...(args.include_disabled ? {} : { disabledAt: null }),
    ...(q
      ? {
          OR: [
            { email: { contains: likeLiteral(q), mode: 'insensitive' } },
            { name: { contains: likeLiteral(q), mode: 'insensitive' } },
          ],
        }
      : {}),
  };
  const [total, users] = await Promise.all([
    caller.db.user.count({ where }),
    caller.db.user.findMany({ where, include: userInclude, orderBy: [{ email: 'asc' }], take: limit, skip: offset }),
  ]);
  return { items: users, total, limit, offset };
}

export async function findUser(caller: Caller, id: string): Promise<UserRow> {
  const user = isUuid(id)
    ? await caller.db.user.findFirst({ where: { id, ...visibleTo(caller) }, include: userInclude })
    : null;
  if (!user) throw notFound(`user ${id}`);
  return user;
}

function groupsOf(caller: Caller, requested: readonly string[] | null | undefined): string[] {
  const groups = requested?.length
    ? [...new Set(requested)]
    : caller.session.dealerGroupIds.length === 1
      ? [...caller.session.dealerGroupIds]
      : [];
  if (!groups.length) throw badInput('dealer_group_ids', 'is required: name the dealer groups the user may see');
  const foreign = groups.find((id) => !caller.session.dealerGroupIds.includes(id));
  if (foreign) throw badInput('dealer_group_ids', `"${foreign}" is not one of your dealer groups`);
  return groups;
}

export interface CreateUserInput {
  email?: string | null;
  name?: string | null;
  role?: string | null;
  dealer_group_ids?: string[] | null;
  password?: string | null;
}
export interface Invitation {
  token: string;
  expires_at: Date;
  delivery: string;
  outbox_file: string | null;
  note: string | null;
}

export async function createUser(
  caller: Caller,
  app: Pick<AppServices, 'mailer'>,
  input: CreateUserInput,
): Promise<{ user: UserRow; invitation: Invitation | null }> {
  const email = emailAddress('email', input.email);
  const name = requiredText('name', input.name, 200);
  const role = oneOf('role', input.role ?? 'viewer', ROLES) as Role;
  const groups = groupsOf(caller, input.dealer_group_ids);
  const password = input.password ?? null;
  if (password !== null) {
    const problem = passwordProblem(password);
    if (problem) throw badInput('password', problem);
  }
  if (await caller.db.user.findUnique({ where: { email }, select: { id: true } }))
    throw conflict(`a user with the email ${email} already exists`);
  const invite = password === null ? randomBytes(32).toString('base64url') : null;
  const expiresAt = new Date(Date.now() + INVITE_DAYS * 86_400_000);
  const user = await caller.db.$transaction(async (tx) => {
    const created = await tx.user.create({
      data: {
        email,
        name,
        role,
        passwordHash: password === null ? null : await hashPassword(password),
        mustChangePassword: password !== null,
        inviteTokenHash: invite ? hashToken(invite) : null,
        inviteExpiresAt: invite ? expiresAt : null,
        invitedById: caller.session.userId,
        dealerGroups: { create: groups.map((dealerGroupId) => ({ dealerGroupId })) },
      },
      include: userInclude,
    });
    await recordAudit(tx, caller, {
      action: invite ? 'user.invited' : 'user.created',
      targetType: 'user',
      targetId: created.id,
      dealerGroupIds: groups,
      details: { email, role, dealer_group_ids: groups },
    });
    return created;
  });
  if (!invite) return { user, invitation: null };
  const receipt = await app.mailer.send({
    to: email,
    subject: 'Your invitation to the Dealership Data Platform',
    text: [
      `Hello ${name},`,
      '',
      `You have been invited to the Dealership Data Platform as ${{ admin: 'an admin', analyst: 'an analyst', viewer: 'a viewer' }[role]}.`,
      `To accept, choose a password of at least ${MIN_PASSWORD_LENGTH} characters and send it with this invitation token to`,
      'POST /api/v1/auth/invitations/accept  {"token": "…", "password": "…"}',
      '',
      `Invitation token: ${invite}`,
      `It works once and expires on ${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
    ].join('\n'),
  });
  const note = receipt.smtpError
    ? `the SMTP server did not take the invitation (${receipt.smtpError}); it was written to the outbox`
    : receipt.delivery === 'outbox'
      ? 'no SMTP server is configured (SMTP_URL): the invitation was written to the outbox; hand the token over another way'
      : null;
  return {
    user,
    invitation: {
      token: invite,
      expires_at: expiresAt,
      delivery: receipt.delivery,
      outbox_file: receipt.outboxFile,
      note,
    },
  };
}

export interface UpdateUserInput {
  name?: string | null;
  role?: string | null;
  dealer_group_ids?: string[] | null;
  disabled?: boolean | null;
}

export async function updateUser(caller: Caller, id: string, input: UpdateUserInput): Promise<UserRow> {
  const user = await findUser(caller, id);
  const self = user.id === caller.session.userId;
  const role = input.role == null ? undefined : (oneOf('role', input.role, ROLES) as Role);
  const name = input.name == null ? undefined : requiredText('name', input.name, 200);
  if (self && role && role !== 'admin') throw conflict('you cannot take away your own admin role; ask another admin');
  if (self && input.disabled) throw conflict('you cannot disable your own account; ask another admin');
  // Memberships in groups the admin does not hold are kept as they are.
  const shared = sharedGroups(caller, user);
  const groups = input.dealer_group_ids == null ? null : groupsOf(caller, input.dealer_group_ids);
  const disable = input.disabled === true && !user.disabledAt;
  const enable = input.disabled === false && user.disabledAt !== null;
  const now = new Date();
  return caller.db.$transaction(async (tx) => {
    if (groups) {
      await tx.userDealerGroup.deleteMany({
        where: { userId: user.id, dealerGroupId: { in: shared.filter((group) => !groups.includes(group)) } },
      });
      await tx.userDealerGroup.createMany({
        data: groups
          .filter((group) => !shared.includes(group))
          .map((dealerGroupId) => ({ userId: user.id, dealerGroupId })),
        skipDuplicates: true,
      });
    }
    const updated = await tx.user.update({
      where: { id: user.id },
      data: { name, role, ...(disable ? { disabledAt: now } : enable ? { disabledAt: null } : {}) },
      include: userInclude,
    });
    const audience = [...new Set([...shared, ...(groups ?? [])])];
    if (disable) {
      // Sessions end now: refresh tokens are revoked, and each request re-reads the account, so an access token still in flight answers 401.
      const revoked = await tx.refreshToken.updateMany({
        where: { userId: user.id, revokedAt: null },
        data: { revokedAt: now },
      });
      await recordAudit(tx, caller, {
        action: 'user.disabled',
        targetType: 'user',
        targetId: user.id,
        dealerGroupIds: audience,
        details: { email: user.email, refresh_tokens_revoked: revoked.count },
      });
    }
    if (enable)
      await recordAudit(tx, caller, {
        action: 'user.enabled',
        targetType: 'user',
        targetId: user.id,
        dealerGroupIds: audience,
        details: { email: user.email },
      });
    const changes: Record<string, unknown> = {};
    if (role && role !== user.role) changes.role = { from: user.role, to: role };
    if (groups && (groups.length !== shared.length || groups.some((group) => !shared.includes(group))))
      changes.dealer_group_ids = { from: shared, to: groups };
    if (name && name !== user.name) changes.name = { from: user.name, to: name };
    if (Object.keys(changes).length)
      await recordAudit(tx, caller, {
        action: 'user.updated',
        targetType: 'user',
        targetId: user.id,
        dealerGroupIds: audience,
        details: { email: user.email, ...changes },
      });
    return updated;
  });
}

/** A signed-in user changes their password (required after an initial password an admin chose). */
export async function changePassword(
  caller: Caller,
  auth: AuthServices,
  input: { current_password?: string | null; new_password?: string | null },
) {
  const userId = caller.session.userId;
  if (!userId) throw new AppError(403, 'FORBIDDEN', 'only a signed-in user has a password to change');
  const user = await caller.db.user.findUniqueOrThrow({ where: { id: userId }, include: userInclude });
  // Guessing the current password here is throttled like sign-ins (a stolen access token must not become a password oracle).
  const wait = await auth.loginThrottle.blockedFor(user.email, caller.ip);
  if (wait > 0)
    throw new AppError(
      429,
      'RATE_LIMITED',
      `too many wrong passwords; try again in ${wait} s`,
      { retryAfterSeconds: wait },
      { 'Retry-After': String(wait) },
    );
  if (!input.current_password || !(await verifyPassword(input.current_password.slice(0, 1024), user.passwordHash))) {
    await auth.loginThrottle.recordFailure(user.email, caller.ip);
    throw badInput('current_password', 'is not your current password');
  }
  const next = input.new_password ?? '';
  const problem = passwordProblem(next);
  if (problem) throw badInput('new_password', problem);
  if (next === input.current_password) throw badInput('new_password', 'must differ from the current password');
  await caller.db.$transaction(async (tx) => {
    await tx.user.update({
      where: { id: userId },
      data: { passwordHash: await hashPassword(next), mustChangePassword: false },
    });
    await recordAudit(tx, caller, {
      action: 'password.changed',
      targetType: 'user',
      targetId: userId,
      dealerGroupIds: user.dealerGroups.map((membership) => membership.dealerGroupId),
    });
  });
  return { changed: true };
}

/** Accepts an invitation: sets the password and answers the user's id (the caller then signs in). */
export async function acceptInvitation(
  caller: Caller,
  input: { token?: string | null; password?: string | null },
): Promise<string> {
  const token = input.token?.trim() ?? '';
  if (!token) throw badInput('token', 'is required');
  const problem = passwordProblem(input.password ?? '');
  if (problem) throw badInput('password', problem);
  const user = await caller.db.user.findUnique({ where: { inviteTokenHash: hashToken(token) }, include: userInclude });
  if (!user || !user.inviteExpiresAt || user.inviteExpiresAt.getTime() < Date.now() || user.disabledAt) {
    throw new AppError(
      401,
      'INVALID_INVITATION',
      'this invitation is unknown, used, expired or withdrawn; ask your admin for a new one',
    );
  }
  await caller.db.$transaction(async (tx) => {
    // Single use: only the first request that still sees the token wins.
    const taken = await tx.user.updateMany({
      where: { id: user.id, inviteTokenHash: user.inviteTokenHash },
      data: {
        passwordHash: await hashPassword(input.password!),
        inviteTokenHash: null,
        inviteExpiresAt: null,
        mustChangePassword: false,
      },
    });
    if (!taken.count) throw new AppError(401, 'INVALID_INVITATION', 'this invitation was just used');
    await recordAudit(tx, caller, {
      action: 'invitation.accepted',
      actorUserId: user.id,
      targetType: 'user',
      targetId: user.id,
      dealerGroupIds: user.dealerGroups.map((membership) => membership.dealerGroupId),
    });
  });
  return user.id;
}
