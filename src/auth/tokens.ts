import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  SignJWT,
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
  type CryptoKey,
} from 'jose';
import type { Config } from '../config';
import { unauthenticated } from '../errors';
import type { SigningKeys } from './signing-keys';

/** Issues our RS256 access tokens and verifies incoming ones (ours, or an external provider's). */
export interface TokenService {
  /** True when tokens come from an external identity provider, not from /auth/login. */
  external: boolean;
  issueAccessToken(claims: {
    userId: string;
    email: string;
    role: string;
    dealerGroupIds: readonly string[];
  }): Promise<{ token: string; expiresAt: Date }>;
  verify(token: string): Promise<JWTPayload>;
}

/** How long, and for how many tokens, a verified signature is taken as read (never past the token's expiry). */
const VERIFIED_FOR_MS = 60_000;
const VERIFIED_AT_MOST = 10_000;

/**
 * Tokens whose signature and claims checked out, by SHA-256 digest: a client sends the same token
 * with every request for up to 15 minutes, and an RS256 verification costs more CPU than the rest
 * of a small request's authentication. A token's validity changes only with time (who may still
 * use it is the Authenticator's question, asked on every request), so an entry lasts until the
 * token expires, at most a minute.
 */
class VerifiedTokens {
  private readonly entries = new Map<string, { payload: JWTPayload; until: number }>();

  get(digest: string): JWTPayload | null {
    const entry = this.entries.get(digest);
    if (!entry) return null;
    if (entry.until > Date.now()) return entry.payload;
    this.entries.delete(digest);
    return null;
  }

  set(digest: string, payload: JWTPayload): void {
    if (this.entries.size >= VERIFIED_AT_MOST) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(digest, { payload, until: Math.min(Date.now() + VERIFIED_FOR_MS, (payload.exp ?? 0) * 1000) });
  }
}

export function createTokenService(config: Config['jwt'], keys: SigningKeys): TokenService {
  const verificationKey: CryptoKey | JWTVerifyGetKey = config.jwksUrl
    ? createRemoteJWKSet(new URL(config.jwksUrl))
    : keys.publicKey;
  const verified = new VerifiedTokens();
  return {
    external: Boolean(config.jwksUrl),
    async issueAccessToken({ userId, email, role, dealerGroupIds }) {
      const expiresAt = new Date(Math.floor(Date.now() / 1000 + config.accessTokenTtlSeconds) * 1000);
      const token = await new SignJWT({ email, role, groups: [...dealerGroupIds] })
        .setProtectedHeader({ alg: 'RS256', kid: keys.kid, typ: 'JWT' })
        .setIssuer(config.issuer)
        .setAudience(config.audience)
        .setSubject(userId)
        .setIssuedAt()
        .setJti(randomUUID())
        .setExpirationTime(Math.floor(expiresAt.getTime() / 1000))
        .sign(keys.privateKey);
      return { token, expiresAt };
    },
    async verify(token) {
      const digest = hashToken(token);
      const known = verified.get(digest);
      if (known) return known;
      try {
        const { payload } = await jwtVerify(token, verificationKey as CryptoKey, {
          algorithms: ['RS256'],
          issuer: config.issuer,
          audience: config.audience,
          requiredClaims: ['sub', 'exp'],
        });
        verified.set(digest, payload);
        return payload;
      } catch (error) {
        if (error instanceof joseErrors.JWTExpired) throw unauthenticated('token expired: refresh it or log in again');
        if (
          error instanceof joseErrors.JWKSNoMatchingKey ||
          error instanceof joseErrors.JWSSignatureVerificationFailed
        ) {
          throw unauthenticated('invalid token: signature not recognised');
        }
        if (error instanceof joseErrors.JWTClaimValidationFailed)
          throw unauthenticated(`invalid token: ${error.claim} claim rejected`);
        if (error instanceof joseErrors.JOSEAlgNotAllowed)
          throw unauthenticated('invalid token: only RS256 tokens are accepted');
        throw unauthenticated('invalid token');
      }
    },
  };
}

/** An opaque refresh token and the SHA-256 digest we store in its place. */
export function newRefreshToken(): { token: string; hash: string } {
  const token = `rt_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashToken(token) };
}

export const hashToken = (token: string) => createHash('sha256').update(token).digest('base64url');
