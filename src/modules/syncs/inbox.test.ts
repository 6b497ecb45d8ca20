import { describe, expect, it } from 'vitest';
import { globPattern } from './inbox';

describe('file inbox', () => {
  it('matches file globs without backtracking', () => {
    expect(globPattern('inventory_*.csv, *.TXT').test('Inventory_2026.csv')).toBe(true);
    expect(globPattern('inventory_*.csv').test('inventory.csv.bak')).toBe(false);
    const started = performance.now();
    expect(globPattern('*a*a*a*a*a*a*a*a*a*a*a*b').test('a'.repeat(255))).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });
});
