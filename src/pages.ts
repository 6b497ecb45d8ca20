import type { FieldRef, ObjectRef } from '@pothos/core';
import type { PrismaModelTypes, PrismaObjectRef } from '@pothos/plugin-prisma';
import type { FieldNode, GraphQLResolveInfo } from 'graphql';
import type { Db } from './db/database';
import { Prisma } from './generated/prisma/client';
import { directReadsOf, plainKey, queryRows } from './db/direct-reads';
import { builder, type BuilderTypes } from './builder';
import type { Context } from './context';
import { rowByIdLoader } from './loaders';
import {
  inIdOrder,
  type CursorPage,
  type IdPage,
  type ItemsSelection,
  type Page,
  type PageRef,
  type PageWindow,
} from './pagination';

/** Page types: a list's items and its `pagination`, for each way the items are read. */

/** The `{ total, limit, offset }` object every list response carries. */
export const Pagination = builder.objectRef<PageWindow>('Pagination').implement({
  fields: (t) => ({
    total: t.int({ description: 'How many items match the filters in all.', resolve: (page) => page.total }),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
  }),
});

/** The pagination of a list that also walks by cursor: the same three fields and the cursor of the next page. */
export const CursorPagination = builder.objectRef<CursorPage>('CursorPagination').implement({
  fields: (t) => ({
    total: t.exposeInt('total', { description: 'How many items match the filters in all, before the cursor too.' }),
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset', { description: 'The offset asked for; 0 after a cursor.' }),
    next_cursor: t.exposeString('next_cursor', {
      nullable: true,
      description: 'Pass as `after` for the page after this one, with the same sort; null on the last page.',
    }),
  }),
});

/** How a page type's items field resolves from its page: `itemsByIds`, `itemsWhere`, `itemsLoaded`, or a field of one's own. */
export type PageItems<Shape extends PageWindow> = (
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Shape>,
) => FieldRef<BuilderTypes, unknown, 'Object'>;

/**
 * A page type named `name`: the items field `field` and the `pagination` every list answers with.
 * What the list's resolver answers decides the items helper:
 *
 *   const CallPage = pageOf('CallPage', 'calls', itemsByIds(Call));                        // IdPage (pageOfIds)
 *   const DealerPage = pageOf('DealerPage', 'dealers', itemsWhere(Dealer, [{ name: 'asc' }, { id: 'asc' }])); // PageRef
 *   const UserPage = pageOf('ManagedUserPage', 'users', itemsLoaded(ManagedUser));         // Page<UserRow>
 */
export function pageOf<Shape extends PageWindow>(
  name: string,
  field: string,
  items: PageItems<Shape>,
): ObjectRef<BuilderTypes, Shape> {
  return builder.objectRef<Shape>(name).implement({
    fields: (t) => ({
      [field]: items(t),
      pagination: t.field({ type: Pagination, resolve: (page) => page }),
    }),
  });
}

/** A page type of a list that also walks by cursor (`pageOfIds`): its items and a `CursorPagination`. */
export function cursorPageOf(
  name: string,
  field: string,
  items: PageItems<CursorPage>,
): ObjectRef<BuilderTypes, CursorPage> {
  return builder.objectRef<CursorPage>(name).implement({
    fields: (t) => ({
      [field]: items(t),
      pagination: t.field({ type: CursorPagination, resolve: (page) => page }),
    }),
  });
}

interface Delegate<Row> {
  findMany(args: object): Promise<Row[]>;
}

/** The Prisma client's delegate of `model` (`db.call` for Call), for a loader that serves several models. */
function delegateOf<Row>(db: Db, model: string): Delegate<Row> {
  return (db as unknown as Record<string, Delegate<Row>>)[model.charAt(0).toLowerCase() + model.slice(1)]!;
}

/**
 * Rows of `model` by id, read with the GraphQL selection (`query`, so relations come in the same
 * statements) and put back in the order of `ids`; no statement at all for no ids. On the app's own
 * client a plain selection is read without the client's mapping (direct-reads.ts).
 */
export async function rowsByIds<Row extends { id: string }>(
  db: Db,
  model: string,
  query: object,
  ids: string[],
): Promise<Row[]> {
  if (!ids.length) return [];
  const rows =
    directReadsOf(db)?.rowsByIds<Row>(model, query, ids) ??
    delegateOf<Row>(db, model).findMany({ ...query, where: { id: { in: ids } } });
  return inIdOrder(ids, await rows);
}

/**
 * The rows of `model` that `pick` picks for their parents (a statement answering `parent_id` and `id`,
 * in the order wanted), read with the GraphQL selection (`query`), each with its parent: on the app's
 * own client with a plain selection in the picking statement itself, else the ids picked and then
 * their rows by id. `name` names the statement in the database's logs.
 */
export async function pickedRows<Row extends { id: string }>(
  db: Db,
  model: string,
  query: object,
  name: string,
  pick: Prisma.Sql,
): Promise<Array<{ parentId: string; row: Row }>> {
  const key = plainKey(model, query);
  const inOne = key === null ? null : directReadsOf(db)?.pickedRows<Row>(name, key, pick);
  if (inOne) return inOne;
  const picked = await queryRows<{ parent_id: string; id: string }>(
    db,
    Prisma.sql`${Prisma.raw(`/* ${name} */`)} ${pick}`,
  );
  const rows = await rowsByIds<Row>(db, model, query, [...new Set(picked.map((entry) => entry.id))]);
  const byId = new Map(rows.map((row) => [row.id, row]));
  return picked.flatMap((entry) => {
    const row = byId.get(entry.id);
    return row ? [{ parentId: entry.parent_id, row }] : [];
  });
}

/**
 * A whole row of `model` by id, read with every other asked in the same tick: one statement for a
 * page's rooftops, however many of its vehicles share each.
 */
export function rowById<Row extends { id: string }>(context: Context, model: string, id: string): Promise<Row> {
  return rowByIdLoader<Row>(context, model, (ids) => rowsByIds<Row>(context.db, model, {}, [...ids])).load(id);
}

/**
 * Rows of `model` by id with a field's selection (`query`), read with every other asked in the same
 * tick with the same selection: one statement for a list's to-one or to-many field, not one per row.
 */
export function rowsWithSelection<Row extends { id: string }>(
  context: Context,
  model: string,
  query: object,
  ids: readonly string[],
): Promise<Row[]> {
  const loader = rowByIdLoader<Row>(context, `${model} ${JSON.stringify(query)}`, (batch) =>
    rowsByIds<Row>(context.db, model, query, [...batch]),
  );
  return Promise.all(ids.map((id) => loader.load(id)));
}

/**
 * Items of an `IdPage`: the rows its statement read with the ids when they were read with this
 * field's selection, else the rows of its ids, in that order.
 */
export function itemsByIds<Model extends PrismaModelTypes, Shape extends IdPage = IdPage>(
  ref: PrismaObjectRef<BuilderTypes, Model>,
): PageItems<Shape> {
  return (t) =>
    t.prismaField({
      type: [ref],
      resolve: (query, page, _args, context) => {
        const key = plainKey(ref.modelName, query);
        page.learn?.(key);
        return page.loaded && page.loaded.key === key
          ? (page.loaded.rows as Array<Model['Shape']>)
          : rowsByIds<Model['Shape'] & { id: string }>(context.db, ref.modelName, query, page.ids);
      },
    });
}

/** The plain selection each list field's items loaded with when its operation last ran, by the field's place in the document. */
const loadedWith = new WeakMap<FieldNode, string | null>();

/**
 * What the items of the list field `info` resolves are expected to load with, for `pageOfIds` to read
 * in the page's own statement: what they loaded with the last time this operation ran (the same
 * document, whose parse is cached), told by `itemsByIds`. A first run reads its items by id; a run
 * whose selection changed (a directive's variable) too, and teaches the next one.
 */
export function itemsSelection(info: GraphQLResolveInfo): ItemsSelection {
  const node = info.fieldNodes[0]!;
  return { key: loadedWith.get(node) ?? null, learn: (key) => loadedWith.set(node, key) };
}

/** Items of a `PageRef`: the rows its `where` picks, in `orderBy`, within its window. */
export function itemsWhere<Model extends PrismaModelTypes>(
  ref: PrismaObjectRef<BuilderTypes, Model>,
  orderBy: Array<Model['OrderBy']>,
): PageItems<PageRef<Model['Where']>> {
  return (t) =>
    t.prismaField({
      type: [ref],
      resolve: (query, page, _args, context) =>
        delegateOf<Model['Shape']>(context.db, ref.modelName).findMany({
          ...query,
          where: page.where,
          orderBy,
          take: page.limit,
          skip: page.offset,
        }),
    });
}

/** Items of a `Page`: the rows the service already read. */
export function itemsLoaded<Item>(ref: ObjectRef<BuilderTypes, Item>): PageItems<Page<Item>> {
  return (t) => t.field({ type: [ref], resolve: (page) => page.items });
}
