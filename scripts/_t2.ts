import { openDatabaseServer } from '../src/db/database';
import { applyMigrations, diffMigrationsToSchema } from '../src/db/schema-engine';
let t = Date.now();
const s = await openDatabaseServer({ databaseUrl: process.env.DATABASE_URL ?? null, dataDir: null });
console.log('start', Date.now()-t); t = Date.now();
console.log(await applyMigrations(s.url), Date.now()-t); t = Date.now();
console.log(await applyMigrations(s.url), Date.now()-t); t = Date.now();
console.log(JSON.stringify(await diffMigrationsToSchema(s.url)), Date.now()-t);
await s.stop();
