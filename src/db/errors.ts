import { AppError } from '../errors';

/**
 * What a database failure means for the caller, in one place for every operation: two requests
 * racing to create the same unique thing is a 409 (the loser would have got it one at a time too),
 * a statement cancelled by the statement timeout is a 503. Anything else is not the caller's doing.
 */
export function databaseErrorFor(error: unknown): AppError | null {
  const failure = postgresFailure(error);
  if (!failure) return null;
  if (failure.code === '23505') {
    const what = failure.fields.length ? `the same ${failure.fields.join(', ')}` : 'the same unique value';
    return new AppError(
      409,
      'CONFLICT',
      `a record with ${what} already exists (another request may have just created it)`,
      failure.fields.length ? { fields: failure.fields } : undefined,
    );
  }
  if (failure.code === '57014') {
    return new AppError(
      503,
      'QUERY_TIMEOUT',
      'the query ran past the statement time limit and was cancelled; narrow the filters or the date range and retry',
      undefined,
      { 'Retry-After': '5' },
    );
  }
  return null;
}

interface PostgresFailure {
  code: string;
  fields: string[];
}

/** The SQLSTATE (and the unique key's fields) of a pg or Prisma error, looking through wrappers. */
function postgresFailure(error: unknown, depth = 0): PostgresFailure | null {
  if (!error || typeof error !== 'object' || depth > 5) return null;
  const candidate = error as {
    code?: unknown;
    constraint?: unknown;
    meta?: { target?: unknown; driverAdapterError?: { cause?: Record<string, unknown> } };
    originalError?: unknown;
    cause?: unknown;
  };
  // Prisma: P2002 on model writes, P2010 (raw queries) with the driver's cause.
  const cause = candidate.meta?.driverAdapterError?.cause;
  if (candidate.code === 'P2002' || cause?.kind === 'UniqueConstraintViolation') {
    return {
      code: '23505',
      fields: uniqueFields(
        candidate.meta?.target ??
          (cause?.constraint as Record<string, unknown> | undefined)?.fields ??
          (cause?.constraint as Record<string, unknown> | undefined)?.index,
      ),
    };
  }
  if (typeof cause?.originalCode === 'string') return { code: cause.originalCode, fields: [] };
  // node-postgres: the SQLSTATE itself.
  if (typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code)) {
    return { code: candidate.code, fields: candidate.code === '23505' ? uniqueFields(candidate.constraint) : [] };
  }
  return postgresFailure(candidate.originalError ?? candidate.cause, depth + 1);
}

/** Field names from a Prisma target (["email"] or ["dealer_group_id", "email"]); index names say nothing a caller can use. */
function uniqueFields(target: unknown): string[] {
  return Array.isArray(target) ? target.map(String) : [];
}
