import type { Session } from './auth/session';
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
 * The rooftop an input's `dealer_id` names, when it is in the caller's groups (and not archived,
 * with `active`); else 400 naming the field. `purpose` finishes "is required: …".
 */
export async function inputDealer(
  caller: { db: PrismaClient; session: Session },
  dealerId: string | null | undefined,
  options: { purpose: string; active?: boolean },
) {
  if (!dealerId || !isUuid(dealerId)) throw badInput('dealer_id', `is required: ${options.purpose}`);
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
  find: (where: { id: string; dealerGroupId: { in: string[] } }) => Promise<T | null>,
): Promise<T> {
  const record = isUuid(id) ? await find({ id, dealerGroupId: inCallerGroups(session) }) : null;
  if (!record) throw notFound(`${what} ${id}`);
  return record;
}
