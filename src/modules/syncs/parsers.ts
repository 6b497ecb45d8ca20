import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
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
  const parser = stream.pipe(
    parse({
      delimiter,
      encoding,
      bom: true,
      from_line: headerRow,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      trim: true,
      columns: (headers: string[]) => {
        const seen = new Map<string, number>();
        return headers.map((header) => {
          const name = header.trim() || 'column';
          const count = (seen.get(name) ?? 0) + 1;
          seen.set(name, count);
          return count === 1 ? name : `${name} (${count})`;
        });
      },
      info: true,
    }),
  );
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      if (Object.values(record).every((value) => value === '' || value === undefined)) continue;
      yield { line: info.lines + headerRow - 1, values: record };
    }
  } catch (error) {
    throw new FeedError(`the file is not valid CSV: ${(error as Error).message}`);
  } finally {
    stream.destroy();
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
 * Prospects of ADF/XML lead files, one row per <prospect>, with fields named as leads are:
 * external_id, received_at, first_name, last_name, email, phone, vehicle_*, raw_source, comments, type.
 */
export async function* readAdf(file: string, onProgress?: (progress: ReadProgress) => void): AsyncGenerator<SourceRow> {
  const { size } = await stat(file);
  const parser = sax.createStream(true, { trim: true, normalize: true });
  const queue: SourceRow[] = [];
  let failure: Error | null = null;
  let path: string[] = [];
  let prospect: Record<string, unknown> | null = null;
  let attributes: Array<Record<string, string>> = [];
  let count = 0;
  let sawAdf = false;
  parser.on('opentag', (node) => {
    const name = node.name.toLowerCase();
    path.push(name);
    attributes.push(
      Object.fromEntries(Object.entries(node.attributes).map(([key, value]) => [key.toLowerCase(), String(value)])),
    );
    if (name === 'adf') sawAdf = true;
    if (name === 'prospect') {
      count += 1;
      prospect = {};
    } else if (prospect && name === 'vehicle') {
      const status = attributes.at(-1)?.status;
      if (status && !prospect.type) prospect.type = status;
    }
  });
  parser.on('text', (text) => {
    if (!prospect || !text) return;
    const name = path.at(-1);
    const parent = path.at(-2);
    const attrs = attributes.at(-1) ?? {};
    const inside = (element: string) => path.includes(element);
    if (name === 'id' && parent === 'prospect')
      prospect.external_id ??= attrs.source ? `${attrs.source}:${text}` : text;
    else if (name === 'requestdate') prospect.received_at = text;
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
    else if (name === 'name' && inside('vendor')) prospect.vendor = text;
  });
  parser.on('closetag', (tagName) => {
    if (tagName.toLowerCase() === 'prospect' && prospect) {
      queue.push({ line: count, values: prospect });
      prospect = null;
    }
    path.pop();
    attributes.pop();
  });
  parser.on('error', (error) => {
    failure = new FeedError(`the file is not valid XML: ${error.message.split('\n')[0]}`);
  });
  const stream = createReadStream(file, { highWaterMark: 64 * 1024 });
  let bytesRead = 0;
  try {
    for await (const chunk of stream) {
      bytesRead += (chunk as Buffer).length;
      parser.write((chunk as Buffer).toString('utf8'));
      if (failure) throw failure;
      onProgress?.({ bytesRead, bytesTotal: size });
      while (queue.length) yield queue.shift()!;
    }
    parser.end();
    if (failure) throw failure;
    while (queue.length) yield queue.shift()!;
    if (!sawAdf) throw new FeedError('the file is XML but not ADF: no <adf> element');
  } finally {
    stream.destroy();
    path = [];
    attributes = [];
  }
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
