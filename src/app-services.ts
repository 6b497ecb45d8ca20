import type { EventTail } from './modules/events/event-tail';
import type { Database } from './db/database';
import type { Logger } from './logger';
import type { SecretBox } from './secrets';
import type { Mailer } from './mail';
import type { TokenService } from './auth/tokens';
import type { LoginThrottle } from './auth/rate-limit';
import type { BackgroundWork } from './background-work';

/**
 * What the app builds once (app.ts) and hands to the operations that need it: GraphQL's root value,
 * so every Query and Mutation resolver receives it as its first argument (REST runs through the
 * same executor). The per-request context stays small; services take only the slice they use.
 */
export interface AppServices {
  database: Database;
  logger: Logger;
  /** Seals integration credentials and provider keys at rest. */
  secrets: SecretBox;
  mailer: Mailer;
  auth: AuthServices;
  /** Work that outlives the request that started it (sync runs); shutdown waits for it. */
  background: BackgroundWork;
  feeds: FeedSettings;
  /** Live events for GraphQL subscriptions, read from the events table. */
  events: EventTail;
}

/** What signing in, refreshing and changing passwords need. */
export interface AuthServices {
  tokens: TokenService;
  refreshTokenTtlSeconds: number;
  loginThrottle: LoginThrottle;
}

/** Where feed files live, how providers reach the SFTP server, and which outbound addresses tenants may name. */
export interface FeedSettings {
  dataDir: string | null;
  /** Where data providers reach the SFTP server; null when it is off. */
  sftp: { host: string; port: number } | null;
  allowInsecureHttpPull: boolean;
  /** Outbound requests may reach loopback and private networks (ALLOW_PRIVATE_NETWORKS). */
  allowPrivateNetworks: boolean;
}
