import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { exportPKCS8, generateKeyPair } from 'jose';
import { inject } from 'vitest';
import { loadConfig, type Config } from '../../src/config';
import { startApp, type App } from '../../src/app';

/** Starts the real server on a free port against the run's shared test database. */
export async function startTestApp(
  env: Record<string, string> = {},
  options: { ownDatabase?: boolean } = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ddp-test-'));
  const config: Config = loadConfig({
    NODE_ENV: 'test',
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SEED_DEMO_DATA: 'false',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'error',
    REQUEST_LOG_FLUSH_MS: '50',
    // Suites share one database: a scheduler would pick up other suites' due pulls. Tests that need it ask for it.
    SYNC_SCHEDULER: 'false',
    // Likewise webhook delivery: the webhooks tests turn it on for their own instances.
    WEBHOOK_DELIVERY: 'false',
    // And the clock of feed and key events, which would record other suites' feeds lagging.
    EVENT_CLOCK_INTERVAL_MS: '0',
    ...(options.ownDatabase ? {} : { DATABASE_URL: inject('databaseUrl') }),
    // The run's embedded database serves every instance from one session: no named statements there.
    ...(options.ownDatabase || inject('externalDatabase') ? {} : { DATABASE_PREPARED_STATEMENTS: 'false' }),
    ...env,
  });
  config.adminEmail = env.ADMIN_EMAIL ?? null;
  const app = await startApp(config);
  return Object.assign(app, { dataDir, config, client: new ApiClient(app.url) });
}

export type TestApp = App & { dataDir: string; config: Config; client: ApiClient };

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Plain HTTP calls to the running server, as a partner or dashboard would make them. */
export class ApiClient {
  constructor(readonly baseUrl: string) {}

  async request(
    method: string,
    path: string,
    options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
  ): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | undefined;
    if (options.rawBody !== undefined) body = options.rawBody;
    else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${this.baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: response.status, body: parsed, headers: response.headers };
  }

  get(path: string, token?: string) {
    return this.request('GET', `/api/v1${path}`, { token });
  }

  post(path: string, body: unknown, token?: string) {
    return this.request('POST', `/api/v1${path}`, { token, body });
  }

  async graphql(query: string, variables: Record<string, unknown> = {}, token?: string): Promise<ApiResponse> {
    return this.request('POST', '/graphql', { token, body: { query, variables } });
  }
}

/** The signing key `app` made, so a second instance accepts the same tokens (as a shared JWT_PRIVATE_KEY would). */
export function signingKeyOf(app: TestApp): string {
  return app.config.jwt.privateKey ?? readFileSync(path.join(app.dataDir, 'keys', 'jwt-signing-key.pem'), 'utf8');
}

/** A fresh RS256 key in PEM, so a test can sign tokens the server will (or must not) accept. */
export async function testSigningKey(): Promise<string> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  return exportPKCS8(privateKey);
}
