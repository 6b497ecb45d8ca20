import type { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import { badInput, conflict, notFound } from '../../errors';
import { pageArgs, pageRef, type PageRef, type WindowArgs } from '../../pagination';
import { findInTenant, inCallerGroups, unlessTaken, targetGroup } from '../../tenancy';
import { isEmailAddress, isUuid, oneOf, optionalText, requiredText, websiteUrl } from '../../validation';
import { findDealer } from '../dealers/dealers.service';
import { DATA_KINDS } from '../../auth/consent';

/** Data partners (vendors, agencies, OEM programs) and which rooftops' data each may receive. */

export const PARTNER_KINDS = ['vendor', 'agency', 'oem', 'lender', 'marketplace', 'other'] as const;
export const RELATIONSHIP_TYPES = [
  'advertising',
  'inventory_syndication',
  'crm',
  'dms',
  'call_tracking',
  'analytics',
  'financing',
  'other',
] as const;
/** What a link can allow: the kinds of data a partner's key may receive for the rooftop. */
export const DATA_PERMISSIONS = DATA_KINDS;

export interface PartnerInput {
  name?: string | null;
  kind?: string | null;
  contact_email?: string | null;
  website?: string | null;
  notes?: string | null;
  dealer_group_id?: string | null;
}

function partnerFields(input: PartnerInput) {
  if (input.contact_email && !isEmailAddress(input.contact_email.trim()))
    throw badInput('contact_email', 'is not an email address');
  return {
    ...(input.name !== undefined ? { name: requiredText('name', input.name, 100) } : {}),
    ...(input.kind != null ? { kind: oneOf('kind', input.kind, PARTNER_KINDS) } : {}),
    ...(input.contact_email !== undefined ? { contactEmail: input.contact_email?.trim().toLowerCase() || null } : {}),
    ...(input.website !== undefined ? { website: websiteUrl('website', input.website) ?? null } : {}),
    ...(input.notes !== undefined ? { notes: optionalText('notes', input.notes, 2000) } : {}),
  };
}

export async function partnerPage(
  caller: Caller,
  args: WindowArgs & { kind?: string | null },
): Promise<PageRef<Prisma.PartnerWhereInput>> {
  const { limit, offset } = pageArgs(args);
  const where: Prisma.PartnerWhereInput = {
    dealerGroupId: inCallerGroups(caller.session),
    ...(args.kind ? { kind: oneOf('kind', args.kind, PARTNER_KINDS) } : {}),
  };
  return pageRef(where, { limit, offset }, () => caller.db.partner.count({ where }));
}

export function findPartner(caller: Caller, id: string) {
  return findInTenant(caller.session, 'partner', id, (where) =>
    caller.db.partner.findFirst({ where, select: { id: true, dealerGroupId: true } }),
  );
}

export async function createPartner(caller: Caller, input: PartnerInput): Promise<string> {
  const dealerGroupId = targetGroup(caller.session, input.dealer_group_id);
  const { kind } = input;
  if (!kind) throw badInput('kind', `is required: one of ${PARTNER_KINDS.join(', ')}`);
  const data = { dealerGroupId, name: requiredText('name', input.name, 100), kind, ...partnerFields(input) };
  const partner = await unlessTaken(
    () => caller.db.partner.create({ data }),
    `a partner named "${input.name}" already exists`,
  );
  return partner.id;
}

export async function updatePartner(caller: Caller, id: string, input: PartnerInput): Promise<string> {
  await findPartner(caller, id);
  await unlessTaken(
    () => caller.db.partner.update({ where: { id }, data: partnerFields(input) }),
    `a partner named "${input.name}" already exists`,
  );
  return id;
}

/**
 * Refused while the partner still has dealer relationships or API keys that work: unlink and
 * revoke them first, deliberately. Its revoked keys are detached and its webhook endpoints go with it.
 */
export async function deletePartner(caller: Caller, id: string): Promise<string> {
  await findPartner(caller, id);
  await caller.db.$transaction(async (tx) => {
    // The partner's row is locked first, so no key can be bound to it meanwhile.
    await tx.$queryRaw`SELECT id FROM partners WHERE id = ${id}::uuid FOR UPDATE`;
    const links = await tx.partnerDealer.count({ where: { partnerId: id } });
    if (links) throw conflict(`partner ${id} still receives data from ${links} dealer(s); unlink them first`);
    const now = new Date();
    const keys = await tx.apiKey.count({
      where: { partnerId: id, OR: [{ revokedAt: null }, { revokedAt: { gt: now } }] },
    });
    if (keys) throw conflict(`partner ${id} still has ${keys} API key(s) that work; revoke them first`);
    await tx.apiKey.updateMany({ where: { partnerId: id }, data: { partnerId: null } });
    await tx.partner.delete({ where: { id } });
  });
  return id;
}

export async function linkDealer(
  caller: Caller,
  partnerId: string,
  input: { dealer_id: string; relationship_type: string; data_permissions: string[] },
) {
  const partner = await findPartner(caller, partnerId);
  const dealer = await findDealer(caller, input.dealer_id);
  if (dealer.dealerGroupId !== partner.dealerGroupId)
    throw badInput('dealer_id', 'belongs to another dealer group than the partner');
  const relationshipType = oneOf('relationship_type', input.relationship_type, RELATIONSHIP_TYPES);
  const permissions = [
    ...new Set(input.data_permissions.map((permission) => oneOf('data_permissions', permission, DATA_PERMISSIONS))),
  ];
  await caller.db.partnerDealer.upsert({
    where: { partnerId_dealerId: { partnerId, dealerId: dealer.id } },
    create: { partnerId, dealerId: dealer.id, relationshipType, dataPermissions: permissions },
    update: { relationshipType, dataPermissions: permissions },
  });
  return partnerId;
}

export async function unlinkDealer(caller: Caller, partnerId: string, dealerId: string): Promise<string> {
  await findPartner(caller, partnerId);
  const { count } = isUuid(dealerId)
    ? await caller.db.partnerDealer.deleteMany({ where: { partnerId, dealerId } })
    : { count: 0 };
  if (!count) throw notFound(`link between partner ${partnerId} and dealer ${dealerId}`);
  return dealerId;
}
