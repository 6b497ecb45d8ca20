import { Prisma } from './generated/prisma/client';
import { dateRange } from './validation';

/** SQL conditions the list filters share. */

/** Date-range bounds on `column`, after checking that from is not after to. */
export function rangeSql(column: string, from: Date | null | undefined, to: Date | null | undefined): Prisma.Sql[] {
  dateRange(from, to);
  return [
    ...(from ? [Prisma.sql`${Prisma.raw(column)} >= ${from}`] : []),
    ...(to ? [Prisma.sql`${Prisma.raw(column)} <= ${to}`] : []),
  ];
}
