import { createHash } from 'node:crypto';
import pg from 'pg';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { getDatamodel } from '../generated/pothos-types';

/**
 * The list pages' reads sent straight through the pool, answered in the shape the Prisma client
 * gives: the page's ids (any raw statement, as `$queryRaw` answers it) and its rows by id, where the
 * selection is plain: a model's columns (all of them, or those a `select` names) and, at most, the
 * to-one relations whose key it holds, whole (a call's source), which is what a page's usual
 * selection asks. The client plans each query and maps each row in JavaScript, which for a page of
 * 25 vehicles with their dealers cost about three times the Node time of sending the one statement
 * below and reading its rows. Any other selection (a nested relation, a list, a count, arguments) is
 * not plain: `rowsByIds` answers null and the caller asks the client. A page can read its rows in
 * its own statement (`selection`, pagination.ts). Only the app's own client has direct reads
 * (`directReadsOf`): a transaction's client reads inside its transaction.
 */
export class DirectReads {
  private readonly plain = new Map<string, { selection: Selection; statement: Statement } | null>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly models: Models,
    /** Names each statement for the server to prepare once per connection (not on the embedded engine). */
    private readonly prepared: boolean,
  ) {}

  /** The columns of the plain selection `key` (`plainKey`), to read beside a page; null where it is not one this reads. */
  selection(key: string): Selection | null {
    return this.plainOf(key)?.selection ?? null;
  }

  /**
   * The rows of `model` with these ids (in no particular order) and the relations Pothos' `query`
   * includes, as the client would answer `findMany({ ...query, where: { id: { in: ids } } })`; null
   * when the selection is not plain.
   */
  rowsByIds<Row>(model: string, query: object, ids: readonly string[]): Promise<Row[]> | null {
    const key = plainKey(model, query);
    const plain = key === null ? null : this.plainOf(key);
    if (!plain) return null;
    const { text, name, read } = plain.statement;
    return this.pool
      .query({ text, values: [ids], rowMode: 'array', types: CLIENT_TYPES, ...(this.prepared ? { name } : {}) })
      .then((result) => result.rows.map((values: unknown[]) => read(values) as Row));
  }

  /**
   * The rows of the plain selection `key` for the ids `pick` picks (columns `parent_id` and `id`,
   * uuids), each with its parent, in the order `pick` answers them: one statement, each picked row
   * read by its id (as `pageOfIds` reads a page's rows), instead of the ids and then their rows. Null
   * where the selection is not plain.
   */
  pickedRows<Row>(name: string, key: string, pick: Prisma.Sql): Promise<Array<{ parentId: string; row: Row }>> | null {
    const selection = this.selection(key);
    if (!selection) return null;
    const { columns, joins } = selection.sql('t', { byKey: true });
    return this.arrays(
      Prisma.sql`${Prisma.raw(`/* ${name} */`)} SELECT k.parent_id, x.* FROM (SELECT k.parent_id, k.id, row_number() OVER () AS n FROM (${pick}) k) k
        CROSS JOIN LATERAL (SELECT ${Prisma.raw(columns)} FROM ${Prisma.raw(selection.table)} t ${Prisma.raw(joins)}
          WHERE t.${Prisma.raw(selection.idColumn)} = k.id OFFSET 0) x
        ORDER BY k.n`,
    ).then((arrays) =>
      arrays.map((values) => ({ parentId: values[0] as string, row: selection.read(values, 1) as Row })),
    );
  }

  private plainOf(key: string) {
    let plain = this.plain.get(key);
    if (plain === undefined) {
      const selection = plainSelection(this.models, key);
      plain = selection && { selection, statement: plainStatement(selection) };
      this.plain.set(key, plain);
    }
    return plain;
  }

  /** A raw statement's rows as arrays of values, typed as `$queryRaw` types them. */
  async arrays(sql: Prisma.Sql): Promise<unknown[][]> {
    const { rows } = await this.pool.query<unknown[]>({
      ...this.statement(sql),
      rowMode: 'array',
      types: CLIENT_TYPES,
    });
    return rows;
  }

  /** A raw statement's rows, typed as `$queryRaw` types them (a bigint as a BigInt, a numeric as a Decimal). */
  async query<Row>(sql: Prisma.Sql): Promise<Row[]> {
    const { rows } = await this.pool.query({ ...this.statement(sql), types: CLIENT_TYPES });
    return rows as Row[];
  }

  private statement(sql: Prisma.Sql) {
    const values = sql.values.map((value) =>
      // What the client sends for these; pg would send a Decimal as a JSON string, and cannot send a BigInt.
      value instanceof Prisma.Decimal || typeof value === 'bigint' ? value.toString() : value,
    );
    return { text: sql.text, values, ...(this.prepared ? { name: statementName('direct', sql.text) } : {}) };
  }
}

const READERS = new WeakMap<object, DirectReads>();

/** Gives the app's client its direct reads (database.ts, once). */
export function attachDirectReads(prisma: object, reads: DirectReads): void {
  READERS.set(prisma, reads);
}

/** The direct reads of `db` when it is the app's own client; none for a transaction's client. */
export function directReadsOf(db: object): DirectReads | undefined {
  return READERS.get(db);
}

/**
 * A raw statement's rows as `$queryRaw` answers them: straight through the pool on the app's own
 * client, through the client in a transaction.
 */
export function queryRows<Row>(db: Pick<PrismaClient, '$queryRaw'>, sql: Prisma.Sql): Promise<Row[]> {
  const direct = READERS.get(db);
  return direct ? direct.query<Row>(sql) : db.$queryRaw<Row[]>(sql);
}

/**
 * A prepared statement's name for its text: `prefix` and a digest of the text. The client's
 * statements and the direct reads name theirs under different prefixes, so on a connection the
 * two never share a name prepared with the other's parameter types.
 */
export const statementName = (prefix: string, text: string) =>
  `${prefix}_${createHash('sha1').update(text).digest('base64url').slice(0, 24)}`;

/** The models as the statements need them: tables, columns, keys and to-one relations. */
export type Models = Map<string, Model>;

interface Model {
  table: string;
  /** The single-column primary key's column; null for a composite key. */
  idColumn: string | null;
  columns: Column[];
  /** Whether a column has a type read differently here than by the client (bytes). */
  unsupported: boolean;
  relations: Map<string, { model: string; keyColumn: string } | null>;
}

interface Column {
  field: string;
  column: string;
  /** A list (read as JSON, so a list of enum values too, whose array type pg does not parse). */
  list: boolean;
}

interface Statement {
  text: string;
  name: string;
  read(values: unknown[]): Record<string, unknown>;
}

const parseTimestamptz = pg.types.getTypeParser(1184) as (text: string) => Date;
/** A timestamptz as PostgreSQL writes it to a UTC session: `2026-11-25 05:02:02.157123+00`. */
const UTC_TIMESTAMPTZ = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?\+00$/;

/**
 * A timestamptz as pg reads it, the usual UTC form by the engine's own ISO parser (half the time of
 * pg's, which tries every form PostgreSQL can write); any other form (an offset, BC, infinity) by pg's.
 */
export function readTimestamptz(text: string): Date {
  return UTC_TIMESTAMPTZ.test(text) ? new Date(`${text.slice(0, 10)}T${text.slice(11, -3)}Z`) : parseTimestamptz(text);
}

/**
 * How the client answers each PostgreSQL type where pg's default parser differs: a date as
 * midnight UTC, a numeric as a Decimal, a bigint as a BigInt, a timestamp without time zone as UTC.
 */
const CLIENT_PARSERS: Record<number, (text: string) => unknown> = {
  1184: readTimestamptz,
  1082: (text) => new Date(`${text}T00:00:00.000Z`),
  1114: (text) => new Date(`${text.replace(' ', 'T')}Z`),
  1700: (text) => new Prisma.Decimal(text),
  20: (text) => BigInt(text),
};
const CLIENT_TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    CLIENT_PARSERS[oid] ?? pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/**
 * The key of a plain selection, or null for any other: all of a model's columns and the to-one
 * relations it includes (`{}`, `{ include: { dealer: true } }`: `Vehicle dealer`), or the fields a
 * `select` names, each `true` (`{ select: { id: true, source: true } }`: `Call:id,source`), where a
 * relation comes whole. Which names are columns and which relations, the models tell (`plainSelection`).
 */
export function plainKey(model: string, query: object): string | null {
  const keys = Object.keys(query);
  if (keys.length === 0) return model;
  if (keys.length !== 1 || (keys[0] !== 'include' && keys[0] !== 'select')) return null;
  const selection = (query as Record<string, Record<string, unknown>>)[keys[0]]!;
  const names = Object.keys(selection);
  if (!names.every((name) => selection[name] === true)) return null;
  if (keys[0] === 'include') return [model, ...names.sort()].join(' ');
  return names.length ? `${model}:${names.sort().join(',')}` : null;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * A plain selection's columns, to read beside other columns: the select list and joins over the
 * model's table under a given alias (its relations join as `r0`, `r1`, …), and how a row is read
 * from an array row's values starting at an index.
 */
export interface Selection {
  /** The plain key it answers (`plainKey`). */
  key: string;
  /** The model's table and its id column, quoted, to join the selection to a page of ids. */
  table: string;
  idColumn: string;
  /**
   * The select list and the joins over `alias`, the model's table; `byKey` joins each relation as a
   * lookup by its key for each row (for a row read by itself, where a join could be planned as a scan).
   */
  sql(alias: string, options?: { byKey?: boolean }): { columns: string; joins: string };
  read(values: unknown[], from: number): Record<string, unknown>;
}

/** The selection of a plain key, or null where a model, relation or column is not one this reads. */
function plainSelection(models: Models, key: string): Selection | null {
  const [head, ...included] = key.split(' ');
  const [modelName, selected] = head!.split(':');
  const model = models.get(modelName!);
  if (!model || model.unsupported || !model.idColumn) return null;
  // The model's columns it reads: all of them, or those a select names.
  let own = model.columns;
  let relationNames = included;
  if (selected !== undefined) {
    const names = selected.split(',');
    own = model.columns.filter((column) => names.includes(column.field));
    relationNames = names.filter((name) => !own.some((column) => column.field === name));
  }
  const joins: Array<{ field: string; alias: string; model: Model; keyColumn: string }> = [];
  for (const [index, field] of relationNames.entries()) {
    const relation = model.relations.get(field);
    const related = relation ? models.get(relation.model) : undefined;
    if (!relation || !related || related.unsupported || !related.idColumn) return null;
    joins.push({ field, alias: `r${index}`, model: related, keyColumn: relation.keyColumn });
  }
  const select = (alias: string, columns: Column[]) =>
    // A list comes as JSON, which the engine's own parser reads (pg parses an array literal a
    // character at a time in JavaScript: a page of vehicles' photos was 3% of its Node time).
    columns.map(({ column, list }) => (list ? `to_json(${alias}.${quote(column)})` : `${alias}.${quote(column)}`));
  const readColumns = (columns: Column[], values: unknown[], from: number) => {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < columns.length; index += 1) {
      const { field, list } = columns[index]!;
      const value = values[from + index];
      // The client answers a NULL list as an empty one.
      row[field] = list ? (value ?? []) : value;
    }
    return row;
  };
  // Where each relation's columns start in a row, and where its id is among them.
  let start = own.length;
  const relations = joins.map((join) => {
    const at = {
      ...join,
      from: start,
      id: start + join.model.columns.findIndex((c) => c.column === join.model.idColumn),
    };
    start += join.model.columns.length;
    return at;
  });
  return {
    key,
    table: quote(model.table),
    idColumn: quote(model.idColumn),
    sql: (alias, options) => ({
      columns: [...select(alias, own), ...joins.flatMap((join) => select(join.alias, join.model.columns))].join(', '),
      joins: joins
        .map((join) => {
          const on = `${join.alias}.${quote(join.model.idColumn!)} = ${alias}.${quote(join.keyColumn)}`;
          const table = `${quote(join.model.table)} ${join.alias}`;
          // OFFSET 0 keeps PostgreSQL from flattening the lookup into a join it may plan as a scan per row.
          return options?.byKey
            ? `LEFT JOIN LATERAL (SELECT * FROM ${table} WHERE ${on} OFFSET 0) ${join.alias} ON true`
            : `LEFT JOIN ${table} ON ${on}`;
        })
        .join(' '),
    }),
    read(values, from) {
      const row = readColumns(own, values, from);
      for (const relation of relations)
        // A relation whose key is NULL (or points nowhere) is null, as the client answers it.
        row[relation.field] =
          values[from + relation.id] === null
            ? null
            : readColumns(relation.model.columns, values, from + relation.from);
      return row;
    },
  };
}

/** The statement reading a plain selection's rows by id. */
function plainStatement(selection: Selection): Statement {
  const { columns, joins } = selection.sql('t');
  const text = [
    `/* rowsByIds ${selection.key} */ SELECT ${columns} FROM ${selection.table} t`,
    ...(joins ? [joins] : []),
    `WHERE t.${selection.idColumn} = ANY($1)`,
  ].join(' ');
  return { text, name: statementName('direct', text), read: (values) => selection.read(values, 0) };
}

interface RuntimeField {
  name: string;
  kind: string;
  dbName?: string | null;
}

/**
 * The models from the client's runtime data model (table and column names) and Pothos' data model
 * (lists, keys and relations), which together say how each model is stored.
 */
export function modelsOf(prisma: object): Models {
  const runtime = (
    prisma as { _runtimeDataModel: { models: Record<string, { dbName: string | null; fields: RuntimeField[] }> } }
  )._runtimeDataModel.models;
  const { models: pothos } = getDatamodel().datamodel;
  const models: Models = new Map();
  for (const [name, described] of Object.entries(pothos)) {
    const stored = runtime[name];
    if (!stored) continue;
    const columnOf = new Map(stored.fields.map((field) => [field.name, field.dbName ?? field.name]));
    const scalars = described.fields.filter((field) => field.kind === 'scalar' || field.kind === 'enum');
    const id = described.fields.find((field) => field.isId);
    const relations = new Map<string, { model: string; keyColumn: string } | null>();
    for (const field of described.fields) {
      if (field.kind !== 'object') continue;
      // A key of several columns (a vehicle's rooftop and group) joins on the one that holds the
      // related row's id, named after the relation as the schema names keys (dealer: dealerId): the
      // id alone finds the row, and the key's other columns agree with it.
      const from = field.relationFromFields ?? [];
      const key = from.length === 1 ? from[0] : from.find((name) => name === `${field.name}Id`);
      relations.set(field.name, !field.isList && key ? { model: field.type, keyColumn: columnOf.get(key)! } : null);
    }
    models.set(name, {
      table: stored.dbName ?? name,
      idColumn: id ? columnOf.get(id.name)! : null,
      columns: scalars.map((field) => ({
        field: field.name,
        column: columnOf.get(field.name)!,
        list: field.isList,
      })),
      unsupported: scalars.some(
        (field) => field.type === 'Bytes' || (field.isList && field.kind === 'scalar' && field.type !== 'String'),
      ),
      relations,
    });
  }
  return models;
}
