import { Prisma } from './generated/prisma/client';
import { dateRange } from './validation';

/** SQL conditions the list filters share. */

/**
 * `text` as a LIKE pattern that matches itself (backslash, % and _ escaped), for `ILIKE '%' || … || '%'`
 * and for the Prisma client's `contains`, `startsWith` and case-insensitive `equals`, which hand their
 * value to (I)LIKE as it is: a search for "50%" or "t_r" finds those characters, not every name with
 * "50" or with a "t" two letters before an "r".
 */
export const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/** Date-range bounds on `column`, after checking that from is not after to. */
export function rangeSql(column: string, from: Date | null | undefined, to: Date | null | undefined): Prisma.Sql[] {
  dateRange(from, to);
  return [
    ...(from ? [Prisma.sql`${Prisma.raw(column)} >= ${from}`] : []),
    ...(to ? [Prisma.sql`${Prisma.raw(column)} <= ${to}`] : []),
  ];
}

/**
 * `column` equal to one of `values` (cast to `type`). One value is written `= $1`: on PostgreSQL 15
 * an `= ANY($1)` condition keeps an index scan from returning rows in index order, so a sorted page
 * would be sorted again instead of read in order.
 */
export function equalsAny(column: Prisma.Sql, values: readonly string[], type: string): Prisma.Sql {
  return values.length === 1
    ? Prisma.sql`${column} = ${values[0]}::${Prisma.raw(type)}`
    : Prisma.sql`${column} = ANY(${[...values]}::${Prisma.raw(type)}[])`;
}
