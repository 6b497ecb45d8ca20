import { RE2JS } from 're2js';

/** Raw source values as feeds spell them, folded for exact matching: case, spacing and punctuation. */
export function normalizeRawSource(raw: string): string {
  return raw.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
}

/** The same folding in SQL, so the database can join on it. */
export const NORMALIZE_SQL = (column: string) => `trim(regexp_replace(lower(${column}), '[^a-z0-9]+', ' ', 'g'))`;

/**
 * Why a tenant's pattern cannot be used, or null. Patterns must be RE2 syntax (no back-references or
 * lookaround: the constructs that need backtracking) and at most 200 characters. Rules run them on
 * RE2 (linear time); source mappings run them in PostgreSQL, whose engine needs no backtracking for
 * this subset, under the request statement timeout.
 */
export function patternProblem(pattern: string): string | null {
  if (!pattern.trim()) return 'must not be empty';
  if (pattern.length > 200) return 'must be at most 200 characters';
  try {
    RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    return `is not a supported regular expression (RE2 syntax: no back-references or lookaround): ${(error as Error).message.replace(/^error parsing regexp: /, '')}`;
  }
  return null;
}
