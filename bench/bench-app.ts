import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config';
import { startApp, type App } from '../src/app';
import { createScratchDatabase } from '../test/helpers/scratch-database';

const EMAIL = 'bench@example.com';
const PASSWORD = 'bench-password-long-enough';

/** A server on a scratch database (a new database on DATABASE_URL's server, else an embedded one) for a benchmark. */
export async function startBenchApp(): Promise<{
  app: App;
  engine: string;
  grantAndLogin(dealerGroupId: string): Promise<Record<string, string>>;
  stop(): Promise<void>;
}> {
  const scratch = process.env.DATABASE_URL ? await createScratchDatabase(process.env.DATABASE_URL, 'ddp_bench') : null;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'ddp-bench-'));
  const app = await startApp(
    loadConfig({
      NODE_ENV: 'development',
      PORT: '0',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      SEED_DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      ADMIN_EMAIL: EMAIL,
      ADMIN_PASSWORD: PASSWORD,
      ...(scratch ? { DATABASE_URL: scratch.url } : {}),
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
}

export interface BenchTarget {
  name: string;
  options: { url: string; method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string };
}

/** The load options every benchmark takes: `--duration S --connections C`, plus its own size option. */
export function loadOptions(size: { name: string; default: string }) {
  const { values } = parseArgs({
    options: {
      [size.name]: { type: 'string', default: size.default },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
    },
  });
  return {
    size: Number(values[size.name]),
    duration: Number(values.duration),
    connections: Number(values.connections),
  };
}

/** Checks each target answers 2xx, then drives it with autocannon; one row each. */
export async function drive(targets: BenchTarget[], connections: number, duration: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const target of targets) {
    const check = await fetch(target.options.url, {
      method: target.options.method ?? 'GET',
      headers: target.options.headers,
      body: target.options.body,
    });
    if (!check.ok) throw new Error(`${target.name} answered ${check.status}: ${await check.text()}`);
    // Load from a worker thread, so the generator does not share the server's event loop.
    const result = await autocannon({ ...target.options, connections, duration, workers: 1 });
    rows.push({
      name: target.name,
      rps: result.requests.average,
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.non2xx + result.errors,
    });
  }
  return rows;
}
