import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { OPERATIONS_FILE, SCHEMA_FILE } from '../src/schema-file';

const run = promisify(execFile);

/** `--help` on every script prints its usage and does nothing else (no database opened, no file written). */
describe('scripts answer --help without doing anything', () => {
  it.each([
    ['scripts/migrate.ts', ['apply', '--help']],
    ['scripts/migrate.ts', ['create', '--help']],
    ['scripts/seed.ts', ['--help']],
    ['scripts/sync.ts', ['-h']],
    ['scripts/print-schema.ts', ['--help']],
    ['bench/inventory.bench.ts', ['--help']],
    ['bench/dealer-data.bench.ts', ['--help']],
  ])(
    '%s %j',
    async (script, args) => {
      const dataDir = path.join(mkdtempSync(path.join(tmpdir(), 'ddp-help-')), 'data');
      const schemaWritten = statSync(SCHEMA_FILE).mtimeMs;
      const operationsWritten = statSync(OPERATIONS_FILE).mtimeMs;
      const { stdout } = await run(process.execPath, ['--import', 'tsx', script, ...args], {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' },
        timeout: 60_000,
      });
      expect(stdout).toMatch(/^usage: npm run /);
      expect(existsSync(dataDir)).toBe(false);
      expect(statSync(SCHEMA_FILE).mtimeMs).toBe(schemaWritten);
      expect(statSync(OPERATIONS_FILE).mtimeMs).toBe(operationsWritten);
    },
    90_000,
  );
});
