import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, openDatabaseServer } from '../src/db/database';
import { DataDirInUseError, LOCK_FILE_NAME, lockDataDir, type LockHolder } from '../src/db/data-dir-lock';
import { ApiClient } from './helpers/app';
import { FIXTURES } from './helpers/feeds';
import { freePort } from './helpers/ports';
import { seedGroup } from './helpers/seed';

/**
 * The embedded database under DATA_DIR is opened by one process at a time (a second process opening
 * the same files loses its writes). The tools work through a running server's database; a second
 * server refuses; a lock left by a dead process is taken over.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const made: string[] = [];
const tempDir = (prefix: string) => {
  const directory = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(directory);
  return directory;
};
afterAll(() => {
  for (const directory of made) rmSync(directory, { recursive: true, force: true });
});

/** The pid of a process that has exited: a lock naming it is stale. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

function plantLock(dataDir: string, holder: Partial<LockHolder>): LockHolder {
  const lock: LockHolder = {
    pid: process.pid,
    host: hostname(),
    role: 'tool',
    command: 'npm run seed',
    databaseUrl: null,
    openedAt: new Date().toISOString(),
    token: 'planted',
    ...holder,
  };
  writeFileSync(path.join(dataDir, LOCK_FILE_NAME), JSON.stringify(lock));
  return lock;
}

const readLock = (dataDir: string) =>
  JSON.parse(readFileSync(path.join(dataDir, LOCK_FILE_NAME), 'utf8')) as LockHolder;

describe('DATA_DIR lock', () => {
  it('is held by one opener at a time and freed on release', () => {
    const dataDir = tempDir('ddp-lock-');
    const lock = lockDataDir(dataDir, { role: 'server' });
    expect(readLock(dataDir)).toMatchObject({ pid: process.pid, role: 'server', databaseUrl: null });
    expect(() => lockDataDir(dataDir, { role: 'tool', command: 'npm run seed' })).toThrow(DataDirInUseError);
    lock.recordDatabaseUrl('postgresql://postgres@127.0.0.1:1/postgres');
    expect(readLock(dataDir)).toMatchObject({
      pid: process.pid,
      databaseUrl: 'postgresql://postgres@127.0.0.1:1/postgres',
    });
    lock.release();
    expect(existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);
    lockDataDir(dataDir, { role: 'tool', command: 'npm run seed' }).release();
  });

  it("takes over a lock whose process is gone, and one naming this process's pid that this process does not hold (a restarted container)", async () => {
    const dataDir = tempDir('ddp-lock-');
    const stale = plantLock(dataDir, { pid: await deadPid(), role: 'server' });
    const first = lockDataDir(dataDir, { role: 'server' });
    expect(first.tookOverFrom).toEqual(stale);
    expect(readLock(dataDir).pid).toBe(process.pid);
    first.release();

    plantLock(dataDir, { pid: process.pid, token: 'a previous process' });
    const second = lockDataDir(dataDir, { role: 'server' });
    expect(second.tookOverFrom).toMatchObject({ token: 'a previous process' });
    second.release();
  });

  it('refuses a live holder, a holder on another machine, and a lock it cannot read, saying what to do', () => {
    const dataDir = tempDir('ddp-lock-');
    const runningTool = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    try {
      plantLock(dataDir, { pid: runningTool.pid!, command: 'npm run sync' });
      expect(() => lockDataDir(dataDir, { role: 'server' })).toThrow(
        `is open in \`npm run sync\` (pid ${runningTool.pid}): wait for it to finish (or stop it), then start the server`,
      );
    } finally {
      runningTool.kill();
    }
    plantLock(dataDir, { host: 'another-machine', pid: 1234 });
    expect(() => lockDataDir(dataDir, { role: 'server' })).toThrow(
      `is open on another machine (another-machine, pid 1234)`,
    );
    writeFileSync(path.join(dataDir, LOCK_FILE_NAME), 'not a lock');
    expect(() => lockDataDir(dataDir, { role: 'server' })).toThrow('has a lock file this process cannot read');
  });

  it('a tool works through a holding server only when the server serves its database and it answers', async () => {
    const dataDir = tempDir('ddp-lock-');
    const startingServer = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    const open = () => openDatabaseServer({ databaseUrl: null, dataDir }, { role: 'tool', command: 'npm run seed' });
    try {
      plantLock(dataDir, { pid: startingServer.pid!, role: 'server' });
      await expect(open()).rejects.toThrow(
        `is open in the server (pid ${startingServer.pid}), which is not serving its database yet`,
      );
      plantLock(dataDir, {
        pid: startingServer.pid!,
        role: 'server',
        databaseUrl: 'postgresql://postgres:postgres@127.0.0.1:1/postgres',
      });
      await expect(open()).rejects.toThrow(
        `is open in the server (pid ${startingServer.pid}), but its database at postgresql://postgres:postgres@127.0.0.1:1/postgres does not answer`,
      );
      expect(existsSync(path.join(dataDir, 'postgres'))).toBe(false);
    } finally {
      startingServer.kill();
    }
  });

  it('release leaves alone a lock that another process has since written', () => {
    const dataDir = tempDir('ddp-lock-');
    const lock = lockDataDir(dataDir, { role: 'server' });
    plantLock(dataDir, { token: 'someone else' });
    lock.release();
    expect(readLock(dataDir).token).toBe('someone else');
  });
});

function serverEnv(dataDir: string, port: number): NodeJS.ProcessEnv {
  // DATABASE_URL empty: the embedded database under DATA_DIR, even where CI sets a PostgreSQL server.
  return {
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
  };
}

/** A process of ours (the server or a script) with its output collected and its exit awaited. */
function start(script: string, args: string[], env: NodeJS.ProcessEnv) {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: ROOT,
    env,
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => {
    output.stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    output.stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

async function run(script: string, args: string[], env: NodeJS.ProcessEnv) {
  const { output, exited } = start(script, args, env);
  return { code: await exited, ...output };
}

async function waitUntilHealthy(url: string, output: { stdout: string; stderr: string }, exited: Promise<unknown>) {
  let gone = false;
  void exited.then(() => {
    gone = true;
  });
  for (
    const deadline = Date.now() + 120_000;
    !(await fetch(`${url}/api/v1/health`).then(
      (response) => response.ok,
      () => false,
    ));
  ) {
    if (gone || Date.now() > deadline) throw new Error(`the server did not start:\n${output.stdout}${output.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('the server and the tools on one embedded DATA_DIR', () => {
  const dataDir = tempDir('ddp-lock-server-');
  let server: ReturnType<typeof start>;
  let url: string;
  let stalePid: number;

  beforeAll(async () => {
    stalePid = await deadPid();
    plantLock(dataDir, {
      pid: stalePid,
      role: 'server',
      databaseUrl: 'postgresql://postgres:postgres@127.0.0.1:1/postgres',
    });
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    server = start('src/main.ts', [], serverEnv(dataDir, port));
    await waitUntilHealthy(url, server.output, server.exited);
  }, 150_000);
  afterAll(async () => {
    if (server?.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });

  it('the server took over the lock its crashed predecessor left, and records its pid and database socket', () => {
    expect(readLock(dataDir)).toMatchObject({
      pid: server.child.pid,
      role: 'server',
      databaseUrl: expect.stringMatching(/^postgresql:\/\/.+@127\.0\.0\.1:\d+\//),
    });
    expect(server.output.stderr).toContain('took over DATA_DIR');
    expect(server.output.stderr).toContain(`"pid":${stalePid}`);
  });

  it('a second server on the same DATA_DIR refuses to start and leaves the first serving', async () => {
    const second = await run('src/main.ts', [], serverEnv(dataDir, await freePort()));
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(
      `DATA_DIR ${dataDir} is already open in the server (pid ${server.child.pid}): stop it first`,
    );
    expect(readLock(dataDir).pid).toBe(server.child.pid);
    expect((await fetch(`${url}/api/v1/health`)).ok).toBe(true);
  }, 120_000);

  it('npm run sync and db:migrate work through the running server, and the synced vehicles are there after a restart', async () => {
    const database = connectDatabase(readLock(dataDir).databaseUrl!, { poolSize: 2 });
    const group = await seedGroup(database.prisma, { users: { admin: 'admin' } }).finally(() => database.close());
    const client = new ApiClient(url);
    const token = await group.login(client);
    const dealerId = group.dealerIds[0]!;
    const connected = await client.post(
      '/integrations',
      { plugin_key: 'vauto_inventory_csv', dealer_id: dealerId, source: 'vauto_cli' },
      token,
    );
    expect(connected.status, JSON.stringify(connected.body)).toBe(201);

    const toolEnv = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'error' };
    const sync = await run(
      'scripts/sync.ts',
      [path.join(FIXTURES, 'vauto-inventory.txt'), '--integration', connected.body.integration.id],
      toolEnv,
    );
    expect(sync.code, sync.stdout + sync.stderr).toBe(0);
    expect(sync.stderr).toContain(
      `the server (pid ${server.child.pid}) has DATA_DIR open: working through its embedded database`,
    );
    expect(sync.stdout).toMatch(/succeeded .*read 9, created 8/);
    // The server sees the run at once: one database, not a second copy of its files.
    const inventory = await client.get(`/inventory?dealer_id=${dealerId}&limit=50`, token);
    expect(inventory.body.pagination.total).toBe(8);

    const migrate = await run('scripts/migrate.ts', ['apply'], toolEnv);
    expect(migrate.code, migrate.stdout + migrate.stderr).toBe(0);
    expect(migrate.stdout).toContain('database is up to date');

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);

    const reopened = await openDatabaseServer({ databaseUrl: null, dataDir }, { role: 'tool', command: 'test' });
    const after = connectDatabase(reopened.url, { poolSize: 2 });
    try {
      expect(await after.prisma.vehicle.count({ where: { dealerId } })).toBe(8);
      expect(
        await after.prisma.syncRun.findFirst({ where: { integrationId: connected.body.integration.id } }),
      ).toMatchObject({ trigger: 'cli', status: 'succeeded', created: 8 });
    } finally {
      await after.close();
      await reopened.stop();
    }
  }, 180_000);
});

describe('a tool on a DATA_DIR another tool holds', () => {
  it('npm run seed refuses with the holder and what to do, and writes nothing', async () => {
    const dataDir = tempDir('ddp-lock-tool-');
    const runningTool = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)']);
    try {
      plantLock(dataDir, { pid: runningTool.pid!, command: 'npm run sync' });
      const seed = await run('scripts/seed.ts', ['--vehicles', '5'], {
        ...process.env,
        DATA_DIR: dataDir,
        DATABASE_URL: '',
      });
      expect(seed.code).toBe(1);
      expect(seed.stderr).toContain(
        `DATA_DIR ${dataDir} is open in \`npm run sync\` (pid ${runningTool.pid}): wait for it to finish, then run this again.`,
      );
      expect(existsSync(path.join(dataDir, 'postgres'))).toBe(false);
      expect(readLock(dataDir).pid).toBe(runningTool.pid);
    } finally {
      runningTool.kill();
    }
  }, 90_000);
});
