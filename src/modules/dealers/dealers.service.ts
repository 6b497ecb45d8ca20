import type { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import { badInput, conflict, notFound } from '../../errors';
import { pageArgs, pageRef, type PageRef, type WindowArgs } from '../../pagination';
import { isUuid, optionalText, phoneNumber, requiredText, timeZone, websiteUrl } from '../../validation';
import type { DataKind } from '../../auth/consent';
import { targetGroup, findInTenant, inCallerDealers, unlessTaken } from '../../tenancy';
import { keepOrder, rankDealers, type CandidateReranker, type MatchInput } from './matching';
import { likeLiteral } from '../../sql-filters';

/** Dealers (rooftops) of the caller's groups: profiles, aliases, archiving and matching. */

export interface DealerInput {
  name?: string | null;
  code?: string | null;
  street?: string | null;
  city?: string | null;
  state?: string | null;
  postal_code?: string | null;
  phone?: string | null;
  website?: string | null;
  time_zone?: string | null;
  franchises?: string[] | null;
  external_ids?: unknown;
  dealer_group_id?: string | null;
}

export async function dealerPage(
  caller: Caller,
  args: WindowArgs & { q?: string | null; include_archived?: boolean | null },
): Promise<PageRef<Prisma.DealerWhereInput>> {
  const { limit, offset } = pageArgs(args);
  const q = optionalText('q', args.q, 100);
  // q as text, not a LIKE pattern: the client hands contains and insensitive equals to (I)LIKE as they are.
  const text = q && likeLiteral(q);
  const where: Prisma.DealerWhereInput = {
    ...inCallerDealers(caller.session),
    ...(args.include_archived ? {} : { archivedAt: null }),
    ...(text
      ? {
          OR: [
            { name: { contains: text, mode: 'insensitive' } },
            { code: { equals: text, mode: 'insensitive' } },
            { aliases: { some: { alias: { contains: text, mode: 'insensitive' } } } },
          ],
        }
      : {}),
  };
  return pageRef(where, { limit, offset }, () => caller.db.dealer.count({ where }));
}

/** The caller's dealer with this id, else 404 (another group's dealer is indistinguishable from none). */
export async function findDealer(
  caller: Caller,
  id: string,
): Promise<{ id: string; dealerGroupId: string; archivedAt: Date | null }> {
  return findInTenant(caller.session, 'dealer', id, (where) =>
    caller.db.dealer.findFirst({
      where: { AND: [where, inCallerDealers(caller.session)] },
      select: { id: true, dealerGroupId: true, archivedAt: true },
    }),
  );
}

function externalIds(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value))
    throw badInput('external_ids', 'must be an object of system → code, e.g. {"dms": "CDK-1234"}');
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > 20) throw badInput('external_ids', 'at most 20 systems');
  for (const [system, code] of entries) {
    if (!/^[a-z][a-z0-9_]{0,39}$/.test(system))
      throw badInput('external_ids', `"${system}" is not a system name (lower case letters, digits, _)`);
    if (typeof code !== 'string' || !code.trim() || code.length > 100)
      throw badInput('external_ids', `the ${system} code must be a non-empty string of at most 100 characters`);
  }
  return Object.fromEntries(entries.map(([system, code]) => [system, String(code).trim()]));
}

function franchises(value: string[] | null | undefined): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const cleaned = [...new Set(value.map((entry) => entry.trim()).filter(Boolean))];
  if (cleaned.length > 20 || cleaned.some((entry) => entry.length > 50))
    throw badInput('franchises', 'at most 20 makes of at most 50 characters');
  return cleaned;
}

function profile(input: DealerInput) {
  return {
    street: optionalText('street', input.street),
    city: optionalText('city', input.city, 100),
    state: optionalText('state', input.state, 50),
    postalCode: optionalText('postal_code', input.postal_code, 20),
    phone: phoneNumber('phone', input.phone),
    website: websiteUrl('website', input.website),
    timeZone: timeZone('time_zone', input.time_zone),
    franchises: franchises(input.franchises),
    externalIds: externalIds(input.external_ids),
  };
}

export async function createDealer(caller: Caller, input: DealerInput): Promise<string> {
  const dealerGroupId = targetGroup(caller.session, input.dealer_group_id);
  const name = requiredText('name', input.name);
  const code = requiredText('code', input.code, 20).toUpperCase();
  const dealer = await unlessTaken(
    () => caller.db.dealer.create({ data: { dealerGroupId, name, code, ...profile(input) }, select: { id: true } }),
    `a dealer with code ${code} already exists in this dealer group`,
  );
  return dealer.id;
}

export async function updateDealer(caller: Caller, id: string, input: DealerInput): Promise<string> {
  await findDealer(caller, id);
  const data = {
    ...(input.name !== undefined ? { name: requiredText('name', input.name) } : {}),
    ...(input.code !== undefined ? { code: requiredText('code', input.code, 20).toUpperCase() } : {}),
    ...profile(input),
  };
  await unlessTaken(
    () => caller.db.dealer.update({ where: { id }, data }),
    `a dealer with code ${data.code} already exists in this dealer group`,
  );
  return id;
}

/** Dealers are archived, never deleted: vehicles, calls, leads and sales keep pointing at them. */
export async function archiveDealer(caller: Caller, id: string): Promise<string> {
  const dealer = await findDealer(caller, id);
  if (dealer.archivedAt) throw conflict(`dealer ${id} is already archived`);
  await caller.db.dealer.update({ where: { id }, data: { archivedAt: new Date() } });
  return id;
}

export async function addAlias(caller: Caller, dealerId: string, input: { alias: string; system?: string | null }) {
  await findDealer(caller, dealerId);
  const alias = requiredText('alias', input.alias);
  return unlessTaken(
    () =>
      caller.db.dealerAlias.create({
        data: { dealerId, alias, system: optionalText('system', input.system, 40) ?? null },
        select: { id: true },
      }),
    `the dealer already has the alias "${alias}"`,
  );
}

export async function removeAlias(caller: Caller, dealerId: string, aliasId: string): Promise<string> {
  await findDealer(caller, dealerId);
  const { count } = isUuid(aliasId)
    ? await caller.db.dealerAlias.deleteMany({ where: { id: aliasId, dealerId } })
    : { count: 0 };
  if (!count) throw notFound(`alias ${aliasId} of dealer ${dealerId}`);
  return aliasId;
}

/** Ranks the caller's active dealers against the input; an AI provider can re-rank the top ones. */
export async function matchDealers(
  caller: Caller,
  input: MatchInput & { limit?: number | null },
  reranker: CandidateReranker = keepOrder,
  /** For a partner's key, the rooftops whose link allows this kind (an ADF lead's vendor: `leads`). */
  among: DataKind = 'dealers',
) {
  if (![input.name, input.street, input.phone, input.website].some((value) => value?.trim())) {
    throw badInput('name', 'give at least a name, street, phone or website to match on');
  }
  const limit = input.limit ?? 5;
  if (!Number.isInteger(limit) || limit < 1 || limit > 50)
    throw badInput('limit', 'must be a whole number from 1 to 50');
  const dealers = await caller.db.dealer.findMany({
    where: { ...inCallerDealers(caller.session, among), archivedAt: null },
    select: {
      id: true,
      name: true,
      street: true,
      city: true,
      state: true,
      postalCode: true,
      phone: true,
      website: true,
      aliases: { select: { alias: true } },
    },
  });
  const ranked = rankDealers(
    input,
    dealers.map((dealer) => ({ ...dealer, aliases: dealer.aliases.map((entry) => entry.alias) })),
    limit,
  );
  return reranker.rerank(input, ranked);
}
