import type { Session } from './auth/session';
import { badInput, notFound } from './errors';
import { isUuid } from './validation';

/** The dealer group a new record belongs to: the one named (if the caller holds it), or the caller's only one. */
export function targetGroup(session: Session, requested: string | null | undefined): string {
  const groups = session.dealerGroupIds;
  if (requested) {
    if (!groups.includes(requested)) throw badInput('dealer_group_id', 'is not one of your dealer groups');
    return requested;
  }
  if (groups.length !== 1) throw badInput('dealer_group_id', groups.length ? 'is required: you belong to several dealer groups' : 'you belong to no dealer group');
  return groups[0] as string;
}

export const inCallerGroups = (session: Session) => ({ in: [...session.dealerGroupIds] });

/** Prisma's unique-constraint violation. */
export const isUniqueViolation = (error: unknown) => (error as { code?: string }).code === 'P2002';

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
