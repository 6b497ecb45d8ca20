import { Prisma } from './generated/prisma/client';
import type { Db } from './db/database';
import { badInput } from './errors';

/** The window a page shows and how many items match in all: what its `pagination` field answers. */
export interface PageWindow {
  total: number;
  limit: number;
  offset: number;
}

/** A page whose items are already read. */
export interface Page<Item> extends PageWindow {
  items: Item[];
}

/** A page of a Prisma list: the filter, the window and the total, for a page type's items resolver. */
export interface PageRef<Where> extends PageWindow {
  where: Where;
}

/** The `limit` and `offset` arguments a list takes, as GraphQL hands them over. */
export interface WindowArgs {
  limit?: number | null;
  offset?: number | null;
}

/** The list convention (README, Conventions): `limit` (default 50, max 500) and zero-based `offset`. */

export const LIMIT_DEFAULT = 50;
export const LIMIT_MAX = 500;
export const OFFSET_MAX = 10_000_000;

export function pageArgs(args: WindowArgs): { limit: number; offset: number } {
  const limit = args.limit ?? LIMIT_DEFAULT;
  const offset = args.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > LIMIT_MAX)
    throw badInput('limit', `must be a whole number from 1 to ${LIMIT_MAX}`);
  if (!Number.isInteger(offset) || offset < 0 || offset > OFFSET_MAX)
    throw badInput('offset', `must be a whole number from 0 to ${OFFSET_MAX}`);
  return { limit, offset };
}

/** A page picked in SQL: the ids in order, the window and the total; the rows load by id with the GraphQL selection. */
export interface IdPage extends PageWindow {
  ids: string[];
}

/**
 * A page's ids and the total from `table` (aliased `alias` in `where` and `orderBy`; both names are
 * constants in our code), as two statements run side by side: the page reads its rows in index
 * order and stops at the window, the count reads only what it must. One statement with
 * `count(*) OVER ()` would read and sort every match to pick the 25 it shows.
 */
export async function pageOfIds(
  db: Db,
  page: {
    name: string;
    table: string;
    alias: string;
    where: Prisma.Sql;
    orderBy: Prisma.Sql;
    limit: number;
    offset: number;
  },
): Promise<IdPage> {
  const { limit, offset } = page;
  const from = Prisma.raw(`${page.table} ${page.alias}`);
  const [rows, [count]] = await Promise.all([
    db.$queryRaw<Array<{ id: string }>>(
      Prisma.sql`${Prisma.raw(`/* ${page.name} */`)} SELECT ${Prisma.raw(page.alias)}.id FROM ${from} WHERE ${page.where} ORDER BY ${page.orderBy} LIMIT ${limit} OFFSET ${offset}`,
    ),
    db.$queryRaw<Array<{ total: bigint }>>(
      Prisma.sql`${Prisma.raw(`/* ${page.name}Count */`)} SELECT count(*) AS total FROM ${from} WHERE ${page.where}`,
    ),
  ]);
  return { ids: rows.map((row) => row.id), total: Number(count?.total ?? 0), limit, offset };
}

/** Puts rows back in the order of `ids` (SQL `IN` does not keep it). */
export function inIdOrder<T extends { id: string }>(ids: string[], rows: T[]): T[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
