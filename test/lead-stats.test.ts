import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedActivity, seedGroup, type SeededGroup } from './helpers/seed';

/** One definition of a sale for a lead (README, "Lead stats"): the three breakdowns agree with each other and with SQL. */

type Lead = NonNullable<Parameters<typeof seedActivity>[2]['leads']>[number];

describe('lead stats count a sale the same way everywhere', () => {
  let app: TestApp;
  let group: SeededGroup;
  let viewer: string;
  let analyst: string;

  // [lead, source, linked to a deal]
  const LEADS: Array<[Lead, string | null, boolean]> = [
    // Marked sold, no deal found for them.
    [{ type: 'used', status: 'sold' }, 'Cars.com', false],
    [{ type: 'new', status: 'sold' }, 'Cars.com', false],
    [{ type: 'used', status: 'sold', dealer: 1 }, 'Google Ads', false],
    // Linked to a deal while the CRM still shows another status.
    [{ type: 'used', status: 'contacted' }, 'Cars.com', true],
    [{ type: 'finance', status: 'contacted', dealer: 1 }, 'Cars.com', true],
    [{ type: 'new', status: 'showed' }, 'Google Ads', true],
    [{ type: 'service', status: 'lost' }, 'Google Ads', true],
    // Both.
    [{ type: 'used', status: 'sold' }, 'Google Ads', true],
    // Neither.
    [{ type: 'used', status: 'new' }, 'Cars.com', false],
    [{ type: 'new', status: 'contacted' }, 'Cars.com', false],
    [{ type: 'trade_in', status: 'appointment', dealer: 1 }, 'Google Ads', false],
    [{ type: 'service', status: 'lost' }, 'Google Ads', false],
    [{ type: 'used', status: 'showed' }, null, false],
  ];

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma, { users: { viewer: 'viewer', analyst: 'analyst' } });
    viewer = await group.login(app.client, 'viewer');
    analyst = await group.login(app.client, 'analyst');
    const seeded = await seedActivity(app.database.prisma, group, {
      sources: [{ name: 'Cars.com' }, { name: 'Google Ads' }],
      leads: LEADS.map(([lead], index) => ({ ...lead, rawSource: LEADS[index]![1] })),
      sales: LEADS.filter(([, , linked]) => linked).map(() => ({})),
    });
    // Setup, not the API under test: sources resolved and deals linked directly.
    let deal = 0;
    for (const [index, [, source, linked]] of LEADS.entries()) {
      await app.database.pool.query(
        `UPDATE leads SET source_id = (SELECT id FROM sources WHERE dealer_group_id = $1 AND name = $2), sale_id = $3 WHERE id = $4`,
        [group.groupId, source, linked ? seeded.sales[deal++] : null, seeded.leads[index]],
      );
    }
  });
  afterAll(() => app?.stop());

  const sql = async (where = 'true') => {
    const { rows } = await app.database.pool.query<{ leads: number; sold: number }>(
      `SELECT count(*)::int AS leads, count(*) FILTER (WHERE l.sale_id IS NOT NULL OR l.status = 'sold')::int AS sold
       FROM leads l LEFT JOIN sources s ON s.id = l.source_id WHERE l.dealer_group_id = $1 AND ${where}`,
      [group.groupId],
    );
    return rows[0]!;
  };
  const sum = (rows: Array<Record<string, number>>, key: string) => rows.reduce((total, row) => total + row[key]!, 0);

  it('by source, by status and by type add up to the same sold and lead totals as SQL', async () => {
    const expected = await sql();
    expect(expected).toEqual({ leads: 13, sold: 8 });
    const bySource = (await app.client.get('/leads/stats/by-source', viewer)).body.sources;
    const byType = (await app.client.get('/leads/stats/by-type', viewer)).body.types;
    const byStatus = (await app.client.get('/leads/stats/by-status', viewer)).body;
    expect({ leads: sum(bySource, 'leads'), sold: sum(bySource, 'sold') }).toEqual(expected);
    expect({ leads: sum(byType, 'leads'), sold: sum(byType, 'sold') }).toEqual(expected);
    expect({ leads: byStatus.total, sold: byStatus.sold }).toEqual(expected);
    expect({ leads: sum(byStatus.stages, 'leads'), sold: sum(byStatus.stages, 'sold') }).toEqual(expected);
    expect(byStatus.conversion_rate).toBe(Math.round((8 / 13) * 1000) / 1000);

    // Per status: the leads in it, how many of them count as sold, and the funnel that places those at sold.
    const stage = (status: string) =>
      byStatus.stages.find((row: { status: string }) => row.status === status) as Record<string, number>;
    expect(stage('contacted')).toMatchObject({ leads: 3, sold: 2 });
    expect(stage('sold')).toMatchObject({ leads: 4, sold: 4, reached: 8 });
    expect(stage('lost')).toMatchObject({ leads: 2, sold: 1, reached: 1 });
    expect(byStatus.lost).toBe(1);
    expect(stage('new')).toMatchObject({ reached: 13 });

    const cars = bySource.find((row: { source_name: string | null }) => row.source_name === 'Cars.com');
    expect({ leads: cars.leads, sold: cars.sold }).toEqual(await sql(`s.name = 'Cars.com'`));
    expect(cars).toMatchObject({ sales: 2, conversion_rate: Math.round((4 / 6) * 1000) / 1000 });
    const used = byType.find((row: { type: string }) => row.type === 'used');
    expect({ leads: used.leads, sold: used.sold }).toEqual(await sql(`l.type = 'used'`));
  });

  it('agrees under the same filters, over REST and GraphQL', async () => {
    const filtered = (await app.client.get('/leads/stats/by-status?source=Cars.com', viewer)).body;
    expect({ leads: filtered.total, sold: filtered.sold }).toEqual(await sql(`s.name = 'Cars.com'`));
    const atSecond = `dealer_id=${group.dealerIds[1]}`;
    const [status, type, source] = await Promise.all(
      ['by-status', 'by-type', 'by-source'].map(
        async (path) => (await app.client.get(`/leads/stats/${path}?${atSecond}`, viewer)).body,
      ),
    );
    const expected = await sql(`l.dealer_id = '${group.dealerIds[1]}'`);
    expect(expected).toEqual({ leads: 3, sold: 2 });
    expect(status.sold).toBe(expected.sold);
    expect(sum(type.types, 'sold')).toBe(expected.sold);
    expect(sum(source.sources, 'sold')).toBe(expected.sold);
    const graphql = await app.client.graphql(
      '{ leadsByStatus { sold stages { status sold } } leadsByType { types { sold } } leadsBySource { sources { sold } } }',
      {},
      viewer,
    );
    const data = graphql.body.data;
    expect(data.leadsByStatus.sold).toBe(8);
    expect(sum(data.leadsByStatus.stages, 'sold')).toBe(8);
    expect(sum(data.leadsByType.types, 'sold')).toBe(8);
    expect(sum(data.leadsBySource.sources, 'sold')).toBe(8);
  });

  it('the assistant counts a sale for a lead the same way', async () => {
    const conversation = (await app.client.post('/assistant/conversations', {}, analyst)).body.id as string;
    const ask = async (content: string) => {
      const response = await app.client.post(`/assistant/conversations/${conversation}/messages`, { content }, analyst);
      expect(response.status).toBe(201);
      return response.body.answer as {
        content: string;
        citations: { figures: Array<{ label: string; value: string }> };
      };
    };
    const figure = (answer: Awaited<ReturnType<typeof ask>>, label: string) =>
      answer.citations.figures.find((entry) => entry.label === label)?.value;
    const byStatus = (await app.client.get('/leads/stats/by-status', viewer)).body;
    const sold = await ask('how many sold leads do we have');
    expect(sold.citations.figures[0]!.value).toBe(String(byStatus.sold));
    const rate = await ask('what is our close rate');
    expect(figure(rate, 'rate (%)')).toBe(String(Math.round(byStatus.conversion_rate * 1000) / 10));
    expect(rate.content).toMatch(/8 of 13 sold/);
    const bySource = (await app.client.get('/leads/stats/by-source', viewer)).body.sources as Array<{
      source_name: string | null;
      conversion_rate: number;
    }>;
    const perSource = await ask('close rate by source');
    for (const row of bySource)
      expect(figure(perSource, row.source_name ?? 'unattributed')).toBe(
        String(Math.round(row.conversion_rate * 1000) / 10),
      );
  });

  it('names a bad filter with a 400', async () => {
    const response = await app.client.get('/leads/stats/by-status?status=won', viewer);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/status/);
  });
});
