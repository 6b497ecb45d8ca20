import type { EventEmitter } from 'node:events';
import { Prisma } from '../generated/prisma/client';
import { LISTENING_LOST, type Db } from '../db/database';
import { forbidden, unauthenticated } from '../errors';
import { ROLE_SCOPES, type Role } from './scopes';
import { Session } from './session';
import { Consent, type PartnerLink } from './consent';
import { API_KEY_PREFIX, hashApiKey, ipAllowed, sameDigest } from './api-keys';
import { isScope } from './scopes';
import type { TokenService } from './tokens';
import { isUuid } from '../validation';
import type { KeyRateLimiter, RateLimitState } from './rate-limit';
import type { LastUsedRecorder } from './last-used';

/**
 * The channel on which the database announces a change to who a user or an API key is, or what it
 * may see (the triggers of migration 20261123180500_auth_change_notifications).
 */
export const AUTH_CHANGES = 'ddp_auth';

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

interface UserRow {
  id: string;
  email: string;
  role: Role;
  disabled_at: Date | null;
  must_change_password: boolean;
  dealer_group_ids: string[];
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
  partner_id: string | null;
  partner_links: PartnerLink[];
}

/** How long a remembered user or key is trusted without a word from the database (a safety net for a lost connection). */
const REMEMBER_MS = 60_000;
const REMEMBER_AT_MOST = 10_000;

/**
 * Users and API keys as the database last described them, so most requests authenticate without a
 * statement. The database announces every change that matters (AUTH_CHANGES) to every instance
 * when it commits, and all of them forget everything they remembered.
 */
class RememberedPrincipals {
  private readonly entries = new Map<string, { row: UserRow | ApiKeyRow; until: number }>();
  /** Counts the changes announced, so a row read while one arrived is not kept. */
  private generation = 0;

  async get<Row extends UserRow | ApiKeyRow>(key: string, load: () => Promise<Row | null>): Promise<Row | null> {
    const entry = this.entries.get(key);
    if (entry && entry.until > Date.now()) return entry.row as Row;
    const generation = this.generation;
    const row = await load();
    // A change announced while the row was read may not be in it: use it, but do not keep it.
    if (row && generation === this.generation) {
      if (this.entries.size >= REMEMBER_AT_MOST) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { row, until: Date.now() + REMEMBER_MS });
    }
    return row;
  }

  forgetAll(): void {
    this.generation += 1;
    this.entries.clear();
  }
}

/**
 * Turns a request's Authorization header into a session (API key, user JWT, else anonymous) and
 * counts an API key's request against its hour. The HTTP layer asks it once per request that
 * needs a caller. Users and keys are remembered between requests and forgotten on every change
 * the database announces, so a revocation, a role change or a disabled account applies from the
 * next request on, on every instance.
 */
export class Authenticator {
  private readonly remembered = new RememberedPrincipals();

  constructor(
    private readonly deps: {
      db: Db;
      tokens: TokenService;
      keyLimiter: KeyRateLimiter;
      lastUsed: LastUsedRecorder;
      /** Where the database's notifications arrive (Database.notifications). */
      changes: EventEmitter;
    },
  ) {
    deps.changes.on(AUTH_CHANGES, () => this.remembered.forgetAll());
    // With no connection listening, another instance's revocation would go unheard.
    deps.changes.on(LISTENING_LOST, () => this.remembered.forgetAll());
  }

  async authenticate(authorization: string | null, ip: string | null): Promise<Authenticated> {
    const session = await this.resolveSession(authorization, ip);
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

  /** Gives back `count` operations of this request to an API key's hour (a 304 is not counted). */
  refund(session: Session, count: number): Promise<RateLimitState> | null {
    if (session.principal.kind !== 'apiKey' || count <= 0) return null;
    return this.deps.keyLimiter.refund(session.principal.apiKeyId, session.principal.rateLimitPerHour, count);
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

  /** The session an Authorization header stands for: API key, user JWT, else anonymous. */
  private async resolveSession(authorization: string | null, ip: string | null): Promise<Session> {
    if (!authorization) return Session.anonymous();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) throw unauthenticated('Authorization header must be "Bearer <token>"');
    const credential = match[1];
    if (credential.startsWith(API_KEY_PREFIX)) return this.apiKeySession(credential, ip);

    const { tokens } = this.deps;
    const claims = await tokens.verify(credential);
    // The token proves identity; role, groups and whether the account is enabled come from the
    // database (remembered until it announces a change), so a change to any of them applies from
    // the next request on.
    const user = tokens.external
      ? typeof claims.email === 'string'
        ? await this.user(`email:${claims.email.toLowerCase()}`, Prisma.sql`u.email = ${claims.email.toLowerCase()}`)
        : null
      : claims.sub && isUuid(claims.sub)
        ? await this.user(`user:${claims.sub}`, Prisma.sql`u.id = ${claims.sub}::uuid`)
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
    return sessionOfUser(user);
  }

  private user(key: string, where: Prisma.Sql): Promise<UserRow | null> {
    return this.remembered.get(key, () => loadUser(this.deps.db, where));
  }

  /** The key by its digest; its revocation time and address allow-list are checked on every request. */
  private async apiKeySession(key: string, ip: string | null): Promise<Session> {
    const hash = hashApiKey(key);
    const row = await this.remembered.get(`key:${hash}`, () =>
      loadApiKey(this.deps.db, Prisma.sql`k.key_hash = ${hash}`),
    );
    if (!row || !sameDigest(row.key_hash, hash)) throw unauthenticated('invalid API key');
    if (row.revoked_at && row.revoked_at.getTime() <= Date.now()) throw unauthenticated('API key revoked');
    if (!ipAllowed(ip, row.allowed_ips))
      throw forbidden(`this API key may not be used from ${ip ?? 'an unknown address'}`);
    const neverUsed = row.never_used;
    // Its first use is written by this request; later ones are batched (LastUsedRecorder).
    row.never_used = false;
    return sessionOfKey(row, neverUsed);
  }
}

/** A signed-in user's session: its role's scopes and its groups. */
const sessionOfUser = (row: UserRow) =>
  new Session(
    { kind: 'user', userId: row.id, email: row.email, role: row.role },
    ROLE_SCOPES[row.role],
    row.dealer_group_ids,
  );

/** An API key's session: its scopes, its groups and, bound to a partner, the partner's links. */
const sessionOfKey = (row: ApiKeyRow, neverUsed = false) =>
  new Session(
    { kind: 'apiKey', apiKeyId: row.id, name: row.name, rateLimitPerHour: row.rate_limit_per_hour, neverUsed },
    row.scopes.filter(isScope),
    row.dealer_group_ids,
    row.partner_id ? new Consent(row.partner_id, row.partner_links) : null,
  );

async function loadUser(db: Db, where: Prisma.Sql): Promise<UserRow | null> {
  const [row] = await db.$queryRaw<UserRow[]>(Prisma.sql`/* sessionUser */
    SELECT u.id, u.email, u.role::text AS role, u.disabled_at, u.must_change_password,
      COALESCE(array_agg(g.dealer_group_id::text) FILTER (WHERE g.dealer_group_id IS NOT NULL), '{}') AS dealer_group_ids
    FROM users u LEFT JOIN user_dealer_groups g ON g.user_id = u.id WHERE ${where} GROUP BY u.id`);
  return row ?? null;
}

async function loadApiKey(db: Db, where: Prisma.Sql): Promise<ApiKeyRow | null> {
  const [row] = await db.$queryRaw<ApiKeyRow[]>(Prisma.sql`/* sessionApiKey */
    SELECT k.id, k.name, k.key_hash, k.scopes, k.rate_limit_per_hour, k.allowed_ips, k.revoked_at, k.last_used_at IS NULL AS never_used,
      COALESCE(array_agg(g.dealer_group_id::text) FILTER (WHERE g.dealer_group_id IS NOT NULL), '{}') AS dealer_group_ids,
      k.partner_id::text AS partner_id,
      (SELECT COALESCE(json_agg(json_build_object('dealer_id', pd.dealer_id, 'permissions', pd.data_permissions) ORDER BY pd.dealer_id), '[]')
       FROM partner_dealers pd WHERE pd.partner_id = k.partner_id) AS partner_links
    FROM api_keys k LEFT JOIN api_key_dealer_groups g ON g.api_key_id = k.id WHERE ${where} GROUP BY k.id`);
  return row ?? null;
}

/** What a session may see and do, comparable between two reads of it. */
const accessOf = (session: Session) =>
  JSON.stringify([
    [...session.scopes].sort(),
    [...session.dealerGroupIds].sort(),
    session.consent ? [session.consent.partnerId, session.consent.links] : null,
  ]);

/**
 * Whether a session made earlier still stands as it was: its user enabled with the same role and
 * groups, its key unrevoked with the same scopes, groups and partner links. A long-lived stream
 * (a subscription) asks it whenever the database announces a change (AUTH_CHANGES), and ends when
 * the answer is no, so a revoked key or a narrowed link stops receiving at once.
 */
export async function accessUnchanged(db: Db, session: Session): Promise<boolean> {
  const { principal } = session;
  if (principal.kind === 'apiKey') {
    const row = await loadApiKey(db, Prisma.sql`k.id = ${principal.apiKeyId}::uuid`);
    if (!row || (row.revoked_at && row.revoked_at.getTime() <= Date.now())) return false;
    return accessOf(sessionOfKey(row)) === accessOf(session);
  }
  if (principal.kind === 'user') {
    const row = await loadUser(db, Prisma.sql`u.id = ${principal.userId}::uuid`);
    if (!row || row.disabled_at || row.must_change_password) return false;
    return accessOf(sessionOfUser(row)) === accessOf(session);
  }
  return false;
}
