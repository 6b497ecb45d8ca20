import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config';
import { startApp, type App } from '../src/app';
import { createScratchDatabase } from '../test/helpers/scratch-database';
import { helpRequested } from '../scripts/usage';

const EMAIL = 'bench@example.com';
const PASSWORD = 'bench-password-long-enough';

/** A server on a scratch database (a new database on DATABASE_URL's server, else an embedded one) for a benchmark. */
export async function startBenchApp(env: Record<string, string> = {}): Promise<{
  app: App;
  engine: string;
  grantAndLogin(dealerGroupId: string): Promise<Record<string, string>>;
  stop(): Promise<void>;
}> {
  const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL, 'ddp_bench') : null;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ddp-bench-'));
  const app = await startApp(
    loadConfig({
      // The benchmark's process runs with NODE_ENV=production (package.json), as a deployment does, so
      // libraries take their production paths (graphql-js skips its development-only checks); the
      // app's own settings are these, so it needs none of production's secrets.
      NODE_ENV: 'development',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      SEED_DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      // A benchmark serves HTTP only: no SFTP listener (its port may be taken) and no scheduled syncs.
      SFTP_PORT: 'off',
      SYNC_SCHEDULER: 'false',
      // Seeding enriches and links a million calls in single statements, longer than a request may take.
      STATEMENT_TIMEOUT_MS: '600000',
      // The load generator asks for long-range stats far more often than a person may.
      FIELD_RATE_LIMITS: 'Query.callStats=1000000/1m,lead-stats-long-range=1000000/1m,sale-stats-long-range=1000000/1m',
      ADMIN_EMAIL: EMAIL,
      ADMIN_PASSWORD: PASSWORD,
      ...(scratch ? { DATABASE_URL: scratch.url } : {}),
      ...env,
    }),
  );
  return {
    app,
    engine: scratch ? 'PostgreSQL' : 'embedded PostgreSQL',
    /** Gives the benchmark admin the group and returns its Authorization header. */
    async grantAndLogin(dealerGroupId) {
      const admin = await app.database.prisma.user.findUniqueOrThrow({ where: { email: EMAIL } });
      await app.database.prisma.userDealerGroup.create({ data: { userId: admin.id, dealerGroupId } });
      const login = await fetch(`${app.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
      });
      return { authorization: `Bearer ${((await login.json()) as { token: string }).token}` };
    },
    async stop() {
      await app.stop();
      rmSync(dataDir, { recursive: true, force: true });
      await scratch?.drop();
    },
  };
}

export interface BenchRow {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** CPU time of the serving process's main thread (its JavaScript) per request, ms; null where unknown. */
  cpuPerRequest: number | null;
}

export interface BenchTarget {
  name: string;
  options: { url: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string };
  /** The process that serves it (its main thread runs the JavaScript); this one unless said. */
  servedBy?: number;
}

/**
 * CPU time the main thread of process `pid` has run, in ms (Linux: the scheduler's own count, in
 * nanoseconds, from /proc); null elsewhere. The load generator runs in a worker thread, so it is not
 * counted; the database's processes are not either.
 */
export function mainThreadCpuMs(pid: number): number | null {
  try {
    const [onCpu] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ');
    return Number(onCpu) / 1e6;
  } catch {
    return null;
  }
}

/** Counts an answer that carries GraphQL errors as an error (autocannon's worker loads it by path). */
const ANSWERED = fileURLToPath(new URL('./answered.cjs', import.meta.url));

/**
 * The load options every benchmark takes: `--duration S --connections C`, plus its own size option
 * and any others it names. `--help` prints `usage` and exits.
 */
export function loadOptions<Extra extends string = never>(
  size: { name: string; default: string },
  usage: string,
  extra: Record<Extra, { default: string }> = {} as Record<Extra, { default: string }>,
) {
  helpRequested(usage);
  const { values } = parseArgs({
    options: {
      [size.name]: { type: 'string', default: size.default },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      ...Object.fromEntries(
        Object.entries<{ default: string }>(extra).map(([name, option]) => [
          name,
          { type: 'string' as const, default: option.default },
        ]),
      ),
    },
  });
  return {
    size: Number(values[size.name]),
    duration: Number(values.duration),
    connections: Number(values.connections),
    extra: values as unknown as Record<Extra, string>,
  };
}

/** Fetches a target once, as the load generator will ask it. */
export function ask(target: BenchTarget): Promise<Response> {
  return fetch(target.options.url, {
    method: target.options.method ?? 'GET',
    headers: target.options.headers,
    body: target.options.body,
  });
}

/**
 * Checks each target answers 2xx, then drives it with autocannon; one row each, where errors are
 * failed connections, non-2xx answers and answers carrying GraphQL errors. `warmup` seconds of load
 * first (not counted) open the connection pools and warm the caches.
 */
export async function drive(
  targets: BenchTarget[],
  connections: number,
  duration: number,
  options: { warmup?: number } = {},
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const target of targets) {
    const check = await ask(target);
    if (!check.ok) throw new Error(`${target.name} answered ${check.status}: ${await check.text()}`);
    // Load from a worker thread, so the generator does not share the server's event loop.
    const load = (seconds: number) =>
      autocannon({
        ...target.options,
        connections,
        duration: seconds,
        workers: 1,
        verifyBody: ANSWERED as unknown as (body: unknown) => boolean,
      });
    if (options.warmup) await load(options.warmup);
    const pid = target.servedBy ?? process.pid;
    const cpuBefore = mainThreadCpuMs(pid);
    const result = await load(duration);
    const cpuAfter = mainThreadCpuMs(pid);
    rows.push({
      name: target.name,
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.non2xx + result.errors + result.mismatches,
      cpuPerRequest:
        cpuBefore !== null && cpuAfter !== null && result.requests.total
          ? (cpuAfter - cpuBefore) / result.requests.total
          : null,
    });
  }
  return rows;
}
