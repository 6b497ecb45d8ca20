import type { Db } from './db/database';
import type { Session } from './auth/session';
import type { TokenService } from './auth/tokens';
import type { LoginThrottle, RateLimitState } from './auth/rate-limit';
import type { Loaders } from './loaders';
import type { SecretBox } from './secrets';
import type { SyncRunner } from './modules/syncs/sync-runner';
import type { Mailer } from './mail';

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
  services: AppServices;
}

/** App-wide services the ingestion operations use. */
export interface AppServices {
  secrets: SecretBox;
  syncs: SyncRunner;
  mailer: Mailer;
  /** Where data providers reach the SFTP server; null when it is off. */
  sftp: { host: string; port: number } | null;
  allowInsecureHttpPull: boolean;
  /** Outbound requests may reach loopback and private networks (ALLOW_PRIVATE_NETWORKS). */
  allowPrivateNetworks: boolean;
  dataDir: string | null;
  /** The pg pool, for bulk paths (merges, loads) that run as set-based SQL. */
  pool: import('pg').Pool;
}

/** The app-wide pieces authentication needs. */
export interface AuthServices {
  tokens: TokenService;
  refreshTokenTtlSeconds: number;
  loginThrottle: LoginThrottle;
}
