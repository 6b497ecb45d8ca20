import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';
import { startEmbeddedPostgres } from './embedded';
import { PROJECT_ROOT } from '../project-root';

/** Prisma's schema engine (WebAssembly build): applies and creates SQL migrations with no native binary. */

export const PRISMA_DIR = path.join(PROJECT_ROOT, 'prisma');
export const SCHEMA_PATH = path.join(PRISMA_DIR, 'schema.prisma');
export const MIGRATIONS_DIR = path.join(PRISMA_DIR, 'migrations');

const noFilters = { externalTables: [], externalEnums: [] };
let wasmReady = false;

function loadWasm(): void {
  if (wasmReady) return;
  const require = createRequire(import.meta.url);
  const packageDir = path.dirname(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg'));
  const module = new WebAssembly.Module(readFileSync(path.join(packageDir, 'schema_engine_bg.wasm')));
  const instance = new WebAssembly.Instance(module, {
    './schema_engine_bg.js': glue as unknown as WebAssembly.ModuleImports,
  });
  glue.__wbg_set_wasm(instance.exports);
  (instance.exports as { __wbindgen_start(): void }).__wbindgen_start();
  wasmReady = true;
}

/** Reads prisma/migrations in the shape the engine expects. */
export function readMigrations(directory = MIGRATIONS_DIR): MigrationList {
  const lockPath = path.join(directory, 'migration_lock.toml');
  const names = existsSync(directory)
    ? readdirSync(directory, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name)
        .sort()
    : [];
  return {
    baseDir: directory,
    lockfile: { path: 'migration_lock.toml', content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: names.map((name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok' as const, value: readFileSync(path.join(directory, name, 'migration.sql'), 'utf8') },
      },
    })),
  };
}

const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;
const CHARACTER_COLUMN = 6; // ColumnTypeEnum.Character

interface Queryable {
  queryRaw(query: object): Promise<{ columnTypes: number[] }>;
  performIO(query: object): Promise<{ fields: Array<{ dataTypeID: number }> }>;
  startTransaction?(...args: unknown[]): Promise<Queryable>;
}

/**
 * The engine's introspection reads catalog columns of PostgreSQL's one-byte "char" type, which
 * the pg adapter does not map; this reports them to the engine as the Character type it expects.
 */
function withCharColumns<T>(adapter: T): T {
  const queryable = adapter as unknown as Queryable;
  const charColumns = new WeakMap<object, number[]>();
  const performIO = queryable.performIO.bind(queryable);
  const queryRaw = queryable.queryRaw.bind(queryable);
  queryable.performIO = async (query) => {
    const result = await performIO(query);
    const columns: number[] = [];
    result.fields.forEach((field, index) => {
      if (field.dataTypeID === PG_CHAR_OID) {
        field.dataTypeID = PG_TEXT_OID;
        columns.push(index);
      }
    });
    charColumns.set(query, columns);
    return result;
  };
  queryable.queryRaw = async (query) => {
    const result = await queryRaw(query);
    for (const index of charColumns.get(query) ?? []) result.columnTypes[index] = CHARACTER_COLUMN;
    return result;
  };
  const startTransaction = queryable.startTransaction?.bind(queryable);
  if (startTransaction)
    queryable.startTransaction = async (...args) => withCharColumns(await startTransaction(...args));
  return adapter;
}

interface ScriptRunner {
  client: { query(sql: string): Promise<unknown> };
  executeScript(script: string): Promise<void>;
  onError(error: unknown): never;
}

/**
 * Runs each migration script whole. The pg adapter cuts a script at every semicolon (those in
 * comments and function bodies too) and runs the pieces one by one; PostgreSQL parses a whole
 * script itself and runs it as one transaction, so a migration applies entirely or not at all.
 */
function withWholeScripts<T>(adapter: T): T {
  const runner = adapter as unknown as ScriptRunner;
  runner.executeScript = async (script) => {
    try {
      await runner.client.query(script);
    } catch (error) {
      runner.onError(error);
    }
  };
  return adapter;
}

/**
 * Opens the engine on a database. The shadow database it needs to replay migrations is always a
 * throw-away in-memory PGlite, so no CREATE DATABASE privilege is needed on the real server.
 */
async function openEngine(databaseUrl: string): Promise<{ engine: SchemaEngine; close(): Promise<void> }> {
  loadWasm();
  const resources: Array<() => Promise<void>> = [];
  const connect = (url: string) => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    pool.on('error', () => {});
    resources.push(() => pool.end());
    return new PrismaPg(pool).connect().then(withCharColumns).then(withWholeScripts);
  };
  const target = new PrismaPg({ connectionString: databaseUrl });
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    adapterName: target.adapterName,
    provider: target.provider,
    connect: () => connect(databaseUrl),
    connectToShadowDb: async () => {
      const shadow = await startEmbeddedPostgres(null);
      resources.push(() => shadow.stop());
      return connect(shadow.url);
    },
  };
  const datamodel = readFileSync(SCHEMA_PATH, 'utf8');
  const log = () => {};
  const engine = await glue.SchemaEngine.new(
    { datamodels: [[SCHEMA_PATH, datamodel]] },
    log,
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  return {
    engine,
    async close() {
      engine.free();
      // Pools first (they release the migration advisory lock), then shadow servers.
      for (const release of resources) await release().catch(() => {});
    },
  };
}

/** Applies every pending migration; returns the names of those it applied. */
export async function applyMigrations(databaseUrl: string): Promise<string[]> {
  const { engine, close } = await openEngine(databaseUrl);
  try {
    const result = await engine.applyMigrations({ migrationsList: readMigrations(), filters: noFilters });
    return result.appliedMigrationNames;
  } finally {
    await close();
  }
}

/** The SQL that would bring the migrations up to date with schema.prisma; empty when they agree. */
export async function diffMigrationsToSchema(
  databaseUrl: string,
  schemaText = readFileSync(SCHEMA_PATH, 'utf8'),
): Promise<string> {
  const { engine, close } = await openEngine(databaseUrl);
  try {
    const migrations = readMigrations();
    const from = migrations.migrationDirectories.length
      ? { tag: 'migrations' as const, ...migrations }
      : { tag: 'empty' as const };
    const result = await engine.diff({
      from,
      to: { tag: 'schemaDatamodel', files: [{ path: SCHEMA_PATH, content: schemaText }] },
      script: true,
      exitCode: null,
      filters: noFilters,
    });
    const sql = result.stdout ?? '';
    return /^\s*(--.*\s*)*$/.test(sql) ? '' : sql;
  } finally {
    await close();
  }
}
