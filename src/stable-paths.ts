import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';

/**
 * One response path object per place in an operation's answers, as graphql-js hands resolvers
 * within a request, under compiled execution too and across requests. The Prisma plugin remembers
 * what each field loaded by its response path: a string it builds once per path link and keeps by
 * the link's identity, and a field's own scope by the same identity. graphql-js shares the links
 * above a list between its rows; compiled code writes every resolver's whole path out as fresh
 * objects, so each field of each row rebuilt the strings of its whole path and missed its parent's
 * scope: for a page of 25 calls of 20 fields, a third of the request's time, and as much again
 * collecting the garbage. This plugin, first among the builder's, hands the fields the Prisma plugin
 * looks up by path (those loaded by selection, and those that return a model) one link per place
 * of their operation, kept with the operation (its parsed document is cached), so the next request
 * finds the strings built. Links kept in all are bounded (`KEPT_LINKS`); past the bound a request
 * makes its own, which go with it.
 */

const NEXT = Symbol('next links');
const KEPT = Symbol('kept with its operation');

type Link = GraphQLResolveInfo['path'];
type Key = Link['key'];
interface StableLink extends Link {
  readonly prev: StableLink | undefined;
  /** The links one step further, keyed by their response key or list index. */
  [NEXT]?: Map<Key, StableLink>;
  /** Whether it is kept with its operation (else it is its request's own). */
  [KEPT]: boolean;
}

/** How many links may be kept with operations in all, and how many are. */
export interface LinkBudget {
  max: number;
  kept: number;
}

/** About 15 MB of links: a few thousand rows of a few fields for each of many operations. */
export const KEPT_LINKS: LinkBudget = { max: 100_000, kept: 0 };

/** An operation's first links, and how many of its links count against the budget. */
interface Tree {
  first: Map<Key, StableLink>;
  tally: { links: number; budget: LinkBudget };
}

/** Kept links by the operation they belong to (a parsed document's node, cached with it). */
const trees = new WeakMap<object, Tree>();
/** A request's own links below kept ones, once the budget is spent, by the kept link above them (null: the root). */
const ownLinks = new WeakMap<object, Map<StableLink | null, Map<Key, StableLink>>>();
/** Gives a forgotten operation's links back to the budget. */
const released = new FinalizationRegistry<Tree['tally']>((tally) => {
  tally.budget.kept -= tally.links;
});

function treeOf(owner: object, budget: LinkBudget): Tree {
  let tree = trees.get(owner);
  if (!tree) {
    tree = { first: new Map(), tally: { links: 0, budget } };
    trees.set(owner, tree);
    released.register(tree, tree.tally);
  }
  return tree;
}

function stable(
  path: Link | undefined,
  tree: Tree,
  own: Map<StableLink | null, Map<Key, StableLink>>,
): StableLink | undefined {
  if (!path) return undefined;
  const prev = stable(path.prev, tree, own);
  // The request's own link first: a place it made its own while the budget was spent stays its own
  // should another request keep a link there since. Below a request's own link everything is the
  // request's own, kept in that link.
  const siblings = prev ? prev[NEXT] : tree.first;
  let link = own.get(prev ?? null)?.get(path.key) ?? siblings?.get(path.key);
  if (link) return link;
  const keep = (!prev || prev[KEPT]) && tree.tally.budget.kept < tree.tally.budget.max;
  link = { prev, key: path.key, typename: path.typename, [KEPT]: keep };
  if (keep) {
    tree.tally.budget.kept += 1;
    tree.tally.links += 1;
  }
  if (keep || (prev && !prev[KEPT])) (prev ? (prev[NEXT] ??= new Map()) : tree.first).set(path.key, link);
  else {
    let spilled = own.get(prev ?? null);
    if (!spilled) own.set(prev ?? null, (spilled = new Map()));
    spilled.set(path.key, link);
  }
  return link;
}

/**
 * `resolve`, handed the link of its operation (its request's, with no operation known) for its
 * place instead of the one it was called with.
 */
export function stablePaths<Parent, Context extends object, Args>(
  resolve: GraphQLFieldResolver<Parent, Context, Args>,
  budget: LinkBudget = KEPT_LINKS,
): GraphQLFieldResolver<Parent, Context, Args> {
  return (parent, args, context, info) => {
    let own = ownLinks.get(context);
    if (!own) ownLinks.set(context, (own = new Map()));
    const tree = treeOf((info.operation as object | undefined) ?? context, budget);
    (info as { path: Link }).path = stable(info.path, tree, own)!;
    return resolve(parent, args, context, info);
  };
}

export class StablePathsPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(
    resolver: GraphQLFieldResolver<unknown, Types['Context'], object>,
    fieldConfig: PothosOutputFieldConfig<Types>,
  ): GraphQLFieldResolver<unknown, Types['Context'], object> {
    return this.looksUpByPath(fieldConfig) ? stablePaths(resolver) : resolver;
  }

  /** Fields loaded by selection (the Prisma plugin checks what they loaded by path), and fields returning a model. */
  private looksUpByPath(fieldConfig: PothosOutputFieldConfig<Types>): boolean {
    if ((fieldConfig.extensions as { pothosPrismaSelect?: unknown } | undefined)?.pothosPrismaSelect) return true;
    const type = fieldConfig.type.kind === 'List' ? fieldConfig.type.type : fieldConfig.type;
    if (type.kind !== 'Object' && type.kind !== 'Interface') return false;
    const returned = this.buildCache.getTypeConfig(type.ref);
    return Boolean((returned.extensions as { pothosPrismaModel?: unknown } | undefined)?.pothosPrismaModel);
  }
}

declare global {
  // Pothos names its plugins in this global namespace; a plugin adds itself there.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      stablePaths: StablePathsPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('stablePaths', StablePathsPlugin);
