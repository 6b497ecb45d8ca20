import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database';
import type { Logger } from '../logger';
import type { SecretBox } from '../secrets';
import type { Session } from '../auth/session';
import { errorResponse } from './errors';

/**
 * Idempotent REST writes, by Stripe's rules: a POST or PATCH sent with an `Idempotency-Key` runs
 * once per caller and key; sent again within 24 hours with the same method, path and body it gets
 * the first answer again (`Idempotent-Replayed: true`), with another request it is a 422, and while
 * the first still runs a 409. Kept in PostgreSQL, so every instance sees every key. The body is
 * kept only as a keyed fingerprint (it may hold a password) and the answer sealed with the secrets
 * key ring (it may show a secret once: a new API key, an invitation link).
 */

const IDEMPOTENCY_WINDOW_SECONDS = 24 * 3600;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** How long a running request's claim holds without renewal: past it, its instance is taken to have stopped. */
const LEASE_SECONDS = 60;
const RENEW_MS = 15_000;
const SWEEP_MS = 10 * 60_000;
/** The headers of an answer that are part of it; the rest (request id, rate limits, CORS) belong to each request. */
const KEPT_HEADERS = ['content-type', 'location'];

/** Why an Idempotency-Key cannot be used, or null: 1-255 printable ASCII characters. */
export function idempotencyKeyProblem(key: string): string | null {
  if (!key.length) return 'must not be empty';
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) return `must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} characters`;
  if (!/^[\x20-\x7e]+$/.test(key)) return 'may hold only printable ASCII characters';
  return null;
}

/** Whom a key belongs to; null for a caller without credentials, to whom no key can be tied. */
export function keyOwner(session: Session): string | null {
  const { principal } = session;
  if (principal.kind === 'apiKey') return `api_key:${principal.apiKeyId}`;
  if (principal.kind === 'user') return `user:${principal.userId}`;
  return null;
}

/** JSON with object keys sorted and no spaces, so a retry that serialises the same body differently is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const members = Object.keys(record)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Whether an answer is kept for replay. Not when it says nothing ran (400 refused input, 401 and
 * 403 who asked, 429 when), nor a server failure: as at Stripe, the retry runs again, and a
 * corrected request may use the same key.
 */
function keepsAnswer(status: number): boolean {
  return status < 500 && ![400, 401, 403, 429].includes(status);
}

/** One write sent with a key, as the REST bridge knows it after validating it. */
export interface IdempotentWrite {
  /** keyOwner() of the session. */
  caller: string;
  key: string;
  method: string;
  /** Path and query string. */
  path: string;
  /** The parsed JSON body; undefined when none was sent (the same request as `{}`). */
  body: unknown;
}

interface StoredRequest {
  method: string;
  path: string;
  body_fingerprint: string;
  claim_id: string;
  lease_lapsed: boolean;
  status: number | null;
  headers: Record<string, string> | null;
  sealed_body: string | null;
}

/** What trying to take a key ends in: the key, an answer to give instead, or nothing to go on (its row went away). */
type Claim = { kind: 'claimed'; claimId: string } | { kind: 'answered'; answer: Response } | { kind: 'gone' };

const keyError = (status: number, code: string, message: string, headers?: Record<string, string>) =>
  errorResponse(status, code, `Idempotency-Key: ${message}`, { field: 'Idempotency-Key' }, headers);

/** The store and the protocol: claims a key for a request, runs it once, keeps or forgets its answer, replays it. */
export class IdempotentRequests {
  private sweeper: NodeJS.Timeout | null = null;

  constructor(private readonly deps: { db: Db; secrets: SecretBox; logger: Logger }) {}

  /**
   * Answers a write sent with a key: runs it when the key is new to this caller (or expired, or left
   * by an instance that stopped mid-request), else replays, refuses (422) or waits (409). `run`
   * answers undefined when the request matched no operation; nothing is kept then.
   */
  async answer(write: IdempotentWrite, run: () => Promise<Response | undefined>): Promise<Response | undefined> {
    const bodyText = canonicalJson(write.body ?? {});
    const fingerprintContext = `idempotency:${write.caller}`;
    // A row can vanish between the claim and the read (its run failed, or it was swept): claim again.
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const claim = await this.claim(write, bodyText, fingerprintContext);
      if (claim.kind === 'claimed') return this.runClaimed({ ...write, claimId: claim.claimId }, run);
      if (claim.kind === 'answered') return claim.answer;
    }
    return keyError(409, 'IDEMPOTENCY_KEY_IN_USE', 'requests with this key keep racing; retry in a moment', {
      'retry-after': '1',
    });
  }

  /** Takes the key for this request, or says what to answer instead. */
  private async claim(write: IdempotentWrite, bodyText: string, fingerprintContext: string): Promise<Claim> {
    const { db, secrets } = this.deps;
    const fingerprint = secrets.fingerprint(bodyText, fingerprintContext);
    // Not the request id, which a client may choose: two requests could share it.
    const claimId = randomUUID();
    // A key older than the window is free again: the insert takes its row over.
    const inserted = await db.$queryRaw<unknown[]>`/* claimIdempotencyKey */
      INSERT INTO idempotent_requests AS r (caller, key, method, path, body_fingerprint, claim_id, lease_until)
      VALUES (${write.caller}, ${write.key}, ${write.method}, ${write.path}, ${fingerprint}, ${claimId}::uuid,
        now() + make_interval(secs => ${LEASE_SECONDS}))
      ON CONFLICT (caller, key) DO UPDATE SET method = excluded.method, path = excluded.path,
        body_fingerprint = excluded.body_fingerprint, claim_id = excluded.claim_id, created_at = now(),
        lease_until = excluded.lease_until, status = NULL, headers = NULL, sealed_body = NULL
      WHERE r.created_at <= now() - make_interval(secs => ${IDEMPOTENCY_WINDOW_SECONDS})
      RETURNING 1`;
    if (inserted.length) return { kind: 'claimed', claimId };

    const [stored] = await db.$queryRaw<StoredRequest[]>`/* idempotentRequest */
      SELECT method, path, body_fingerprint, claim_id::text, lease_until < now() AS lease_lapsed, status, headers, sealed_body
      FROM idempotent_requests WHERE caller = ${write.caller} AND key = ${write.key}`;
    if (!stored) return { kind: 'gone' };
    // Another instance kept it under a key this one lacks: a setup fault, not a different request.
    if (!secrets.holdsKeyOf(stored.body_fingerprint))
      throw new Error('an idempotent request was kept under a secrets key this instance lacks: share CREDENTIALS_KEYS');
    if (stored.method !== write.method || stored.path !== write.path)
      return {
        kind: 'answered',
        answer: keyError(
          422,
          'IDEMPOTENCY_KEY_REUSED',
          `this key was used within the last 24 hours with a different request (${stored.method} ${stored.path}); send a new key for a new request`,
        ),
      };
    if (!secrets.hasFingerprint(stored.body_fingerprint, bodyText, fingerprintContext))
      return {
        kind: 'answered',
        answer: keyError(
          422,
          'IDEMPOTENCY_KEY_REUSED',
          'this key was used within the last 24 hours with a different request (another body); send a new key for a new request',
        ),
      };
    if (stored.status !== null) return { kind: 'answered', answer: this.replay(write, stored) };
    if (!stored.lease_lapsed)
      return {
        kind: 'answered',
        answer: keyError(
          409,
          'IDEMPOTENCY_KEY_IN_USE',
          'a request with this key is still running; retry once it has answered',
          { 'retry-after': '1' },
        ),
      };
    // The instance running it stopped before it answered: this request runs it instead.
    const taken = await db.$queryRaw<unknown[]>`/* takeOverIdempotencyKey */
      UPDATE idempotent_requests SET claim_id = ${claimId}::uuid, lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
      WHERE caller = ${write.caller} AND key = ${write.key} AND claim_id = ${stored.claim_id}::uuid AND status IS NULL
      RETURNING 1`;
    return taken.length ? { kind: 'claimed', claimId } : { kind: 'gone' };
  }

  /** Runs the claimed request, renewing its lease meanwhile, then keeps its answer or frees the key. */
  private async runClaimed(
    write: IdempotentWrite & { claimId: string },
    run: () => Promise<Response | undefined>,
  ): Promise<Response | undefined> {
    const { db, logger } = this.deps;
    const mine = { caller: write.caller, key: write.key, claimId: write.claimId };
    const renewal = setInterval(() => {
      db.$executeRaw`/* renewIdempotencyLease */ UPDATE idempotent_requests SET lease_until = now() + make_interval(secs => ${LEASE_SECONDS})
        WHERE caller = ${mine.caller} AND key = ${mine.key} AND claim_id = ${mine.claimId}::uuid AND status IS NULL`.catch(
        (error: unknown) => logger.warn('idempotency lease not renewed', { path: write.path, error }),
      );
    }, RENEW_MS);
    renewal.unref();
    let response: Response | undefined;
    try {
      response = await run();
    } catch (error) {
      clearInterval(renewal);
      await this.release(mine);
      throw error;
    }
    clearInterval(renewal);
    if (!response || !keepsAnswer(response.status)) {
      await this.release(mine);
      return response;
    }
    const body = await response.text();
    const headers = Object.fromEntries(
      KEPT_HEADERS.flatMap((name) => {
        const value = response.headers.get(name);
        return value === null ? [] : [[name, value]];
      }),
    );
    const sealed = this.deps.secrets.seal(body, sealContext(write));
    await db.$executeRaw`/* keepIdempotentAnswer */ UPDATE idempotent_requests
      SET status = ${response.status}, headers = ${JSON.stringify(headers)}::jsonb, sealed_body = ${sealed}, lease_until = NULL
      WHERE caller = ${mine.caller} AND key = ${mine.key} AND claim_id = ${mine.claimId}::uuid`.catch(
      (error: unknown) =>
        // The caller still gets its answer; a retry after the lease lapses would run the request again.
        logger.warn('idempotent answer not kept', { path: write.path, error }),
    );
    return new Response(body, { status: response.status, headers: response.headers });
  }

  /** Frees a key whose request kept no answer, so a retry runs it. */
  private async release(mine: { caller: string; key: string; claimId: string }): Promise<void> {
    await this.deps.db.$executeRaw`/* releaseIdempotencyKey */ DELETE FROM idempotent_requests
      WHERE caller = ${mine.caller} AND key = ${mine.key} AND claim_id = ${mine.claimId}::uuid AND status IS NULL`.catch(
      (error: unknown) => this.deps.logger.warn('idempotency key not released', { error }),
    );
  }

  private replay(write: IdempotentWrite, stored: StoredRequest): Response {
    const body = this.deps.secrets.open(stored.sealed_body ?? '', sealContext(write));
    return new Response(body, {
      status: stored.status!,
      headers: { ...stored.headers, 'idempotent-replayed': 'true' },
    });
  }

  /** Deletes the keys past their 24 hours (each instance does, now and then; a claim ignores them anyway). */
  async sweep(): Promise<number> {
    return this.deps.db.$executeRaw`/* sweepIdempotencyKeys */ DELETE FROM idempotent_requests
      WHERE created_at <= now() - make_interval(secs => ${IDEMPOTENCY_WINDOW_SECONDS})`;
  }

  /** Sweeps now and every 10 minutes. */
  async start(): Promise<void> {
    await this.sweep();
    this.sweeper = setInterval(() => {
      this.sweep().catch((error: unknown) => this.deps.logger.warn('idempotency keys not swept', { error }));
    }, SWEEP_MS);
    this.sweeper.unref();
  }

  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
  }
}

/** What a stored answer is sealed to: opened for another caller's or key's row, it fails. */
const sealContext = (write: Pick<IdempotentWrite, 'caller' | 'key'>) =>
  JSON.stringify(['idempotent-answer', write.caller, write.key]);
