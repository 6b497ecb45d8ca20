import { textProblem } from './edge';
import { errorResponse } from './errors';
import type { DocumentBody } from './operations';

/**
 * Bodies that are a whole document of another media type than JSON (an ADF lead as
 * application/xml): recognised by their Content-Type and read as text for the one argument that
 * takes them; the operation parses the document itself.
 */

/** Whether a Content-Type names one of the media types a document body comes in (parameters aside). */
export function takesMediaType(document: DocumentBody, contentType: string): boolean {
  const mediaType = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return document.mediaTypes.includes(mediaType);
}

/**
 * A document body as text, in the charset its Content-Type names (UTF-8 when none): bounded by the
 * route's own limit, refused when its bytes are not that charset or it holds text PostgreSQL cannot
 * store. Answers the refusal as a Response.
 */
export function readDocument(document: DocumentBody, contentType: string, rawBody: Buffer): string | Response {
  if (rawBody.length > document.maxBytes)
    return errorResponse(
      413,
      'PAYLOAD_TOO_LARGE',
      `the ${document.mediaTypes[0]} body is larger than ${document.maxBytes} bytes`,
    );
  const charset = /;\s*charset\s*=\s*"?([\w.:-]+)"?/i.exec(contentType)?.[1] ?? 'utf-8';
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: true });
  } catch {
    return errorResponse(415, 'UNSUPPORTED_MEDIA_TYPE', `charset ${charset} is not supported; send UTF-8`);
  }
  let text: string;
  try {
    text = decoder.decode(rawBody);
  } catch {
    return errorResponse(400, 'INVALID_BODY', `the body is not valid ${charset} text`, { field: document.argument });
  }
  const problem = textProblem(text);
  if (problem)
    return errorResponse(400, 'INVALID_BODY', `the ${document.mediaTypes[0]} body ${problem}`, {
      field: document.argument,
    });
  return text;
}
