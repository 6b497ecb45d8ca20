import DataLoader from 'dataloader';
import type { FieldNode, GraphQLResolveInfo } from 'graphql';

/** Per-request DataLoaders, keyed by what they load and with which arguments. */
export type Loaders = Map<string, DataLoader<string, unknown>>;

export function createLoaders(): Loaders {
  return new Map();
}

const placeIds = new WeakMap<FieldNode, number>();
let places = 0;

/**
 * The place in the document of the field `info` resolves: the same for every parent of a list in
 * one request (the five latest calls of each of 50 rooftops), so it keys a loader of rows read with
 * the field's selection, which the place and the request's variables decide, as the selection
 * written out would, without writing it out for every parent.
 */
export function fieldPlace(info: GraphQLResolveInfo): string {
  return info.fieldNodes
    .map((node) => {
      let id = placeIds.get(node);
      if (id === undefined) placeIds.set(node, (id = places += 1));
      return id;
    })
    .join('+');
}

/**
 * The latest records of many parents at once (a page of dealers, each with its five latest calls):
 * one SQL statement picks every parent's ids with a LATERAL … LIMIT, one more loads the rows with
 * the GraphQL selection, however many parents the page holds.
 */
export function childPageLoader<Row extends { id: string }>(
  context: { loaders: Loaders },
  key: string,
  pickIds: (parentIds: string[]) => Promise<Array<{ parent_id: string; id: string }>>,
  loadRows: (ids: string[]) => Promise<Row[]>,
): DataLoader<string, Row[]> {
  let loader = context.loaders.get(key) as DataLoader<string, Row[]> | undefined;
  if (!loader) {
    loader = new DataLoader<string, Row[]>(async (parentIds) => {
      const picked = await pickIds([...parentIds]);
      const rows = picked.length ? await loadRows(picked.map((entry) => entry.id)) : [];
      const byId = new Map(rows.map((row) => [row.id, row]));
      const byParent = new Map<string, Row[]>();
      for (const entry of picked) {
        const row = byId.get(entry.id);
        if (!row) continue;
        const siblings = byParent.get(entry.parent_id);
        if (siblings) siblings.push(row);
        else byParent.set(entry.parent_id, [row]);
      }
      return parentIds.map((parentId) => byParent.get(parentId) ?? []);
    });
    context.loaders.set(key, loader as DataLoader<string, unknown>);
  }
  return loader;
}

/**
 * A model's whole rows by id for this request: every id asked in one tick, one statement (straight
 * through the pool on the app's own client, through the client in a transaction). What a to-one
 * field shared by many rows uses, such as a page of vehicles' rooftops: a handful of rows read once
 * instead of the same rooftop beside every vehicle.
 */
export function rowByIdLoader<Row extends { id: string }>(
  context: { loaders: Loaders },
  model: string,
  read: (ids: readonly string[]) => Promise<Row[]>,
): DataLoader<string, Row> {
  const key = `rowById:${model}`;
  let loader = context.loaders.get(key) as DataLoader<string, Row> | undefined;
  if (!loader) {
    loader = new DataLoader<string, Row>(async (ids) => {
      const byId = new Map((await read(ids)).map((row) => [row.id, row]));
      return ids.map((id) => byId.get(id) ?? new Error(`no ${model} ${id}`));
    });
    context.loaders.set(key, loader as DataLoader<string, unknown>);
  }
  return loader;
}
