import { Prisma } from './generated/prisma/client';
import type { Db } from './db/database';
import { directReadsOf, queryRows } from './db/direct-reads';
import { badInput } from './errors';
import { decodeCursor, encodeCursor, keysetCondition, orderBySql, type Cursor, type ListOrder } from './keyset';

/** The window a page shows and how many items match in all: what its `pagination` field answers. */
export interface PageWindow {
  /** A number, or for a `PageRef` the count once asked for (`pageRef`). */
  total: number | Promise<number>;
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

/**
 * A page of a Prisma list whose total `count` runs only when a caller asks for it: a REST list
 * always does, a GraphQL query that selects no `pagination { total }` (a dashboard's page of
 * rooftops) costs no count at all.
 */
export function pageRef<Where>(
  where: Where,
  window: { limit: number; offset: number },
  count: () => Promise<number>,
): PageRef<Where> {
  let counted: Promise<number> | undefined;
  return {
    where,
    ...window,
    get total() {
      return (counted ??= count());
    },
  };
}

/** The `limit` and `offset` arguments a list takes, as GraphQL hands them over. */
export interface WindowArgs {
  limit?: number | null;
  offset?: number | null;
}

/** The `after` argument of the lists that also walk by cursor, beside `limit` and `offset`. */
export interface CursorWindowArgs extends WindowArgs {
  after?: string | null;
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

/**
 * The window of a list that also walks by cursor: `limit`, and either `offset` or the page after the
 * cursor in `after` (which starts right after it, so an offset besides it is a 400). `walkStart` is
 * when the walk's first page was asked for: keys that count to today count to that day throughout.
 */
export interface CursorWindow {
  limit: number;
  offset: number;
  after: Cursor | null;
  walkStart: Date;
}

export function cursorPageArgs(args: CursorWindowArgs): CursorWindow {
  const { limit, offset } = pageArgs(args);
  if (args.after === null || args.after === undefined) return { limit, offset, after: null, walkStart: new Date() };
  if (offset !== 0)
    throw badInput('offset', 'must be 0 or left out with after: the page after a cursor starts right after it');
  const after = decodeCursor(args.after);
  return { limit, offset, after, walkStart: after.walkStart };
}

/** A page picked in SQL: the ids in order, the window and the total; the rows load by id with the GraphQL selection. */
export interface IdPage extends PageWindow {
  ids: string[];
  /** The page's rows, when they were read in the same statement as its ids. */
  loaded?: LoadedItems;
  /** Told the selection the items field loaded with, so the next run of the operation reads it with the ids. */
  learn?: (key: string | null) => void;
}

/**
 * What a list's items field is expected to load (`itemsSelection` in pages.ts): the plain selection
 * (`plainKey`) it loaded with when this operation was last run, to read in the page's own statement,
 * and where to tell what it loaded with this time.
 */
export interface ItemsSelection {
  key: string | null;
  learn(key: string | null): void;
}

/** Rows a page read with its ids, in the page's order, and the plain selection (`plainKey`) they were read with. */
export interface LoadedItems {
  key: string;
  rows: Array<Record<string, unknown>>;
}

/** An `IdPage` of a list that walks by cursor: `next_cursor` names its last row, and is null on the last page. */
export interface CursorPage extends IdPage {
  next_cursor: string | null;
}

/**
 * A page's ids and the total from `table` (aliased `alias` in `where` and the order; both names are
 * constants in our code), in one statement: the page reads its rows in index order and stops at the
 * window, and the count, an uncorrelated subquery PostgreSQL runs once beside it, reads only what it
 * must (`count(*) OVER ()` would read and sort every match to pick the 25 it shows). One round trip
 * instead of two: a list request's time goes mostly to the statements it sends, not to their work.
 * A list whose rollup knows the total passes its sum as `count`, read in the same place. Only a page
 * with no rows (nothing matches, or the offset is past the end) asks for the count alone.
 *
 * Given the plain selection (direct-reads.ts) its items field loaded with the last time the
 * operation ran (`items`), the same statement reads the rows too: each of the page's rows by id and
 * its to-one relations by key, so a list costs one round trip, not two. The page comes back with them
 * (`loaded`), and the items field answers from them when its selection is still that one, else loads
 * by id as usual; either way it tells `items` what it loaded with (`learn`).
 *
 * The page reads one row more than it shows, to know whether another follows, and the last shown
 * row's keys as text for its `next_cursor`. After a cursor it reads the rows past it (`keyset.ts`);
 * when that is two ranges (a nullable first key), each is read in order up to the window and the
 * few rows merged. `total` counts every match of the filters, before the cursor as well as after.
 */
export async function pageOfIds(
  db: Db,
  page: {
    name: string;
    table: string;
    alias: string;
    where: Prisma.Sql;
    order: ListOrder;
    window: CursorWindow;
    items?: ItemsSelection | null;
    /** A statement answering `total` for less than counting the matches (a rollup's sum), where the filters allow one. */
    count?: Prisma.Sql | null;
  },
): Promise<CursorPage> {
  const { order, window } = page;
  const { limit, offset } = window;
  const alias = Prisma.raw(page.alias);
  const from = Prisma.raw(`${page.table} ${page.alias}`);
  const name = (suffix = '') => Prisma.raw(`/* ${page.name}${suffix} */`);
  const column = (prefix: string, index: number) => Prisma.raw(`${prefix}${index}`);
  const cursorText = Prisma.join(
    [
      Prisma.sql`${alias}.id`,
      ...order.keys.map((key, index) => Prisma.sql`${key.type.text(key.sql)} AS ${column('c', index)}`),
    ],
    ', ',
  );
  const ranges = window.after ? keysetCondition(order, window.after) : [];
  const countSql = Prisma.sql`${name('Count')} ${page.count ?? Prisma.sql`SELECT count(*) AS total FROM ${from} WHERE ${page.where}`}`;
  const total = Prisma.sql`(${countSql}) AS total`;
  // After a cursor each range holds only values, or only nulls, of a nullable first key, so where its
  // nulls sort is moot there: the default (last ascending, first descending) is the index's own order
  // read either way, which PostgreSQL then reads instead of sorting the range; NULLS LAST descending
  // would not be.
  const [first, ...rest] = order.keys;
  const walkOrder =
    ranges.length && first?.nullable ? { ...order, keys: [{ ...first, nullable: false }, ...rest] } : order;
  const rangeOrder = orderBySql(walkOrder);
  let rows: Array<Record<string, string | null> & { id: string; total: bigint }>;
  let loaded: LoadedItems | undefined;
  const itemsKey = ranges.length < 2 ? page.items?.key : null;
  const direct = itemsKey ? directReadsOf(db) : undefined;
  const selection = direct && itemsKey ? direct.selection(itemsKey) : null;
  // The filters and, after a cursor, the one range past it (two ranges are read apart, below).
  const where = ranges.length === 1 ? Prisma.sql`${page.where} AND ${ranges[0]}` : page.where;
  const keys = order.keys.map((key, index) => Prisma.sql`${key.sql} AS ${column('k', index)}`);
  /** The page in index order (with `extra` columns beside the cursor text and the total), one row past it. */
  const picked = (extra: Prisma.Sql[]) =>
    Prisma.sql`SELECT ${Prisma.join([cursorText, ...extra, total], ', ')} FROM ${from} WHERE ${where} ORDER BY ${rangeOrder} LIMIT ${limit + 1} OFFSET ${offset}`;
  /** A page row's id and cursor text, read back from the subquery `p`. */
  const idAndCursor = [Prisma.sql`p.id`, ...order.keys.map((_key, index) => Prisma.sql`p.${column('c', index)}`)];
  if (direct && selection) {
    // The page picked in index order as in the statement below, and each of its few rows read by id
    // for the selection's columns, its relations by their keys: a lateral read per row (OFFSET 0 keeps
    // PostgreSQL from turning it into a join it might answer by scanning a table), then put back in
    // the page's order by its keys.
    const { columns, joins } = selection.sql(page.alias, { byKey: true });
    const arrays = await direct.arrays(
      Prisma.sql`${name()} SELECT ${Prisma.join([...idAndCursor, Prisma.sql`p.total`], ', ')}, x.* FROM (${picked(keys)}) p
        CROSS JOIN LATERAL (SELECT ${Prisma.raw(columns)} FROM ${Prisma.raw(selection.table)} ${alias} ${Prisma.raw(joins)}
          WHERE ${alias}.${Prisma.raw(selection.idColumn)} = p.id OFFSET 0) x
        ORDER BY ${orderBySql(walkOrder, (index) => Prisma.sql`p.${column('k', index)}`, Prisma.sql`p.id`)}`,
    );
    const width = order.keys.length + 2;
    rows = arrays.map((values) => {
      const row: Record<string, unknown> = { id: values[0], total: values[width - 1] };
      order.keys.forEach((_key, index) => (row[`c${index}`] = values[1 + index]));
      return row as (typeof rows)[number];
    });
    loaded = { key: selection.key, rows: arrays.slice(0, limit).map((values) => selection.read(values, width)) };
  } else if (ranges.length < 2) {
    rows = await queryRows(db, Prisma.sql`${name()} ${picked([])}`);
  } else {
    // The rows with values, then those without: each range read in order up to the window, the few merged.
    const part = (range: Prisma.Sql, index: number) =>
      Prisma.sql`(SELECT ${cursorText}, ${Prisma.raw(String(index))} AS part, ${Prisma.join(keys, ', ')} FROM ${from} WHERE ${page.where} AND ${range} ORDER BY ${rangeOrder} LIMIT ${limit + 1})`;
    const merged = orderBySql(order, (index) => Prisma.sql`p.${column('k', index)}`, Prisma.sql`p.id`);
    rows = await queryRows(
      db,
      Prisma.sql`${name()} SELECT ${Prisma.join(idAndCursor, ', ')}, ${total} FROM (${Prisma.join(ranges.map(part), ' UNION ALL ')}) p ORDER BY p.part, ${merged} LIMIT ${limit + 1}`,
    );
  }
  const [count] = rows.length ? rows : await queryRows<{ total: bigint }>(db, countSql);
  const shown = rows.slice(0, limit);
  const last = rows.length > limit ? shown[shown.length - 1] : undefined;
  const next_cursor = last
    ? encodeCursor({
        sort: order.sort,
        values: order.keys.map((_key, index) => last[`c${index}`] ?? null),
        id: last.id,
        walkStart: window.walkStart,
      })
    : null;
  return {
    ids: shown.map((row) => row.id),
    total: Number(count?.total ?? 0),
    limit,
    offset,
    next_cursor,
    ...(loaded ? { loaded } : {}),
    ...(page.items ? { learn: page.items.learn } : {}),
  };
}

/** Puts rows back in the order of `ids` (SQL `IN` does not keep it). */
export function inIdOrder<T extends { id: string }>(ids: string[], rows: T[]): T[] {
  const byId = new Map(rows.map((row) => [row.id, row]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
