import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { createKey } from './helpers/keys';
import { seedGroup, type SeededGroup } from './helpers/seed';

/**
 * Concurrent creates of the same unique thing: exactly one succeeds and every other answer is the
 * 409 that the same request gets one at a time, never a 500 (unique violations become 409 in one
 * place, src/db/errors.ts, whichever request loses the race inside PostgreSQL).
 */
describe('races: concurrent creates with a unique field', () => {
  let app: TestApp;
  let group: SeededGroup;
  let token: string;
  let stamp: string;

  beforeAll(async () => {
    app = await startTestApp();
    group = await seedGroup(app.database.prisma);
    token = await group.login(app.client);
    stamp = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  });
  afterAll(() => app?.stop());

  /** Fires the same request `times` times at once; returns the statuses and bodies. */
  async function race(method: string, path: string, body: unknown, times = 6) {
    const answers = await Promise.all(
      Array.from({ length: times }, () => app.client.request(method, `/api/v1${path}`, { token, body })),
    );
    return answers;
  }

  function expectOneWinner(answers: Awaited<ReturnType<typeof race>>, label: string) {
    const detail = `${label}: ${JSON.stringify(answers.map((answer) => [answer.status, answer.body?.error?.message ?? '']))}`;
    expect(
      answers.filter((answer) => answer.status >= 200 && answer.status < 300),
      detail,
    ).toHaveLength(1);
    const losers = answers.filter((answer) => answer.status >= 300);
    expect(
      losers.every((answer) => answer.status === 409),
      detail,
    ).toBe(true);
    for (const loser of losers)
      expect(loser.body.error, detail).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  }

  const cases: Array<[string, () => [string, string, unknown]]> = [
    [
      'POST /dealers (code per group)',
      () => [
        'POST',
        '/dealers',
        { name: `Race ${stamp}`, code: `RC${stamp.slice(-4)}`.toUpperCase(), dealer_group_id: group.groupId },
      ],
    ],
    [
      'POST /dealers/:id/aliases (alias per dealer)',
      () => ['POST', `/dealers/${group.dealerIds[0]}/aliases`, { alias: `Race alias ${stamp}` }],
    ],
    [
      'POST /sources (name per group)',
      () => ['POST', '/sources', { name: `Race source ${stamp}`, category: 'other', dealer_group_id: group.groupId }],
    ],
    [
      'POST /partners (name per group)',
      () => ['POST', '/partners', { name: `Race partner ${stamp}`, kind: 'vendor', dealer_group_id: group.groupId }],
    ],
    [
      'POST /admin/users (email)',
      () => [
        'POST',
        '/admin/users',
        {
          email: `race-${stamp}@example.com`,
          name: 'Race',
          role: 'analyst',
          dealer_group_ids: [group.groupId],
          password: 'a long enough passphrase 1',
        },
      ],
    ],
  ];

  it.each(cases)('%s', async (label, make) => {
    const [method, path, body] = make();
    expectOneWinner(await race(method, path, body), label);
    const again = await app.client.request(method, `/api/v1${path}`, { token, body });
    expect(again.status, JSON.stringify(again.body)).toBe(409);
  });

  it('POST /sources/mappings: the same value to one source is idempotent; to two sources, one wins and the other gets 409', async () => {
    const sources = await Promise.all(
      ['A', 'B'].map((letter) =>
        app.client.post(
          '/sources',
          { name: `Mapped ${letter} ${stamp}`, category: 'other', dealer_group_id: group.groupId },
          token,
        ),
      ),
    );
    for (const source of sources) expect(source.status, JSON.stringify(source.body)).toBe(201);
    const same = await race('POST', '/sources/mappings', {
      source_id: sources[0]!.body.id,
      raw_value: `race raw ${stamp}`,
    });
    expect(
      same.map((answer) => answer.status),
      JSON.stringify(same.map((answer) => answer.body)),
    ).toEqual(Array(6).fill(201));
    expect(same.filter((answer) => answer.body.created === 1)).toHaveLength(1);
    // Two spellings of one value (they normalise alike) raced to two different sources.
    const split = await Promise.all(
      sources.flatMap((source, index) =>
        Array.from({ length: 3 }, () =>
          app.client.post(
            '/sources/mappings',
            { source_id: source.body.id, raw_value: index ? `Split-Raw ${stamp}` : `split raw ${stamp}` },
            token,
          ),
        ),
      ),
    );
    const winners = new Set(split.flatMap((answer, index) => (answer.status === 201 ? [index < 3 ? 'A' : 'B'] : [])));
    expect(winners.size, JSON.stringify(split.map((answer) => [answer.status, answer.body]))).toBe(1);
    expect(split.filter((answer) => answer.status !== 201).every((answer) => answer.status === 409)).toBe(true);
  });

  it('POST /partners/:id/dealers links (or changes the link) idempotently: every answer 2xx, one link', async () => {
    const partner = await app.client.post(
      '/partners',
      { name: `Linked ${stamp}`, kind: 'agency', dealer_group_id: group.groupId },
      token,
    );
    expect(partner.status, JSON.stringify(partner.body)).toBe(201);
    const answers = await race('POST', `/partners/${partner.body.id}/dealers`, {
      dealer_id: group.dealerIds[1],
      relationship_type: 'advertising',
      data_permissions: ['inventory'],
    });
    expect(
      answers.map((answer) => answer.status),
      JSON.stringify(answers.map((answer) => answer.body)),
    ).toEqual(Array(6).fill(201));
    const links = await app.database.prisma.partnerDealer.count({ where: { partnerId: partner.body.id } });
    expect(links).toBe(1);
  });

  it('POST /api-keys/:id/rotate (one successor per key)', async () => {
    const key = await createKey(app.client, token, { name: `rotate ${stamp}` });
    expectOneWinner(await race('POST', `/api-keys/${key.id}/rotate`, {}), 'POST /api-keys/:id/rotate');
  });
});
