import { GraphQLError } from 'graphql';

/** A failure the caller can act on: a stable code, an HTTP status and a message that names the problem. */
export class AppError extends GraphQLError {
  constructor(
    status: number,
    code: string,
    message: string,
    details?: Record<string, unknown>,
    headers?: Record<string, string>,
  ) {
    super(message, {
      extensions: { code, http: { status, ...(headers ? { headers } : {}) }, ...(details ? { details } : {}) },
    });
  }
}

export const badInput = (field: string, message: string) =>
  new AppError(400, 'INVALID_ARGUMENT', `${field}: ${message}`, { field });
export const unauthenticated = (message = 'authentication required: send Authorization: Bearer <token>') =>
  new AppError(401, 'UNAUTHENTICATED', message);
export const forbidden = (message: string, details?: Record<string, unknown>) =>
  new AppError(403, 'FORBIDDEN', message, details);
export const notFound = (what: string) => new AppError(404, 'NOT_FOUND', `${what} not found`);
export const conflict = (message: string) => new AppError(409, 'CONFLICT', message);
