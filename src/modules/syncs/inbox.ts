import { mkdir, readdir, rename, stat } from 'node:fs/promises';
import path from 'node:path';
import { RE2JS } from 're2js';
import type { Integration } from '../../generated/prisma/client';
import { pluginByKey } from '../plugins/registry';

/**
 * Each file feed's inbox under DATA_DIR: uploads wait in `incoming` and move to `processed` (with a
 * time stamp in front) once a run has read them, so the last file can be read again.
 */

type FileFeed = Pick<Integration, 'id' | 'config' | 'pluginKey'>;

/** A file's name as it was delivered (processed files carry a time stamp in front). */
export const deliveredName = (file: string) => path.basename(file).replace(/^\d{8}T\d{6}-/, '');

/** Where an integration's uploaded files wait (incoming) and go once read (processed). */
export function inboxOf(dataDir: string | null, integrationId: string) {
  const root = path.join(dataDir ?? path.join(process.cwd(), 'data'), 'inbox', integrationId);
  return { root, incoming: path.join(root, 'incoming'), processed: path.join(root, 'processed') };
}

/** Files waiting in the inbox, oldest first, that the plugin's file pattern accepts and that no one wrote to for `settledMs`. */
export async function pendingFiles(dataDir: string | null, integration: FileFeed, settledMs = 0): Promise<string[]> {
  const { incoming } = inboxOf(dataDir, integration.id);
  const pattern = globPattern(
    String((integration.config as Record<string, unknown>).file_pattern ?? defaultPattern(integration.pluginKey)),
  );
  const names = await readdir(incoming).catch(() => [] as string[]);
  const files = await Promise.all(
    names
      .filter((name) => !name.startsWith('.') && pattern.test(name))
      .map(async (name) => ({ name, info: await stat(path.join(incoming, name)).catch(() => null) })),
  );
  return files
    .filter((file) => file.info?.isFile() && Date.now() - file.info.mtimeMs >= settledMs)
    .sort((a, b) => a.info!.mtimeMs - b.info!.mtimeMs)
    .map((file) => path.join(incoming, file.name));
}

/** The last file a run read, or null. */
export async function latestProcessed(dataDir: string | null, integrationId: string): Promise<string | null> {
  const { processed } = inboxOf(dataDir, integrationId);
  const names = (await readdir(processed).catch(() => [] as string[])).sort();
  return names.length ? path.join(processed, names.at(-1)!) : null;
}

/** The file a run (or a probe) reads: the oldest waiting upload, else the last file read again, which changes nothing. */
export async function fileToRead(
  dataDir: string | null,
  integration: FileFeed,
): Promise<{ file: string | null; fromInbox: boolean }> {
  const pending = (await pendingFiles(dataDir, integration))[0];
  return pending
    ? { file: pending, fromInbox: true }
    : { file: await latestProcessed(dataDir, integration.id), fromInbox: false };
}

/** The newest file of the feed (waiting or read), for a preview of its columns. */
export async function newestFile(dataDir: string | null, integration: FileFeed): Promise<string | null> {
  return (await pendingFiles(dataDir, integration)).at(-1) ?? (await latestProcessed(dataDir, integration.id));
}

/** Moves a file a run has read into `processed`, time-stamped. */
export async function markProcessed(dataDir: string | null, integrationId: string, file: string): Promise<void> {
  const { processed } = inboxOf(dataDir, integrationId);
  if (path.dirname(file) === processed) return;
  await mkdir(processed, { recursive: true });
  const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 15);
  await rename(file, path.join(processed, `${stamp}-${path.basename(file)}`));
}

const defaultPattern = (pluginKey: string) =>
  String(pluginByKey(pluginKey)?.configSchema.find((field) => field.name === 'file_pattern')?.default ?? '*');

/**
 * A file glob ("inventory_*.csv", comma-separated alternatives) as a case-insensitive matcher. A
 * tenant writes it, so it runs on RE2: on a backtracking engine "*a*a*a*a*b" is polynomial in the name.
 */
export function globPattern(globs: string): { test(name: string): boolean } {
  const alternatives = globs
    .split(',')
    .map((glob) => glob.trim())
    .filter(Boolean)
    .map((glob) =>
      glob
        .split('')
        .map((character) => (character === '*' ? '.*' : character === '?' ? '.' : RE2JS.quote(character)))
        .join(''),
    );
  const pattern = RE2JS.compile(`^(?:${alternatives.join('|') || '.*'})$`, RE2JS.CASE_INSENSITIVE);
  return { test: (name) => pattern.test(name) };
}
