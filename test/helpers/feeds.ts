import { copyFileSync, mkdirSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import type { TestApp } from './app';
import { inboxOf } from '../../src/modules/syncs/syncs.service';

/** Feed helpers: connect an integration over REST and drop fixture files into its inbox as an SFTP upload would. */

export const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/feeds');

export async function connect(app: TestApp, token: string, body: Record<string, unknown>) {
  const response = await app.client.post('/integrations', body, token);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as {
    integration: { id: string; [key: string]: unknown };
    sftp_account: { username: string; password: string; port: number | null } | null;
  };
}

let sequence = 0;
/** Places a fixture (or any file, by absolute path) in the integration's inbox under `name` (default: the file's own name). */
export function deliver(app: TestApp, integrationId: string, fixture: string, name = path.basename(fixture)) {
  const { incoming } = inboxOf(app.services.feeds.dataDir, integrationId);
  mkdirSync(incoming, { recursive: true });
  const target = path.join(incoming, name);
  copyFileSync(path.resolve(FIXTURES, fixture), target);
  // Oldest first: files delivered one after another keep their order.
  const at = new Date(Date.now() - 60_000 + (sequence += 1) * 10);
  utimesSync(target, at, at);
  return target;
}

export async function syncNow(app: TestApp, token: string, integrationId: string, timeoutMs = 20_000) {
  const response = await app.client.post(`/integrations/${integrationId}/sync`, { wait: true }, token);
  expect(response.status, JSON.stringify(response.body)).toBe(202);
  if (response.body.status === 'running') {
    for (const until = Date.now() + timeoutMs; Date.now() < until;) {
      const run = await app.client.get(`/syncs/${response.body.id}`, token);
      if (run.body.status !== 'running') return run.body;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return response.body;
}
