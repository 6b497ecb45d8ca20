import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MERGED_FIELDS } from '../inventory/vehicle-fields';
import { mergeRecords, type SourcePriority, type SourceRecord } from './merge';

const at = (hour: number) => new Date(Date.UTC(2026, 0, 1, hour));

describe('field-level merge', () => {
  const records = [
    { source: 'website', seenAt: at(3), data: { price: '20500.00', photos: ['a.jpg'], mileage: 1200 } },
    { source: 'dms', seenAt: at(1), data: { price: '19995.00', photos: [], mileage: null } },
    { source: 'feed', seenAt: at(2), data: { price: '20100.00', photos: ['b.jpg', 'c.jpg'], mileage: 1180 } },
  ];

  it('takes each field from the most preferred source that has a value', () => {
    const merged = mergeRecords(records, {
      price: ['dms', 'website'],
      photos: ['feed', 'website'],
      '*': ['dms', 'feed', 'website'],
    });
    expect(merged.values).toMatchObject({ price: '19995.00', photos: ['b.jpg', 'c.jpg'], mileage: 1180 });
    expect(merged.fieldSources).toMatchObject({ price: 'dms', photos: 'feed', mileage: 'feed' });
  });

  it('falls back to the most recently seen source for sources without a priority', () => {
    const merged = mergeRecords(records, {});
    expect(merged.fieldSources.price).toBe('website');
  });

  it('treats blanks as missing', () => {
    const merged = mergeRecords(
      [
        { source: 'dms', seenAt: at(1), data: { trim: '' } },
        { source: 'feed', seenAt: at(0), data: { trim: 'EX' } },
      ],
      { '*': ['dms', 'feed'] },
    );
    expect(merged.values.trim).toBe('EX');
  });
});

/** The rule as first written: sources sorted by recency, then per field by rank, the first with a value wins. */
function mergedBySorting(records: SourceRecord[], priority: SourcePriority) {
  const values: Record<string, unknown> = {};
  const fieldSources: Record<string, string> = {};
  const byRecency = [...records].sort((a, b) => b.seenAt.getTime() - a.seenAt.getTime());
  for (const field of MERGED_FIELDS) {
    const preferred = priority[field] ?? priority['*'] ?? [];
    const rank = (source: string) => (preferred.includes(source) ? preferred.indexOf(source) : preferred.length);
    const winner = [...byRecency]
      .sort((a, b) => rank(a.source) - rank(b.source))
      .find((record) => !isBlankValue(record.data[field]));
    if (winner) {
      values[field] = winner.data[field];
      fieldSources[field] = winner.source;
    }
  }
  return { values, fieldSources };
}
const isBlankValue = (value: unknown) =>
  value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);

describe('field-level merge, any records and priorities', () => {
  const sources = ['dms', 'feed', 'website', 'crm'];
  const value = fc.oneof(fc.constant(null), fc.constant(''), fc.constant([]), fc.constantFrom('a', 'b', 7, ['x.jpg']));
  const record = fc.record({
    source: fc.constantFrom(...sources),
    // Few distinct times, so ties in recency are common.
    seenAt: fc.integer({ min: 0, max: 3 }).map(at),
    data: fc.dictionary(fc.constantFrom(...MERGED_FIELDS), value),
  });
  const order = fc.uniqueArray(fc.constantFrom(...sources), { maxLength: 4 });
  const priority = fc.dictionary(
    fc.constantFrom('*', ...MERGED_FIELDS.slice(0, 4)),
    order,
  ) as fc.Arbitrary<SourcePriority>;

  it('picks the same value and source for every field as sorting the records per field', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 5 }), priority, (records, chosen) => {
        expect(mergeRecords(records, chosen)).toEqual(mergedBySorting(records, chosen));
      }),
      { numRuns: 500 },
    );
  });
});
