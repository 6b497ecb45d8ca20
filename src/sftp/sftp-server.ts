import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import ssh2 from 'ssh2';
import { verifyPassword } from '../auth/passwords';
import { inboxOf, startIfPending, type SyncServices } from '../modules/syncs/syncs.service';

/**
 * The SFTP server data providers drop files into. Each account (an integration's username and
 * password, stored hashed) sees only its integration's inbox. Uploads land under a hidden temporary
 * name and take their real name when closed, so a sync never reads half a file; closing one starts
 * a sync at once (the scheduler retries if one is already running).
 */

const { Server, utils } = ssh2;
const { OPEN_MODE, STATUS_CODE } = utils.sftp;
const MAX_FILE_BYTES = 2 * 1024 ** 3;

export interface SftpServer {
  port: number;
  close(): Promise<void>;
}

function hostKey(dataDir: string | null): string {
  const file = dataDir ? path.join(dataDir, 'keys', 'sftp-host-rsa.pem') : null;
  if (file && existsSync(file)) return readFileSync(file, 'utf8');
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  if (file) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    writeFileSync(file, privateKey, { mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return privateKey;
}

interface OpenFile {
  kind: 'file';
  handle: FileHandle;
  name: string;
  temp: string | null;
  written: number;
}
interface OpenDir {
  kind: 'dir';
  listed: boolean;
}

/** A path inside the jail: "/", "/a.csv" or "a.csv" → its base name; anything deeper or escaping → null. */
function jailedName(requested: string): string | null {
  const normalized = path.posix.normalize(`/${requested}`);
  if (normalized === '/' || normalized === '/.') return '';
  const name = normalized.slice(1);
  if (name.includes('/') || name.startsWith('.') || name.length > 200) return null;
  return name;
}

export async function startSftpServer(options: { port: number; host: string; app: SyncServices }): Promise<SftpServer> {
  const { app } = options;
  const { database, logger } = app;
  const clients = new Set<ssh2.Connection>();
  const server = new Server({ hostKeys: [hostKey(app.feeds.dataDir)] }, (client) => {
    clients.add(client);
    client.on('close', () => clients.delete(client));
    let integrationId: string | null = null;
    client.on('authentication', async (context) => {
      if (context.method !== 'password') return context.reject(['password']);
      const integration = await database.prisma.integration
        .findFirst({
          where: { sftpUsername: context.username, disconnectedAt: null },
          select: { id: true, sftpPasswordHash: true, enabled: true },
        })
        .catch(() => null);
      // Verifying against a dummy hash when the account is unknown keeps failures equally slow.
      const valid = await verifyPassword(context.password, integration?.sftpPasswordHash ?? null);
      if (!valid || !integration?.enabled) {
        logger.info('sftp login refused', { username: context.username });
        return context.reject(['password']);
      }
      integrationId = integration.id;
      context.accept();
    });
    client.on('error', (error) => logger.debug('sftp client error', { error: error.message }));
    client.on('ready', () => {
      client.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('sftp', (acceptSftp) => {
          const sftp = acceptSftp();
          const inbox = inboxOf(app.feeds.dataDir, integrationId!).incoming;
          const handles = new Map<number, OpenFile | OpenDir>();
          let nextHandle = 1;
          const handleOf = (buffer: Buffer) => (buffer.length === 4 ? handles.get(buffer.readUInt32BE(0)) : undefined);
          const newHandle = (entry: OpenFile | OpenDir) => {
            const id = nextHandle++;
            handles.set(id, entry);
            const buffer = Buffer.alloc(4);
            buffer.writeUInt32BE(id, 0);
            return buffer;
          };
          const attrsOf = (info: { mode: number; size: number; atimeMs: number; mtimeMs: number }) => ({
            mode: info.mode,
            uid: 0,
            gid: 0,
            size: info.size,
            atime: Math.floor(info.atimeMs / 1000),
            mtime: Math.floor(info.mtimeMs / 1000),
          });
          const fail = (reqid: number, code: number, message: string) => sftp.status(reqid, code, message);

          sftp.on('REALPATH', (reqid, requested) => {
            const name = jailedName(requested);
            const full = name ? `/${name}` : '/';
            sftp.name(reqid, [
              { filename: full, longname: full, attrs: { mode: 0o40755, uid: 0, gid: 0, size: 0, atime: 0, mtime: 0 } },
            ]);
          });
          const statPath = async (reqid: number, requested: string) => {
            const name = jailedName(requested);
            if (name === null) return fail(reqid, STATUS_CODE.NO_SUCH_FILE, 'no such file');
            await mkdir(inbox, { recursive: true });
            const info = await stat(name ? path.join(inbox, name) : inbox).catch(() => null);
            if (!info) return fail(reqid, STATUS_CODE.NO_SUCH_FILE, 'no such file');
            sftp.attrs(reqid, attrsOf(info));
          };
          sftp.on('STAT', statPath);
          sftp.on('LSTAT', statPath);
          sftp.on('OPEN', async (reqid, requested, flags) => {
            const name = jailedName(requested);
            if (!name)
              return fail(reqid, STATUS_CODE.PERMISSION_DENIED, 'files go straight into your inbox: /<file name>');
            await mkdir(inbox, { recursive: true });
            try {
              if (flags & OPEN_MODE.WRITE) {
                const temp = path.join(inbox, `.upload-${process.pid}-${nextHandle}-${name}`);
                const handle = await open(temp, 'w', 0o600);
                sftp.handle(reqid, newHandle({ kind: 'file', handle, name, temp, written: 0 }));
              } else {
                const handle = await open(path.join(inbox, name), 'r');
                sftp.handle(reqid, newHandle({ kind: 'file', handle, name, temp: null, written: 0 }));
              }
            } catch {
              fail(reqid, STATUS_CODE.NO_SUCH_FILE, 'no such file');
            }
          });
          sftp.on('WRITE', async (reqid, buffer, offset, data) => {
            const entry = handleOf(buffer);
            if (!entry || entry.kind !== 'file' || !entry.temp)
              return fail(reqid, STATUS_CODE.FAILURE, 'not open for writing');
            if (offset + data.length > MAX_FILE_BYTES)
              return fail(reqid, STATUS_CODE.FAILURE, 'files are limited to 2 GB');
            await entry.handle.write(data, 0, data.length, offset);
            entry.written += data.length;
            sftp.status(reqid, STATUS_CODE.OK);
          });
          sftp.on('READ', async (reqid, buffer, offset, length) => {
            const entry = handleOf(buffer);
            if (!entry || entry.kind !== 'file') return fail(reqid, STATUS_CODE.FAILURE, 'not open');
            const chunk = Buffer.alloc(Math.min(length, 256 * 1024));
            const { bytesRead } = await entry.handle.read(chunk, 0, chunk.length, offset);
            if (!bytesRead) return sftp.status(reqid, STATUS_CODE.EOF);
            sftp.data(reqid, chunk.subarray(0, bytesRead));
          });
          sftp.on('FSTAT', async (reqid, buffer) => {
            const entry = handleOf(buffer);
            if (!entry || entry.kind !== 'file') return fail(reqid, STATUS_CODE.FAILURE, 'not open');
            sftp.attrs(reqid, attrsOf(await entry.handle.stat()));
          });
          sftp.on('FSETSTAT', (reqid) => sftp.status(reqid, STATUS_CODE.OK));
          sftp.on('SETSTAT', (reqid) => sftp.status(reqid, STATUS_CODE.OK));
          sftp.on('CLOSE', async (reqid, buffer) => {
            const entry = handleOf(buffer);
            if (!entry) return fail(reqid, STATUS_CODE.FAILURE, 'not open');
            handles.delete(buffer.readUInt32BE(0));
            if (entry.kind === 'file') {
              await entry.handle.close();
              if (entry.temp) {
                await rename(entry.temp, path.join(inbox, entry.name));
                await database.prisma.integration
                  .update({ where: { id: integrationId! }, data: { lastFileAt: new Date(), lastFileName: entry.name } })
                  .catch(() => {});
                logger.info('sftp file received', { integrationId, file: entry.name, bytes: entry.written });
                // Sync now; if a run is under way, the scheduler picks the file up when it ends.
                startIfPending(app, integrationId!, 'sftp').catch(() => {});
              }
            }
            sftp.status(reqid, STATUS_CODE.OK);
          });
          sftp.on('OPENDIR', async (reqid, requested) => {
            if (jailedName(requested) !== '') return fail(reqid, STATUS_CODE.NO_SUCH_FILE, 'your inbox has no folders');
            await mkdir(inbox, { recursive: true });
            sftp.handle(reqid, newHandle({ kind: 'dir', listed: false }));
          });
          sftp.on('READDIR', async (reqid, buffer) => {
            const entry = handleOf(buffer);
            if (!entry || entry.kind !== 'dir') return fail(reqid, STATUS_CODE.FAILURE, 'not a folder');
            if (entry.listed) return sftp.status(reqid, STATUS_CODE.EOF);
            entry.listed = true;
            const names = (await readdir(inbox)).filter((name) => !name.startsWith('.'));
            const listing = await Promise.all(
              names.map(async (name) => {
                const info = await stat(path.join(inbox, name));
                return {
                  filename: name,
                  longname: `-rw------- 1 feed feed ${info.size} ${info.mtime.toISOString().slice(0, 10)} ${name}`,
                  attrs: attrsOf(info),
                };
              }),
            );
            if (!listing.length) return sftp.status(reqid, STATUS_CODE.EOF);
            sftp.name(reqid, listing);
          });
          sftp.on('REMOVE', async (reqid, requested) => {
            const name = jailedName(requested);
            if (!name) return fail(reqid, STATUS_CODE.PERMISSION_DENIED, 'not allowed');
            await rm(path.join(inbox, name)).then(
              () => sftp.status(reqid, STATUS_CODE.OK),
              () => fail(reqid, STATUS_CODE.NO_SUCH_FILE, 'no such file'),
            );
          });
          sftp.on('RENAME', async (reqid, from, to) => {
            const [source, target] = [jailedName(from), jailedName(to)];
            if (!source || !target) return fail(reqid, STATUS_CODE.PERMISSION_DENIED, 'not allowed');
            await rename(path.join(inbox, source), path.join(inbox, target)).then(
              () => sftp.status(reqid, STATUS_CODE.OK),
              () => fail(reqid, STATUS_CODE.NO_SUCH_FILE, 'no such file'),
            );
          });
          for (const event of ['MKDIR', 'RMDIR', 'SYMLINK', 'READLINK'] as const) {
            sftp.on(event, (reqid: number) =>
              fail(reqid, STATUS_CODE.PERMISSION_DENIED, 'your inbox has no folders or links'),
            );
          }
          sftp.on('end', async () => {
            for (const entry of handles.values()) {
              if (entry.kind !== 'file') continue;
              await entry.handle.close().catch(() => {});
              if (entry.temp) await rm(entry.temp, { force: true });
            }
            handles.clear();
          });
        });
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  logger.info('sftp server listening', { port });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Connected clients would hold close() open: end them.
        for (const client of clients) client.end();
      }),
  };
}
