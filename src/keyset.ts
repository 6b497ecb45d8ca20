import { Prisma } from './generated/prisma/client';
import { badInput } from './errors';
import { isUuid } from './validation';

/**
 * Keyset pagination for the lists syncs change (inventory, calls, leads, sales): a `sort` parsed into
 * SQL keys, the opaque cursor that names the last row of a page, and the SQL condition for the rows
 * after it. A page after a cursor reads on from where the last one stopped, however rows move before
 * it or are added behind it, and (where an index leads with the keys) as an index range, not a sort.
 */

/** How a sort key's value travels in a cursor: its canonical text (rendered in SQL), the check on it, and its cast back. */
export interface KeyType {
  /** The PostgreSQL type the cursor's text is cast back to, so the comparison is the one ORDER BY makes. */
  cast: string;
  /** The key's value as the text a cursor carries. */
  text(sql: Prisma.Sql): Prisma.Sql;
  /** Whether a cursor's text is a value of this type; anything else is a cursor we never gave out. */
  accepts(value: string): boolean;
}

/** ISO 8601 UTC instants as a cursor carries them: key values to the microsecond, the walk's start to the millisecond. */
const INSTANT = {
  6: /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{6}Z$/,
  3: /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.\d{3}Z$/,
};

/** Whether `value` is such an instant, on a real calendar day and time. */
function isInstant(value: string, fraction: keyof typeof INSTANT): boolean {
  const match = INSTANT[fraction].exec(value);
  return !!match && realDate(match.slice(1).map(Number));
}

/** Whether `value` is an ISO 8601 date (YYYY-MM-DD) on a real calendar day. */
function isDay(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return !!match && realDate(match.slice(1).map(Number));
}

/** Whether year, month, day and time name a real instant: no February 30th, no 25th hour. */
function realDate([year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0]: number[]): boolean {
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return (
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second
  );
}

/** The value types our sort keys have. */
export const KEY_TYPES = {
  /** timestamptz, to the microsecond in UTC (our columns keep milliseconds; the text loses nothing either way). */
  timestamp: {
    cast: 'timestamptz',
    text: (sql) => Prisma.sql`to_char(${sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    accepts: (value) => isInstant(value, 6),
  },
  date: {
    cast: 'date',
    text: (sql) => Prisma.sql`to_char(${sql}, 'YYYY-MM-DD')`,
    accepts: isDay,
  },
  decimal: {
    cast: 'numeric',
    text: (sql) => Prisma.sql`${sql}::text`,
    accepts: (value) => /^-?\d{1,20}(\.\d{1,10})?$/.test(value),
  },
  integer: {
    cast: 'int',
    text: (sql) => Prisma.sql`${sql}::text`,
    accepts: (value) => /^-?\d{1,10}$/.test(value) && Math.abs(Number(value)) <= 2_147_483_647,
  },
  text: textType('text'),
  /** Case-insensitive text: compared as citext, as ORDER BY compares it. */
  citext: textType('citext'),
} satisfies Record<string, KeyType>;

function textType(cast: string): KeyType {
  // A cursor's whole length is bounded (CURSOR_MAX_LENGTH); a NUL cannot be in PostgreSQL text.
  return { cast, text: (sql) => Prisma.sql`${sql}::text`, accepts: (value) => !value.includes('\0') };
}

/** An enum column: its values sort in their declared order, and a cursor may hold only those. */
export function enumKeyType(cast: string, values: readonly string[]): KeyType {
  return { cast, text: (sql) => Prisma.sql`${sql}::text`, accepts: (value) => values.includes(value) };
}

/** A column (or expression) a list may be sorted by. */
export interface SortColumn {
  sql: Prisma.Sql;
  type: KeyType;
  /** Can be null; rows without a value come last, ascending or descending. */
  nullable?: boolean;
  /** Read the other way round (days on lot descending is the stock-in date ascending). */
  reversed?: boolean;
  /** Says, in a cursor's binding, that this key is read another way than its name alone says. */
  variant?: string;
}

/** One key of an order as SQL reads it. */
export interface OrderKey {
  sql: Prisma.Sql;
  type: KeyType;
  nullable: boolean;
  descending: boolean;
}

/**
 * A list's order: its keys, then the id, which breaks ties in the direction of the last key (so a
 * `(group, key, id)` index reads the whole order, ties included, forwards or backwards).
 * `sort` is what a cursor is bound to: the sort as the caller wrote it, normalised.
 */
export interface ListOrder {
  sort: string;
  keys: OrderKey[];
  id: Prisma.Sql;
  idDescending: boolean;
}

/**
 * Parses `sort` (`price`, `-updated_at`, or a comma list of keys, "-" in front for descending) into
 * the list's order; an unknown key is a 400 naming `sort` that lists the known ones.
 */
export function sortOrder(
  sort: string | null | undefined,
  list: {
    fallback: string;
    id: Prisma.Sql;
    keys: readonly string[];
    column: (name: string) => SortColumn | undefined;
    maxKeys?: number;
  },
): ListOrder {
  const names = (sort?.trim() || list.fallback).split(',').map((key) => key.trim());
  const maxKeys = list.maxKeys ?? 5;
  if (names.length > maxKeys) throw badInput('sort', `at most ${maxKeys} sort keys`);
  const bindings: string[] = [];
  const keys = names.map((key) => {
    const descending = key.startsWith('-');
    const name = descending ? key.slice(1) : key;
    const column = list.keys.includes(name) ? list.column(name) : undefined;
    if (!column)
      throw badInput(
        'sort',
        `unknown sort key "${key}"; use one of ${list.keys.join(', ')}, with "-" in front for descending`,
      );
    bindings.push(column.variant ? `${key} (${column.variant})` : key);
    return {
      sql: column.sql,
      type: column.type,
      nullable: !!column.nullable,
      descending: descending !== !!column.reversed,
    };
  });
  return { sort: bindings.join(','), keys, id: list.id, idDescending: keys[keys.length - 1]!.descending };
}

/** A list sorted by plain columns: its keys (for the `sort` argument's description), its default, and its order for a `sort`. */
export function sortableBy(columns: Record<string, SortColumn>, fallback: string, id: Prisma.Sql) {
  const keys = Object.keys(columns);
  return {
    keys,
    fallback,
    order: (sort: string | null | undefined) =>
      sortOrder(sort, { fallback, id, keys, maxKeys: keys.length, column: (name) => columns[name] }),
  };
}

/** ORDER BY for the order; `keySql` and `idSql` name the keys where a query reads them from its own columns. */
export function orderBySql(
  order: ListOrder,
  keySql: (index: number) => Prisma.Sql = (index) => order.keys[index]!.sql,
  idSql: Prisma.Sql = order.id,
): Prisma.Sql {
  const direction = (descending: boolean, nullable = false) =>
    Prisma.raw(`${descending ? 'DESC' : 'ASC'}${nullable ? ' NULLS LAST' : ''}`);
  return Prisma.join(
    [
      ...order.keys.map((key, index) => Prisma.sql`${keySql(index)} ${direction(key.descending, key.nullable)}`),
      Prisma.sql`${idSql} ${direction(order.idDescending)}`,
    ],
    ', ',
  );
}

/** What a cursor says: the sort it was made for, the last row's key values and id, and when its walk began. */
export interface Cursor {
  sort: string;
  values: Array<string | null>;
  id: string;
  /** The first page's time: keys that count to today (days on lot) count to that day for the whole walk. */
  walkStart: Date;
}

const CURSOR_VERSION = 1;
/** Longer is not a cursor we gave out: a page's keys are short values (a price, a time, a make, a VIN). */
export const CURSOR_MAX_LENGTH = 2048;
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]+$';
const BASE64URL = new RegExp(CURSOR_PATTERN);

/** The cursor as the API hands it out: base64url of a small versioned JSON object. Opaque to callers. */
export function encodeCursor(cursor: Cursor): string {
  const payload = {
    v: CURSOR_VERSION,
    s: cursor.sort,
    k: cursor.values,
    i: cursor.id,
    t: cursor.walkStart.toISOString(),
  };
  return Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
}

const notACursor = () => badInput('after', 'is not a cursor this API gave out; start again without after');

/**
 * The cursor in `after`, checked strictly: its shape, version, and each field's type and length.
 * Whether its values fit the order it is used with is `keysetCondition`'s to check. Any failure is
 * a 400 naming `after`; a cursor is never trusted further than a filter value would be.
 */
export function decodeCursor(text: string): Cursor {
  if (text.length === 0 || text.length > CURSOR_MAX_LENGTH || !BASE64URL.test(text)) throw notACursor();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw notACursor();
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw notACursor();
  const { v, s, k, i, t, ...rest } = payload as Record<string, unknown>;
  if (v !== CURSOR_VERSION) {
    if (typeof v === 'number') throw badInput('after', 'was made by another version of this API; start again');
    throw notACursor();
  }
  if (Object.keys(rest).length) throw notACursor();
  if (typeof s !== 'string' || s.length === 0 || s.length > 500) throw notACursor();
  if (!Array.isArray(k) || k.length > 10 || !k.every((value) => value === null || typeof value === 'string'))
    throw notACursor();
  if (!isUuid(i)) throw notACursor();
  if (typeof t !== 'string' || !isInstant(t, 3)) throw notACursor();
  return { sort: s, values: k as Array<string | null>, id: (i as string).toLowerCase(), walkStart: new Date(t) };
}

/**
 * The rows after `cursor` in `order`, as one or two conditions: two when the first key can be null
 * and the cursor's value is not (the rest of the values, then every row without one), so that each
 * is an index range where an index leads with the key; a caller reads the first's rows before the
 * second's. A cursor made for another sort, or with values that are not the keys', is a 400 naming
 * `after`.
 */
export function keysetCondition(order: ListOrder, cursor: Cursor): Prisma.Sql[] {
  if (cursor.sort !== order.sort)
    throw badInput(
      'after',
      `was made for sort "${cursor.sort}", not "${order.sort}": every page of a walk takes the sort its first page had`,
    );
  if (cursor.values.length !== order.keys.length) throw notACursor();
  order.keys.forEach((key, index) => {
    const value = cursor.values[index];
    if (value === null ? !key.nullable : !key.type.accepts(value!)) throw notACursor();
  });
  const [first] = order.keys;
  const head = cursor.values[0];
  if (first?.nullable && head != null) {
    const valued = { ...order, keys: [{ ...first, nullable: false }, ...order.keys.slice(1)] };
    return [Prisma.sql`${first.sql} IS NOT NULL AND ${rowsAfter(valued, cursor)}`, Prisma.sql`${first.sql} IS NULL`];
  }
  return [rowsAfter(order, cursor)];
}

const comparison = (descending: boolean) => Prisma.raw(descending ? '<' : '>');
const valueOf = (key: OrderKey, value: string) => Prisma.sql`${value}::${Prisma.raw(key.type.cast)}`;

/** The rows after the cursor, led by a bound on the first key that an index can start its range from. */
function rowsAfter(order: ListOrder, cursor: Cursor): Prisma.Sql {
  const [first] = order.keys;
  const head = cursor.values[0];
  const exact = after(order, cursor, 0);
  if (!first || head == null || sameDirectionFrom(order, 0)) return exact;
  // Redundant with `exact`, but an index range: PostgreSQL does not find one inside an OR.
  const bound = Prisma.raw(first.descending ? '<=' : '>=');
  return Prisma.sql`${first.sql} ${bound} ${valueOf(first, head)} AND ${exact}`;
}

/** Whether the keys from `from` on, and the id, can never be null and run in one direction: one row comparison. */
function sameDirectionFrom(order: ListOrder, from: number): boolean {
  return order.keys.slice(from).every((key) => !key.nullable && key.descending === order.idDescending);
}

/**
 * Lexicographic "after", key by key: a row is after the cursor when its first differing key is
 * beyond the cursor's in that key's direction, null counting as beyond every value (NULLS LAST);
 * the id decides among rows equal on every key.
 */
function after(order: ListOrder, cursor: Cursor, from: number): Prisma.Sql {
  const id = Prisma.sql`${cursor.id}::uuid`;
  if (from === order.keys.length) return Prisma.sql`${order.id} ${comparison(order.idDescending)} ${id}`;
  if (sameDirectionFrom(order, from)) {
    const keys = order.keys.slice(from);
    const columns = Prisma.join([...keys.map((key) => key.sql), order.id], ', ');
    const values = Prisma.join([...keys.map((key, index) => valueOf(key, cursor.values[from + index]!)), id], ', ');
    return Prisma.sql`(${columns}) ${comparison(order.idDescending)} (${values})`;
  }
  const key = order.keys[from]!;
  const value = cursor.values[from];
  const rest = after(order, cursor, from + 1);
  if (value == null) return Prisma.sql`(${key.sql} IS NULL AND ${rest})`;
  const beyond = Prisma.sql`${key.sql} ${comparison(key.descending)} ${valueOf(key, value)}`;
  const tied = Prisma.sql`${key.sql} = ${valueOf(key, value)} AND ${rest}`;
  return key.nullable
    ? Prisma.sql`(${beyond} OR (${tied}) OR ${key.sql} IS NULL)`
    : Prisma.sql`(${beyond} OR (${tied}))`;
}
