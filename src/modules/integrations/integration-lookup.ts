import type { Context } from '../../context';
import { findInTenant } from '../../tenancy';

/**
 * One of the caller's connected integrations, else 404. Kept apart from integrations.service so the
 * modules that hang off an integration (file column mappings, SFTP emails) can find it without
 * importing the service that imports them.
 */
export function findIntegration(caller: Pick<Context, 'db' | 'session'>, id: string) {
  return findInTenant(caller.session, 'integration', id, (where) => caller.db.integration.findFirst({ where: { ...where, disconnectedAt: null } }));
}
