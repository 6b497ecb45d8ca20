import type { TestProject } from 'vitest/node';
import { startEmbeddedPostgres } from '../../src/db/embedded';
import { applyMigrations } from '../../src/db/schema-engine';
import { createScratchDatabase } from './scratch-database';

/**
 * One database for the run: a fresh database on DATABASE_URL's server when it is set, else an
 * in-memory embedded PostgreSQL. Suites make their own dealer groups, so they share it safely.
 */
export default async function setup(project: TestProject) {
  const serverUrl = process.env.DATABASE_URL;
  let url: string;
  let teardown: () => Promise<void>;
  if (serverUrl) {
    const scratch = await createScratchDatabase(serverUrl, 'ddp_test');
    url = scratch.url;
    teardown = scratch.drop;
    console.log(`tests run against PostgreSQL at ${new URL(serverUrl).host} (database ${scratch.name})`);
  } else {
    const embedded = await startEmbeddedPostgres(null);
    url = embedded.url;
    teardown = embedded.stop;
    console.log('tests run against the embedded PostgreSQL (set DATABASE_URL to use a server)');
  }
  await applyMigrations(url);
  project.provide('databaseUrl', url);
  project.provide('externalDatabase', Boolean(serverUrl));
  return teardown;
}

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    externalDatabase: boolean;
  }
}
