import type { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import { recordAudit } from '../../audit';
import { cidrProblem, generateApiKey } from '../../auth/api-keys';
import { isScope, SCOPES } from '../../auth/scopes';
import { badInput, conflict, notFound } from '../../errors';
import { pageArgs, type IdPage, type WindowArgs } from '../../pagination';
import { inCallerGroups } from '../../tenancy';
import { PARTNER_SCOPES } from '../../auth/consent';
import { isUuid } from '../../validation';

/** API keys: create, list, revoke and rotate, for the admin users of the keys' dealer groups. */

export const DEFAULT_RATE_LIMIT = 1000;
export const MAX_RATE_LIMIT = 1_000_000;
export const MAX_GRACE_SECONDS = 30 * 86_400;
export const ROTATION_DAYS = 90;

export interface CreateApiKeyInput {
  name: string;
  scopes: string[];
  rateLimitPerHour?: number | null;
  allowedIps?: string[] | null;
  dealerGroupIds?: string[] | null;
  partnerId?: string | null;
}

function validate(session: Caller['session'], input: CreateApiKeyInput) {
  const name = input.name.trim();
  if (!name) throw badInput('name', 'must not be empty');
  if (name.length > 100) throw badInput('name', 'must be at most 100 characters');
  if (!input.scopes.length) throw badInput('scopes', `name at least one of ${SCOPES.join(', ')}`);
  const unknown = input.scopes.filter((scope) => !isScope(scope));
  if (unknown.length)
    throw badInput(
      'scopes',
      `unknown scope ${unknown.map((scope) => `"${scope}"`).join(', ')}; known scopes are ${SCOPES.join(', ')}`,
    );
  const rateLimitPerHour = input.rateLimitPerHour ?? DEFAULT_RATE_LIMIT;
  if (!Number.isInteger(rateLimitPerHour) || rateLimitPerHour < 1 || rateLimitPerHour > MAX_RATE_LIMIT) {
    throw badInput('rateLimitPerHour', `must be a whole number from 1 to ${MAX_RATE_LIMIT}`);
  }
  const allowedIps = (input.allowedIps ?? []).map((block) => block.trim());
  if (allowedIps.length > 50) throw badInput('allowedIps', 'at most 50 blocks');
  for (const block of allowedIps) {
    const problem = cidrProblem(block);
    if (problem) throw badInput('allowedIps', problem);
  }
  const dealerGroupIds = input.dealerGroupIds?.length
    ? [...new Set(input.dealerGroupIds)]
    : [...session.dealerGroupIds];
  const foreign = dealerGroupIds.find((id) => !session.dealerGroupIds.includes(id));
  if (foreign) throw badInput('dealerGroupIds', `"${foreign}" is not one of your dealer groups`);
  if (!dealerGroupIds.length)
    throw badInput('dealerGroupIds', 'you belong to no dealer group, so a key could read nothing');
  return { name, scopes: [...new Set(input.scopes)], rateLimitPerHour, allowedIps, dealerGroupIds };
}

/** Keys an admin may see: bound only to dealer groups the admin holds. */
function visibleTo(session: Caller['session']): Prisma.ApiKeyWhereInput {
  return { dealerGroups: { some: {}, every: { dealerGroupId: inCallerGroups(session) } } };
}

/**
 * A key bound to a partner: the partner is one of the caller's, the key reads only the partner's
 * group, and holds only the scopes a partner's key may (PARTNER_SCOPES).
 */
async function partnerBinding(caller: Caller, input: CreateApiKeyInput) {
  if (input.partnerId == null) return null;
  const partner = isUuid(input.partnerId)
    ? await caller.db.partner.findFirst({
        where: { id: input.partnerId, dealerGroupId: inCallerGroups(caller.session) },
        select: { id: true, dealerGroupId: true },
      })
    : null;
  if (!partner) throw badInput('partnerId', `no partner ${input.partnerId} in your dealer groups`);
  const others = (input.dealerGroupIds ?? []).filter((id) => id !== partner.dealerGroupId);
  if (others.length)
    throw badInput('dealerGroupIds', "a partner's key reads only its partner's dealer group; leave dealerGroupIds out");
  const refused = input.scopes.filter((scope) => !(PARTNER_SCOPES as readonly string[]).includes(scope));
  if (refused.length)
    throw badInput(
      'scopes',
      `a partner's key may not hold ${refused.join(', ')}; it may hold ${PARTNER_SCOPES.join(', ')}`,
    );
  return partner;
}

export async function createApiKey(caller: Caller, input: CreateApiKeyInput) {
  const partner = await partnerBinding(caller, input);
  const valid = validate(caller.session, partner ? { ...input, dealerGroupIds: [partner.dealerGroupId] } : input);
  const secret = generateApiKey();
  const created = await caller.db.$transaction(async (tx) => {
    const apiKey = await tx.apiKey.create({
      data: {
        name: valid.name,
        keyHash: secret.hash,
        lastFour: secret.lastFour,
        scopes: valid.scopes,
        rateLimitPerHour: valid.rateLimitPerHour,
        allowedIps: valid.allowedIps,
        createdById: caller.session.userId as string,
        partnerId: partner?.id ?? null,
        dealerGroups: { create: valid.dealerGroupIds.map((dealerGroupId) => ({ dealerGroupId })) },
      },
    });
    await recordAudit(tx, caller, {
      action: 'api_key.created',
      targetType: 'api_key',
      targetId: apiKey.id,
      dealerGroupIds: valid.dealerGroupIds,
      details: {
        name: valid.name,
        scopes: valid.scopes,
        rateLimitPerHour: valid.rateLimitPerHour,
        allowedIps: valid.allowedIps,
        ...(partner ? { partnerId: partner.id } : {}),
      },
    });
    return apiKey;
  });
  return { id: created.id, key: secret.key };
}

export async function listApiKeys(
  caller: Caller,
  args: WindowArgs & { includeRevoked?: boolean | null },
): Promise<IdPage> {
  const { limit, offset } = pageArgs(args);
  const where: Prisma.ApiKeyWhereInput = {
    ...visibleTo(caller.session),
    ...(args.includeRevoked ? {} : { OR: [{ revokedAt: null }, { revokedAt: { gt: new Date() } }] }),
  };
  const [total, ids] = await Promise.all([
    caller.db.apiKey.count({ where }),
    caller.db.apiKey.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      take: limit,
      skip: offset,
      select: { id: true },
    }),
  ]);
  return { ids: ids.map((row) => row.id), total, limit, offset };
}

async function findVisible(caller: Caller, id: string) {
  const apiKey = /^[0-9a-f-]{36}$/i.test(id)
    ? await caller.db.apiKey.findFirst({
        where: { id, ...visibleTo(caller.session) },
        include: { dealerGroups: true, rotatedTo: { select: { id: true } } },
      })
    : null;
  if (!apiKey) throw notFound(`API key ${id}`);
  return apiKey;
}

export async function revokeApiKey(caller: Caller, id: string) {
  const apiKey = await findVisible(caller, id);
  const now = new Date();
  if (apiKey.revokedAt && apiKey.revokedAt <= now)
    throw conflict(`API key ${id} was already revoked at ${apiKey.revokedAt.toISOString()}`);
  await caller.db.$transaction(async (tx) => {
    await tx.apiKey.update({ where: { id }, data: { revokedAt: now } });
    await recordAudit(tx, caller, {
      action: 'api_key.revoked',
      targetType: 'api_key',
      targetId: id,
      details: { name: apiKey.name },
      dealerGroupIds: apiKey.dealerGroups.map((group) => group.dealerGroupId),
    });
  });
  return id;
}

/** A new key with the same name, scopes, limit, allowlist and groups; the old one stops now or after the grace period. */
export async function rotateApiKey(caller: Caller, id: string, gracePeriodSeconds: number | null | undefined) {
  const grace = gracePeriodSeconds ?? 0;
  if (!Number.isInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS)
    throw badInput('gracePeriodSeconds', `must be a whole number from 0 to ${MAX_GRACE_SECONDS} (30 days)`);
  const old = await findVisible(caller, id);
  const now = new Date();
  if (old.revokedAt && old.revokedAt <= now) throw conflict(`API key ${id} is revoked; create a new key instead`);
  if (old.rotatedTo) throw conflict(`API key ${id} was already rotated to ${old.rotatedTo.id}`);
  const secret = generateApiKey();
  const oldExpiresAt = new Date(now.getTime() + grace * 1000);
  const groups = old.dealerGroups.map((group) => group.dealerGroupId);
  const created = await caller.db.$transaction(async (tx) => {
    const replacement = await tx.apiKey.create({
      data: {
        name: old.name,
        keyHash: secret.hash,
        lastFour: secret.lastFour,
        scopes: old.scopes,
        rateLimitPerHour: old.rateLimitPerHour,
        allowedIps: old.allowedIps,
        createdById: caller.session.userId as string,
        partnerId: old.partnerId,
        rotatedFromId: old.id,
        dealerGroups: { create: groups.map((dealerGroupId) => ({ dealerGroupId })) },
      },
    });
    await tx.apiKey.update({ where: { id: old.id }, data: { revokedAt: oldExpiresAt } });
    await recordAudit(tx, caller, {
      action: 'api_key.rotated',
      targetType: 'api_key',
      targetId: old.id,
      dealerGroupIds: groups,
      details: { replacedBy: replacement.id, oldKeyStopsAt: oldExpiresAt.toISOString(), gracePeriodSeconds: grace },
    });
    return replacement;
  });
  return { id: created.id, key: secret.key };
}
