import { builder } from '../../builder';
import type { Role } from '../../auth/scopes';
import type { Consent, PartnerLink } from '../../auth/consent';
import { DealerGroup } from '../dealers/dealers.schema';
import { login, logout, refresh, type TokenPair } from './auth.service';
import { restOperations } from '../../http/operations';

const operation = restOperations('Auth');

/** Login, refresh, logout and the caller's profile, from the Auth section of docs/operations.md. */

export const UserRoleEnum = builder.enumType('UserRole', {
  values: {
    admin: { description: 'Everything, including keys and users' },
    analyst: { description: 'Reads all data, updates leads, uses the assistant' },
    viewer: { description: 'Reads inventory, dealers, calls, leads, sales and sources' },
  } as const,
});

export const User = builder.prismaObject('User', {
  fields: (t) => ({
    id: t.exposeID('id'),
    email: t.exposeString('email'),
    name: t.exposeString('name'),
    role: t.field({ type: UserRoleEnum, resolve: (user) => user.role }),
    last_login_at: t.expose('lastLoginAt', { type: 'DateTime', nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const AuthTokens = builder.objectRef<TokenPair>('AuthTokens').implement({
  description: 'An access token (RS256 JWT, short-lived) and the single-use refresh token that renews it.',
  fields: (t) => ({
    token: t.exposeString('token', { description: 'The access token: send it as "Authorization: Bearer <token>".' }),
    token_type: t.exposeString('tokenType'),
    expires_in: t.exposeInt('expiresIn', { description: 'Seconds until the access token expires.' }),
    expires_at: t.expose('expiresAt', { type: 'DateTime' }),
    refresh_token: t.exposeString('refreshToken', {
      description: 'Works once; POST it to /auth/refresh for a new pair.',
    }),
    refresh_expires_at: t.expose('refreshExpiresAt', { type: 'DateTime' }),
    password_change_required: t.exposeBoolean('passwordChangeRequired', {
      description:
        'True after signing in with an initial password an admin chose: POST /auth/password before anything else.',
    }),
    user: t.prismaField({
      type: 'User',
      resolve: (query, pair, _args, context) =>
        context.db.user.findUniqueOrThrow({ ...query, where: { id: pair.userId } }),
    }),
  }),
});

const PartnerLinkView = builder.objectRef<PartnerLink>('PartnerConsentLink').implement({
  description: 'A rooftop linked to the partner, and the kinds of data the link allows.',
  fields: (t) => ({
    dealer_id: t.exposeID('dealer_id'),
    data_permissions: t.stringList({ resolve: (link) => [...link.permissions] }),
  }),
});

const PartnerConsent = builder.objectRef<Consent>('PartnerConsent').implement({
  description: "What a partner's key may see: the rooftops linked to its partner and the data each link allows.",
  fields: (t) => ({
    partner_id: t.exposeID('partnerId'),
    dealers: t.field({ type: [PartnerLinkView], resolve: (consent) => [...consent.links] }),
  }),
});

interface MeShape {
  consent: Consent | null;
  userId: string | null;
  apiKeyId: string | null;
  role: Role | null;
  scopes: readonly string[];
  dealerGroupIds: readonly string[];
}

const Me = builder.objectRef<MeShape>('Me').implement({
  description: 'Who the caller is and what they may do: a user, or an API key.',
  fields: (t) => ({
    user: t.prismaField({
      type: 'User',
      nullable: true,
      resolve: (query, me, _args, context) =>
        me.userId ? context.db.user.findUniqueOrThrow({ ...query, where: { id: me.userId } }) : null,
    }),
    api_key: t.prismaField({
      type: 'ApiKey',
      nullable: true,
      description: 'When the caller is an API key.',
      resolve: (query, me, _args, context) =>
        me.apiKeyId ? context.db.apiKey.findUniqueOrThrow({ ...query, where: { id: me.apiKeyId } }) : null,
    }),
    partner: t.field({
      type: PartnerConsent,
      nullable: true,
      description:
        "When the caller is a partner's API key: its partner, the rooftops linked to it and what each link allows.",
      resolve: (me) => me.consent,
    }),
    role: t.field({ type: UserRoleEnum, nullable: true, resolve: (me) => me.role }),
    scopes: t.stringList({ resolve: (me) => [...me.scopes] }),
    dealer_groups: t.prismaField({
      type: [DealerGroup],
      resolve: (query, me, _args, context) =>
        context.db.dealerGroup.findMany({
          ...query,
          where: { id: { in: [...me.dealerGroupIds] } },
          orderBy: { name: 'asc' },
        }),
    }),
  }),
});

const LogoutResult = builder.objectRef<{ revoked: number }>('LogoutResult').implement({
  fields: (t) => ({ revoked: t.exposeInt('revoked', { description: 'How many refresh tokens were revoked.' }) }),
});

builder.mutationFields((t) => ({
  login: t.field({
    ...operation('POST /auth/login', 'Sign in', { public: true }),
    type: AuthTokens,
    description: 'Exchange an email and password for an access token and a refresh token.',
    args: { email: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: (app, args, context) => login(context, app.auth, args),
  }),
  refresh: t.field({
    ...operation('POST /auth/refresh', 'Refresh an access token', { public: true }),
    type: AuthTokens,
    description: 'Exchange a refresh token (single use) for a new token pair.',
    args: { refresh_token: t.arg.string({ required: true }) },
    resolve: (app, args, context) => refresh(context, app.auth, args.refresh_token),
  }),
  logout: t.field({
    ...operation('POST /auth/logout', 'Sign out'),
    type: LogoutResult,
    description: "Revoke the caller's refresh token (and its family), or all of them when none is given.",
    authScopes: { authenticated: true },
    args: { refresh_token: t.arg.string() },
    resolve: async (_root, args, context) => ({ revoked: await logout(context, args.refresh_token ?? null) }),
  }),
}));

builder.queryFields((t) => ({
  me: t.field({
    ...operation('GET /auth/me', 'The caller'),
    type: Me,
    description: "The caller's profile: user, role, dealer groups and scopes.",
    authScopes: { authenticated: true },
    resolve: (_root, _args, { session }) => ({
      userId: session.userId,
      apiKeyId: session.apiKeyId,
      role: session.principal.kind === 'user' ? session.principal.role : null,
      scopes: session.scopes,
      dealerGroupIds: session.dealerGroupIds,
      consent: session.consent,
    }),
  }),
}));
