/** Raw source values as feeds spell them, folded for exact matching: case, spacing and punctuation. */
export function normalizeRawSource(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** The same folding in SQL, so the database can join on it. */
export const NORMALIZE_SQL = (column: string) => `trim(regexp_replace(lower(${column}), '[^a-z0-9]+', ' ', 'g'))`;
