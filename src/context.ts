import type { Db } from './db/database';
import type { Session } from './auth/session';
import type { TokenService } from './auth/tokens';

/** What the HTTP layer hands to Yoga for one request, and learns back from it for the request log. */
export interface RequestMeta {
  requestId: string;
  ip: string | null;
  userId: string | null;
  apiKeyId: string | null;
  dealerGroupIds: readonly string[];
  operation: string | null;
}

/** The per-request context of every resolver: small and always complete. */
export interface Context {
  requestId: string;
  db: Db;
  session: Session;
  tokens: TokenService;
  refreshTokenTtlSeconds: number;
  meta: RequestMeta;
}
