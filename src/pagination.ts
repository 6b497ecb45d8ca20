import { badInput } from './errors';

/** A page of a Prisma list: the filter, the window and the total, for a page type's items resolver. */
export interface PageRef<Where> { where: Where; limit: number; offset: number; total: number }

/** The catalog's list convention: `limit` (default 50, max 500) and zero-based `offset`. */

export const LIMIT_DEFAULT = 50;
export const LIMIT_MAX = 500;
export const OFFSET_MAX = 10_000_000;

export function pageArgs(args: { limit?: number | null; offset?: number | null }): { limit: number; offset: number } {
  const limit = args.limit ?? LIMIT_DEFAULT;
  const offset = args.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMIT_MAX) throw badInput('limit', `must be a whole number from 1 to ${LIMIT_MAX}`);
  if (!Number.isInteger(offset) || offset < 0 || offset > OFFSET_MAX) throw badInput('offset', `must be a whole number from 0 to ${OFFSET_MAX}`);
  return { limit, offset };
}
