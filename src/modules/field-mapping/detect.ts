import { FIELD_SYNONYMS, headerKey, type Target } from './fields';
import { VIN_PATTERN } from '../inventory/vin';

/**
 * Suggests a column mapping from a header row and a few sample rows: known header spellings first
 * ("Stock #", "StockNo", "Odometer", "Internet Price", "Ext Color"), then partial spellings, then
 * what the values look like (17-character VINs, model years, image URLs). Each field is suggested
 * for one column at most, the most confident.
 */

export interface Suggestion {
  column: string;
  field: string | null;
  confidence: number;
  reason: string;
}

const VALUE_SHAPES: Partial<
  Record<Target, Array<{ field: string; test: (value: string) => boolean; reason: string }>>
> = {
  vehicles: [
    {
      field: 'vin',
      test: (value) => VIN_PATTERN.test(value.trim().toUpperCase()),
      reason: 'values are 17-character VINs',
    },
    {
      field: 'photos',
      test: (value) => /^https?:\/\/\S+\.(jpe?g|png|webp)/i.test(value.trim()),
      reason: 'values are image URLs',
    },
    { field: 'year', test: (value) => /^(19[5-9]\d|20[0-3]\d)$/.test(value.trim()), reason: 'values are model years' },
    {
      field: 'date_in_stock',
      test: (value) => /^\d{4}-\d{2}-\d{2}$|^\d{1,2}\/\d{1,2}\/\d{2,4}$/.test(value.trim()),
      reason: 'values are dates',
    },
  ],
  calls: [
    {
      field: 'caller_number',
      test: (value) => /^\+?[\d\s().-]{10,16}$/.test(value.trim()),
      reason: 'values are phone numbers',
    },
    { field: 'recording_url', test: (value) => /^https?:\/\//i.test(value.trim()), reason: 'values are URLs' },
  ],
  sales: [
    {
      field: 'vin',
      test: (value) => VIN_PATTERN.test(value.trim().toUpperCase()),
      reason: 'values are 17-character VINs',
    },
  ],
};

export function detectMapping(target: Target, headers: string[], rows: Array<Record<string, unknown>>): Suggestion[] {
  const synonyms = FIELD_SYNONYMS[target];
  const candidates = headers.map((column): Suggestion => {
    const key = headerKey(column);
    for (const [field, spellings] of Object.entries(synonyms)) {
      if (field.replace(/_/g, '') === key || spellings.includes(key))
        return { column, field, confidence: 0.95, reason: `"${column}" is a known name for ${field}` };
    }
    const values = rows
      .map((row) => row[column])
      .filter((value): value is string | number => value !== null && value !== undefined && String(value).trim() !== '')
      .map(String);
    for (const shape of VALUE_SHAPES[target] ?? []) {
      if (values.length && values.filter(shape.test).length / values.length >= 0.8)
        return { column, field: shape.field, confidence: 0.8, reason: shape.reason };
    }
    let partial: Suggestion | null = null;
    for (const [field, spellings] of Object.entries(synonyms)) {
      const hit = [field.replace(/_/g, ''), ...spellings].find(
        (spelling) => spelling.length >= 4 && (key.includes(spelling) || (key.length >= 4 && spelling.includes(key))),
      );
      if (hit && (!partial || hit.length > partial.reason.length))
        partial = { column, field, confidence: 0.6, reason: `"${column}" resembles ${hit}` };
    }
    return (
      partial ?? {
        column,
        field: null,
        confidence: 0,
        reason: 'no field matches; it is kept under its own name for rules',
      }
    );
  });
  // One column per field: the most confident keeps it, the others are left unmapped.
  const best = new Map<string, Suggestion>();
  for (const suggestion of candidates) {
    if (!suggestion.field) continue;
    const held = best.get(suggestion.field);
    if (!held || suggestion.confidence > held.confidence) best.set(suggestion.field, suggestion);
  }
  return candidates.map((suggestion) =>
    suggestion.field && best.get(suggestion.field) !== suggestion
      ? {
          column: suggestion.column,
          field: null,
          confidence: 0,
          reason: `${suggestion.field} is taken by "${best.get(suggestion.field)!.column}"`,
        }
      : suggestion,
  );
}
