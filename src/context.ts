import type { Db } from './db/database';
import type { Session } from './auth/session';
import type { TokenService } from './auth/tokens';
import type { LoginThrottle, RateLimitState } from './auth/rate-limit';
import type { Loaders } from './loaders';

/** What the HTTP layer hands to Yoga for one request, and learns back from it for the request log. */
export interface RequestMeta {
  requestId: string;
  ip: string | null;
  userId: string | null;
  apiKeyId: string | null;
  dealerGroupIds: readonly string[];
  operation: string | null;
  /** The API key's budget after this request, for the RateLimit-* headers. */
  rateLimit: RateLimitState | null;
}

/** The per-request context of every resolver: small and always complete. */
export interface Context {
  requestId: string;
  db: Db;
  session: Session;
  meta: RequestMeta;
  auth: AuthServices;
  loaders: Loaders;
}

/** The app-wide pieces authentication needs. */
export interface AuthServices {
  tokens: TokenService;
  refreshTokenTtlSeconds: number;
  loginThrottle: LoginThrottle;
}
