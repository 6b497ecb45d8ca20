import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { withCheckDigit } from '../../src/modules/inventory/vin';

/** A HomeNet-style inventory feed of any length, for tests and benchmarks that need more rows than a fixture holds. */
export const GENERATED_FEED_HEADER =
  'VIN,Stock,Type,Year,Make,Model,Trim,Body,Miles,SellingPrice,MSRP,ExteriorColor,InteriorColor,DateInStock,ImageList\n';

/** Make, model, body style, and the make's manufacturer code (the VIN's first three characters). */
const MODELS = [
  ['Toyota', 'RAV4', 'SUV', '4T1'],
  ['Honda', 'Civic', 'Sedan', '1HG'],
  ['Ford', 'F-150', 'Pickup', '1FT'],
  ['Chevrolet', 'Equinox', 'SUV', '1GN'],
] as const;

/**
 * The VIN of generated row `index` (valid check digit, distinct up to 8,000,000 rows); `tag` keeps
 * feeds of different tests apart. It carries its make's manufacturer code, as a real feed's VINs
 * do, except one row in a hundred, which carries Honda's whatever its make (a VIN/make conflict).
 */
export function generatedVin(index: number, tag = 'BENCH'): string {
  // I, O and Q are not VIN characters.
  const code = tag.toUpperCase().replace(/[IOQ]/g, 'X').padEnd(5, '0').slice(0, 5);
  const manufacturer = index % 100 === 99 ? '1HG' : MODELS[index % MODELS.length]![3];
  return withCheckDigit(
    `${manufacturer}${code}0T${'ABCDEFGH'[Math.floor(index / 1_000_000) % 8]}${String(index % 1_000_000).padStart(6, '0')}`,
  );
}

/** One CSV line for row `index`; `overrides` replaces columns by header name (Year, SellingPrice, …). */
export function generatedLine(index: number, tag = 'BENCH', overrides: Record<string, string> = {}): string {
  const [make, model, body] = MODELS[index % MODELS.length]!;
  const vin = overrides.VIN ?? generatedVin(index, tag);
  const used = index % 3 === 0;
  const values: Record<string, string> = {
    VIN: vin,
    Stock: `S${index}`,
    Type: used ? 'Used' : 'New',
    Year: String(used ? 2021 : 2026),
    Make: make,
    Model: model,
    Trim: 'LX',
    Body: body,
    Miles: String(used ? 30000 + (index % 9000) : 8),
    SellingPrice: `"$${(25000 + (index % 20000)).toLocaleString('en-US')}"`,
    MSRP: '',
    ExteriorColor: 'Black',
    InteriorColor: 'Gray',
    DateInStock: `2026-${String(1 + (index % 10)).padStart(2, '0')}-15`,
    ImageList: `https://img.example/${vin}/1.jpg`,
    ...overrides,
  };
  return (
    GENERATED_FEED_HEADER.trim()
      .split(',')
      .map((column) => values[column])
      .join(',') + '\n'
  );
}

/** Writes `rows` generated lines to `file` (streamed; `line` may replace any row) and returns the lines written. */
export async function writeGeneratedFeed(
  file: string,
  rows: number,
  options: { tag?: string; line?: (index: number) => string | null; keepLines?: boolean } = {},
): Promise<string[]> {
  const out = createWriteStream(file);
  const kept: string[] = [];
  out.write(GENERATED_FEED_HEADER);
  for (let index = 0; index < rows; index += 1) {
    const line = options.line?.(index) ?? generatedLine(index, options.tag);
    if (options.keepLines) kept.push(line);
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return kept;
}
