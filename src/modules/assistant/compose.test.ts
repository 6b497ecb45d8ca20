import { describe, expect, it } from 'vitest';
import { compose } from './compose';
import type { AssistantQuery, QueryResult } from './query';

const result = (
  query: Omit<AssistantQuery, 'filters'>,
  groups: Array<[string, number, number | null]>,
): QueryResult => ({
  query: { ...query, filters: {} },
  count: groups.reduce((sum, [, count]) => sum + count, 0),
  value: null,
  groups: groups.map(([label, count, value]) => ({ key: label, label, count, value })),
  vehicles: [],
  activity: [],
});

describe('composing a breakdown', () => {
  it('names the end of the ranking the question asked for', () => {
    const rows: Array<[string, number, number | null]> = [
      ['North', 30, 12.5],
      ['Aurora', 12, 40],
      ['Westside', 20, 8],
    ];
    const text = (query: Omit<AssistantQuery, 'filters'>) => compose(result(query, rows), new Map()).text;
    expect(text({ subject: 'leads', measure: 'count', group_by: 'dealer' })).toMatch(/Most: North with 30 of 62\.$/);
    expect(text({ subject: 'leads', measure: 'count', group_by: 'dealer', order: 'asc' })).toMatch(
      /Fewest: Aurora with 12 of 62\.$/,
    );
    expect(text({ subject: 'sales', measure: 'average', field: 'front_gross', group_by: 'dealer' })).toMatch(
      /Highest: Aurora\.$/,
    );
    expect(
      text({ subject: 'sales', measure: 'average', field: 'front_gross', group_by: 'dealer', order: 'asc' }),
    ).toMatch(/Lowest: Westside\.$/);
    expect(text({ subject: 'calls', measure: 'rate', field: 'answered', group_by: 'dealer', order: 'asc' })).toMatch(
      /Lowest: Westside\.$/,
    );
  });
});

describe('composing a ranking', () => {
  it('counts the rows with no group beside a ranking by how many', () => {
    const ranked = (unranked: number) =>
      compose(
        {
          ...result({ subject: 'leads', measure: 'count', group_by: 'source', ranked: true }, [
            ['Cars.com', 30, null],
            ['Facebook', 12, null],
          ]),
          count: 42 + unranked,
          unranked,
        },
        new Map(),
      ).text;
    expect(ranked(50)).toMatch(/Most: Cars\.com with 30 of 92\.\n50 leads with no source are not ranked\.$/);
    expect(ranked(1)).toMatch(/1 lead with no source is not ranked\.$/);
    expect(ranked(0)).not.toMatch(/not ranked/);
  });

  it('names the top named group of a breakdown, listing the unnamed one', () => {
    const breakdown = result({ subject: 'leads', measure: 'count', group_by: 'source' }, [
      ['unattributed', 217, null],
      ['Cars.com', 34, null],
    ]);
    breakdown.groups[0]!.key = null;
    const text = compose(breakdown, new Map()).text;
    expect(text).toContain('- unattributed: 217');
    expect(text).toMatch(/Most: Cars\.com with 34 of 251\.$/);
  });
});

describe('composing days to sell', () => {
  it('names the figure as days from stock-in to sale, and the period the vehicles sold in', () => {
    const text = (filters: AssistantQuery['filters']) =>
      compose(
        {
          query: { subject: 'vehicles', measure: 'average', field: 'days_to_sell', filters },
          count: 27,
          value: 44.148,
          groups: [],
          vehicles: [],
          activity: [],
        },
        new Map(),
      ).text;
    expect(text({ status: ['sold'], condition: ['used'] })).toBe(
      'The average days to sell (from stock-in to sale) of sold used vehicles is 44.1 days, across 27 vehicles.',
    );
    expect(text({ status: ['sold'], condition: ['used'], from: '2026-10-01', to: '2026-10-31' })).toBe(
      'The average days to sell (from stock-in to sale) of used vehicles sold 1–31 October 2026 is 44.1 days, across 27 vehicles.',
    );
  });
});

describe('composing a share of a total', () => {
  it("says the part, its share and the whole's figure, the whole every rooftop's when asked so", () => {
    const composed = compose(
      {
        query: {
          subject: 'sales',
          measure: 'sum',
          field: 'sale_price',
          share: true,
          whole_of_group: true,
          filters: { dealer_id: ['shd'], from: '2026-11-01', to: '2026-11-24' },
        },
        count: 11,
        value: 379_280,
        whole: 37,
        whole_value: 1_254_605,
        groups: [],
        vehicles: [],
        activity: [],
      },
      new Map([['shd', 'Summit Honda Downtown']]),
    );
    expect(composed.text).toMatch(
      /\$379,280(?:\.00)?: 30\.2% of the \$1,254,605(?:\.00)? of your deals, 1–24 November 2026\./,
    );
    expect(composed.text).toContain('at Summit Honda Downtown');
    expect(composed.figures).toEqual([
      expect.objectContaining({ value: '379280' }),
      { label: 'share (%)', value: '30.2' },
      expect.objectContaining({ value: '1254605' }),
    ]);
  });

  it('leads a breakdown asked as "how many different" with how many rows it has', () => {
    const composed = compose(
      result({ subject: 'vehicles', measure: 'count', group_by: 'model', distinct: true }, [
        ['Camry', 12, null],
        ['Civic', 8, null],
      ]),
      new Map(),
    );
    expect(composed.text).toMatch(/^2 different models among 20 vehicles in stock:/);
    expect(composed.figures[0]).toMatchObject({ value: '2' });
  });
});

describe('composing a vehicle answer', () => {
  const vehicle = {
    vin: '1HGCM82633A004352',
    year: 2024,
    make: 'Toyota',
    model: 'Camry',
    trim: 'LE',
    price: '24500.00',
    days_on_lot: 2,
    mileage: 12,
    exterior_color: 'White',
    dealer_name: 'North',
    body_style: 'Sedan',
    condition: 'new',
  };
  const said = (query: AssistantQuery) =>
    compose({ query, count: 1, value: null, groups: [], vehicles: [vehicle], activity: [] }, new Map([['n', 'North']]))
      .text;

  it('restates when vehicles came in, what they are without, and the rows of the last list it is over', () => {
    expect(
      said({
        subject: 'vehicles',
        measure: 'count',
        filters: { missing: ['internet_price', 'photos'], stocked_from: '2026-11-16', stocked_to: '2026-11-21' },
      }),
    ).toMatch(
      /^You have 1 vehicle without an internet price or photos stocked in 16–21 November 2026 and still in stock\./,
    );
    expect(
      said({
        subject: 'vehicles',
        measure: 'list',
        field: 'price',
        order: 'asc',
        limit: 1,
        within: { field: 'days_on_lot', order: 'asc', limit: 5 },
        filters: { dealer_id: ['n'] },
      }),
    ).toMatch(/^All 1 vehicles at North among the 5 latest stocked in, lowest price first:/);
    // The one of several asked for ("cheapest of those"), said as the one.
    const one = compose(
      {
        query: { subject: 'vehicles', measure: 'list', field: 'price', order: 'asc', limit: 1, filters: {} },
        count: 10,
        value: null,
        groups: [],
        vehicles: [vehicle],
        activity: [],
      },
      new Map(),
    ).text;
    expect(one).toMatch(/^Of 10 vehicles in stock, the one with the lowest price:/);
  });
});
