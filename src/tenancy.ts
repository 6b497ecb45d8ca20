import type { Session } from './auth/session';
import type { DataKind } from './auth/consent';
import { badInput, conflict, notFound } from './errors';
import { Prisma, type PrismaClient } from './generated/prisma/client';
import { isUuid } from './validation';
import { equalsAny } from './sql-filters';

/** The dealer group a new record belongs to: the one named (if the caller holds it), or the caller's only one. */
export function targetGroup(session: Session, requested: string | null | undefined): string {
  const groups = session.dealerGroupIds;
  if (requested) {
    if (!groups.includes(requested)) throw badInput('dealer_group_id', 'is not one of your dealer groups');
    return requested;
  }
  if (groups.length !== 1)
    throw badInput(
      'dealer_group_id',
      groups.length ? 'is required: you belong to several dealer groups' : 'you belong to no dealer group',
    );
  return groups[0] as string;
}

/** The tenant filter for Prisma: `where: { dealerGroupId: inCallerGroups(session) }`. */
export const inCallerGroups = (session: Session) => ({ in: [...session.dealerGroupIds] });

/** The tenant filter for SQL on the table aliased `alias` (a constant in our code, never input). */
export const callerGroupsSql = (session: Session, alias: string) =>
  equalsAny(Prisma.raw(`${alias}.dealer_group_id`), session.dealerGroupIds, 'uuid');

/**
 * The caller's rows of one kind of data, as SQL over the table aliased `alias` (which has
 * dealer_group_id and dealer_id): its groups' rows and, for a partner's key, only those of the
 * rooftops whose link allows `kind`.
 */
export function callerDataSql(session: Session, alias: string, kind: DataKind): Prisma.Sql {
  const groups = callerGroupsSql(session, alias);
  if (!session.consent) return groups;
  return Prisma.sql`${groups} AND ${Prisma.raw(alias)}.dealer_id = ANY(${[...session.consent.dealers(kind)]}::uuid[])`;
}

/**
 * The Prisma filter on a rooftop id for a partner's key: the rooftops whose link allows `kind`
 * (undefined, which Prisma ignores, for every other caller): `where: { dealerId: inConsentedDealers(…) }`.
 */
export const inConsentedDealers = (session: Session, kind: DataKind) =>
  session.consent ? { in: [...session.consent.dealers(kind)] } : undefined;

/** Whether the caller may see `kind` data of this rooftop: always, unless a partner's key whose link does not allow it. */
export const mayReadAt = (session: Session, kind: DataKind, dealerId: string | null | undefined) =>
  !session.consent || session.consent.allows(kind, dealerId);

/** The same for Prisma, over a model with dealerGroupId and dealerId: `where: { ...inCallerData(session, 'leads') }`. */
export function inCallerData(session: Session, kind: DataKind) {
  return { dealerGroupId: inCallerGroups(session), dealerId: inConsentedDealers(session, kind) };
}

/**
 * The caller's rooftops for Prisma: its groups' and, for a partner's key, those whose link allows
 * `kind` (`dealers`: the rooftops' own records; another kind when matching a rooftop to write for).
 */
export function inCallerDealers(session: Session, kind: DataKind = 'dealers'): Prisma.DealerWhereInput {
  return { dealerGroupId: inCallerGroups(session), id: inConsentedDealers(session, kind) };
}

/**
 * The rooftops a `dealer_id` filter names (undefined: every rooftop), narrowed for a partner's key
 * to those whose link allows `kind` (its whole list when the filter names none).
 */
export function visibleDealers(session: Session, kind: DataKind, named: string[] | undefined): string[] | undefined {
  const consent = session.consent;
  if (!consent) return named;
  const allowed = consent.dealers(kind);
  return named ? named.filter((id) => allowed.includes(id)) : [...allowed];
}

/**
 * A rooftop a partner's key writes `kind` data for must be linked to its partner with that
 * permission; else 400 naming dealer_id, which says no more about a rooftop it may not see.
 */
function assertMayWrite(session: Session, kind: DataKind, dealerId: string): void {
  if (!mayReadAt(session, kind, dealerId))
    throw badInput('dealer_id', `no dealer ${dealerId} whose ${kind} this key's partner may send`);
}

/**
 * The rooftop an input's `dealer_id` names, when it is in the caller's groups (and not archived,
 * with `active`); else 400 naming the field. `purpose` finishes "is required: …".
 */
export async function inputDealer(
  caller: { db: PrismaClient; session: Session },
  dealerId: string | null | undefined,
  options: { purpose: string; active?: boolean; writes?: DataKind },
) {
  if (!dealerId || !isUuid(dealerId)) throw badInput('dealer_id', `is required: ${options.purpose}`);
  if (options.writes) assertMayWrite(caller.session, options.writes, dealerId);
  const dealer = await caller.db.dealer.findFirst({
    where: {
      id: dealerId,
      dealerGroupId: inCallerGroups(caller.session),
      ...(options.active ? { archivedAt: null } : {}),
    },
    select: { id: true, name: true, dealerGroupId: true, sourcePriority: true },
  });
  if (!dealer)
    throw badInput('dealer_id', `no ${options.active ? 'active ' : ''}dealer ${dealerId} in your dealer groups`);
  return dealer;
}

/** Prisma's unique-constraint violation. */
const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === 'P2002';

/** Runs a write a unique constraint may refuse; a clash answers 409 saying what is taken. */
export async function unlessTaken<T>(write: () => Promise<T>, taken: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(taken);
    throw error;
  }
}

/**
 * One of the caller's records by id, else 404: a malformed id, a missing record and another
 * tenant's record all answer the same, so ids reveal nothing.
 */
export async function findInTenant<T>(
  session: Session,
  what: string,
  id: string,
  find: (where: { id: string; dealerGroupId: { in: string[] }; dealerId?: { in: string[] } }) => Promise<T | null>,
  /** The kind of dealer data the record is: a partner's key finds it only at a rooftop its link allows it for. */
  kind?: DataKind,
): Promise<T> {
  const where = { id, ...(kind ? inCallerData(session, kind) : { dealerGroupId: inCallerGroups(session) }) };
  const record = isUuid(id) ? await find(where) : null;
  if (!record) throw notFound(`${what} ${id}`);
  return record;
}
