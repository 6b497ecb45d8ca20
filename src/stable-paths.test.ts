import type { GraphQLObjectType, GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from './schema';
import { stablePaths, type LinkBudget } from './stable-paths';

type Path = GraphQLResolveInfo['path'];

/** A response path written out afresh, as compiled execution hands it to every resolver. */
const written = (...keys: Array<string | number>): Path =>
  keys.reduce<Path | undefined>((prev, key) => ({ prev, key, typename: undefined }), undefined)!;

/** The path a resolver wrapped by `stablePaths` was handed, for `path` in `context` (of `operation`). */
function handed(context: object, path: Path, operation?: object, budget?: LinkBudget): Path {
  let seen: Path | undefined;
  stablePaths((_parent, _args, _context, info) => void (seen = info.path), budget)(null, {}, context, {
    path,
    operation,
  } as unknown as GraphQLResolveInfo);
  return seen!;
}

describe('stable response paths', () => {
  it('hands one link per place in a request, whichever objects the path was written with', () => {
    const request = {};
    const first = handed(request, written('calls', 'calls', 3, 'id'));
    expect(handed(request, written('calls', 'calls', 3, 'id'))).toBe(first);
    expect(first).toMatchObject({ key: 'id', prev: { key: 3, prev: { key: 'calls', prev: { key: 'calls' } } } });
    // Its neighbours share its links above the place where they part.
    const next = handed(request, written('calls', 'calls', 3, 'vin'));
    expect(next).not.toBe(first);
    expect(next.prev).toBe(first.prev);
    const nextRow = handed(request, written('calls', 'calls', 4, 'id'));
    expect(nextRow.prev).not.toBe(first.prev);
    expect(nextRow.prev!.prev).toBe(first.prev!.prev);
    // A list index is not the field of the same name.
    expect(handed(request, written('calls', 'calls', '3', 'id'))).not.toBe(first);
    // Another request has links of its own.
    expect(handed({}, written('calls', 'calls', 3, 'id'))).not.toBe(first);
  });

  it("keeps an operation's links for its next requests, within a bound", () => {
    const operation = {};
    const place = () => written('dealers', 'dealers', 7, 'calls', 2, 'id');
    const first = handed({}, place(), operation);
    expect(handed({}, place(), operation)).toBe(first);
    expect(handed({}, place(), {})).not.toBe(first);
    // Past the bound a request makes its own links, the same for each place throughout the request.
    const budget = { max: 3, kept: 0 };
    const bounded = {};
    const request = {};
    const deep = handed(request, place(), bounded, budget);
    expect(budget.kept).toBe(3);
    expect(handed(request, place(), bounded, budget)).toBe(deep);
    expect(handed(request, written('dealers', 'dealers', 7, 'calls', 3, 'id'), bounded, budget).prev!.prev).toBe(
      deep.prev!.prev,
    );
    const next = handed({}, place(), bounded, budget);
    expect(next).not.toBe(deep);
    expect(next).toMatchObject({ key: 'id', prev: { key: 2, prev: { key: 'calls', prev: { key: 7 } } } });
    // The kept links above them are shared.
    expect(next.prev!.prev!.prev).toBe(deep.prev!.prev!.prev);
    expect(budget.kept).toBe(3);
    // Once the budget allows again (a forgotten operation gave links back), new places are kept, but
    // a place a request made its own stays its own for the rest of that request.
    budget.max = 10;
    const later = {};
    const kept = handed(later, written('dealers', 'dealers', 7, 'calls', 9, 'id'), bounded, budget);
    expect(handed({}, written('dealers', 'dealers', 7, 'calls', 9, 'id'), bounded, budget)).toBe(kept);
    expect(handed(request, place(), bounded, budget)).toBe(deep);
    expect(handed(request, written('dealers', 'dealers', 7, 'calls', 9, 'id'), bounded, budget).prev!.prev).toBe(
      deep.prev!.prev,
    );
  });

  it('is given to the fields the Prisma plugin looks up by path, and to no other', () => {
    const wrapped = (type: string, field: string) => {
      const resolve = (schema.getType(type) as GraphQLObjectType).getFields()[field]!.resolve!;
      const path = written('list', 0, field);
      const info = {
        path,
        fieldName: field,
        parentType: schema.getType(type),
        fieldNodes: [],
      } as unknown as GraphQLResolveInfo;
      try {
        // Without a request behind it the resolver may fail; only the path it was handed matters here.
        const result = resolve({ id: 'x', dealerId: 'y', vin: 'v' }, {}, { loaders: new Map() }, info) as unknown;
        if (result instanceof Promise) result.catch(() => {});
      } catch {
        /* see above */
      }
      return info.path !== path;
    };
    // A select-mode type's column and relation, and a field returning a model.
    expect(wrapped('Call', 'id')).toBe(true);
    expect(wrapped('Call', 'source')).toBe(true);
    expect(wrapped('Vehicle', 'dealer')).toBe(true);
    // A whole-row type's column, and a field returning no model.
    expect(wrapped('Vehicle', 'vin')).toBe(false);
    expect(wrapped('Vehicle', 'days_on_lot')).toBe(false);
  });
});
