import { RE2JS } from 're2js';
import { badInput } from './errors';

/** Input checks shared by the modules; each failure is a 400 that names the field. */

export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): boolean {
  return typeof value === 'string' && UUID_PATTERN.test(value);
}

export function uuid(field: string, value: string): string {
  if (!isUuid(value)) throw badInput(field, `"${value}" is not an id (a UUID)`);
  return value;
}

export function requiredText(field: string, value: string | null | undefined, max = 200): string {
  const text = value?.trim() ?? '';
  if (!text) throw badInput(field, 'must not be empty');
  if (text.length > max) throw badInput(field, `must be at most ${max} characters`);
  return text;
}

export function optionalText(field: string, value: string | null | undefined, max = 200): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  const text = value.trim();
  if (text.length > max) throw badInput(field, `must be at most ${max} characters`);
  return text || null;
}

/** North American numbers to E.164 (+1…); other numbers must already carry their + and country code. Null when it is not a phone number. */
/** Something @ something . something, no spaces: the one email shape the platform accepts. */
export const isEmailAddress = (value: string) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(value);

/** A lower-cased email address, else 400 naming the field. */
export function emailAddress(field: string, value: string | null | undefined): string {
  const email = (value ?? '').trim().toLowerCase();
  if (!isEmailAddress(email) || email.length > 200) throw badInput(field, 'must be an email address');
  return email;
}

export function toE164(value: string): string | null {
  const digits = value.replace(/[^\d+]/g, '');
  if (/^\+[1-9]\d{7,14}$/.test(digits)) return digits;
  const bare = digits.replace(/\D/g, '');
  if (bare.length === 10) return `+1${bare}`;
  if (bare.length === 11 && bare.startsWith('1')) return `+${bare}`;
  return null;
}

export function phoneNumber(field: string, value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null || !value.trim()) return value === undefined ? undefined : null;
  const normalized = toE164(value);
  if (!normalized) throw badInput(field, `"${value}" is not a phone number; use 10 digits or +country code`);
  return normalized;
}

export function websiteUrl(field: string, value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null || !value.trim()) return value === undefined ? undefined : null;
  const text = value.trim();
  try {
    const url = new URL(/^https?:\/\//i.test(text) ? text : `https://${text}`);
    if (!url.hostname.includes('.')) throw new Error('no domain');
    return url.toString().replace(/\/$/, '');
  } catch {
    throw badInput(field, `"${value}" is not a web address`);
  }
}

export function timeZone(field: string, value: string | null | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return value;
  } catch {
    throw badInput(field, `"${value}" is not an IANA time zone such as America/Denver`);
  }
}

export function oneOf<T extends string>(field: string, value: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T))
    throw badInput(field, `unknown value "${value}"; expected one of ${allowed.join(', ')}`);
  return value as T;
}

/** A list filter of enum values: repeated or comma-separated, each checked against the allowed ones. */
export function enumList<T extends string>(
  field: string,
  values: readonly string[] | null | undefined,
  allowed: readonly T[],
): T[] | undefined {
  return values?.flatMap((value) => value.split(',')).map((value) => oneOf(field, value.trim(), allowed));
}

/** GraphQL ID list arguments arrive as strings or numbers; services take strings. */
export function withDealerIds<T>(args: { dealer_id?: ReadonlyArray<string | number> | null } & object): T {
  return { ...args, dealer_id: args.dealer_id?.map(String) } as T;
}

export function dateRange(
  from: Date | null | undefined,
  to: Date | null | undefined,
): { gte?: Date; lte?: Date } | undefined {
  if (from && to && from > to) throw badInput('from', 'must not be after to');
  return from || to ? { ...(from ? { gte: from } : {}), ...(to ? { lte: to } : {}) } : undefined;
}

/** The dealer_id filter: ids must be UUIDs; the tenant filter still applies, so a foreign id just matches nothing. */
export function dealerIds(value: readonly string[] | null | undefined): string[] | undefined {
  if (!value?.length) return undefined;
  const ids = value
    .flatMap((entry) => String(entry).split(','))
    .map((entry) => entry.trim())
    .filter(Boolean);
  for (const id of ids) uuid('dealer_id', id);
  return ids;
}

/**
 * Why a tenant's pattern cannot be used, or null. Patterns must be RE2 syntax (no back-references or
 * lookaround: the constructs that need backtracking) and at most 200 characters. Rules run them on
 * RE2 (linear time); source mappings run them in PostgreSQL, whose engine needs no backtracking for
 * this subset, under the request statement timeout.
 */
export function patternProblem(pattern: string): string | null {
  if (!pattern.trim()) return 'must not be empty';
  if (pattern.length > 200) return 'must be at most 200 characters';
  try {
    RE2JS.compile(pattern, RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    return `is not a supported regular expression (RE2 syntax: no back-references or lookaround): ${(error as Error).message.replace(/^error parsing regexp: /, '')}`;
  }
  return null;
}
