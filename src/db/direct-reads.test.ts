import fc from 'fast-check';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { readTimestamptz } from './direct-reads';

const pgParser = pg.types.getTypeParser(1184) as (text: string) => Date | number | null;
const pad = (value: number, width: number) => String(value).padStart(width, '0');

/** An instant as PostgreSQL writes a timestamptz: microseconds, trailing zeros dropped, an offset in hours (and minutes). */
function asPostgresWrites(year: number, ms: number, micros: number, offsetMinutes: number): string {
  const local = new Date(ms + offsetMinutes * 60_000);
  local.setUTCFullYear(year);
  const fraction = pad(local.getUTCMilliseconds() * 1000 + micros, 6).replace(/0+$/, '');
  const sign = offsetMinutes < 0 ? '-' : '+';
  const offset = Math.abs(offsetMinutes);
  return (
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1, 2)}-${pad(local.getUTCDate(), 2)} ` +
    `${pad(local.getUTCHours(), 2)}:${pad(local.getUTCMinutes(), 2)}:${pad(local.getUTCSeconds(), 2)}` +
    `${fraction ? `.${fraction}` : ''}${sign}${pad(Math.floor(offset / 60), 2)}${offset % 60 ? `:${pad(offset % 60, 2)}` : ''}`
  );
}

describe('readTimestamptz', () => {
  it('reads every timestamptz PostgreSQL writes as pg does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9999 }),
        fc.integer({ min: 0, max: 365 * 24 * 3600 * 1000 - 1 }),
        fc.integer({ min: 0, max: 999 }),
        fc.oneof(fc.constant(0), fc.integer({ min: -12 * 60, max: 14 * 60 })),
        (year, within, micros, offset) => {
          const text = asPostgresWrites(year, Date.UTC(2001, 0, 1) + within, micros, offset);
          const read = readTimestamptz(text);
          const expected = pgParser(text) as Date;
          expect(read.getTime(), text).toBe(expected.getTime());
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('leaves the forms it does not read itself to pg', () => {
    for (const text of [
      'infinity',
      '-infinity',
      '0044-03-15 12:00:00+00 BC',
      '2026-11-25 05:02:02.5-07',
      '12026-01-01 00:00:00+00',
    ])
      expect(String(readTimestamptz(text)), text).toBe(String(pgParser(text)));
  });
});
