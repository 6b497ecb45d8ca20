import { MERGED_FIELDS, type MergedField } from '../inventory/vehicle-fields';

/** Field-level merge of what several sources say about one vehicle. */

/** What one source says about a vehicle, field by field. */
export type VehicleData = Partial<Record<MergedField, unknown>>;
/** One feed row's vehicle: its VIN and what the source says about it. */
export interface VehicleRecord {
  vin: string;
  data: VehicleData;
}

export interface SourceRecord {
  source: string;
  data: VehicleData;
  seenAt: Date;
}

/** Per field, sources in order of preference; `*` is the order for fields not listed. */
export type SourcePriority = Partial<Record<MergedField | '*', string[]>>;

export interface MergedVehicle {
  values: Partial<Record<MergedField, unknown>>;
  /** Per field, the source whose value won. */
  fieldSources: Partial<Record<MergedField, string>>;
}

const isBlank = (value: unknown) =>
  value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);

/**
 * For each field the most preferred source that has a value wins; sources not in the priority
 * list come after the listed ones, the most recently seen first. Runs once per feed row, so it
 * makes no closures or sorted copies per field: one pass over the records per field.
 */
export function mergeRecords(records: SourceRecord[], priority: SourcePriority): MergedVehicle {
  const values: MergedVehicle['values'] = {};
  const fieldSources: MergedVehicle['fieldSources'] = {};
  const byRecency = records.length > 1 ? [...records].sort((a, b) => b.seenAt.getTime() - a.seenAt.getTime()) : records;
  const fallback = priority['*'] ?? [];
  for (const field of MERGED_FIELDS) {
    const preferred = priority[field] ?? fallback;
    let winner: SourceRecord | undefined;
    let winnerRank = Infinity;
    // The first record of the lowest rank: ties keep the most recently seen.
    for (const record of byRecency) {
      if (isBlank(record.data[field])) continue;
      const index = preferred.indexOf(record.source);
      const rank = index === -1 ? preferred.length : index;
      if (rank < winnerRank) {
        winner = record;
        winnerRank = rank;
      }
    }
    if (winner) {
      values[field] = winner.data[field];
      fieldSources[field] = winner.source;
    }
  }
  return { values, fieldSources };
}
