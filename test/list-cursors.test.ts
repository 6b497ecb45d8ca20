import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../src/db/database';
import type { Prisma } from '../src/generated/prisma/client';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, testVin, type SeededGroup } from './helpers/seed';
import { recordQueries } from './helpers/statements';

/**
 * Walking the lists syncs change (inventory, calls, leads, sales) by cursor: every row once, in the
 * order the same sort gives in SQL, for generated rows with ties and NULLs; a sync pull by
 * `sort=updated_at` while rows change; refused cursors; tenancy; and the index ranges the pages read.
 */

const RUNS = Number(process.env.CURSOR_RUNS ?? 15);
/** Generated rows share a few instants, so every time key has ties. */
const BASE = Date.now() - 3_600_000;
const instant = fc.constantFrom(0, 1, 1000, 60_000).map((ms) => new Date(BASE + ms));
const money = fc.option(fc.constantFrom('9999.00', '15000.00', '15000.50', '20000.00'), { nil: null, freq: 3 });
const dayStart = (daysAgo: number) => new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - daysAgo * 86_400_000);

type Row = Record<string, unknown>;

/** A list that walks by cursor, as the test writes its rows and states its order in SQL of its own. */
interface CursorList {
  name: string;
  path: string;
  /** The items field of the REST body and the GraphQL page. */
  field: string;
  table: string;
  /** Each sort key over `t`, as README and the API describe it: nullable keys last either way. */
  keys: Record<string, { sql: string; nullable?: boolean }>;
  /** A generated row, its group and rooftop added when written. */
  row: fc.Arbitrary<Row>;
  write(db: Db, group: SeededGroup, rows: Row[]): Promise<void>;
}

const LISTS: CursorList[] = [
  {
    name: 'inventory',
    path: '/inventory',
    field: 'vehicles',
    table: 'vehicles',
    keys: {
      price: { sql: 't.price', nullable: true },
      internet_price: { sql: 't.internet_price', nullable: true },
      msrp: { sql: 't.msrp', nullable: true },
      year: { sql: 't.year' },
      mileage: { sql: 't.mileage', nullable: true },
      make: { sql: 't.make' },
      model: { sql: 't.model' },
      days_on_lot: { sql: `((COALESCE(t.sold_at, now()) AT TIME ZONE 'UTC')::date - t.date_in_stock)` },
      date_in_stock: { sql: 't.date_in_stock' },
      stock_number: { sql: 't.stock_number', nullable: true },
      vin: { sql: 't.vin' },
      status: { sql: 't.status' },
      created_at: { sql: 't.created_at' },
      updated_at: { sql: 't.updated_at' },
    },
    row: fc.record({
      stockNumber: fc.option(fc.constantFrom('A1', 'a1', 'B2', 'b10'), { nil: null, freq: 3 }),
      year: fc.constantFrom(2019, 2020, 2024),
      make: fc.constantFrom('Ford', 'ford', 'FORD', 'Honda', 'Kia'),
      model: fc.constantFrom('F-150', 'f-150', 'Civic', 'Ánimo'),
      mileage: fc.option(fc.constantFrom(0, 10, 5000), { nil: null, freq: 3 }),
      msrp: money,
      price: money,
      internetPrice: money,
      status: fc.constantFrom('available', 'pending', 'in_transit', 'sold', 'presumed_sold'),
      daysInStock: fc.constantFrom(0, 3, 30),
      soldDaysAgo: fc.constantFrom(0, 1, 2),
      createdAt: instant,
      updatedAt: instant,
    }),
    async write(db, group, rows) {
      await db.vehicle.createMany({
        data: rows.map(({ daysInStock, soldDaysAgo, ...row }, index) => ({
          ...(row as Pick<Prisma.VehicleCreateManyInput, 'year' | 'make' | 'model' | 'status'>),
          dealerGroupId: group.groupId,
          dealerId: group.dealerIds[index % 2]!,
          vin: testVin(index),
          condition: 'used',
          dateInStock: dayStart(daysInStock as number),
          // A vehicle on the lot has no sale date (a check constraint says so).
          soldAt: ['sold', 'presumed_sold'].includes(row.status as string)
            ? new Date(dayStart(soldDaysAgo as number).getTime() + 3_600_000)
            : null,
        })),
      });
    },
  },
  {
    name: 'calls',
    path: '/calls',
    field: 'calls',
    table: 'calls',
    keys: { started_at: { sql: 't.started_at' }, updated_at: { sql: 't.updated_at' } },
    row: fc.record({ startedAt: instant, updatedAt: instant }),
    async write(db, group, rows) {
      await db.call.createMany({
        data: rows.map((row, index) => ({
          ...(row as { startedAt: Date }),
          dealerGroupId: group.groupId,
          dealerId: group.dealerIds[index % 2]!,
          provider: 'callrail',
          externalId: randomUUID(),
          durationSeconds: 60,
          direction: 'inbound',
          status: 'answered',
        })),
      });
    },
  },
  {
    name: 'leads',
    path: '/leads',
    field: 'leads',
    table: 'leads',
    keys: { received_at: { sql: 't.received_at' }, updated_at: { sql: 't.updated_at' } },
    row: fc.record({ receivedAt: instant, updatedAt: instant }),
    async write(db, group, rows) {
      await db.lead.createMany({
        data: rows.map((row, index) => ({
          ...(row as { receivedAt: Date }),
          dealerGroupId: group.groupId,
          dealerId: group.dealerIds[index % 2]!,
          provider: 'adf',
          externalId: randomUUID(),
          type: 'used',
        })),
      });
    },
  },
  {
    name: 'sales',
    path: '/sales',
    field: 'sales',
    table: 'sales',
    keys: { sold_at: { sql: 't.sold_at' }, updated_at: { sql: 't.updated_at' } },
    row: fc.record({ soldAt: instant, updatedAt: instant }),
    async write(db, group, rows) {
      await db.sale.createMany({
        data: rows.map((row, index) => ({
          ...(row as { soldAt: Date }),
          dealerGroupId: group.groupId,
          dealerId: group.dealerIds[index % 2]!,
          dealNumber: randomUUID(),
          salesperson: 'Alex Rivera',
          contractType: 'cash',
          vehicleCondition: 'used',
          salePrice: '25000.00',
          frontGross: '1500.00',
          backGross: '900.00',
        })),
      });
    },
  },
];

interface SortKey {
  key: string;
  descending: boolean;
}
const sortParam = (sort: SortKey[]) => sort.map(({ key, descending }) => `${descending ? '-' : ''}${key}`).join(',');

let app: TestApp;
const groups = new Map<string, { group: SeededGroup; token: string }>();

beforeAll(async () => {
  app = await startTestApp();
  for (const list of LISTS) {
    const group = await seedGroup(app.database.prisma);
    groups.set(list.name, { group, token: await group.login(app.client) });
  }
});
afterAll(() => app?.stop());

/** Replaces the group's rows of the list with `rows`. */
async function replaceRows(list: CursorList, group: SeededGroup, rows: Row[]) {
  await app.database.prisma.$executeRawUnsafe(
    `DELETE FROM ${list.table} WHERE dealer_group_id = $1::uuid`,
    group.groupId,
  );
  await list.write(app.database.prisma, group, rows);
}

/**
 * The ids in the order the sort gives, written here as plain SQL: keys in their directions, nullable
 * ones NULLS LAST, then the id in the direction of the last key. On the lot only, days on lot is the
 * stock-in date the other way round, and so is the id's direction.
 */
async function expectedIds(list: CursorList, groupId: string, sort: SortKey[], onLot = false): Promise<string[]> {
  const keys = sort.map(({ key, descending }) =>
    key === 'days_on_lot' && onLot
      ? { sql: 't.date_in_stock', descending: !descending, nullable: false }
      : { sql: list.keys[key]!.sql, descending, nullable: !!list.keys[key]!.nullable },
  );
  const direction = (descending: boolean) => (descending ? 'DESC' : 'ASC');
  const orderBy = keys.map((key) => `${key.sql} ${direction(key.descending)}${key.nullable ? ' NULLS LAST' : ''}`);
  const rows = await app.database.prisma.$queryRawUnsafe<Array<{ id: string }>>(
    `SELECT t.id FROM ${list.table} t WHERE t.dealer_group_id = $1::uuid ${onLot ? `AND t.status NOT IN ('sold', 'presumed_sold')` : ''}
     ORDER BY ${orderBy.join(', ')}, t.id ${direction(keys[keys.length - 1]!.descending)}`,
    groupId,
  );
  return rows.map((row) => row.id);
}

/** Every page of the list from the first, following next_cursor; the ids in the order the pages gave them. */
async function walk(list: CursorList, token: string, query: string, limit: number) {
  const ids: string[] = [];
  const totals = new Set<number>();
  let after: string | null = null;
  for (let pages = 0; ; pages += 1) {
    if (pages > 100) throw new Error('the walk does not end');
    const response = await app.client.get(
      `${list.path}?${query}&limit=${limit}${after ? `&after=${after}` : ''}`,
      token,
    );
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    ids.push(...response.body[list.field].map((row: { id: string }) => row.id));
    totals.add(response.body.pagination.total);
    after = response.body.pagination.next_cursor;
    if (!after) {
      expect(response.body[list.field].length).toBeLessThanOrEqual(limit);
      return { ids, totals: [...totals] };
    }
    expect(response.body[list.field]).toHaveLength(limit);
  }
}

const ON_LOT = 'status=available,pending,in_transit';

describe.each(LISTS)('walking $name by cursor', (list) => {
  it('returns every row once, in the order SQL gives, for every sort key each way', async () => {
    const { group, token } = groups.get(list.name)!;
    const [rows] = fc.sample(fc.array(list.row, { minLength: 20, maxLength: 20 }), { seed: 15, numRuns: 1 });
    await replaceRows(list, group, rows!);
    for (const key of Object.keys(list.keys))
      for (const descending of [false, true]) {
        const sort = [{ key, descending }];
        const { ids, totals } = await walk(list, token, `sort=${sortParam(sort)}`, 3);
        expect(ids, sortParam(sort)).toEqual(await expectedIds(list, group.groupId, sort));
        expect(totals).toEqual([20]);
      }
    if (list.name === 'inventory')
      for (const sort of ['days_on_lot', '-days_on_lot']) {
        const { ids } = await walk(list, token, `sort=${sort}&${ON_LOT}`, 2);
        const expected = await expectedIds(
          list,
          group.groupId,
          [{ key: 'days_on_lot', descending: sort !== 'days_on_lot' }],
          true,
        );
        expect(ids, `${sort} on the lot`).toEqual(expected);
      }
  }, 120_000);

  it('returns every row once, in order, for generated rows, sorts and page sizes', async () => {
    const { group, token } = groups.get(list.name)!;
    const keys = Object.keys(list.keys);
    const sort = fc
      .uniqueArray(fc.constantFrom(...keys), { minLength: 1, maxLength: Math.min(3, keys.length) })
      .chain((names) => fc.tuple(...names.map((key) => fc.boolean().map((descending) => ({ key, descending })))));
    await fc.assert(
      fc.asyncProperty(
        fc.array(list.row, { minLength: 4, maxLength: 16, size: 'max' }),
        sort,
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        async (rows, sort, limit, onLotOnly) => {
          const onLot = onLotOnly && list.name === 'inventory';
          await replaceRows(list, group, rows);
          const { ids, totals } = await walk(list, token, `sort=${sortParam(sort)}${onLot ? `&${ON_LOT}` : ''}`, limit);
          const expected = await expectedIds(list, group.groupId, sort, onLot);
          expect(ids).toEqual(expected);
          expect(totals).toEqual([expected.length]);
        },
      ),
      { numRuns: RUNS },
    );
  }, 180_000);

  it('pulls by updated_at while rows change between pages: none skipped or repeated unless it changed', async () => {
    const { group, token } = groups.get(list.name)!;
    const [rows] = fc.sample(fc.array(list.row, { minLength: 12, maxLength: 12 }), { seed: 7, numRuns: 1 });
    await replaceRows(list, group, rows!);
    const db = app.database.prisma;
    const original = await expectedIds(list, group.groupId, [{ key: 'updated_at', descending: false }]);
    const touch = (id: string) =>
      db.$executeRawUnsafe(`UPDATE ${list.table} SET updated_at = clock_timestamp() WHERE id = $1::uuid`, id);

    const seen: Array<{ id: string; updated_at: string }> = [];
    const changedAfterSeen = new Set<string>();
    const changedBeforeSeen = new Set<string>();
    let added: string[] = [];
    let after: string | null = null;
    const since = new Date(BASE - 60_000).toISOString();
    for (let page = 0; ; page += 1) {
      const response = await app.client.get(
        `${list.path}?sort=updated_at&updated_since=${since}&limit=4${after ? `&after=${after}` : ''}`,
        token,
      );
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      seen.push(...response.body[list.field]);
      after = response.body.pagination.next_cursor;
      if (!after) break;
      if (page === 0) {
        // One row already pulled changes, one not yet pulled changes, and a new row arrives.
        const pulled = seen[1]!.id;
        const ahead = original.find((id) => !seen.some((row) => row.id === id))!;
        await touch(pulled);
        await touch(ahead);
        changedAfterSeen.add(pulled);
        changedBeforeSeen.add(ahead);
        await list.write(db, group, [{ ...rows![0]!, updatedAt: new Date() }]);
        added = (await expectedIds(list, group.groupId, [{ key: 'updated_at', descending: false }])).filter(
          (id) => !original.includes(id),
        );
      }
    }
    const count = (id: string) => seen.filter((row) => row.id === id).length;
    // Unchanged rows once; a row changed after it was pulled again, later; one changed before it was
    // reached once, where its change put it; the new row once.
    for (const id of original) expect(count(id), id).toBe(changedAfterSeen.has(id) ? 2 : 1);
    expect(changedBeforeSeen.size).toBe(1);
    expect(added).toHaveLength(1);
    expect(count(added[0]!)).toBe(1);
    expect(
      seen
        .slice(-3)
        .map((row) => row.id)
        .sort(),
    ).toEqual([...changedAfterSeen, ...changedBeforeSeen, ...added].sort());
    // The walk never goes back: (updated_at, id) only increases.
    for (let index = 1; index < seen.length; index += 1) {
      const [previous, current] = [seen[index - 1]!, seen[index]!];
      const before =
        previous.updated_at < current.updated_at ||
        (previous.updated_at === current.updated_at && previous.id < current.id);
      expect(before, JSON.stringify([previous, current])).toBe(true);
    }
  });
});

describe('cursors refused, and tenancy', () => {
  const inventory = LISTS[0]!;
  const decode = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  const encode = (payload: unknown) => Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  let mine: { group: SeededGroup; token: string };
  let other: { group: SeededGroup; token: string };
  let priceCursor: string;

  beforeAll(async () => {
    mine = { group: await seedGroup(app.database.prisma), token: '' };
    mine.token = await mine.group.login(app.client);
    other = { group: await seedGroup(app.database.prisma), token: '' };
    other.token = await other.group.login(app.client);
    const rows = (prices: Array<string | null>) =>
      prices.map((price, index) => ({
        year: 2020,
        make: 'Ford',
        model: 'F-150',
        price,
        status: 'available',
        daysInStock: index,
        soldDaysAgo: 0,
        createdAt: new Date(BASE),
        updatedAt: new Date(BASE),
      }));
    await replaceRows(inventory, mine.group, rows(['10000.00', '20000.00', '30000.00', null]));
    await replaceRows(inventory, other.group, rows(['5000.00', '15000.00', '25000.00', '35000.00', null]));
    const first = await app.client.get('/inventory?sort=price&limit=2', mine.token);
    priceCursor = first.body.pagination.next_cursor;
    expect(decode(priceCursor)).toMatchObject({ v: 1, s: 'price', k: ['20000.00'] });
  });

  const refused = async (query: string, field: string, path = '/inventory') => {
    const response = await app.client.get(`${path}?${query}`, mine.token);
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'INVALID_ARGUMENT', details: { field } });
    return response.body.error.message as string;
  };

  it('refuses a malformed or tampered cursor with a 400 naming after, never a 500', async () => {
    const real = decode(priceCursor);
    const tampered = [
      'not a cursor!',
      'abc',
      'x'.repeat(3000),
      encode([1, 'price']),
      encode({ ...real, v: 2 }),
      encode({ ...real, extra: true }),
      encode({ ...real, k: ['cheap'] }),
      encode({ ...real, k: ['1e5'] }),
      encode({ ...real, k: [20000] }),
      encode({ ...real, k: ['20000.00', '1'] }),
      encode({ ...real, k: [] }),
      encode({ ...real, i: 'not-a-uuid' }),
      encode({ ...real, i: "1' OR '1'='1" }),
      encode({ ...real, t: 'yesterday' }),
      encode({ ...real, s: 123 }),
    ];
    for (const after of tampered) await refused(`sort=price&after=${encodeURIComponent(after)}`, 'after');
    const year = decode((await app.client.get('/inventory?sort=year&limit=1', mine.token)).body.pagination.next_cursor);
    await refused(`sort=year&after=${encode({ ...year, k: [null] })}`, 'after');
    await refused(`sort=year&after=${encode({ ...year, k: ['2020.5'] })}`, 'after');
    const updated = decode((await app.client.get('/inventory?limit=1', mine.token)).body.pagination.next_cursor);
    await refused(`after=${encode({ ...updated, k: ['2026-02-30T00:00:00.000000Z'] })}`, 'after');
  });

  it('takes any text for a text key as a position, never as SQL', async () => {
    const make = decode((await app.client.get('/inventory?sort=make&limit=1', mine.token)).body.pagination.next_cursor);
    const response = await app.client.get(
      `/inventory?sort=make&after=${encode({ ...make, k: ["E'; DROP TABLE vehicles; --"] })}`,
      mine.token,
    );
    expect(response.status).toBe(200);
    expect(response.body.vehicles.map((vehicle: { make: string }) => vehicle.make)).toEqual([
      'Ford',
      'Ford',
      'Ford',
      'Ford',
    ]);
  });

  it('refuses a cursor made for another sort, or another list, naming after', async () => {
    expect(await refused(`sort=-price&after=${priceCursor}`, 'after')).toContain('was made for sort "price"');
    await refused(`sort=price,year&after=${priceCursor}`, 'after');
    await refused(`sort=-days_on_lot&status=available&after=${priceCursor}`, 'after');
    await refused(`after=${priceCursor}`, 'after', '/calls');
    // Days on lot read as the stock-in date (vehicles on the lot only) is another order than counted days.
    const onLot = await app.client.get('/inventory?sort=-days_on_lot&status=available&limit=1', mine.token);
    const cursor = onLot.body.pagination.next_cursor;
    expect(await refused(`sort=-days_on_lot&after=${cursor}`, 'after')).toContain('on the lot');
    expect(
      (await app.client.get(`/inventory?sort=-days_on_lot&status=available&after=${cursor}`, mine.token)).status,
    ).toBe(200);
  });

  it('refuses an offset beside a cursor, naming offset; offset 0 is the default and fine', async () => {
    await refused(`sort=price&offset=2&after=${priceCursor}`, 'offset');
    const response = await app.client.get(`/inventory?sort=price&offset=0&after=${priceCursor}`, mine.token);
    expect(response.status).toBe(200);
    expect(response.body.pagination).toEqual({ total: 4, limit: 50, offset: 0, next_cursor: null });
    expect(response.body.vehicles.map((vehicle: { price: string | null }) => vehicle.price)).toEqual([
      '30000.00',
      null,
    ]);
  });

  it("answers the same through GraphQL, and refuses there with the argument's name", async () => {
    const query = `query ($after: String) { inventory(sort: "price", limit: 2, after: $after) {
      pagination { total limit offset next_cursor } vehicles { price } } }`;
    const next = await app.client.graphql(query, { after: priceCursor }, mine.token);
    expect(next.body.data.inventory).toEqual({
      pagination: { total: 4, limit: 2, offset: 0, next_cursor: null },
      vehicles: [{ price: '30000.00' }, { price: null }],
    });
    for (const after of ['abc', '']) {
      const bad = await app.client.graphql(query, { after }, mine.token);
      expect(bad.body.errors[0]).toMatchObject({ extensions: { code: 'INVALID_ARGUMENT' } });
      expect(bad.body.errors[0].message).toMatch(/^after: /);
    }
    for (const [field, sort] of [
      ['calls', 'updated_at'],
      ['leads', '-received_at'],
      ['sales', 'sold_at'],
    ] as const) {
      const page = await app.client.graphql(
        `{ ${field}(sort: "${sort}", limit: 1) { pagination { total next_cursor } ${field} { id } } }`,
        {},
        mine.token,
      );
      expect(page.body.errors).toBeUndefined();
      expect(page.body.data[field].pagination).toEqual({ total: 0, next_cursor: null });
    }
  });

  it("walks only the caller's rows from any cursor: another group's cursor is a position, not a way in", async () => {
    // The cursor names a row of `mine` (price 20000.00); from it, `other` sees its own rows past that price.
    const response = await app.client.get(`/inventory?sort=price&after=${priceCursor}`, other.token);
    expect(response.status).toBe(200);
    const ids = response.body.vehicles.map((vehicle: { id: string }) => vehicle.id);
    const others = await expectedIds(inventory, other.group.groupId, [{ key: 'price', descending: false }]);
    expect(ids).toEqual(others.slice(2));
    expect(response.body.vehicles.map((vehicle: { price: string | null }) => vehicle.price)).toEqual([
      '25000.00',
      '35000.00',
      null,
    ]);
    expect(response.body.pagination.total).toBe(5);
    // Nor does a cursor naming another group's row by id, at a tie, reach it.
    const mineIds = await expectedIds(inventory, mine.group.groupId, [{ key: 'price', descending: false }]);
    const forged = encode({ ...decode(priceCursor), k: ['5000.00'], i: '00000000-0000-0000-0000-000000000000' });
    const walked = await app.client.get(`/inventory?sort=price&after=${forged}`, mine.token);
    expect(walked.body.vehicles.map((vehicle: { id: string }) => vehicle.id)).toEqual(mineIds);
  });
});

describe('the page after a cursor is an index range', () => {
  interface PlanNode {
    'Node Type': string;
    'Index Name'?: string;
    'Relation Name'?: string;
    'Actual Rows': number;
    'Rows Removed by Filter'?: number;
    'Actual Loops': number;
    'Parent Relationship'?: string;
    Plans?: PlanNode[];
  }
  // The page's own reads: the total beside it is an InitPlan, the count of every match, read as counts are.
  const nodes = (node: PlanNode): PlanNode[] => [
    node,
    ...(node.Plans ?? []).filter((child) => child['Parent Relationship'] !== 'InitPlan').flatMap(nodes),
  ];
  let group: SeededGroup;
  let token: string;

  beforeAll(async () => {
    group = await seedGroup(app.database.prisma);
    token = await group.login(app.client);
    const db = app.database.prisma;
    // 4,000 vehicles and calls, leads and deals, a tenth without a price, and a sync's worth of rows
    // stamped with one updated_at (a batch shares its transaction's now()).
    await db.$executeRaw`INSERT INTO vehicles (id, dealer_group_id, dealer_id, vin, year, make, model, condition, price, date_in_stock, updated_at)
      SELECT gen_random_uuid(), ${group.groupId}::uuid, ${group.dealerIds[0]}::uuid, lpad(i::text, 17, '0'), 2020, 'Ford', 'F-150', 'used',
        CASE WHEN i % 10 = 0 THEN NULL ELSE (i % 700) * 50 END, current_date - (i % 90), now() - (i / 1000) * interval '1 hour'
      FROM generate_series(1, 4000) i`;
    await db.$executeRaw`INSERT INTO calls (id, dealer_group_id, dealer_id, provider, external_id, started_at, duration_seconds, direction, status, updated_at)
      SELECT gen_random_uuid(), ${group.groupId}::uuid, ${group.dealerIds[0]}::uuid, 'callrail', 'explain-' || i || '-' || ${group.groupId},
        now() - i * interval '1 minute', 60, 'inbound', 'answered', now() - (i / 1000) * interval '1 hour'
      FROM generate_series(1, 4000) i`;
    await db.$executeRaw`INSERT INTO leads (id, dealer_group_id, dealer_id, provider, external_id, received_at, type, updated_at)
      SELECT gen_random_uuid(), ${group.groupId}::uuid, ${group.dealerIds[0]}::uuid, 'adf', 'explain-' || i || '-' || ${group.groupId},
        now() - i * interval '1 minute', 'used', now() - (i / 1000) * interval '1 hour'
      FROM generate_series(1, 4000) i`;
    await db.$executeRaw`INSERT INTO sales (id, dealer_group_id, dealer_id, deal_number, sold_at, salesperson, contract_type, vehicle_condition,
        sale_price, front_gross, back_gross, updated_at)
      SELECT gen_random_uuid(), ${group.groupId}::uuid, ${group.dealerIds[0]}::uuid, 'explain-' || i, date_trunc('day', now()) - (i / 20) * interval '1 day',
        'Alex Rivera', 'cash', 'used', 25000, 1500, 900, now() - (i / 1000) * interval '1 hour'
      FROM generate_series(1, 4000) i`;
    for (const table of ['vehicles', 'calls', 'leads', 'sales']) await db.$executeRawUnsafe(`ANALYZE ${table}`);
  }, 120_000);

  it.each([
    ['/inventory', 'sort=price', 'vehicles_dealer_group_id_price_id_idx'],
    ['/inventory', 'sort=-price', 'vehicles_dealer_group_id_price_id_idx'],
    // Past the last price, among the vehicles without one.
    ['/inventory', 'sort=-price&offset=3800', 'vehicles_dealer_group_id_price_id_idx'],
    ['/inventory', 'sort=price&offset=3800', 'vehicles_dealer_group_id_price_id_idx'],
    ['/inventory', 'sort=updated_at', 'vehicles_dealer_group_id_updated_at_id_idx'],
    ['/inventory', 'sort=-updated_at', 'vehicles_dealer_group_id_updated_at_id_idx'],
    ['/calls', 'sort=updated_at&updated_since=2000-01-01T00:00:00Z', 'calls_dealer_group_id_updated_at_id_idx'],
    ['/calls', 'sort=-started_at', 'calls_group_started_stats_idx'],
    ['/leads', 'sort=updated_at', 'leads_dealer_group_id_updated_at_id_idx'],
    ['/leads', 'sort=-received_at', 'leads_dealer_group_id_received_at_id_idx'],
    ['/sales', 'sort=updated_at', 'sales_dealer_group_id_updated_at_id_idx'],
    ['/sales', 'sort=-sold_at', 'sales_dealer_group_id_sold_at_id_idx'],
  ])('GET %s?%s reads a page past the cursor from %s', async (path, query, index) => {
    // Deep into the list, past the first batch of rows stamped alike.
    const first = await app.client.get(
      `${path}?${query.includes('offset') ? query : `${query}&offset=1500`}&limit=25`,
      token,
    );
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const queries = await recordQueries(app.database.pool, async () => {
      const next = await app.client.get(
        `${path}?${query.replace(/&offset=\d+/, '')}&limit=25&after=${first.body.pagination.next_cursor}`,
        token,
      );
      expect(next.status).toBe(200);
    });
    const page = queries.find((recorded) => /^\/\* \w+Page \*\//.test(recorded.text))!;
    const { rows } = await app.database.pool.query({
      text: `EXPLAIN (ANALYZE, FORMAT JSON) ${page.text}`,
      values: page.values,
    });
    if (process.env.SHOW_PLAN) {
      const text = await app.database.pool.query({ text: `EXPLAIN ANALYZE ${page.text}`, values: page.values });
      console.log(page.text, page.values, text.rows.map((row) => row['QUERY PLAN']).join('\n'));
    }
    const plan = nodes((rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan);
    const table = path === '/inventory' ? 'vehicles' : path.slice(1);
    const scans = plan.filter((node) => / Scan$/.test(node['Node Type']));
    // The list's own table: the page's range, then its rows by id.
    const own = scans.filter((node) => node['Relation Name'] === table);
    const summary = JSON.stringify(
      scans.map((node) => [node['Node Type'], node['Relation Name'], node['Index Name'], node['Actual Rows']]),
    );
    expect(
      own.every((node) => /^Index (Only )?Scan/.test(node['Node Type'])),
      summary,
    ).toBe(true);
    expect(
      own.some((node) => node['Index Name'] === index),
      summary,
    ).toBe(true);
    // The page's rows read with it by id, and their relations (a vehicle's rooftop, a call's source)
    // by key, one lookup per row: by index, or by a scan where the table is a few rows (PostgreSQL's choice).
    const byId = scans.filter((node) => node['Index Name']?.endsWith('_pkey'));
    expect(
      byId.every((node) => node['Actual Rows'] <= 1 && node['Actual Loops'] <= 26),
      summary,
    ).toBe(true);
    expect(
      scans
        .filter((node) => !own.includes(node) && !byId.includes(node))
        .every(
          (node) => node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0) <= 26 && node['Actual Loops'] <= 26,
        ),
      summary,
    ).toBe(true);
    // A range of a page's worth of rows (two when nulls come after), not the 4,000 of the group.
    const read = own
      .filter((node) => !byId.includes(node))
      .reduce((sum, node) => sum + node['Actual Rows'] * node['Actual Loops'], 0);
    expect(read, summary).toBeLessThanOrEqual(2 * 26 + 25);
  });
});
