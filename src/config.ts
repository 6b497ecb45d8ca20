import path from 'node:path';
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
  requestLogFlushMs: number;
  lastUsedFlushMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  /**
   * Lets outbound requests to addresses tenants choose (JSON pull feeds, the assistant's provider)
   * reach loopback and private networks. Off: such addresses are refused (no probing the inside).
   */
  allowPrivateNetworks: boolean;
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

/** A password strong enough for a production admin: 12+ characters and not a known weak one. */
export function passwordWeakness(password: string): string | null {
  if (password.length < 12) return 'must be at least 12 characters';
  if (new Set(password).size < 5) return 'must not repeat so few characters';
  const lowered = password.toLowerCase();
  for (const weak of ['password', '123456', 'qwerty', 'admin', 'letmein', 'changeme', 'welcome']) {
    if (lowered.includes(weak)) return `must not contain "${weak}"`;
  }
  return null;
}

function credentialKeys(env: Env): Array<{ id: string; key: Buffer }> {
  const raw = text(env, 'CREDENTIALS_KEYS');
  if (!raw) return [];
  return raw.split(',').map((entry, index) => {
    const [id, encoded] = entry.trim().split(':');
    if (!id || !encoded || !/^[A-Za-z0-9_-]{1,32}$/.test(id)) throw new ConfigError(`CREDENTIALS_KEYS entry ${index + 1} must be <id>:<base64 key>`);
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== 32) throw new ConfigError(`CREDENTIALS_KEYS key "${id}" must be 32 bytes (base64), got ${key.length}`);
    return { id, key };
  });
}

export function loadConfig(env: Env = process.env): Config {
  const mode = env.NODE_ENV === 'production' ? 'production' : env.NODE_ENV === 'test' ? 'test' : 'development';
  const databaseUrl = text(env, 'DATABASE_URL');
  const dataDir = path.resolve(text(env, 'DATA_DIR') ?? './data');
  let adminEmail = text(env, 'ADMIN_EMAIL');
  let adminPassword = env.ADMIN_PASSWORD || null;
  if (mode === 'production') {
    if (!adminEmail || !adminPassword) throw new ConfigError('ADMIN_EMAIL and ADMIN_PASSWORD are required in production');
    const weakness = passwordWeakness(adminPassword);
    if (weakness) throw new ConfigError(`ADMIN_PASSWORD ${weakness}`);
  } else {
    adminEmail ??= DEV_ADMIN_EMAIL;
    adminPassword ??= DEV_ADMIN_PASSWORD;
  }
  if (adminEmail && !isEmailAddress(adminEmail)) throw new ConfigError(`ADMIN_EMAIL is not an email address: "${adminEmail}"`);

  const jwksUrl = text(env, 'JWT_JWKS_URL');
  if (jwksUrl && (!text(env, 'JWT_ISSUER') || !text(env, 'JWT_AUDIENCE'))) {
    throw new ConfigError('JWT_JWKS_URL needs JWT_ISSUER and JWT_AUDIENCE: tokens are only trusted for a known issuer and audience');
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
    requestLogFlushMs: integer(env, 'REQUEST_LOG_FLUSH_MS', 1000, 10, 60_000),
    lastUsedFlushMs: integer(env, 'LAST_USED_FLUSH_MS', 30_000, 10, 60_000),
    logLevel,
    allowPrivateNetworks: boolean(env, 'ALLOW_PRIVATE_NETWORKS', false),
    ingestion: {
      credentialKeys: (() => {
        const keys = credentialKeys(env);
        if (mode === 'production' && !keys.length) throw new ConfigError('CREDENTIALS_KEYS is required in production: integration credentials are encrypted with it');
        return keys;
      })(),
      sftpPort: env.SFTP_PORT === undefined || env.SFTP_PORT === '' ? (mode === 'test' ? null : 2222) : env.SFTP_PORT === 'off' ? null : integer(env, 'SFTP_PORT', 2222, 0, 65535),
      sftpPublicHost: text(env, 'SFTP_PUBLIC_HOST') ?? 'localhost',
      smtpUrl: text(env, 'SMTP_URL'),
      mailFrom: text(env, 'MAIL_FROM') ?? 'Dealership Data Platform <no-reply@dealership-data.example>',
      scheduler: boolean(env, 'SYNC_SCHEDULER', true),
      schedulerIntervalMs: integer(env, 'SYNC_SCHEDULER_INTERVAL_MS', 15_000, 100, 3_600_000),
      allowInsecureHttpPull: boolean(env, 'ALLOW_INSECURE_HTTP_PULL', false),
    },
  };
}
