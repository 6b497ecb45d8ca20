import { describe, expect, it } from 'vitest';
import { MERGED_FIELDS, sameValue } from '../inventory/vehicle-fields';
import type { VehicleData } from './merge';
import { BatchTurns, changesNothing, nextSourceData, type Strategy } from './vehicle-writer';

/** The definition changesNothing stands for: the next record equals the previous one, both normalized. */
const reference = (previous: VehicleData, incoming: VehicleData, strategy: Strategy) =>
  sameValue(nextSourceData(null, previous, 'overwrite'), nextSourceData(previous, incoming, strategy));

// A few values per field, blanks of every kind among them, so that random pairs often agree.
const CHOICES: unknown[] = [undefined, null, '', [], 'Honda', 'honda', 2021, '2021', ['a.jpg'], ['a.jpg', 'b.jpg']];

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function sequence(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe('unchanged feed rows', () => {
  it('decides as comparing the next record with the previous one, for every strategy', () => {
    const random = sequence(7);
    const pick = () => CHOICES[Math.floor(random() * CHOICES.length)];
    for (let round = 0; round < 5000; round += 1) {
      const previous: VehicleData = {};
      const incoming: VehicleData = {};
      for (const field of MERGED_FIELDS) {
        previous[field] = pick();
        // Mostly the same value, as in a reload of an unchanged feed.
        incoming[field] = random() < 0.9 ? previous[field] : pick();
      }
      for (const strategy of ['overwrite', 'merge', 'update_only'] as const)
        expect(changesNothing(previous, incoming, strategy), JSON.stringify({ previous, incoming, strategy })).toBe(
          reference(previous, incoming, strategy),
        );
    }
  });

  it('sees a row that blanks a field as a change only when it overwrites the record', () => {
    const previous = { make: 'Honda', price: '20500.00' };
    expect(changesNothing(previous, { make: 'Honda' }, 'overwrite')).toBe(false);
    expect(changesNothing(previous, { make: 'Honda' }, 'merge')).toBe(true);
    expect(changesNothing(previous, { make: 'Honda', price: '20400.00' }, 'merge')).toBe(false);
  });
});

describe('batch turns of a run written two at a time', () => {
  const settled = async (promise: Promise<void>) => {
    let done = false;
    void promise.then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    return done;
  };

  it('lets a batch go at once unless the batch before it lists one of its VINs, then only once that one passes', async () => {
    const turns = new BatchTurns();
    const first = turns.next(['A', 'B']);
    expect(await settled(first.ready)).toBe(true);
    const apart = turns.next(['C']);
    expect(await settled(apart.ready)).toBe(true);
    // 'C' is in the batch just before: wait for it.
    const after = turns.next(['C', 'D']);
    expect(await settled(after.ready)).toBe(false);
    apart.pass();
    expect(await settled(after.ready)).toBe(true);
    // Only the batch just before counts: the one before that has committed by the time this one starts.
    const later = turns.next(['A']);
    expect(await settled(later.ready)).toBe(true);
  });
});
