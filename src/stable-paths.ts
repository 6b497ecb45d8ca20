import SchemaBuilder, { BasePlugin, type PothosOutputFieldConfig, type SchemaTypes } from '@pothos/core';
import type { GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';

/**
 * One response path object per place in an answer, as graphql-js hands resolvers, under compiled
 * execution too. The Prisma plugin remembers what each field loaded by its response path: a
 * string it builds once per path link and keeps by the link's identity, and a field's own scope by
 * the same identity. graphql-js shares the links above a list between its rows; compiled code
 * writes every resolver's whole path out as fresh objects, so each field of each row rebuilt the
 * strings of its whole path and missed its parent's scope: for a page of 25 calls of 20 fields, a
 * third of the request's time, and as much again collecting the garbage. This plugin, first among
 * the builder's, gives the fields the Prisma plugin looks up by path (those loaded by selection, and
 * those that return a model) the request's own link for each place, made once.
 */

const NEXT = Symbol('next links');

type Link = GraphQLResolveInfo['path'];
interface StableLink extends Link {
  readonly prev: StableLink | undefined;
  [NEXT]?: Map<string | number, StableLink>;
}

/** The first links of each request's paths, by the request's context. */
const roots = new WeakMap<object, Map<string | number, StableLink>>();

function stable(path: Link | undefined, first: Map<string | number, StableLink>): StableLink | undefined {
  if (!path) return undefined;
  const prev = stable(path.prev, first);
  const siblings = prev ? (prev[NEXT] ??= new Map()) : first;
  let link = siblings.get(path.key);
  if (!link) {
    link = { prev, key: path.key, typename: path.typename };
    siblings.set(path.key, link);
  }
  return link;
}

/** `resolve`, handed the request's own path link for its place instead of the one it was called with. */
export function stablePaths<Parent, Context extends object, Args>(
  resolve: GraphQLFieldResolver<Parent, Context, Args>,
): GraphQLFieldResolver<Parent, Context, Args> {
  return (parent, args, context, info) => {
    let first = roots.get(context);
    if (!first) roots.set(context, (first = new Map()));
    (info as { path: Link }).path = stable(info.path, first)!;
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
