import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from '../src/db/embedded';
import { diffMigrationsToSchema, SCHEMA_PATH } from '../src/db/schema-engine';

describe('migrations', () => {
  it('prisma/migrations produce exactly schema.prisma (run `npm run db:migration:create -- <name>` when this fails)', async () => {
    const scratch = await startEmbeddedPostgres(null);
    try {
      expect(await diffMigrationsToSchema(scratch.url)).toBe('');
      // The check can fail: a schema with one more column differs from the migrations.
      const changed = readFileSync(SCHEMA_PATH, 'utf8').replace(
        '  slug      String   @unique',
        '  slug      String   @unique\n  notes     String?',
      );
      expect(await diffMigrationsToSchema(scratch.url, changed)).toMatch(
        /ALTER TABLE "dealer_groups" ADD COLUMN\s+"notes" TEXT/,
      );
    } finally {
      await scratch.stop();
    }
    // Two schema-engine diffs on a fresh embedded database: about 11 s alone, three times that on a busy machine.
  }, 120_000);
});
