/**
 * Checks on what arrives before any operation runs: the request target, query strings and JSON
 * values. Each refusal names the part that is wrong, so a malformed request is a 400 at the edge
 * instead of an error deep inside (PostgreSQL refuses NUL characters; unpaired surrogates break
 * JSON written to the audit log; dot segments would re-route a request past a proxy's path rules).
 */

/** The HTTP methods the API answers; anything else (TRACE, CONNECT, …) is refused at the edge. */
export const ALLOWED_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** JSON nested deeper than this is refused: no operation takes such input, and walking it costs. */
export const MAX_JSON_DEPTH = 32;

export interface EdgeProblem {
  /** The parameter or JSON path at fault ("make", "body.name", "path"). */
  field: string;
  message: string;
}

/** Why a string cannot be stored as text, or null: PostgreSQL text holds no NUL, JSON no lone surrogate. */
export function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'contains a NUL character (\\u0000)';
  if (!value.isWellFormed()) return 'contains an unpaired UTF-16 surrogate';
  return null;
}

/**
 * The path of a raw request target, checked segment by segment before any URL parser normalises it:
 * malformed percent-encoding, `.`/`..` segments (encoded or not) and encoded slashes are refused, so
 * the operation that runs is always the one the path names.
 */
export function pathProblem(rawTarget: string): EdgeProblem | null {
  const rawPath = rawTarget.split('?', 1)[0] ?? '';
  if (!rawPath.startsWith('/')) return { field: 'path', message: 'the request target must be a path starting with /' };
  if (rawPath.startsWith('//')) return { field: 'path', message: 'the path must not start with //' };
  if (rawPath.includes('\\')) return { field: 'path', message: 'backslashes are not allowed in paths' };
  for (const segment of rawPath.split('/')) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      return { field: 'path', message: `malformed percent-encoding in path segment "${segment.slice(0, 100)}"` };
    }
    if (decoded === '.' || decoded === '..')
      return { field: 'path', message: 'dot segments ("." and "..", encoded or not) are not allowed in paths' };
    if (/[/\\]/.test(decoded))
      return {
        field: 'path',
        message: `encoded slashes are not allowed in path segments ("${segment.slice(0, 100)}")`,
      };
    const problem = textProblem(decoded);
    if (problem) return { field: 'path', message: `a path segment ${problem}` };
  }
  return null;
}

/** The first query parameter whose name or value cannot be text. */
export function queryProblem(params: URLSearchParams): EdgeProblem | null {
  for (const [name, value] of params) {
    const problem = textProblem(name) ?? textProblem(value);
    if (problem) return { field: textProblem(name) ? 'query' : name, message: `the query parameter ${problem}` };
  }
  return null;
}

/** The first string (key or value) in a parsed JSON value that cannot be text, or nesting past the limit. */
export function jsonProblem(value: unknown, at: string, depth = 0): EdgeProblem | null {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { field: at, message: problem } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth >= MAX_JSON_DEPTH) return { field: at, message: `is nested more than ${MAX_JSON_DEPTH} levels deep` };
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const problem = jsonProblem(item, `${at}[${index}]`, depth + 1);
      if (problem) return problem;
    }
    return null;
  }
  for (const [key, item] of Object.entries(value)) {
    const keyProblem = textProblem(key);
    if (keyProblem) return { field: at, message: `has a key that ${keyProblem}` };
    const problem = jsonProblem(item, `${at}.${key}`, depth + 1);
    if (problem) return problem;
  }
  return null;
}
