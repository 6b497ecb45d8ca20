import { createHash } from 'node:crypto';
import { BytesResponse } from './bytes-response';

/**
 * Conditional reads (RFC 9110 §13): every successful REST read carries an entity tag, a digest of
 * its bytes, and a read whose `If-None-Match` names the answer's tag gets `304 Not Modified` without
 * the body. A poller keeps the last tag and re-reads an unchanged answer for the price of its
 * headers; the exchange gives the API key's unit back, as GitHub does for its 304s.
 */

/** What an `If-None-Match` header asks for: any current answer (`*`), or none of these opaque tags. */
export type IfNoneMatch = { any: true } | { any: false; opaqueTags: string[] };

/** The strong entity tag of an answer's bytes: the same bytes, the same tag; any change, another one. */
export function entityTag(body: Uint8Array): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

/** RFC 9110 `etagc`: `!`, `#` to `~`, and obs-text (bytes 0x80-0xFF, as Node hands header bytes over). */
const isEtagChar = (code: number) => code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
const isSpace = (char: string | undefined) => char === ' ' || char === '\t';

/**
 * Reads `If-None-Match` (`*`, or a comma-separated list of entity tags, each `"…"` or `W/"…"`; a
 * repeated header arrives joined with commas). Empty list elements are allowed, as RFC 9110 §5.6.1
 * asks of recipients. Answers why the header is malformed instead, so the caller learns it never
 * matches (a tag copied without its quotes, say).
 */
export function parseIfNoneMatch(header: string): IfNoneMatch | { problem: string } {
  if (header.trim() === '*') return { any: true };
  const opaqueTags: string[] = [];
  let at = 0;
  while (at < header.length) {
    const char = header[at];
    if (isSpace(char) || char === ',') {
      at += 1;
      continue;
    }
    const start = header.startsWith('W/', at) ? at + 2 : at;
    if (header[start] !== '"') {
      if (char === '*') return { problem: '"*" must be the whole header, not part of a list' };
      return { problem: `entity tags are quoted ("…" or W/"…"); found ${JSON.stringify(header.slice(at, at + 20))}` };
    }
    let end = start + 1;
    while (end < header.length && header[end] !== '"') {
      if (!isEtagChar(header.charCodeAt(end)))
        return { problem: `an entity tag may not contain ${JSON.stringify(header[end])}` };
      end += 1;
    }
    if (end >= header.length) return { problem: 'an entity tag is missing its closing quote' };
    opaqueTags.push(header.slice(start, end + 1));
    at = end + 1;
    while (isSpace(header[at])) at += 1;
    if (at < header.length && header[at] !== ',') return { problem: 'entity tags must be separated by commas' };
  }
  if (!opaqueTags.length) return { problem: 'list at least one entity tag, or "*"' };
  return { any: false, opaqueTags };
}

/**
 * Whether the answer tagged `etag` is one the client already has, by the weak comparison
 * `If-None-Match` uses (RFC 9110 §13.1.2): the opaque tags are equal, `W/` on either side aside.
 */
export function alreadyHas(condition: IfNoneMatch, etag: string): boolean {
  if (condition.any) return true;
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  return condition.opaqueTags.includes(opaque);
}

/** Headers that describe a body; a 304 has none, so they stay with the 200 it stands for. */
const BODY_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'content-language']);

/**
 * The answer to a read, tagged: the 200 with its `ETag`, or `304 Not Modified` with the same tag and
 * the headers that are not about the body (CORS, caching) when the client already has it. Also its
 * bytes and tag, for a caller that keeps them.
 */
export async function tagRead(
  response: Response,
  condition: IfNoneMatch | null,
): Promise<{ response: Response; notModified: boolean; body: Uint8Array<ArrayBuffer> | null; etag: string | null }> {
  if (response.status !== 200) return { response, notModified: false, body: null, etag: null };
  const body = new Uint8Array(await response.arrayBuffer());
  const etag = entityTag(body);
  return { ...tagged(body, etag, response.headers, condition), body, etag };
}

/** A 200 of these bytes with their tag, or the 304 that stands for it when the client already has them. */
export function tagged(
  body: Uint8Array<ArrayBuffer>,
  etag: string,
  bodyHeaders: HeadersInit,
  condition: IfNoneMatch | null,
): { response: Response; notModified: boolean } {
  const headers = new Headers(bodyHeaders);
  headers.set('etag', etag);
  if (condition && alreadyHas(condition, etag)) {
    for (const name of BODY_HEADERS) headers.delete(name);
    return { response: new Response(null, { status: 304, headers }), notModified: true };
  }
  return { response: new BytesResponse(body, { status: 200, headers }), notModified: false };
}
