/** The vehicle fields feeds report, each of which multi-source merging decides from one source. */
export const MERGED_FIELDS = [
  'stock_number',
  'year',
  'make',
  'model',
  'trim',
  'body_style',
  'condition',
  'mileage',
  'exterior_color',
  'interior_color',
  'msrp',
  'price',
  'internet_price',
  'status',
  'date_in_stock',
  'photos',
] as const;
export type MergedField = (typeof MERGED_FIELDS)[number];

/** Two field values are the same (compared as JSON, so arrays and numbers compare by value). */
export const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
