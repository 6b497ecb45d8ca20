import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Prisma } from '../src/generated/prisma/client';
import { directReadsOf, modelsOf } from '../src/db/direct-reads';
import { seedDealerGroup } from '../src/seed/demo';
import { seedActivity } from '../src/seed/activity';
import { startTestApp, type ApiResponse, type TestApp } from './helpers/app';
import { seedGroup } from './helpers/seed';
import { recordStatements } from './helpers/statements';

/**
 * The list pages read their ids and plain rows straight through the pool (src/db/direct-reads.ts);
 * what they answer must be what the Prisma client answers, field by field, for every model and every
 * to-one relation a page may include, on rows with NULLs, empty and NULL lists, money, dates and JSON.
 */
let app: TestApp;
let groupId: string;

beforeAll(async () => {
  app = await startTestApp();
  groupId = await seedDealerGroup(app.database.pool, {
    name: 'Direct reads',
    slug: `direct-${randomUUID()}`,
    vehicles: 60,
    seed: 11,
  });
  await seedActivity(app.database.pool, { dealerGroupId: groupId, calls: 40, leads: 40, sales: 20, seed: 3 });
  // Columns the seed fills: left NULL on a few rows, so both readers meet NULL lists, money and dates.
  await app.database.pool.query(
    `UPDATE vehicles SET photos = NULL, msrp = NULL, sold_at = NULL, trim = NULL
     WHERE id IN (SELECT id FROM vehicles WHERE dealer_group_id = $1 ORDER BY id LIMIT 3)`,
    [groupId],
  );
  await app.database.pool.query(
    `UPDATE dealers SET franchises = NULL WHERE id = (SELECT id FROM dealers WHERE dealer_group_id = $1 ORDER BY id LIMIT 1)`,
    [groupId],
  );
}, 120_000);

afterAll(async () => {
  await app?.stop();
});

type Delegate = { findMany(args: object): Promise<Array<{ id: string }>> };

describe('direct reads', () => {
  it('answer every model and each to-one relation it holds the key of as the client does', async () => {
    const prisma = app.database.prisma;
    const direct = directReadsOf(prisma)!;
    expect(direct).toBeDefined();
    const compared = new Map<string, number>();
    const byId = (list: Array<{ id: string }>) => [...list].sort((a, b) => (a.id < b.id ? -1 : 1));
    /**
     * Both readers' rows, compared. Other suites share the database and may change a row between the
     * two reads (a call enriched, a rooftop's conflicts checked): then both read again, up to three times.
     */
    const expectSame = async (label: string, direct: () => Promise<unknown>, client: () => Promise<unknown>) => {
      for (let attempt = 1; ; attempt += 1) {
        const [read, expected] = [await direct(), await client()];
        if (attempt < 3 && !isDeepStrictEqual(read, expected)) continue;
        expect(read, label).toEqual(expected);
        return;
      }
    };
    for (const [name, model] of modelsOf(prisma)) {
      const delegate = (prisma as unknown as Record<string, Delegate>)[name.charAt(0).toLowerCase() + name.slice(1)]!;
      if (!model.idColumn || model.unsupported) continue;
      // This test's group's rows where a model has one (the seeded NULLs are compared below), else any 40.
      const own = model.columns.some((column) => column.field === 'dealerGroupId') ? { dealerGroupId: groupId } : {};
      const rows = await delegate.findMany({ where: own, take: 40, orderBy: { id: 'asc' } }).catch(() => []);
      const ids = rows.map((row) => row.id);
      if (!ids.length) continue;
      // Every column, or a select of some (every other one and the id), each with no relation or one to-one relation.
      const some = Object.fromEntries(
        model.columns.filter((column, index) => index % 2 === 0 || column.field === 'id').map((c) => [c.field, true]),
      );
      for (const relation of ['', ...[...model.relations].flatMap(([field, target]) => (target ? [field] : []))])
        for (const query of [
          relation ? { include: { [relation]: true } } : {},
          { select: { ...some, ...(relation ? { [relation]: true } : {}) } },
        ]) {
          await expectSame(
            `${name}${relation ? `.${relation}` : ''} ${Object.keys(query)[0] ?? 'all'}`,
            async () => byId((await direct.rowsByIds<{ id: string }>(name, query, ids))!),
            async () => byId(await delegate.findMany({ ...query, where: { id: { in: ids } } })),
          );
        }
      compared.set(name, ids.length);
    }
    // The models the pages list were among those compared.
    for (const name of ['Vehicle', 'Dealer', 'Call', 'Lead', 'Sale'])
      expect(compared.get(name), name).toBeGreaterThan(0);
  });

  it('read NULL money, dates and lists as the client does (a NULL list is empty)', async () => {
    const { rows } = await app.database.pool.query<{ id: string }>(
      'SELECT id FROM vehicles WHERE dealer_group_id = $1 AND photos IS NULL',
      [groupId],
    );
    expect(rows).toHaveLength(3);
    const ids = rows.map((row) => row.id).sort();
    const query = { include: { dealer: true }, where: { id: { in: ids } }, orderBy: { id: 'asc' as const } };
    const plain = await directReadsOf(app.database.prisma)!.rowsByIds<{
      id: string;
      photos: string[];
      msrp: null;
      dealer: { franchises: string[] };
    }>('Vehicle', { include: { dealer: true } }, ids);
    plain!.sort((a, b) => (a.id < b.id ? -1 : 1));
    expect(plain).toEqual(await app.database.prisma.vehicle.findMany(query));
    expect(plain!.map((row) => [row.photos, row.msrp])).toEqual(ids.map(() => [[], null]));
    const dealerIds = (
      await app.database.pool.query<{ id: string }>(
        'SELECT id FROM dealers WHERE dealer_group_id = $1 AND franchises IS NULL',
        [groupId],
      )
    ).rows.map((row) => row.id);
    expect(dealerIds.length).toBeGreaterThan(0);
    const dealers = await directReadsOf(app.database.prisma)!.rowsByIds<{ id: string; franchises: string[] }>(
      'Dealer',
      {},
      dealerIds,
    );
    expect(dealers).toEqual(await app.database.prisma.dealer.findMany({ where: { id: { in: dealerIds } } }));
    expect(dealers!.every((row) => row.franchises.length === 0)).toBe(true);
  });

  it('answer a raw statement with the types $queryRaw gives', async () => {
    const sql = Prisma.sql`SELECT count(*) OVER () AS total, v.price, v.msrp, v.date_in_stock, v.updated_at, v.sold_at,
      v.id, v.photos, v.field_sources, v.condition, v.year, ${new Prisma.Decimal('12.50')}::numeric AS sent_money,
      ${42n}::bigint AS sent_bigint, ${new Date('2026-01-02T03:04:05.678Z')}::timestamptz AS sent_date
      FROM vehicles v WHERE v.dealer_group_id = ${groupId}::uuid ORDER BY v.id LIMIT 10`;
    const direct = await directReadsOf(app.database.prisma)!.query(sql);
    expect(direct).toEqual(await app.database.prisma.$queryRaw(sql));
    expect(direct[0]).toMatchObject({ total: 60n, sent_bigint: 42n });
  });

  it('leave any selection that is not plain to the client', () => {
    const direct = directReadsOf(app.database.prisma)!;
    const ids = [randomUUID()];
    expect(direct.rowsByIds('Vehicle', { include: { sourceRecords: true } }, ids)).toBeNull();
    expect(direct.rowsByIds('Vehicle', { include: { dealer: { include: { dealerGroup: true } } } }, ids)).toBeNull();
    expect(direct.rowsByIds('Vehicle', { select: { id: true, dealer: { select: { name: true } } } }, ids)).toBeNull();
    expect(direct.rowsByIds('Vehicle', { select: { id: true, sourceRecords: true } }, ids)).toBeNull();
    expect(direct.rowsByIds('Vehicle', { select: {} }, ids)).toBeNull();
    expect(direct.rowsByIds('Vehicle', { include: { _count: true } }, ids)).toBeNull();
  });

  it("read a list's rows with its page in one statement once its operation has run, as they read by id", async () => {
    const reader = await seedGroup(app.database.prisma, { dealers: 1 });
    await app.database.prisma.userDealerGroup.create({
      data: { userId: reader.users.admin!.id, dealerGroupId: groupId },
    });
    const token = await reader.login(app.client);
    const compare = async (
      label: string,
      ask: () => Promise<ApiResponse>,
      items: (response: ApiResponse) => unknown[],
    ) => {
      let byId: ApiResponse | undefined;
      let withPage: ApiResponse | undefined;
      const first = await recordStatements(app.database.pool, async () => void (byId = await ask()));
      const second = await recordStatements(app.database.pool, async () => void (withPage = await ask()));
      // A page's rooftops are read once per run beside it, whichever way its rows were read.
      const rooftops = (texts: string[]) => texts.filter((text) => text.includes('rowsByIds Dealer'));
      expect(
        first.filter((text) => text.includes('rowsByIds') && !rooftops([text]).length),
        label,
      ).toHaveLength(1);
      expect(rooftops(first).length, label).toBe(rooftops(second).length);
      expect(rooftops(second).length, label).toBeLessThanOrEqual(1);
      expect(second.length - rooftops(second).length, label).toBe(1);
      expect(withPage!.status, label).toBe(200);
      expect(items(withPage!), label).toHaveLength(7);
      expect(withPage!.body, label).toEqual(byId!.body);
    };
    // Computed each time, not the answer kept from the first asking.
    const headers = { 'cache-control': 'no-cache' };
    await compare(
      'REST inventory',
      () => app.client.request('GET', '/api/v1/inventory?limit=7&sort=-price', { token, headers }),
      (response) => response.body.vehicles,
    );
    for (const list of ['calls', 'leads', 'sales'])
      await compare(
        `REST ${list}`,
        () => app.client.request('GET', `/api/v1/${list}?limit=7`, { token, headers }),
        (response) => response.body[list],
      );
    await compare(
      'GraphQL inventory',
      () =>
        app.client.request('POST', '/graphql', {
          token,
          headers,
          body: {
            query:
              '{ inventory(limit: 7, sort: "vin") { pagination { total } vehicles { vin price dealer { name } } } }',
          },
        }),
      (response) => response.body.data.inventory.vehicles,
    );
    // A selection that changed since the last run (a directive's variable): the rows read with the
    // page do not fit it, so they load by id, and the answer is what the selection asks.
    const query = `query ($withSources: Boolean!) {
      inventory(limit: 5, sort: "-vin") { vehicles { vin sources @include(if: $withSources) { source } } } }`;
    const ask = (withSources: boolean) =>
      app.client.request('POST', '/graphql', { token, headers, body: { query, variables: { withSources } } });
    const without = (await ask(false)).body.data.inventory.vehicles;
    const withSources = (await ask(true)).body.data.inventory.vehicles;
    expect(without.every((vehicle: object) => !('sources' in vehicle))).toBe(true);
    expect(withSources.every((vehicle: { sources: unknown[] }) => Array.isArray(vehicle.sources))).toBe(true);
    expect(withSources.map((vehicle: { vin: string }) => vehicle.vin)).toEqual(
      without.map((vehicle: { vin: string }) => vehicle.vin),
    );
    expect((await ask(false)).body.data.inventory.vehicles).toEqual(without);
    expect((await ask(true)).body.data.inventory.vehicles).toEqual(withSources);
  });

  it('are not given to a transaction, which reads inside itself', async () => {
    await app.database.prisma.$transaction(async (tx) => {
      expect(directReadsOf(tx)).toBeUndefined();
    });
  });
});
