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
 * `read` answers every parent's rows with their parent (one statement, however many parents the page
 * holds: `pickedRows`, pages.ts), which this hands each parent in the order read.
 */
export function childPageLoader<Row>(
  context: { loaders: Loaders },
  key: string,
  read: (parentIds: string[]) => Promise<Array<{ parentId: string; row: Row }>>,
): DataLoader<string, Row[]> {
  let loader = context.loaders.get(key) as DataLoader<string, Row[]> | undefined;
  if (!loader) {
    loader = new DataLoader<string, Row[]>(async (parentIds) => {
      const byParent = new Map<string, Row[]>();
      for (const { parentId, row } of await read([...parentIds])) {
        const siblings = byParent.get(parentId);
        if (siblings) siblings.push(row);
        else byParent.set(parentId, [row]);
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
