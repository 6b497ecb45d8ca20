/** The scopes an API key can hold and a user's role grants. */
export const SCOPES = [
  'inventory:read',
  'inventory:write',
  'dealers:read',
  'dealers:write',
  'integrations:read',
  'integrations:write',
  'calls:read',
  'calls:write',
  'leads:read',
  'leads:write',
  'sales:read',
  'sources:read',
  'sources:write',
  'mappings:read',
  'mappings:write',
  'partners:read',
  'partners:write',
  'assistant:use',
  'logs:read',
  'webhooks:read',
  'webhooks:write',
  'admin',
] as const;

export type Scope = (typeof SCOPES)[number];
export type Role = 'admin' | 'analyst' | 'viewer';

const READ_SCOPES = SCOPES.filter((scope) => scope.endsWith(':read'));

/**
 * Writing calls and vehicles is what feeds and partners' systems do, so only admins (and keys given
 * the scope) hold it; analysts keep `leads:write`, which lets them work leads and post them.
 */
export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  admin: SCOPES,
  analyst: [...READ_SCOPES.filter((scope) => scope !== 'logs:read'), 'leads:write', 'assistant:use'],
  viewer: ['inventory:read', 'dealers:read', 'calls:read', 'leads:read', 'sales:read', 'sources:read'],
};

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);
