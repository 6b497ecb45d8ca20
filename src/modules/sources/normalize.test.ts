import { describe, expect, it } from 'vitest';
import { normalizeRawSource } from './normalize';
import { patternProblem } from '../../validation';

describe('raw source normalisation', () => {
  it.each([
    ['Google Ads', 'google ads'],
    ['  GOOGLE-ADS ', 'google ads'],
    ['google_ads!!', 'google ads'],
    ['Cars.com', 'cars com'],
    ['CarGurus / Listing', 'cargurus listing'],
  ])('%s → %s', (raw, normalized) => {
    expect(normalizeRawSource(raw)).toBe(normalized);
  });

  it('accepts RE2 patterns (nested quantifiers run in linear time there) and refuses what needs backtracking or does not compile', () => {
    expect(patternProblem('^google.*(ads|adwords)')).toBeNull();
    expect(patternProblem('(a+)+$')).toBeNull();
    expect(patternProblem('([a-z]+){2,}')).toBeNull();
    expect(patternProblem('(ab')).toMatch(/not a supported regular expression.*missing closing \)/);
    expect(patternProblem('(a)\\1')).toMatch(/back-references/);
    expect(patternProblem('google(?=ads)')).toMatch(/not a supported/);
    expect(patternProblem('a'.repeat(201))).toMatch(/at most 200/);
    expect(patternProblem('  ')).toMatch(/empty/);
  });
});
