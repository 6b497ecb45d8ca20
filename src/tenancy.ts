import type { Session } from './auth/session';
import { badInput } from './errors';

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
