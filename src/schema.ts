import { lexicographicSortSchema } from 'graphql';
import { builder } from './builder';
import './modules/health/health.schema';
import './modules/auth/auth.schema';
import './modules/dealers/dealers.schema';
import './modules/inventory/inventory.schema';
import './modules/sources/sources.schema';
import './modules/calls/calls.schema';
import './modules/leads/leads.schema';
import './modules/sales/sales.schema';
import './modules/partners/partners.schema';
import './modules/plugins/plugins.schema';
import './modules/rules/rules.schema';
import './modules/integrations/integrations.schema';
import './modules/syncs/syncs.schema';
import './modules/mapping-templates/mapping-templates.schema';
import './modules/column-mappings/column-mappings.schema';
import './modules/multi-source/multi-source.schema';
import './modules/sftp-emails/sftp-emails.schema';
import './modules/api-keys/api-keys.schema';
import './modules/logs/logs.schema';
import './modules/events/events.schema';
import './modules/users/users.schema';
import './modules/admin/admin.schema';
import './modules/assistant/assistant.schema';

/** The GraphQL schema: every module registers its types and operations on the builder. */
export const schema = builder.toSchema({ sortSchema: false });
export const printableSchema = () => lexicographicSortSchema(schema);
