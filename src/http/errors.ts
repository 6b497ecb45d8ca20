import type { GraphQLError } from 'graphql';

/** The single error shape (README, Conventions): `{ error: { code, message, details? } }` with its HTTP status. */
export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

export function errorResponse(
  status: number,
  code: string,
  message: string,
  details?: unknown,
  headers: Record<string, string> = {},
): Response {
  const body: ErrorBody = { error: { code, message, ...(details === undefined ? {} : { details }) } };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

const CODE_BY_STATUS: Record<number, string> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
};

interface Classified {
  status: number;
  code: string;
  message: string;
  details?: unknown;
  headers?: Record<string, string>;
}

/** What one GraphQL error means for a REST caller. Anything unrecognised is a bug: 500, no internals. */
export function classifyError(error: GraphQLError | Error): Classified {
  const extensions = ('extensions' in error ? error.extensions : {}) as {
    code?: string;
    http?: { status?: number; headers?: Record<string, string> };
    details?: unknown;
  };
  const status = extensions.http?.status;
  if (status && status < 500) {
    return {
      status,
      code: extensions.code ?? CODE_BY_STATUS[status] ?? 'BAD_REQUEST',
      message: error.message,
      details: extensions.details,
      headers: extensions.http?.headers,
    };
  }
  if (status === 503)
    return {
      status,
      code: extensions.code ?? 'SERVICE_UNAVAILABLE',
      message: error.message,
      details: extensions.details,
      headers: extensions.http?.headers,
    };
  // Variable coercion failures from GraphQL execution name the variable: they are the caller's input.
  const variable = /^Variable "\$(\w+)" (got invalid value|of required type|of non-null type)/.exec(error.message);
  if (variable)
    return {
      status: 400,
      code: 'INVALID_ARGUMENT',
      message: `${variable[1]}: ${error.message}`,
      details: { field: variable[1] },
    };
  return { status: 500, code: 'INTERNAL', message: 'internal error; the request id identifies it in our logs' };
}

/** The most serious of several errors decides the response. */
export function restErrorResponse(
  errors: ReadonlyArray<GraphQLError | Error>,
  onInternal: (error: Error) => void,
): Response {
  const classified = errors.map((error) => {
    const result = classifyError(error);
    if (result.status >= 500 && result.status !== 503) onInternal((error as GraphQLError).originalError ?? error);
    return result;
  });
  const worst = classified.reduce((a, b) => (b.status > a.status ? b : a));
  return errorResponse(worst.status, worst.code, worst.message, worst.details, worst.headers);
}
