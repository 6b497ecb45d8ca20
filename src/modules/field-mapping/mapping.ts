import { badInput } from '../../errors';
import { fieldForHeader, fieldsOf, headerKey, isBlank, snakeName, type Target } from './fields';

/** Source columns to fields: the integration's own mapping first, then its template's, then known header spellings. */

/** Source column → field, or null to ignore the column. */
export type ColumnMapping = Record<string, string | null>;
/** Per field, raw values → the value to store ("Blk" → "Black"); matched without regard to case or spacing. */
export type ValueMappings = Record<string, Record<string, string>>;

export interface MappingLayers {
  columns: ColumnMapping;
  template: ColumnMapping;
  values: ValueMappings;
}

const valueKey = (value: string) => value.trim().toLowerCase().replace(/\s+/g, ' ');

/** Flattens nested JSON records ({ price: { amount } } → "price.amount") so headers and paths map alike. */
function flatten(
  values: Record<string, unknown>,
  prefix = '',
  out: Record<string, unknown> = {},
): Record<string, unknown> {
  for (const [key, value] of Object.entries(values)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === 'object' && !Array.isArray(value))
      flatten(value as Record<string, unknown>, name, out);
    else out[name] = value;
  }
  return out;
}

/** Where each source column goes, decided once per file from its headers. */
export function resolveColumns(
  target: Target,
  headers: string[],
  layers: Pick<MappingLayers, 'columns' | 'template'>,
): Map<string, string | null> {
  const resolved = new Map<string, string | null>();
  const lookup = (mapping: ColumnMapping, header: string) => {
    if (header in mapping) return mapping[header];
    const key = headerKey(header);
    const match = Object.keys(mapping).find((column) => headerKey(column) === key);
    return match === undefined ? undefined : mapping[match];
  };
  for (const header of headers) {
    const explicit = lookup(layers.columns, header) ?? lookup(layers.template, header);
    if (explicit !== undefined) resolved.set(header, explicit);
    else {
      // A nested JSON path ("price.amount") maps by its own name, else by its parts, innermost first.
      const parts = header.split('.');
      const candidates = [header, ...parts.slice().reverse()];
      resolved.set(
        header,
        candidates.map((candidate) => fieldForHeader(target, candidate)).find(Boolean) ?? snakeName(header),
      );
    }
  }
  return resolved;
}

/** Builds the function that turns one source row into a row keyed by field names, value mappings applied. */
export function rowMapper(target: Target, layers: MappingLayers) {
  let columns: Map<string, string | null> | null = null;
  const values = Object.fromEntries(
    Object.entries(layers.values).map(([field, table]) => [
      field,
      new Map(Object.entries(table).map(([raw, to]) => [valueKey(raw), to])),
    ]),
  );
  return (source: Record<string, unknown>): Record<string, unknown> => {
    const flat = flatten(source);
    const headers = Object.keys(flat);
    if (!columns || headers.some((header) => !columns!.has(header)))
      columns = resolveColumns(target, [...new Set([...(columns?.keys() ?? []), ...headers])], layers);
    const row: Record<string, unknown> = {};
    for (const header of headers) {
      const field = columns.get(header);
      if (!field) continue;
      const value = flat[header];
      // Two columns for one field (say "Price" and "Selling Price"): the first with a value wins.
      if (!isBlank(row[field]) && isBlank(value)) continue;
      if (isBlank(row[field])) row[field] = value;
    }
    for (const [field, table] of Object.entries(values)) {
      const value = row[field];
      if (typeof value === 'string') {
        const mapped = table.get(valueKey(value));
        if (mapped !== undefined) row[field] = mapped;
      }
    }
    return row;
  };
}

/** A column mapping given by a user, checked (400 naming the column otherwise); `field` is the argument it came in. */
export function checkedColumnMapping(target: Target, field: string, mapping: unknown): ColumnMapping {
  const problem = columnMappingProblem(target, mapping);
  if (problem) throw badInput(problem.field.replace(/^mapping/, field), problem.message);
  return mapping as ColumnMapping;
}

/** Checks a column mapping given by a user: each column maps to a known field (or null to ignore). */
export function columnMappingProblem(target: Target, mapping: unknown): { field: string; message: string } | null {
  if (!mapping || typeof mapping !== 'object' || Array.isArray(mapping))
    return { field: 'mapping', message: 'must be an object of source column → field (or null to ignore the column)' };
  const fields = fieldsOf(target);
  const entries = Object.entries(mapping as Record<string, unknown>);
  if (entries.length > 500) return { field: 'mapping', message: 'at most 500 columns' };
  for (const [column, field] of entries) {
    if (!column.trim() || column.length > 200)
      return { field: `mapping["${column.slice(0, 40)}"]`, message: 'source column names are 1-200 characters' };
    if (field === null) continue;
    if (typeof field !== 'string' || !fields.includes(field))
      return {
        field: `mapping["${column}"]`,
        message: `must be one of ${fields.join(', ')} (or null to ignore the column)`,
      };
  }
  return null;
}

export function valueMappingsProblem(target: Target, mappings: unknown): { field: string; message: string } | null {
  if (!mappings || typeof mappings !== 'object' || Array.isArray(mappings))
    return { field: 'value_mappings', message: 'must be an object: { field: { raw value: value } }' };
  const fields = fieldsOf(target);
  for (const [field, table] of Object.entries(mappings as Record<string, unknown>)) {
    if (!fields.includes(field))
      return { field: `value_mappings.${field}`, message: `is not a field of ${target} (${fields.join(', ')})` };
    if (!table || typeof table !== 'object' || Array.isArray(table))
      return { field: `value_mappings.${field}`, message: 'must be an object of raw value → value' };
    const entries = Object.entries(table as Record<string, unknown>);
    if (entries.length > 2000) return { field: `value_mappings.${field}`, message: 'at most 2000 values per field' };
    for (const [raw, to] of entries) {
      if (typeof to !== 'string' || to.length > 200)
        return {
          field: `value_mappings.${field}["${raw.slice(0, 40)}"]`,
          message: 'must map to a string of at most 200 characters',
        };
    }
  }
  return null;
}
