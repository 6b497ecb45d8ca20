/** Raw source values as feeds spell them, folded for exact matching: case, spacing and punctuation. */
export function normalizeRawSource(raw: string): string {
  return raw.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim();
}

/** The same folding in SQL, so the database can join on it. */
export const NORMALIZE_SQL = (column: string) => `trim(regexp_replace(lower(${column}), '[^a-z0-9]+', ' ', 'g'))`;

/**
 * Why a pattern cannot be used, or null. Patterns run inside PostgreSQL's regex engine on every
 * resolution, so nested quantifiers (catastrophic backtracking) and very long patterns are refused.
 */
export function patternProblem(pattern: string): string | null {
  if (!pattern.trim()) return 'must not be empty';
  if (pattern.length > 200) return 'must be at most 200 characters';
  if (/\((?:[^()\\]|\\.)*[+*](?:[^()\\]|\\.)*\)\s*[+*{]/.test(pattern)) return 'nests quantifiers such as (a+)+, which can take exponential time';
  if (/\\[1-9]/.test(pattern)) return 'must not use back-references';
  try {
    new RegExp(pattern, 'i');
  } catch (error) {
    return `is not a valid regular expression: ${(error as Error).message}`;
  }
  return null;
}
