import { describe, expect, it } from 'vitest';
import { vinCheckDigit, vinProblem, withCheckDigit } from './vin';
import { makeVin, random } from '../../seed/demo';

describe('VIN check digit', () => {
  it.each(['1HGCM82633A004352', '1M8GDM9AXKP042788', '11111111111111111'])('accepts the valid VIN %s', (vin) => {
    expect(vinProblem(vin)).toBeNull();
  });

  it('computes X for a remainder of 10', () => {
    expect(vinCheckDigit('1M8GDM9AXKP042788')).toBe('X');
  });

  it('names what is wrong', () => {
    expect(vinProblem('1HGCM82643A004352')).toMatch(/check digit .* should be 3/);
    expect(vinProblem('1HGCM8263')).toMatch(/17 characters/);
    expect(vinProblem('1HGCM82633A00435O')).toMatch(/I, O and Q/);
  });

  it('fixes the check digit of a generated VIN', () => {
    expect(vinProblem(withCheckDigit('1HGCM82603A004352'))).toBeNull();
  });

  it('generates only valid VINs for demo data', () => {
    const rng = random(7);
    for (let index = 0; index < 500; index += 1) expect(vinProblem(makeVin(rng, '4T1', 2020 + (index % 7)))).toBeNull();
  });
});
