import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import sax from 'sax';
import { outboundRequest, type OutboundResponse } from '../../net/outbound';

/**
 * Streaming readers for the formats feeds arrive in. Each yields rows one at a time (memory stays
 * flat however large the file) with the line or record number errors should point at.
 */

export interface SourceRow {
  line: number;
  values: Record<string, unknown>;
}
export interface ReadProgress {
  bytesRead: number;
  bytesTotal: number | null;
}

export class FeedError extends Error {}

const DELIMITERS = { comma: ',', tab: '\t', pipe: '|' } as const;

/** The separator the header line uses most, outside quotes. */
export function detectDelimiter(headerLine: string): ',' | '\t' | '|' {
  const counts = { ',': 0, '\t': 0, '|': 0 };
  let quoted = false;
  for (const character of headerLine) {
    if (character === '"') quoted = !quoted;
    else if (!quoted && character in counts) counts[character as keyof typeof counts] += 1;
  }
  const best = (Object.entries(counts) as Array<[',' | '\t' | '|', number]>).sort((a, b) => b[1] - a[1])[0]!;
  return best[1] > 0 ? best[0] : ',';
}

export interface CsvOptions {
  delimiter?: string | null;
  encoding?: string | null;
  headerRow?: number | null;
}

async function headLines(file: string, count: number, encoding: BufferEncoding): Promise<string[]> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(256 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer
      .subarray(0, bytesRead)
      .toString(encoding)
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/)
      .slice(0, count);
  } finally {
    await handle.close();
  }
}

/** Rows of a delimited file keyed by its (trimmed, de-duplicated) headers; a header row is required. */
export async function* readCsv(
  file: string,
  options: CsvOptions = {},
  onProgress?: (progress: ReadProgress) => void,
): AsyncGenerator<SourceRow> {
  const encoding = (options.encoding === 'latin1' ? 'latin1' : 'utf8') as BufferEncoding;
  const headerRow = options.headerRow ?? 1;
  const lines = await headLines(file, headerRow, encoding);
  const headerLine = lines[headerRow - 1];
  if (!headerLine?.trim())
    throw new FeedError(`no header row on line ${headerRow}: the file is empty or starts with blank lines`);
  const delimiter =
    options.delimiter && options.delimiter !== 'auto'
      ? (DELIMITERS[options.delimiter as keyof typeof DELIMITERS] ?? ',')
      : detectDelimiter(headerLine);
  const { size } = await stat(file);
  const stream = createReadStream(file, { highWaterMark: 256 * 1024 });
  let bytesRead = 0;
  stream.on('data', (chunk) => {
    bytesRead += chunk.length;
    onProgress?.({ bytesRead, bytesTotal: size });
  });
  // Records as arrays of fields, keyed here by the header: csv-parse's own `columns` and `info`
  // (which reported each record's line) built two objects per record and cost two thirds of
  // the parse. Empty lines come through as one empty field, so every line is counted here.
  const parser = stream.pipe(
    parse({
      delimiter,
      encoding,
      bom: true,
      from_line: headerRow,
      relax_column_count: true,
      relax_quotes: true,
      trim: true,
    }),
  );
  try {
    let headers: string[] | null = null;
    // The line the last record ended on: the line before the header row until the header is read.
    let line = headerRow - 1;
    for await (const records of readBatches<string[]>(parser)) {
      for (const fields of records) {
        line += 1 + embeddedLineBreaks(fields);
        if (!headers) {
          headers = uniqueHeaders(fields);
          continue;
        }
        const width = Math.min(headers.length, fields.length);
        let blank = true;
        const values: Record<string, string> = {};
        for (let index = 0; index < width; index += 1) {
          const value = fields[index]!;
          if (value !== '') blank = false;
          values[headers[index]!] = value;
        }
        if (!blank) yield { line, values };
      }
    }
  } catch (error) {
    throw new FeedError(`the file is not valid CSV: ${(error as Error).message}`);
  } finally {
    // Also when the reader stops early (a preview's first rows): the file and the parser both let go.
    stream.destroy();
    parser.destroy();
  }
}

/** Header names trimmed, an empty one called "column", and a repeated one numbered: "Photo (2)". */
export function uniqueHeaders(fields: string[]): string[] {
  const seen = new Map<string, number>();
  return fields.map((header) => {
    const name = header.trim() || 'column';
    const count = (seen.get(name) ?? 0) + 1;
    seen.set(name, count);
    return count === 1 ? name : `${name} (${count})`;
  });
}

/** Line breaks inside a record's quoted fields (CR LF counts once, as a line ending does). */
function embeddedLineBreaks(fields: string[]): number {
  let breaks = 0;
  for (const field of fields) {
    if (!field.includes('\n') && !field.includes('\r')) continue;
    for (let at = 0; at < field.length; at += 1) {
      const code = field.charCodeAt(at);
      if (code === 10 || (code === 13 && field.charCodeAt(at + 1) !== 10)) breaks += 1;
    }
  }
  return breaks;
}

/**
 * What a readable stream has buffered, taken all at once each time it has any: one await per
 * chunk of the file rather than one per record. Ends when the stream ends; throws its error.
 */
async function* readBatches<T>(stream: Readable): AsyncGenerator<T[]> {
  let failure: Error | null = null;
  let ended = false;
  let wake: (() => void) | null = null;
  const signal = () => {
    const resume = wake;
    wake = null;
    resume?.();
  };
  stream.on('readable', signal);
  stream.once('end', () => {
    ended = true;
    signal();
  });
  stream.once('error', (error) => {
    failure = error;
    signal();
  });
  for (;;) {
    const batch: T[] = [];
    let item: T | null;
    while ((item = stream.read() as T | null) !== null) batch.push(item);
    if (failure) throw failure;
    if (batch.length) yield batch;
    else if (ended) return;
    else await new Promise<void>((resolve) => (wake = resolve));
  }
}

/** The header row and the first `count` rows of a delimited file, for previews and mapping detection. */
export async function sampleCsv(
  file: string,
  options: CsvOptions = {},
  count = 5,
): Promise<{ headers: string[]; rows: Array<Record<string, string>> }> {
  const rows: Array<Record<string, string>> = [];
  for await (const row of readCsv(file, options)) {
    rows.push(row.values as Record<string, string>);
    if (rows.length >= count) break;
  }
  const lines = await headLines(file, options.headerRow ?? 1, options.encoding === 'latin1' ? 'latin1' : 'utf8');
  const headerLine = lines.at(-1) ?? '';
  const headers = rows[0]
    ? Object.keys(rows[0])
    : headerLine.split(detectDelimiter(headerLine)).map((header) => header.replace(/^"|"$/g, '').trim());
  return { headers, rows };
}

/**
 * Reads ADF (Auto-lead Data Format) 1.0 as it arrives, chunk by chunk: one row per <prospect>, with
 * fields named as leads are (external_id, received_at, type, first_name, last_name, email, phone,
 * vehicle_*, raw_source, comments) plus the <vendor> the lead was sent to (vendor, vendor_phone,
 * vendor_website, vendor_street, vendor_city, vendor_state, vendor_postal_code), by which a lead can
 * find its rooftop. Text in CDATA sections counts as text. sax reads no DTD: entities other than
 * XML's five and character references are an error, never expanded or fetched; with
 * `refuseDoctype` a DOCTYPE declaration itself is refused.
 */
export class AdfReader {
  private readonly parser = sax.parser(true, { trim: true, normalize: true });
  private readonly rows: SourceRow[] = [];
  private failure: FeedError | null = null;
  private path: string[] = [];
  private attributes: Array<Record<string, string>> = [];
  private prospect: Record<string, unknown> | null = null;
  private count = 0;
  private sawAdf = false;

  constructor(options: { refuseDoctype?: boolean } = {}) {
    const { parser } = this;
    parser.onopentag = (node) => this.open(node.name.toLowerCase(), node.attributes as Record<string, string>);
    parser.ontext = (text) => this.text(text);
    parser.oncdata = (text) => this.text(text.trim().replace(/\s+/g, ' '));
    parser.onclosetag = (tagName) => this.close(tagName.toLowerCase());
    parser.ondoctype = () => {
      if (options.refuseDoctype)
        this.failure ??= new FeedError('a DOCTYPE declaration is not accepted: ADF needs no DTD and no entities');
    };
    parser.onerror = (error) => {
      this.failure ??= new FeedError(`the document is not valid XML: ${error.message.split('\n')[0]}`);
    };
  }

  /** Reads the next piece of the document; throws FeedError once it is not valid XML. */
  write(chunk: string): void {
    if (!this.failure) this.parser.write(chunk);
    if (this.failure) throw this.failure;
  }

  /** The document has ended: throws FeedError if it is incomplete or has no <adf> element. */
  end(): void {
    if (!this.failure) this.parser.close();
    if (this.failure) throw this.failure;
    if (!this.sawAdf) throw new FeedError('the document is XML but not ADF: no <adf> element');
  }

  /** The prospects read so far and not yet taken. */
  take(): SourceRow[] {
    return this.rows.splice(0);
  }

  private open(name: string, attributes: Record<string, string>): void {
    this.path.push(name);
    this.attributes.push(
      Object.fromEntries(Object.entries(attributes).map(([key, value]) => [key.toLowerCase(), String(value)])),
    );
    if (name === 'adf') this.sawAdf = true;
    if (name === 'prospect') {
      this.count += 1;
      this.prospect = {};
    } else if (this.prospect && name === 'vehicle') {
      const status = this.attributes.at(-1)?.status;
      if (status && !this.prospect.type) this.prospect.type = status;
    }
  }

  private text(text: string): void {
    const { prospect, path } = this;
    if (!prospect || !text) return;
    const name = path.at(-1);
    const parent = path.at(-2);
    const attrs = this.attributes.at(-1) ?? {};
    const inside = (element: string) => path.includes(element);
    if (name === 'id' && parent === 'prospect')
      prospect.external_id ??= attrs.source ? `${attrs.source}:${text}` : text;
    else if (name === 'requestdate') prospect.received_at = text;
    else if (inside('vendor')) this.vendorText(prospect, name, text);
    else if (name === 'name' && inside('customer')) {
      if (attrs.part === 'first') prospect.first_name = text;
      else if (attrs.part === 'last') prospect.last_name = text;
      else if (attrs.part === 'full')
        [prospect.first_name, prospect.last_name] = [text.split(' ')[0], text.split(' ').slice(1).join(' ') || null];
    } else if (name === 'email' && inside('customer')) prospect.email = text;
    else if (name === 'phone' && inside('customer')) prospect.phone ??= text;
    else if (name === 'comments' && inside('customer')) prospect.comments = text;
    else if (inside('vehicle') && !inside('trade') && ['year', 'make', 'model', 'vin'].includes(name ?? ''))
      prospect[`vehicle_${name}`] = text;
    else if (name === 'name' && inside('provider')) prospect.raw_source ??= text;
  }

  /** The rooftop the lead was sent to: its name, and its phone, web address and street address when given. */
  private vendorText(prospect: Record<string, unknown>, name: string | undefined, text: string): void {
    if (name === 'vendorname') prospect.vendor ??= text;
    else if (name === 'phone') prospect.vendor_phone ??= text;
    else if (name === 'url') prospect.vendor_website ??= text;
    else if (name === 'street') prospect.vendor_street ??= text;
    else if (name === 'city') prospect.vendor_city ??= text;
    else if (name === 'regioncode') prospect.vendor_state ??= text;
    else if (name === 'postalcode') prospect.vendor_postal_code ??= text;
  }

  private close(name: string): void {
    if (name === 'prospect' && this.prospect) {
      this.rows.push({ line: this.count, values: this.prospect });
      this.prospect = null;
    }
    this.path.pop();
    this.attributes.pop();
  }
}

/** Prospects of an ADF/XML lead file, streamed (see AdfReader). */
export async function* readAdf(file: string, onProgress?: (progress: ReadProgress) => void): AsyncGenerator<SourceRow> {
  const { size } = await stat(file);
  const reader = new AdfReader();
  const stream = createReadStream(file, { highWaterMark: 64 * 1024, encoding: 'utf8' });
  let bytesRead = 0;
  try {
    for await (const chunk of stream) {
      bytesRead += Buffer.byteLength(chunk as string);
      reader.write(chunk as string);
      onProgress?.({ bytesRead, bytesTotal: size });
      yield* reader.take();
    }
    reader.end();
    yield* reader.take();
  } finally {
    stream.destroy();
  }
}

/** The prospects of one ADF document held in memory (a lead posted to the API); DOCTYPEs are refused. */
export function parseAdf(document: string): SourceRow[] {
  const reader = new AdfReader({ refuseDoctype: true });
  reader.write(document);
  reader.end();
  return reader.take();
}

export interface JsonPullOptions {
  url: string;
  recordsPath: string;
  pageSize: number;
  apiKey: string | null;
  allowPrivateNetworks: boolean;
  timeoutMs?: number;
  maxPages?: number;
}

const at = (value: unknown, dotted: string) =>
  dotted
    .split('.')
    .filter(Boolean)
    .reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      value,
    );

/**
 * Records from an HTTP JSON endpoint, page by page: follows a `next` link (top level, `links.next`
 * or `meta.next`) on the same origin, else asks for `page`/`page_size` until a short page.
 */
export async function* pullJson(
  options: JsonPullOptions,
  onProgress?: (progress: ReadProgress) => void,
): AsyncGenerator<SourceRow> {
  const origin = new URL(options.url).origin;
  let next: string | null = options.url;
  let page = 1;
  let line = 0;
  let bytesRead = 0;
  const maxPages = options.maxPages ?? 10_000;
  while (next && page <= maxPages) {
    const url: URL = new URL(next);
    if (url.origin !== origin)
      throw new FeedError(`the API's next page is on another site (${url.origin}); refusing to follow`);
    if (next === options.url && page > 1) url.searchParams.set('page', String(page));
    if (!url.searchParams.has('page_size') && next === options.url)
      url.searchParams.set('page_size', String(options.pageSize));
    let response: OutboundResponse;
    try {
      response = await outboundRequest(url, {
        headers: {
          accept: 'application/json',
          ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        },
        timeoutMs: options.timeoutMs ?? 30_000,
        allowPrivateNetworks: options.allowPrivateNetworks,
      });
    } catch (error) {
      throw new FeedError(`could not reach ${url.origin}${url.pathname}: ${(error as Error).message}`);
    }
    if (response.status === 401 || response.status === 403)
      throw new FeedError(
        `the API refused the credentials (HTTP ${response.status}); check PUT /integrations/:id/credentials`,
      );
    if (response.status >= 300 && response.status < 400)
      throw new FeedError(
        `the API redirected ${url.pathname} (HTTP ${response.status}); set the final URL in the config`,
      );
    if (response.status < 200 || response.status >= 300)
      throw new FeedError(`the API answered HTTP ${response.status} for ${url.pathname}`);
    const { text } = response;
    bytesRead += text.length;
    onProgress?.({ bytesRead, bytesTotal: null });
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new FeedError(`the API did not answer JSON (page ${page})`);
    }
    const records = Array.isArray(body) ? body : at(body, options.recordsPath);
    if (!Array.isArray(records))
      throw new FeedError(`no array at "${options.recordsPath}" in the API's answer; set records_path`);
    for (const record of records) {
      line += 1;
      yield {
        line,
        values: record && typeof record === 'object' ? (record as Record<string, unknown>) : { value: record },
      };
    }
    const link = [at(body, 'next'), at(body, 'links.next'), at(body, 'meta.next')].find(
      (value) => typeof value === 'string' && value,
    ) as string | undefined;
    if (link) next = new URL(link, url).toString();
    else if (!Array.isArray(body) && records.length >= options.pageSize && at(body, 'page') !== undefined) {
      page += 1;
      next = options.url;
      continue;
    } else next = null;
    page += 1;
  }
}
