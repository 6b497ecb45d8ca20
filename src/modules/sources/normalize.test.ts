import { describe, expect, it } from 'vitest';
import { normalizeRawSource, patternProblem } from './normalize';

describe('raw source normalisation', () => {
  it.each([['Google Ads', 'google ads'], ['  GOOGLE-ADS ', 'google ads'], ['google_ads!!', 'google ads'], ['Cars.com', 'cars com'], ['CarGurus / Listing', 'cargurus listing']])('%s → %s', (raw, normalized) => {
    expect(normalizeRawSource(raw)).toBe(normalized);
  });

  it('refuses patterns that could backtrack catastrophically or do not compile', () => {
    expect(patternProblem('^google.*(ads|adwords)')).toBeNull();
    expect(patternProblem('(a+)+$')).toMatch(/nests quantifiers/);
    expect(patternProblem('(x*)*')).toMatch(/nests quantifiers/);
    expect(patternProblem('([a-z]+){2,}')).toMatch(/nests quantifiers/);
    expect(patternProblem('(ab')).toMatch(/not a valid/);
    expect(patternProblem('(a)\\1')).toMatch(/back-references/);
  });
});
