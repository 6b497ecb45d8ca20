import { expect } from 'vitest';
import type { ApiClient } from './app';

/** Creates an API key through the public API, as an admin would. */
export async function createKey(
  client: ApiClient,
  adminToken: string,
  body: Record<string, unknown>,
): Promise<{ id: string; key: string }> {
  const response = await client.post('/api-keys', { name: 'partner', scopes: ['inventory:read'], ...body }, adminToken);
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return { id: response.body.apiKey.id, key: response.body.key };
}
