// `npm run db:migrate` applies pending migrations to DATABASE_URL (or the embedded database, through the
// running server when it has DATA_DIR open);
// `npm run db:migration:create -- <name>` writes a new migration from changes to schema.prisma.
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../src/config';
import { openDatabaseServer } from '../src/db/database';
import { applyMigrations, diffMigrationsToSchema, MIGRATIONS_DIR } from '../src/db/schema-engine';
import { openToolDatabase } from './tool-database';
import { helpRequested } from './usage';

helpRequested(`
usage: npm run db:migrate                       apply pending migrations to DATABASE_URL (or the embedded database under DATA_DIR,
                                                through the running server when it has DATA_DIR open)
       npm run db:migration:create -- <name>    write the next migration from changes to prisma/schema.prisma (name in snake_case)`);

const [command, name] = process.argv.slice(2);
const config = loadConfig();

if (command === 'create') {
  if (!name || !/^[a-z0-9_]+$/.test(name)) {
    console.error('usage: npm run db:migration:create -- <name in snake_case>');
    process.exit(2);
  }
  // The diff replays migrations on an in-memory shadow database; the target database is not touched.
  const scratch = await openDatabaseServer({ databaseUrl: null, dataDir: null });
  try {
    const sql = await diffMigrationsToSchema(scratch.url);
    if (!sql) {
      console.log('schema.prisma and prisma/migrations agree: nothing to create.');
    } else {
      const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
      const directory = path.join(MIGRATIONS_DIR, `${stamp}_${name}`);
      mkdirSync(directory, { recursive: true });
      writeFileSync(path.join(directory, 'migration.sql'), sql);
      const lock = path.join(MIGRATIONS_DIR, 'migration_lock.toml');
      if (!existsSync(lock)) writeFileSync(lock, 'provider = "postgresql"\n');
      console.log(`created ${path.relative(process.cwd(), directory)}/migration.sql`);
    }
  } finally {
    await scratch.stop();
  }
} else if (command === 'apply') {
  const server = await openToolDatabase(config, 'npm run db:migrate');
  try {
    const applied = await applyMigrations(server.url);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await server.stop();
  }
} else {
  console.error('usage: migrate.ts apply | create <name>');
  process.exit(2);
}
