import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './helpers/ports';

/**
 * The README's examples run as written against a fresh server with the demo data: every shell block
 * of "Try it" in order as one script (each curl must answer 2xx), and every GraphQL block without
 * errors. Only the port differs: the examples say 4000, the test takes a free one.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`README has no "## ${title}" section`);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end < 0 ? undefined : end);
}

function blocks(text: string, language: string): string[] {
  return [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);
}

const curlAvailable = spawnSync('curl', ['--version']).status === 0;
if (!curlAvailable) console.log('skipped: the README examples need curl');

describe.skipIf(!curlAvailable)('the README examples', () => {
  const tryIt = section('Try it');
  let server: ChildProcess;
  let output = '';
  let port: number;
  let dataDir: string;
  const env = (): NodeJS.ProcessEnv => ({
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: '',
    REDIS_URL: '',
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
  });

  beforeAll(async () => {
    port = await freePort();
    dataDir = mkdtempSync(path.join(tmpdir(), 'ddp-readme-'));
    server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: { ...env(), SFTP_PORT: String(await freePort()) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server.stdout!.on('data', (chunk) => {
      output += chunk;
    });
    server.stderr!.on('data', (chunk) => {
      output += chunk;
    });
    const deadline = Date.now() + 120_000;
    while (
      !(await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
        (response) => response.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the server did not start:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  }, 150_000);
  afterAll(async () => {
    if (server && server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('has shell and GraphQL examples to run', () => {
    expect(blocks(tryIt, 'sh').length).toBeGreaterThan(5);
    expect(blocks(tryIt, 'graphql').length).toBeGreaterThan(1);
  });

  it('runs every shell example of "Try it" in order, each request answering 2xx', () => {
    const script = [
      'set -euo pipefail',
      // Each request must succeed: curl exits non-zero on a 4xx or 5xx, and the script stops there.
      'curl() { command curl --fail-with-body --max-time 120 "$@"; }',
      ...blocks(tryIt, 'sh'),
    ]
      .join('\n')
      .replaceAll('localhost:4000', `127.0.0.1:${port}`);
    const run = spawnSync('bash', ['-c', script], {
      cwd: ROOT,
      env: env(),
      encoding: 'utf8',
      timeout: 240_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const tail = `${run.stdout.slice(-3000)}\n--- stderr ---\n${run.stderr.slice(-3000)}`;
    expect(run.status, tail).toBe(0);
  }, 300_000);

  it('answers every GraphQL example without errors', async () => {
    const login = await fetch(`http://127.0.0.1:${port}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'admin@demo.dealer', password: 'demo-admin-password' }),
    });
    const { token } = (await login.json()) as { token: string };
    for (const query of blocks(tryIt, 'graphql')) {
      const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query }),
      });
      const body = (await response.json()) as { data?: unknown; errors?: unknown[] };
      expect(body.errors, query).toBeUndefined();
      expect(response.status, query).toBe(200);
    }
  });
});
