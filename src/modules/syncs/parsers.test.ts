import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readCsv, uniqueHeaders, type SourceRow } from './parsers';

const directory = mkdtempSync(path.join(tmpdir(), 'ddp-csv-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
const fileWith = (content: string | Buffer) => {
  const file = path.join(directory, `feed-${(files += 1)}.csv`);
  writeFileSync(file, content);
  return file;
};

const rowsOf = async (file: string, options: Parameters<typeof readCsv>[1] = {}) => {
  const rows: SourceRow[] = [];
  for await (const row of readCsv(file, options)) rows.push(row);
  return rows;
};

/**
 * The rows as csv-parse reads them with its own header handling and per-record line numbers
 * (`columns`, `info`, `skip_empty_lines`): how readCsv read files before it keyed the fields
 * itself (naming the headers by the same rule, which the examples check). Its line numbers are right for files whose quoted line breaks are LF. (They count from the
 * file's first line, header row or not: readCsv used to add the lines above the header once more.)
 */
const reference = (file: string, delimiter: string, headerRow: number) =>
  new Promise<SourceRow[]>((resolve, reject) => {
    const rows: SourceRow[] = [];
    const parser = parse({
      delimiter,
      bom: true,
      from_line: headerRow,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      trim: true,
      columns: uniqueHeaders,
      info: true,
    });
    parser.on('data', ({ record, info }: { record: Record<string, string>; info: { lines: number } }) => {
      if (!Object.values(record).every((value) => value === '' || value === undefined))
        rows.push({ line: info.lines, values: record });
    });
    parser.on('end', () => resolve(rows));
    parser.on('error', reject);
    parser.end(readFileSync(file));
  });

describe('reading a delimited file', () => {
  it('keys each row by its header and says the line it ends on', async () => {
    const file = fileWith(
      '\uFEFFVIN, Make ,Make,,Price\n' +
        '1HG,Honda,x,,"$1,000"\n' +
        '\n' +
        '   \n' +
        ' ,  , , ,\n' +
        '2T1, "Toyota, Inc" ,y\n' +
        '"3FA\nsecond line",Ford,z,w,5,extra\n' +
        '4S3,Subaru',
    );
    expect(await rowsOf(file)).toEqual([
      { line: 2, values: { VIN: '1HG', Make: 'Honda', 'Make (2)': 'x', column: '', Price: '$1,000' } },
      { line: 6, values: { VIN: '2T1', Make: 'Toyota, Inc', 'Make (2)': 'y' } },
      { line: 8, values: { VIN: '3FA\nsecond line', Make: 'Ford', 'Make (2)': 'z', column: 'w', Price: '5' } },
      { line: 9, values: { VIN: '4S3', Make: 'Subaru' } },
    ]);
  });

  it('counts a quoted CR LF line break once, as the line ending it is', async () => {
    const file = fileWith('a,b\r\n"x\r\ny",1\r\n\r\nz,2\r\n');
    expect(await rowsOf(file)).toEqual([
      { line: 3, values: { a: 'x\r\ny', b: '1' } },
      { line: 5, values: { a: 'z', b: '2' } },
    ]);
  });

  it('starts at the header row it is told, in the encoding it is told', async () => {
    const file = fileWith(
      Buffer.from('Exported 2026-11-29\nStock\tCouleur\n7\tGris acier\n8\tBleu nuit é\n', 'latin1'),
    );
    expect(await rowsOf(file, { headerRow: 2, delimiter: 'auto', encoding: 'latin1' })).toEqual([
      { line: 3, values: { Stock: '7', Couleur: 'Gris acier' } },
      { line: 4, values: { Stock: '8', Couleur: 'Bleu nuit é' } },
    ]);
    const piped = fileWith('Exported\nStock|Color\n7|Gray\n');
    expect(await rowsOf(piped, { headerRow: 2 })).toEqual([{ line: 3, values: { Stock: '7', Color: 'Gray' } }]);
  });

  it('names a file that is not CSV', async () => {
    const file = fileWith('a,b\n"never closed,1\n');
    await expect(rowsOf(file)).rejects.toThrow(/not valid CSV: Quote Not Closed/);
  });

  it('reads every generated file as csv-parse reads it with its own header and line numbers', async () => {
    const text = fc.string({
      unit: fc.constantFrom('a', 'B', ' ', '1', '$', ',', '|', '\t', '"', '\n', 'é'),
      maxLength: 8,
    });
    // A field written plainly when it can be, quoted (quotes doubled) when it must or when drawn so.
    const field = fc.tuple(text, fc.boolean()).map(([value, quote]) => ({ value, quote }));
    const feed = fc.record({
      delimiter: fc.constantFrom(',', '\t', '|'),
      preamble: fc.array(fc.constantFrom('Exported by DMS', 'report: inventory'), { maxLength: 2 }),
      bom: fc.boolean(),
      lineEnding: fc.constantFrom('\n', '\r\n'),
      // A blank header line is refused before any row is read (another test's subject).
      header: fc
        .array(fc.constantFrom('VIN', 'Make', 'Make', ' Price ', '', 'Photo'), { minLength: 1, maxLength: 6 })
        .filter((names) => names.some((name) => name.trim())),
      rows: fc.array(fc.oneof(fc.array(field, { maxLength: 8 }), fc.constant(null)), { maxLength: 25 }),
    });
    await fc.assert(
      fc.asyncProperty(feed, async ({ delimiter, preamble, bom, lineEnding, header, rows }) => {
        const write = ({ value, quote }: { value: string; quote: boolean }) => {
          // Quoted line breaks are LF: the reference counts a quoted CR LF as two lines.
          const plain = !quote && !/[",|\t\n]/.test(value);
          return plain ? value : `"${value.replaceAll('"', '""')}"`;
        };
        const lines = [
          ...preamble,
          header.map((name) => write({ value: name, quote: false })).join(delimiter),
          ...rows.map((row) => (row === null ? '' : row.map(write).join(delimiter))),
        ];
        const file = fileWith((bom ? '\uFEFF' : '') + lines.join(lineEnding) + lineEnding);
        const options = {
          delimiter: delimiter === ',' ? 'comma' : delimiter === '|' ? 'pipe' : 'tab',
          headerRow: preamble.length + 1,
        };
        expect(await rowsOf(file, options)).toEqual(await reference(file, delimiter, options.headerRow));
      }),
      { numRuns: 200 },
    );
  });
});
