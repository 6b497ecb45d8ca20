import path from 'node:path';
import { passwordProblem } from './auth/passwords';
import { isEmailAddress } from './validation';

/** Every environment variable the server reads, parsed and validated once. */
export interface Config {
  env: 'development' | 'production' | 'test';
  port: number;
  host: string;
  /** External PostgreSQL; null runs the embedded PostgreSQL under `dataDir`. */
  databaseUrl: string | null;
  /** Named prepared statements on DATABASE_URL's server; off for servers that share one session among clients. */
  preparedStatements: boolean;
  /** Where the embedded database, signing keys and other local state live; null keeps them in memory. */
  dataDir: string | null;
  adminEmail: string | null;
  adminPassword: string | null;
  seedDemoData: boolean;
  demoVehicles: number;
  jwt: {
    /** PEM-encoded RS256 private key; when absent one is made and kept in `dataDir`. */
    privateKey: string | null;
    issuer: string;
    audience: string;
    accessTokenTtlSeconds: number;
    refreshTokenTtlSeconds: number;
    /** An external identity provider's key set; when set, tokens are verified against it instead. */
    jwksUrl: string | null;
  };
  /** Redis for rate-limit state shared by several instances; null keeps it in memory. */
  redisUrl: string | null;
  /** How many reverse proxies in front of us append to X-Forwarded-For; 0 ignores the header. */
  trustProxyHops: number;
  maxBodyBytes: number;
  /** Browser origins allowed to call the API (CORS_ORIGINS, comma-separated); empty allows none. */
  corsOrigins: string[];
  /** GraphiQL at GET /graphql (GRAPHIQL; on except in production). */
  graphiql: boolean;
  /** Introspection for callers without credentials (INTROSPECTION_ANONYMOUS; on except in production). */
  anonymousIntrospection: boolean;
  /** Limits on one GraphQL operation (GRAPHQL_MAX_DEPTH, _ALIASES, _TOKENS, _COST); REST operations are fixed documents and exempt. */
  graphqlLimits: { maxDepth: number; maxAliases: number; maxTokens: number; maxCost: number };
  /**
   * Overrides of the per-field rate limits the schema declares, by limit name (FIELD_RATE_LIMITS,
   * e.g. `Query.matchDealers=60/1m,assistant-messages=10/1m`).
   */
  fieldRateLimits: Record<string, { max: number; window: string }>;
  /** Longest a request's SQL statement may run before it is cancelled with a 503 (STATEMENT_TIMEOUT_MS). */
  statementTimeoutMs: number;
  /** Memory for recent answers to repeated inventory reads (ANSWER_CACHE_MB); 0 computes every answer. */
  answerCacheBytes: number;
  /** Time a client has to send its headers, and its whole request. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  requestLogFlushMs: number;
  lastUsedFlushMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /**
   * Lets outbound requests to addresses tenants choose (JSON pull feeds, the assistant's provider)
   * reach loopback and private networks. Off: such addresses are refused (no probing the inside).
   */
  allowPrivateNetworks: boolean;
  /**
   * How often this instance looks for events time brings (a feed lagging, silent or recovered, an
   * API key due for rotation), EVENT_CLOCK_INTERVAL_MS; 0: never (another instance looks).
   */
  eventClockMs: number;
  webhooks: {
    /** This instance relays events and delivers webhooks (WEBHOOK_DELIVERY; any number of instances may). */
    deliver: boolean;
    /** Delays between delivery attempts start here and grow fourfold, to at most 6 hours (WEBHOOK_RETRY_BASE_MS). */
    retryBaseMs: number;
    /** How long an event is retried, and an endpoint may fail, before giving up and disabling it (WEBHOOK_RETRY_HOURS). */
    retryHours: number;
    /** How often each instance looks for new events to hand to endpoints (WEBHOOK_RELAY_INTERVAL_MS). */
    relayIntervalMs: number;
    /** Deliveries sent at once by each instance (WEBHOOK_CONCURRENCY). */
    concurrency: number;
    /** Days events (and settled deliveries) are kept for the change feed and the delivery log (EVENT_RETENTION_DAYS). */
    retentionDays: number;
  };
  ingestion: {
    /**
     * Keys that encrypt integration credentials (AES-256-GCM), newest first: `id:base64key,…`.
     * Empty: one key is made and kept in `dataDir` (not in production).
     */
    credentialKeys: Array<{ id: string; key: Buffer }>;
    /** SFTP server port; null leaves it off. */
    sftpPort: number | null;
    /** The host name data providers connect to, as shown in SFTP accounts. */
    sftpPublicHost: string;
    /** SMTP server for credential emails (smtp://user:pass@host:port); null writes them to the outbox. */
    smtpUrl: string | null;
    mailFrom: string;
    /** Runs scheduled syncs and SFTP pickups in this process. */
    scheduler: boolean;
    schedulerIntervalMs: number;
    /** Lets HTTP pull integrations use plain http:// (local testing only). */
    allowInsecureHttpPull: boolean;
  };
}

export class ConfigError extends Error {}

const DEV_ADMIN_EMAIL = 'admin@demo.dealer';
const DEV_ADMIN_PASSWORD = 'demo-admin-password';

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.toLowerCase();
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

function text(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

function credentialKeys(env: Env): Array<{ id: string; key: Buffer }> {
  const raw = text(env, 'CREDENTIALS_KEYS');
  if (!raw) return [];
  return raw.split(',').map((entry, index) => {
    const [id, encoded] = entry.trim().split(':');
    if (!id || !encoded || !/^[A-Za-z0-9_-]{1,32}$/.test(id))
      throw new ConfigError(`CREDENTIALS_KEYS entry ${index + 1} must be <id>:<base64 key>`);
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== 32)
      throw new ConfigError(`CREDENTIALS_KEYS key "${id}" must be 32 bytes (base64), got ${key.length}`);
    return { id, key };
  });
}

/** FIELD_RATE_LIMITS: `name=max/window` entries, the window a number of s, m or h (`Query.matchDealers=60/1m`). */
function fieldRateLimits(env: Env): Record<string, { max: number; window: string }> {
  const raw = text(env, 'FIELD_RATE_LIMITS');
  if (!raw) return {};
  const limits: Record<string, { max: number; window: string }> = {};
  for (const entry of raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const match = /^([\w.:-]{1,100})=(\d{1,7})\/([1-9]\d{0,4}[smh])$/.exec(entry);
    if (!match || Number(match[2]) < 1)
      throw new ConfigError(
        `FIELD_RATE_LIMITS entry "${entry}" must be <limit name>=<max>/<window>, e.g. Query.matchDealers=60/1m`,
      );
    limits[match[1]!] = { max: Number(match[2]), window: match[3]! };
  }
  return limits;
}

/** CORS_ORIGINS: exact origins ("https://app.example.com"), no wildcards: a credentialed API must name who may call it from a browser. */
function corsOrigins(env: Env): string[] {
  const raw = text(env, 'CORS_ORIGINS');
  if (!raw) return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      let parsed: URL;
      try {
        parsed = new URL(entry);
      } catch {
        throw new ConfigError(`CORS_ORIGINS entry "${entry}" is not an origin such as https://app.example.com`);
      }
      if (!/^https?:$/.test(parsed.protocol) || parsed.origin !== entry.replace(/\/$/, '')) {
        throw new ConfigError(
          `CORS_ORIGINS entry "${entry}" must be a scheme and host only, such as https://app.example.com`,
        );
      }
      return parsed.origin;
    });
}

export function loadConfig(env: Env = process.env): Config {
  const mode = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const databaseUrl = text(env, 'DATABASE_URL');
  const dataDir = path.resolve(text(env, 'DATA_DIR') ?? './data');
  let adminEmail = text(env, 'ADMIN_EMAIL');
  let adminPassword = env.ADMIN_PASSWORD || null;
  if (mode === 'production') {
    if (!adminEmail || !adminPassword)
      throw new ConfigError('ADMIN_EMAIL and ADMIN_PASSWORD are required in production');
    // Only production holds ADMIN_PASSWORD to the password policy: the development default would not pass it.
    const problem = passwordProblem(adminPassword);
    if (problem) throw new ConfigError(`ADMIN_PASSWORD ${problem}`);
  } else {
    adminEmail ??= DEV_ADMIN_EMAIL;
    adminPassword ??= DEV_ADMIN_PASSWORD;
  }
  if (adminEmail && !isEmailAddress(adminEmail))
    throw new ConfigError(`ADMIN_EMAIL is not an email address: "${adminEmail}"`);

  const jwksUrl = text(env, 'JWT_JWKS_URL');
  if (jwksUrl && (!text(env, 'JWT_ISSUER') || !text(env, 'JWT_AUDIENCE'))) {
    throw new ConfigError(
      'JWT_JWKS_URL needs JWT_ISSUER and JWT_AUDIENCE: tokens are only trusted for a known issuer and audience',
    );
  }
  const levels = ['debug', 'info', 'warn', 'error', 'silent'] as const;
  const logLevel = (text(env, 'LOG_LEVEL') ?? (mode === 'test' ? 'warn' : 'info')) as Config['logLevel'];
  if (!levels.includes(logLevel)) throw new ConfigError(`LOG_LEVEL must be one of ${levels.join(', ')}`);

  return {
    env: mode,
    port: integer(env, 'PORT', 4000, 0, 65535),
    host: text(env, 'HOST') ?? '0.0.0.0',
    databaseUrl,
    preparedStatements: boolean(env, 'DATABASE_PREPARED_STATEMENTS', true),
    dataDir,
    adminEmail,
    adminPassword,
    seedDemoData: boolean(env, 'SEED_DEMO_DATA', !databaseUrl && mode !== 'production'),
    demoVehicles: integer(env, 'DEMO_VEHICLES', 3000, 0, 5_000_000),
    jwt: {
      privateKey: env.JWT_PRIVATE_KEY?.trim() || null,
      issuer: text(env, 'JWT_ISSUER') ?? 'dealership-data-platform',
      audience: text(env, 'JWT_AUDIENCE') ?? 'dealership-data-platform-api',
      accessTokenTtlSeconds: integer(env, 'ACCESS_TOKEN_TTL_SECONDS', 900, 60, 86_400),
      refreshTokenTtlSeconds: integer(env, 'REFRESH_TOKEN_TTL_SECONDS', 30 * 86_400, 300, 365 * 86_400),
      jwksUrl,
    },
    redisUrl: text(env, 'REDIS_URL'),
    trustProxyHops: integer(env, 'TRUST_PROXY_HOPS', 0, 0, 10),
    maxBodyBytes: integer(env, 'MAX_BODY_BYTES', 1_048_576, 1024, 104_857_600),
    corsOrigins: corsOrigins(env),
    graphiql: boolean(env, 'GRAPHIQL', mode !== 'production'),
    anonymousIntrospection: boolean(env, 'INTROSPECTION_ANONYMOUS', mode !== 'production'),
    graphqlLimits: {
      maxDepth: integer(env, 'GRAPHQL_MAX_DEPTH', 12, 2, 100),
      maxAliases: integer(env, 'GRAPHQL_MAX_ALIASES', 25, 0, 1000),
      maxTokens: integer(env, 'GRAPHQL_MAX_TOKENS', 3000, 100, 100_000),
      maxCost: integer(env, 'GRAPHQL_MAX_COST', 50_000, 100, 100_000_000),
    },
    fieldRateLimits: fieldRateLimits(env),
    statementTimeoutMs: integer(env, 'STATEMENT_TIMEOUT_MS', 15_000, 100, 3_600_000),
    answerCacheBytes: integer(env, 'ANSWER_CACHE_MB', 64, 0, 65_536) * 1024 * 1024,
    headersTimeoutMs: integer(env, 'HEADERS_TIMEOUT_MS', 15_000, 1000, 300_000),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 60_000, 1000, 3_600_000),
    requestLogFlushMs: integer(env, 'REQUEST_LOG_FLUSH_MS', 1000, 10, 60_000),
    lastUsedFlushMs: integer(env, 'LAST_USED_FLUSH_MS', 30_000, 10, 60_000),
    logLevel,
    allowPrivateNetworks: boolean(env, 'ALLOW_PRIVATE_NETWORKS', false),
    eventClockMs: integer(env, 'EVENT_CLOCK_INTERVAL_MS', 60_000, 0, 3_600_000),
    webhooks: {
      deliver: boolean(env, 'WEBHOOK_DELIVERY', true),
      retryBaseMs: integer(env, 'WEBHOOK_RETRY_BASE_MS', 5000, 10, 3_600_000),
      retryHours: integer(env, 'WEBHOOK_RETRY_HOURS', 72, 0, 720),
      relayIntervalMs: integer(env, 'WEBHOOK_RELAY_INTERVAL_MS', 500, 10, 60_000),
      concurrency: integer(env, 'WEBHOOK_CONCURRENCY', 4, 1, 100),
      retentionDays: integer(env, 'EVENT_RETENTION_DAYS', 30, 1, 3650),
    },
    ingestion: {
      credentialKeys: (() => {
        const keys = credentialKeys(env);
        if (mode === 'production' && !keys.length)
          throw new ConfigError(
            'CREDENTIALS_KEYS is required in production: integration credentials are encrypted with it',
          );
        return keys;
      })(),
      sftpPort:
        env.SFTP_PORT === undefined || env.SFTP_PORT === ''
          ? mode === 'test'
            ? null
            : 2222
          : env.SFTP_PORT === 'off'
            ? null
            : integer(env, 'SFTP_PORT', 2222, 0, 65535),
      sftpPublicHost: text(env, 'SFTP_PUBLIC_HOST') ?? 'localhost',
      smtpUrl: text(env, 'SMTP_URL'),
      mailFrom: text(env, 'MAIL_FROM') ?? 'Dealership Data Platform <no-reply@dealership-data.example>',
      scheduler: boolean(env, 'SYNC_SCHEDULER', true),
      schedulerIntervalMs: integer(env, 'SYNC_SCHEDULER_INTERVAL_MS', 15_000, 100, 3_600_000),
      allowInsecureHttpPull: boolean(env, 'ALLOW_INSECURE_HTTP_PULL', false),
    },
  };
}
