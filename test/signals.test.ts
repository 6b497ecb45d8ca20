import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort } from './helpers/ports';

/**
 * Process managers and containers signal the process they started: `npm start`'s. The server must
 * stop gracefully from there (it used to keep serving, orphaned, after npm exited).
 */
describe('npm start stops on the signal its process manager sends', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s',
    async (signal) => {
      const port = await freePort();
      const dataDir = mkdtempSync(path.join(tmpdir(), 'ddp-signal-'));
      const npm = spawn('npm', ['start'], {
        env: {
          ...process.env,
          PORT: String(port),
          HOST: '127.0.0.1',
          DATA_DIR: dataDir,
          DATABASE_URL: '',
          REDIS_URL: '',
          SEED_DEMO_DATA: 'false',
          SFTP_PORT: 'off',
          SYNC_SCHEDULER: 'false',
          NODE_ENV: 'development',
          LOG_LEVEL: 'info',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      npm.stdout.on('data', (chunk) => {
        output += chunk;
      });
      npm.stderr.on('data', (chunk) => {
        output += chunk;
      });
      const exited = new Promise<number | null>((resolve) => npm.on('exit', (code) => resolve(code)));
      const deadline = Date.now() + 90_000;
      while (
        !(await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
          (response) => response.ok,
          () => false,
        ))
      ) {
        if (Date.now() > deadline) throw new Error(`the server did not start:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      npm.kill(signal);
      expect(await exited).toBe(0);
      expect(output).toContain(`"signal":"${signal}"`);
      const stillServing = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
        () => true,
        () => false,
      );
      expect(stillServing).toBe(false);
    },
    120_000,
  );
});
