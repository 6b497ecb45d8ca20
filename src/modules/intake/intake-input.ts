import type { Session } from '../../auth/session';
import { badInput } from '../../errors';
import { RowProblem } from '../syncs/records';

/**
 * What the write operations share: the source a caller's writes are recorded as, and turning the
 * feed pipeline's row checks into 400s that name the field.
 */

/**
 * The source a caller writes as: `api_` and its API key's name in snake case ("Acme Ads" →
 * `api_acme_ads`; a rotated key keeps its name, so its source), or `manual` for a signed-in user.
 * The name fits a rooftop's source priorities (PUT /multi-source/priorities), whose names are 2-40
 * lower-case letters, digits and underscores; integration sources may not take these names.
 */
export function writerSource(session: Session): string {
  const { principal } = session;
  if (principal.kind !== 'apiKey') return 'manual';
  const slug = principal.name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .slice(0, 36)
    .replace(/^_+|_+$/g, '');
  return slug ? `api_${slug}` : `api_key_${principal.apiKeyId.replace(/-/g, '').slice(0, 8)}`;
}

/** Runs a feed record builder on API input: a row problem is a 400 naming its field. */
export function checkedRecord<T>(build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof RowProblem) throw badInput(error.field ?? 'body', error.message);
    throw error;
  }
}

/** More than a day ahead of this server's clock is a mistake (a wrong zone or year), not a clock skew. */
export function notInFuture(field: string, instant: Date, now = new Date()): Date {
  if (instant.getTime() > now.getTime() + 86_400_000)
    throw badInput(field, `${instant.toISOString()} is in the future`);
  return instant;
}

/** A provider's name as stored with calls and leads: 2-40 lower-case letters, digits, "_", "." or "-". */
export function providerName(field: string, value: string): string {
  const name = value.trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9_.-]{1,39}$/.test(name))
    throw badInput(field, 'must be 2-40 letters, digits, "_", "." or "-" (e.g. "callrail", "adf")');
  return name;
}
