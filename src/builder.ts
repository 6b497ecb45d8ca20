import SchemaBuilder from '@pothos/core';
import PrismaPlugin from '@pothos/plugin-prisma';
import ScopeAuthPlugin, { type AuthFailure } from '@pothos/plugin-scope-auth';
import './stable-paths';
import type PrismaTypes from './generated/pothos-types';
import { getDatamodel } from './generated/pothos-types';
import type { Context } from './context';
import type { AppServices } from './app-services';
import type { Scope } from './auth/scopes';
import { passwordChangeRequired } from './auth/session';
import { forbidden, unauthenticated } from './errors';
import { recordAudit } from './audit';
import { formatMoney, literalValue, parseDateTime, parseMoney } from './scalars';

function missingScope(failure: AuthFailure): string | null {
  if ('parameter' in failure && typeof failure.parameter === 'string') return failure.parameter;
  if ('failures' in failure)
    for (const inner of failure.failures) {
      const found = missingScope(inner);
      if (found) return found;
    }
  return null;
}

/** The schema builder: plugins, scalars and the scope rules every operation declares. */
export const builder = new SchemaBuilder<{
  Context: Context;
  /** Every Query and Mutation resolver receives the app's services as its parent (app-services.ts). */
  Root: AppServices;
  PrismaTypes: PrismaTypes;
  AuthScopes: { scope: Scope; authenticated: boolean; adminUser: boolean };
  DefaultFieldNullability: false;
  Scalars: {
    Money: { Input: string; Output: unknown };
    DateTime: { Input: Date; Output: Date | string };
    Date: { Input: Date; Output: Date | string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  defaultFieldNullability: false,
  // stablePaths first, so its wrapper is the outermost (stable-paths.ts says why).
  plugins: ['stablePaths', ScopeAuthPlugin, PrismaPlugin],
  prisma: {
    client: (context) => context.db,
    dmmf: getDatamodel(),
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
  scopeAuth: {
    authScopes: (context) => ({
      scope: (scope: Scope) => context.session.has(scope),
      authenticated: context.session.isAuthenticated,
      adminUser: context.session.isAdminUser,
    }),
    unauthorizedError: (_parent, context, info, result) => {
      if (!context.session.isAuthenticated) return unauthenticated();
      if (context.session.mustChangePassword) return passwordChangeRequired();
      const scope = missingScope(result.failure);
      const message = scope
        ? `missing scope ${scope}`
        : context.session.principal.kind === 'apiKey'
          ? 'API keys cannot do this, whatever their scopes: sign in as an admin user'
          : 'only admins may do this';
      recordAudit(context.db, context, {
        action: 'scope.denied',
        details: { operation: `${info.parentType.name}.${info.fieldName}`, requiredScope: scope ?? 'admin user' },
      }).catch(() => {
        /* the denial itself must still be answered */
      });
      return forbidden(message, { requiredScope: scope ?? 'admin user' });
    },
  },
});

/** The builder's settings (context, Prisma types, scalars), for helpers that take its field or argument builders. */
export type BuilderTypes = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer Types> ? Types : never;

builder.queryType({});
builder.mutationType({});
builder.subscriptionType({});

builder.scalarType('Money', {
  description: 'An amount of money as a decimal string with two fraction digits, e.g. "18995.00".',
  serialize: formatMoney,
  parseValue: parseMoney,
  parseLiteral: (ast) => parseMoney(literalValue(ast)),
});

builder.scalarType('DateTime', {
  description: 'An instant in ISO 8601, always UTC on output, e.g. "2026-01-31T17:04:05.000Z".',
  serialize: (value) => (value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString()),
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(literalValue(ast)),
});

builder.scalarType('Date', {
  description: 'A calendar date in ISO 8601, e.g. "2026-01-31".',
  serialize: (value) => (value instanceof Date ? value.toISOString().slice(0, 10) : String(value).slice(0, 10)),
  parseValue: parseDateTime,
  parseLiteral: (ast) => parseDateTime(literalValue(ast)),
});

builder.scalarType('JSON', {
  description: 'Any JSON value.',
  serialize: (value) => value,
  parseValue: (value) => value,
});

/** What a DELETE answers: the id that is gone. */
export const Deletion = builder.objectRef<{ id: string }>('Deletion').implement({
  fields: (t) => ({ id: t.exposeID('id'), deleted: t.boolean({ resolve: () => true }) }),
});
