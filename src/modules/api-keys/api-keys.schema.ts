import { PARTNER_SCOPES } from '../../auth/consent';
import { builder } from '../../builder';
import { itemsByIds, pageOf } from '../../pages';
import { maskApiKey } from '../../auth/api-keys';
import { SCOPES } from '../../auth/scopes';
import {
  createApiKey,
  DEFAULT_RATE_LIMIT,
  listApiKeys,
  revokeApiKey,
  rotateApiKey,
  ROTATION_DAYS,
} from './api-keys.service';
import { choices, listArgs } from '../../schema-args';
import { restOperations } from '../../http/operations';

const operation = restOperations('API keys');

/** The API keys section of docs/operations.md. The API key resource keeps its camelCase field names, the one exception to snake_case (README, Conventions). */

const DAY = 86_400_000;

export const ApiKey = builder.prismaObject('ApiKey', {
  description: 'A partner API key. The key itself is shown once, when created or rotated; here only its masked form.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    scopes: t.exposeStringList('scopes'),
    rateLimitPerHour: t.exposeInt('rateLimitPerHour'),
    allowedIps: t.exposeStringList('allowedIps', {
      description: 'CIDR blocks the key may be used from; empty means anywhere.',
    }),
    maskedKey: t.string({
      description: 'svc_live_… and the last four characters.',
      resolve: (key) => maskApiKey(key.lastFour),
    }),
    lastUsedAt: t.expose('lastUsedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Accurate to about a minute.',
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    ageDays: t.int({ resolve: (key) => Math.floor((Date.now() - key.createdAt.getTime()) / DAY) }),
    rotationDue: t.boolean({
      description: `True once the key is ${ROTATION_DAYS} days old.`,
      resolve: (key) => Date.now() - key.createdAt.getTime() >= ROTATION_DAYS * DAY,
    }),
    status: t.string({
      description: '"active", "expiring" (rotated, within its grace period) or "revoked".',
      resolve: (key) => (!key.revokedAt ? 'active' : key.revokedAt.getTime() > Date.now() ? 'expiring' : 'revoked'),
    }),
    revokedAt: t.expose('revokedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the key stopped (or stops) working.',
    }),
    rotatedFromId: t.exposeID('rotatedFromId', { nullable: true }),
    dealerGroupIds: t.stringList({
      select: { dealerGroups: { select: { dealerGroupId: true } } },
      resolve: (key) => key.dealerGroups.map((group) => group.dealerGroupId),
    }),
    createdById: t.exposeID('createdById'),
    partnerId: t.exposeID('partnerId', {
      nullable: true,
      description:
        'The partner the key is bound to: it sees only the rooftops linked to that partner, and only the data each link allows.',
    }),
  }),
});

const CreatedApiKey = builder.objectRef<{ id: string; key: string }>('CreatedApiKey').implement({
  description: 'A new key: `key` is shown this once and cannot be recovered.',
  fields: (t) => ({
    key: t.exposeString('key', { description: 'The full key. Store it now: only its digest is kept.' }),
    apiKey: t.prismaField({
      type: ApiKey,
      resolve: (query, created, _args, context) =>
        context.db.apiKey.findUniqueOrThrow({ ...query, where: { id: created.id } }),
    }),
  }),
});

const ApiKeyPage = pageOf('ApiKeyPage', 'apiKeys', itemsByIds(ApiKey));

builder.queryFields((t) => ({
  apiKeys: t.field({
    ...operation('GET /api-keys', 'List API keys'),
    type: ApiKeyPage,
    description: 'API keys of your dealer groups, newest first. Admin users only; API keys cannot manage keys.',
    authScopes: { adminUser: true },
    args: { ...listArgs(t), includeRevoked: t.arg.boolean({ description: 'Also list revoked keys.' }) },
    resolve: (_root, args, context) => listApiKeys(context, args),
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    ...operation('POST /api-keys', 'Create an API key', { status: 201 }),
    type: CreatedApiKey,
    description: `Create a key bound to your dealer groups (or the ones named). rateLimitPerHour defaults to ${DEFAULT_RATE_LIMIT}.`,
    authScopes: { adminUser: true },
    args: {
      name: t.arg.string({ required: true }),
      scopes: t.arg.stringList({ required: true, ...choices(SCOPES) }),
      rateLimitPerHour: t.arg.int(),
      allowedIps: t.arg.stringList({ description: 'CIDR blocks, e.g. "203.0.113.0/24"; other addresses get 403.' }),
      dealerGroupIds: t.arg.idList({
        description: "Defaults to all of your dealer groups (a partner's key: its partner's group).",
      }),
      partnerId: t.arg.id({
        description: `Binds the key to this partner: it sees only the rooftops linked to the partner (POST /partners/:id/dealers) and only the kinds of data each link allows, and may hold only ${PARTNER_SCOPES.join(', ')}.`,
      }),
    },
    resolve: (_root, args, context) =>
      createApiKey(context, {
        ...args,
        dealerGroupIds: args.dealerGroupIds?.map(String),
        partnerId: args.partnerId == null ? null : String(args.partnerId),
      }),
  }),
  revokeApiKey: t.prismaField({
    ...operation('DELETE /api-keys/:id', 'Revoke an API key'),
    type: ApiKey,
    description: 'Revoke a key: it gets 401 from the next request on, on every server.',
    authScopes: { adminUser: true },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) =>
      context.db.apiKey.findUniqueOrThrow({ ...query, where: { id: await revokeApiKey(context, String(args.id)) } }),
  }),
  rotateApiKey: t.field({
    ...operation('POST /api-keys/:id/rotate', 'Rotate an API key', { status: 201 }),
    type: CreatedApiKey,
    description:
      'Issue a replacement with the same name, scopes, limit and groups; the old key stops now or after gracePeriodSeconds.',
    authScopes: { adminUser: true },
    args: {
      id: t.arg.id({ required: true }),
      gracePeriodSeconds: t.arg.int({ description: '0 (default) to 2592000 (30 days).' }),
    },
    resolve: (_root, args, context) => rotateApiKey(context, String(args.id), args.gracePeriodSeconds),
  }),
}));
