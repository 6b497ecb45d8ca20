import { randomUUID } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

/**
 * One process at a time may open the embedded database under DATA_DIR: PGlite is PostgreSQL inside
 * one process's memory, with no shared buffers or locks between processes, so a second process
 * opening the same files works on its own copy and one side's writes are lost. The lock is a file in
 * DATA_DIR naming its holder's pid; a lock whose process is gone is taken over.
 *
 * Why not proper-lockfile: it decides staleness by how recently the holder touched the lock, and
 * PGlite runs its statements on the holder's main thread, so a long statement would let a second
 * process take a live lock. A pid is exact on one machine, and the file can carry the address of the
 * holder's database socket, which the command-line tools use to work through a running server.
 */

export const LOCK_FILE_NAME = 'postgres.lock';

/** Who opened DATA_DIR: the server, or a command-line tool (named as its user typed it). */
export type DataDirOpener = { role: 'server' } | { role: 'tool'; command: string };

/** What the lock file says about its holder. */
export interface LockHolder {
  pid: number;
  host: string;
  role: 'server' | 'tool';
  command: string;
  /** The holder's embedded database on the PostgreSQL wire protocol, once it is serving. */
  databaseUrl: string | null;
  openedAt: string;
  /** Tells this holder's lock from a later one written by a process that got the same pid. */
  token: string;
}

/** DATA_DIR is open in another live process (or its lock cannot be read); the message says what to do. */
export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
    message: string,
  ) {
    super(message);
    this.name = 'DataDirInUseError';
  }
}

/** A held lock: record the database address once serving, release when the database is closed. */
export interface DataDirLock {
  file: string;
  /** The previous holder, when its process was gone and the lock was taken over. */
  tookOverFrom: LockHolder | null;
  recordDatabaseUrl(url: string): void;
  release(): void;
}

/** Locks held by this process, by file, with their tokens: a lock naming our own pid is ours only if listed here. */
const heldHere = new Map<string, string>();

/** Takes DATA_DIR for this process, or throws DataDirInUseError naming the live holder. */
export function lockDataDir(dataDir: string, opener: DataDirOpener): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE_NAME);
  const mine: LockHolder = {
    pid: process.pid,
    host: hostname(),
    role: opener.role,
    command: opener.role === 'server' ? 'the server' : opener.command,
    databaseUrl: null,
    openedAt: new Date().toISOString(),
    token: randomUUID(),
  };
  let tookOverFrom: LockHolder | null = null;
  // Each pass either creates the lock, refuses, or removes a stale one; others racing us make a few passes at most.
  for (let attempt = 0; attempt < 10; attempt += 1) {
    if (createExclusively(file, mine)) return holdLock(file, mine, tookOverFrom);
    const current = readLockFile(file);
    if (current === 'missing') continue;
    if (current === 'unreadable') throw new DataDirInUseError(dataDir, null, unreadableLockMessage(dataDir, file));
    if (isHeldByLiveProcess(file, current.holder))
      throw new DataDirInUseError(dataDir, current.holder, inUseMessage(dataDir, file, current.holder, opener));
    removeStaleLock(file, current.holder);
    tookOverFrom = current.holder;
  }
  throw new DataDirInUseError(
    dataDir,
    null,
    `${file} kept changing while this process tried to take it; is something starting and stopping in a loop?`,
  );
}

/** Writes the lock whole (a temporary file linked into place), so a reader never sees half of it; false when one exists. */
function createExclusively(file: string, holder: LockHolder): boolean {
  const scratch = `${file}.${holder.pid}.${holder.token}`;
  writeFileSync(scratch, JSON.stringify(holder), { mode: 0o600 });
  try {
    linkSync(scratch, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(scratch);
  }
}

function readLockFile(file: string): { holder: LockHolder } | 'missing' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    return 'unreadable';
  }
  try {
    const holder = JSON.parse(text) as LockHolder;
    if (
      !Number.isInteger(holder.pid) ||
      holder.pid <= 0 ||
      typeof holder.host !== 'string' ||
      typeof holder.token !== 'string'
    )
      return 'unreadable';
    return { holder };
  } catch {
    return 'unreadable';
  }
}

/**
 * A lock from another machine (DATA_DIR on a shared volume) counts as live: its processes cannot be
 * seen from here. Our own pid in a lock this process does not hold is a previous process's (a
 * container restarted with the same pid).
 */
function isHeldByLiveProcess(file: string, holder: LockHolder): boolean {
  if (holder.host !== hostname()) return true;
  if (holder.pid === process.pid) return heldHere.get(file) === holder.token;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Moves the stale lock aside and deletes it, but only if it is still the lock judged stale (same
 * token; inode numbers are reused): another process may have taken it over between our read and
 * the move, and then its fresh lock goes back.
 */
function removeStaleLock(file: string, stale: LockHolder): void {
  const aside = `${file}.stale.${process.pid}.${randomUUID()}`;
  try {
    renameSync(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const moved = readLockFile(aside);
    if (typeof moved === 'object' && moved.holder.token !== stale.token) linkSync(aside, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(aside);
  }
}

function holdLock(file: string, holder: LockHolder, tookOverFrom: LockHolder | null): DataDirLock {
  heldHere.set(file, holder.token);
  // A process that exits without closing its database (process.exit on an error path) frees DATA_DIR too.
  const releaseOnExit = () => release();
  process.once('exit', releaseOnExit);
  const stillMine = () => {
    const current = readLockFile(file);
    return typeof current === 'object' && current.holder.token === holder.token;
  };
  function release() {
    process.removeListener('exit', releaseOnExit);
    if (heldHere.get(file) !== holder.token) return;
    heldHere.delete(file);
    if (stillMine()) unlinkSync(file);
  }
  return {
    file,
    tookOverFrom,
    recordDatabaseUrl(url) {
      if (!stillMine()) return;
      holder.databaseUrl = url;
      const scratch = `${file}.${holder.pid}.${holder.token}`;
      writeFileSync(scratch, JSON.stringify(holder), { mode: 0o600 });
      renameSync(scratch, file);
    },
    release,
  };
}

function describeHolder(holder: LockHolder): string {
  return holder.role === 'server' ? `the server (pid ${holder.pid})` : `\`${holder.command}\` (pid ${holder.pid})`;
}

function inUseMessage(dataDir: string, file: string, holder: LockHolder, opener: DataDirOpener): string {
  if (holder.host !== hostname()) {
    return (
      `DATA_DIR ${dataDir} is open on another machine (${holder.host}, pid ${holder.pid}): the embedded database serves one process on one machine. ` +
      `If nothing there has it open any more, delete ${file}.`
    );
  }
  const who = describeHolder(holder);
  if (opener.role === 'server') {
    return holder.role === 'server'
      ? `DATA_DIR ${dataDir} is already open in ${who}: stop it first, or give this server another DATA_DIR.`
      : `DATA_DIR ${dataDir} is open in ${who}: wait for it to finish (or stop it), then start the server.`;
  }
  return holder.role === 'server'
    ? `DATA_DIR ${dataDir} is open in ${who}, which is not serving its database yet: run this again once the server is up, or stop the server first.`
    : `DATA_DIR ${dataDir} is open in ${who}: wait for it to finish, then run this again.`;
}

function unreadableLockMessage(dataDir: string, file: string): string {
  return `DATA_DIR ${dataDir} has a lock file this process cannot read (${file}). If no server or tool has DATA_DIR open, delete it.`;
}
