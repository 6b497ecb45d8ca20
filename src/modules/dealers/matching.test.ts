import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  nameTokens,
  normalizePhone,
  rankDealers,
  websiteDomain,
  type MatchInput,
  type MatchableDealer,
} from './matching';
import { nameSimilarity } from '../../similarity';

interface Fixture {
  dealers: Array<Omit<MatchableDealer, 'id'> & { code: string }>;
  inputs: Array<{ input: MatchInput; expected: string }>;
}

const fixture = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../../../test/fixtures/dealer-matching.json'), 'utf8'),
) as Fixture;
const dealers = fixture.dealers.map((dealer) => ({ ...dealer, id: dealer.code }));

describe('dealer matching', () => {
  it('normalises legal suffixes, abbreviations, punctuation and word order', () => {
    expect(nameTokens('Lakewood Ford Mtrs, L.L.C.')).toEqual(['lakewood', 'ford', 'motors']);
    expect(nameTokens('Castle Rock CDJR')).toEqual(['castle', 'rock', 'chrysler', 'dodge', 'jeep', 'ram']);
    expect(nameSimilarity(nameTokens('Toyota North Summit'), nameTokens('SUMMIT TOYOTA NORTH, LLC'))).toBe(1);
    expect(nameSimilarity(nameTokens('Mile Hi Chevy'), nameTokens('Mile High Chevrolet'))).toBe(1);
    expect(normalizePhone('+1 (303) 555-0101')).toBe('3035550101');
    expect(websiteDomain('HTTP://www.Example.com/path')).toBe('example.com');
  });

  it(`ranks the right dealer first for at least 90% of ${fixture.inputs.length} messy inputs`, () => {
    expect(fixture.inputs.length).toBeGreaterThanOrEqual(60);
    const misses = fixture.inputs.filter(
      ({ input, expected }) => rankDealers(input, dealers)[0]?.dealer.code !== expected,
    );
    const precision = 1 - misses.length / fixture.inputs.length;
    if (misses.length)
      console.log(
        'misses:',
        misses
          .map(
            ({ input, expected }) =>
              `${JSON.stringify(input)} → ${rankDealers(input, dealers)[0]?.dealer.code ?? 'none'} (expected ${expected})`,
          )
          .join('\n'),
      );
    expect(precision).toBeGreaterThanOrEqual(0.9);
  });

  it('explains its scores', () => {
    const [best] = rankDealers({ name: 'Summit Ford West', phone: '303-555-0103' }, dealers);
    expect(best?.dealer.code).toBe('SFW');
    expect(best?.reasons).toEqual(expect.arrayContaining(['phone matches', expect.stringMatching(/^name ~0\.\d\d/)]));
  });

  it('finds nothing for a stranger', () => {
    expect(rankDealers({ name: 'Seattle Porsche' }, dealers)[0]?.score ?? 0).toBeLessThan(0.45);
  });
});
