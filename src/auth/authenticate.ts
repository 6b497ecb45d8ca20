import { Prisma } from '../generated/prisma/client';
import type { Db } from '../db/database';
import { forbidden, unauthenticated } from '../errors';
import { ROLE_SCOPES, type Role } from './scopes';
import { Session } from './session';
import { API_KEY_PREFIX, hashApiKey, ipAllowed, sameDigest } from './api-keys';
import { isScope } from './scopes';
import type { TokenService } from './tokens';
import { isUuid } from '../validation';
import type { KeyRateLimiter, RateLimitState } from './rate-limit';
import type { LastUsedRecorder } from './last-used';

/**
 * The credential a request presented when no session was made from it (a revoked key, a refused
 * parameter): the key's digest or the token's user, for the request log.
 */
export type RequestCredential = { apiKeyHash: string } | { userId: string };

/** A request's caller: its session, and for an API key its hourly budget after this request. */
export interface Authenticated {
  session: Session;
  rateLimit: RateLimitState | null;
}

/**
 * Turns a request's Authorization header into a session (API key, user JWT, else anonymous) and
 * counts an API key's request against its hour. The HTTP layer asks it once per request that
 * needs a caller.
 */
export class Authenticator {
  constructor(
    private readonly deps: { db: Db; tokens: TokenService; keyLimiter: KeyRateLimiter; lastUsed: LastUsedRecorder },
  ) {}

  async authenticate(authorization: string | null, ip: string | null): Promise<Authenticated> {
    const session = await resolveSession(authorization, this.deps.db, this.deps.tokens, ip);
    if (session.principal.kind !== 'apiKey') return { session, rateLimit: null };
    await this.deps.lastUsed.touch(session.principal.apiKeyId, session.principal.neverUsed);
    return {
      session,
      rateLimit: await this.deps.keyLimiter.consume(session.principal.apiKeyId, session.principal.rateLimitPerHour),
    };
  }

  /** Counts `count` more operations of the same request against an API key's hour (a GraphQL request counts one per root field). */
  consume(session: Session, count: number): Promise<RateLimitState> | null {
    if (session.principal.kind !== 'apiKey' || count <= 0) return null;
    return this.deps.keyLimiter.consume(session.principal.apiKeyId, session.principal.rateLimitPerHour, count);
  }

  /**
   * Who a credential names, for requests refused before a session exists (a revoked key, an
   * unknown parameter), so the request log can show them to the key's or user's admins.
   */
  async identify(authorization: string): Promise<RequestCredential | null> {
    const credential = /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
    if (!credential) return null;
    if (credential.startsWith(API_KEY_PREFIX)) return { apiKeyHash: hashApiKey(credential) };
    const { sub } = await this.deps.tokens.verify(credential);
    return sub && isUuid(sub) ? { userId: sub } : null;
  }
}

/** The session an Authorization header stands for: API key, user JWT, else anonymous. */
export async function resolveSession(
  authorization: string | null,
  db: Db,
  tokens: TokenService,
  ip: string | null,
): Promise<Session> {
  if (!authorization) return Session.anonymous();
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match?.[1]) throw unauthenticated('Authorization header must be "Bearer <token>"');
  const credential = match[1];
  if (credential.startsWith(API_KEY_PREFIX)) return resolveApiKey(credential, db, ip);

  const claims = await tokens.verify(credential);
  // The token proves identity; role, groups and whether the account is enabled are read fresh (one
  // statement), so a change to any of them applies from the next request on.
  const user = tokens.external
    ? typeof claims.email === 'string'
      ? await loadUser(db, Prisma.sql`u.email = ${claims.email.toLowerCase()}`)
      : null
    : claims.sub && isUuid(claims.sub)
      ? await loadUser(db, Prisma.sql`u.id = ${claims.sub}::uuid`)
      : null;
  if (!user) throw unauthenticated(tokens.external ? 'no account for this identity' : 'invalid token: unknown user');
  if (user.disabled_at) throw unauthenticated('account disabled');
  // An initial password awaiting its change grants nothing but the change itself (and /auth/me).
  if (user.must_change_password)
    return new Session(
      { kind: 'user', userId: user.id, email: user.email, role: user.role, mustChangePassword: true },
      [],
      [],
    );
  return new Session(
    { kind: 'user', userId: user.id, email: user.email, role: user.role },
    ROLE_SCOPES[user.role],
    user.dealer_group_ids,
  );
}

interface UserRow {
  id: string;
  email: string;
  role: Role;
  disabled_at: Date | null;
  must_change_password: boolean;
  dealer_group_ids: string[];
}

async function loadUser(db: Db, where: Prisma.Sql): Promise<UserRow | null> {
  const [row] = await db.$queryRaw<UserRow[]>(Prisma.sql`/* sessionUser */
    SELECT u.id, u.email, u.role::text AS role, u.disabled_at, u.must_change_password,
      COALESCE(array_agg(g.dealer_group_id::text) FILTER (WHERE g.dealer_group_id IS NOT NULL), '{}') AS dealer_group_ids
    FROM users u LEFT JOIN user_dealer_groups g ON g.user_id = u.id WHERE ${where} GROUP BY u.id`);
  return row ?? null;
}

interface ApiKeyRow {
  id: string;
  name: string;
  key_hash: string;
  scopes: string[];
  rate_limit_per_hour: number;
  allowed_ips: string[];
  revoked_at: Date | null;
  dealer_group_ids: string[];
  never_used: boolean;
}

/**
 * Looks the key up by its digest, on every request, so a revocation applies to the next request on
 * every server instance.
 */
async function resolveApiKey(key: string, db: Db, ip: string | null): Promise<Session> {
  const hash = hashApiKey(key);
  const [row] = await db.$queryRaw<ApiKeyRow[]>(Prisma.sql`/* sessionApiKey */
    SELECT k.id, k.name, k.key_hash, k.scopes, k.rate_limit_per_hour, k.allowed_ips, k.revoked_at, k.last_used_at IS NULL AS never_used,
      COALESCE(array_agg(g.dealer_group_id::text) FILTER (WHERE g.dealer_group_id IS NOT NULL), '{}') AS dealer_group_ids
    FROM api_keys k LEFT JOIN api_key_dealer_groups g ON g.api_key_id = k.id WHERE k.key_hash = ${hash} GROUP BY k.id`);
  if (!row || !sameDigest(row.key_hash, hash)) throw unauthenticated('invalid API key');
  if (row.revoked_at && row.revoked_at.getTime() <= Date.now()) throw unauthenticated('API key revoked');
  if (!ipAllowed(ip, row.allowed_ips))
    throw forbidden(`this API key may not be used from ${ip ?? 'an unknown address'}`);
  return new Session(
    {
      kind: 'apiKey',
      apiKeyId: row.id,
      name: row.name,
      rateLimitPerHour: row.rate_limit_per_hour,
      neverUsed: row.never_used,
    },
    row.scopes.filter(isScope),
    row.dealer_group_ids,
  );
}
