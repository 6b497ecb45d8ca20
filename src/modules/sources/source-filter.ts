import { Prisma } from '../../generated/prisma/client';
import { isUuid } from '../../validation';

/** A canonical source given by id, or by name (case-insensitive), on the `source_id` of `alias`. */
export function sourceFilterSql(alias: string, source: string | null | undefined): Prisma.Sql | null {
  if (!source?.trim()) return null;
  const column = Prisma.raw(`${alias}.source_id`);
  return isUuid(source)
    ? Prisma.sql`${column} = ${source}::uuid`
    : Prisma.sql`${column} IN (SELECT id FROM sources WHERE name = ${source.trim()}::citext)`;
}
