import { describe, expect, it } from 'vitest';
import { mergeRecords } from './merge';

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
