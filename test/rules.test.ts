import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup } from './helpers/seed';

describe('transformation rules (Transformation rules section of docs/operations.md)', () => {
  let app: TestApp;
  let admin: string;
  let viewer: string; // an analyst: reads rules, cannot change them

  beforeAll(async () => {
    app = await startTestApp();
    const group = await seedGroup(app.database.prisma, { users: { admin: 'admin', analyst: 'analyst' } });
    admin = await group.login(app.client, 'admin');
    viewer = await group.login(app.client, 'analyst');
  });
  afterAll(() => app?.stop());

  it('keeps rules in order, changes and deletes them', async () => {
    const chevy = await app.client.post(
      '/transformation-rules',
      {
        name: 'Chevy is Chevrolet',
        conditions: [{ field: 'make', operator: 'equals', value: 'chevy' }],
        action: { type: 'set_field', field: 'make', value: 'Chevrolet' },
      },
      admin,
    );
    expect(chevy.status).toBe(201);
    expect(chevy.body).toMatchObject({
      name: 'Chevy is Chevrolet',
      position: 10,
      enabled: true,
      action: { type: 'set_field', field: 'make', value: 'Chevrolet' },
    });
    const colors = await app.client.post(
      '/transformation-rules',
      {
        name: 'colours',
        action: {
          type: 'map_values',
          field: 'exterior_color',
          mapping: { Blk: 'Black', Ebony: 'Black', 'Jet Black': 'Black' },
        },
      },
      admin,
    );
    const wholesale = await app.client.post(
      '/transformation-rules',
      {
        name: 'no wholesale',
        position: 1,
        conditions: [{ field: 'status', operator: 'in', value: ['wholesale', 'auction'] }],
        action: { type: 'skip_row', reason: 'not retail' },
      },
      admin,
    );
    const list = await app.client.get('/transformation-rules', viewer);
    expect(list.body.rules.map((rule: { name: string }) => rule.name)).toEqual([
      'no wholesale',
      'Chevy is Chevrolet',
      'colours',
    ]);
    const disabled = await app.client.request('PATCH', `/api/v1/transformation-rules/${colors.body.id}`, {
      token: admin,
      body: { enabled: false },
    });
    expect(disabled.body.enabled).toBe(false);
    expect((await app.client.get('/transformation-rules?enabled=true', viewer)).body.pagination.total).toBe(2);
    expect(
      (await app.client.request('DELETE', `/api/v1/transformation-rules/${wholesale.body.id}`, { token: admin })).body,
    ).toEqual({ id: wholesale.body.id, deleted: true });
    expect(
      (await app.client.request('DELETE', `/api/v1/transformation-rules/${wholesale.body.id}`, { token: admin }))
        .status,
    ).toBe(404);
    expect(
      (await app.client.post('/transformation-rules', { name: 'x', action: { type: 'trim', field: 'make' } }, viewer))
        .status,
    ).toBe(403);
  });

  it.each([
    [{ name: 'x', action: { type: 'explode', field: 'make' } }, 'action.type'],
    [
      {
        name: 'x',
        conditions: [{ field: 'make', operator: 'matches', value: '(a)\\1' }],
        action: { type: 'trim', field: 'make' },
      },
      'conditions[0].value',
    ],
    [{ name: 'x', action: { type: 'regex_replace', field: 'vin', pattern: '[', replacement: '' } }, 'action.pattern'],
    [{ name: '', action: { type: 'trim', field: 'make' } }, 'name'],
    [{ name: 'x', position: -1, action: { type: 'trim', field: 'make' } }, 'position'],
  ])('refuses %j naming %s', async (body, field) => {
    const response = await app.client.post('/transformation-rules', body, admin);
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain(field);
  });

  it('dry-runs saved or draft rules on sample records, showing before, after and what fired', async () => {
    const saved = await app.client.post(
      '/transformation-rules/test',
      { records: [{ make: 'CHEVY', exterior_color: 'Blk' }, { make: 'Ford' }] },
      viewer,
    );
    expect(saved.status).toBe(200);
    expect(saved.body.records[0]).toMatchObject({
      before: { make: 'CHEVY' },
      after: { make: 'Chevrolet', exterior_color: 'Blk' },
      skipped: false,
      fired: [{ name: 'Chevy is Chevrolet' }],
    });
    expect(saved.body.records[1]).toMatchObject({ after: { make: 'Ford' }, fired: [] });
    const draft = await app.client.post(
      '/transformation-rules/test',
      {
        records: [
          { status: 'auction', price: '$0' },
          { status: 'available', price: '$18,995', stock_number: ' u-12 ' },
        ],
        rules: [
          {
            name: 'skip auction',
            conditions: [{ field: 'status', operator: 'equals', value: 'auction' }],
            action: { type: 'skip_row' },
          },
          { name: 'tidy stock', action: { type: 'trim', field: 'stock_number' } },
          {
            name: 'cheap?',
            conditions: [{ field: 'price', operator: 'less_than', value: 20000 }],
            action: { type: 'flag', message: 'priced under $20k' },
          },
        ],
      },
      viewer,
    );
    expect(draft.body.records[0]).toMatchObject({ skipped: true, skip_reason: 'skip auction' });
    expect(draft.body.records[1]).toMatchObject({
      after: { stock_number: 'u-12' },
      flags: ['priced under $20k'],
      fired: [{ name: 'tidy stock' }, { name: 'cheap?' }],
    });
    expect((await app.client.post('/transformation-rules/test', { records: [] }, viewer)).status).toBe(400);
    expect(
      (
        await app.client.post(
          '/transformation-rules/test',
          { records: [{}], rules: [{ action: { type: 'nope' } }] },
          viewer,
        )
      ).body.error.message,
    ).toContain('rules[0].action.type');
  });
});
