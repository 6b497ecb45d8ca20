import { describe, expect, it } from 'vitest';
import { RowProblem, vehicleRecord } from './records';

const row = { vin: '1HGCM82633A004352', year: '2021', make: 'Honda', model: 'Accord' };
const problemOf = (values: Record<string, unknown>) => {
  try {
    vehicleRecord(values);
  } catch (error) {
    if (error instanceof RowProblem) return error.field;
    throw error;
  }
  return null;
};

describe('a vehicle record from a mapped row', () => {
  it('keeps only the fields the row gives, and a condition the mileage implies', () => {
    expect(vehicleRecord({ ...row, mileage: '8', trim: '' }).data).toEqual({
      year: 2021,
      make: 'Honda',
      model: 'Accord',
      condition: 'new',
      mileage: 8,
    });
  });

  it('names the first wrong field in the order the fields are read', () => {
    expect(problemOf({ ...row, make: '', condition: 'rebuilt' })).toBe('make');
    expect(problemOf({ ...row, condition: 'rebuilt', price: 'CALL' })).toBe('condition');
  });
});
