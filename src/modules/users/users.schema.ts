import { builder } from '../../builder';
import { itemsLoaded, pageOf } from '../../pages';
import { listArgs } from '../../schema-args';
import { AuthTokens, UserRoleEnum } from '../auth/auth.schema';
import { signIn } from '../auth/auth.service';
import { MIN_PASSWORD_LENGTH } from '../../auth/passwords';
import {
  acceptInvitation,
  changePassword,
  createUser,
  INVITE_DAYS,
  listUsers,
  sharedGroups,
  updateUser,
  type Invitation,
  type UserRow,
} from './users.service';
import { restOperations } from '../../http/operations';

const adminOperation = restOperations('Administration');
const authOperation = restOperations('Auth');

/** Users of the admin's groups (/admin/users, Administration section of docs/operations.md), with the password change and invitation acceptance they need (Auth section). */

const ManagedUser = builder.objectRef<UserRow>('ManagedUser').implement({
  description: 'A user as an admin of their dealer groups sees them.',
  fields: (t) => ({
    id: t.exposeID('id'),
    email: t.exposeString('email'),
    name: t.exposeString('name'),
    role: t.field({ type: UserRoleEnum, resolve: (user) => user.role }),
    dealer_group_ids: t.idList({
      description: 'Their dealer groups that you hold too.',
      resolve: (user, _args, context) => sharedGroups(context, user),
    }),
    disabled: t.boolean({ resolve: (user) => user.disabledAt !== null }),
    disabled_at: t.expose('disabledAt', { type: 'DateTime', nullable: true }),
    password_change_required: t.exposeBoolean('mustChangePassword'),
    invitation_pending: t.boolean({ resolve: (user) => user.inviteTokenHash !== null }),
    invitation_expires_at: t.expose('inviteExpiresAt', { type: 'DateTime', nullable: true }),
    last_login_at: t.expose('lastLoginAt', { type: 'DateTime', nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const UserPage = pageOf('ManagedUserPage', 'users', itemsLoaded(ManagedUser));

const InvitationRef = builder.objectRef<Invitation>('UserInvitation').implement({
  description: 'An invitation: the token is shown once (and emailed); it works once.',
  fields: (t) => ({
    token: t.exposeString('token'),
    expires_at: t.expose('expires_at', { type: 'DateTime' }),
    delivery: t.exposeString('delivery', { description: 'smtp, or outbox when no SMTP server took the email.' }),
    outbox_file: t.exposeString('outbox_file', { nullable: true }),
    note: t.exposeString('note', { nullable: true }),
  }),
});

const CreatedUser = builder.objectRef<Awaited<ReturnType<typeof createUser>>>('CreatedUser').implement({
  fields: (t) => ({
    user: t.field({ type: ManagedUser, resolve: (created) => created.user }),
    invitation: t.field({
      type: InvitationRef,
      nullable: true,
      description: 'Set when no initial password was given.',
      resolve: (created) => created.invitation,
    }),
  }),
});

const PasswordChanged = builder
  .objectRef<{ changed: boolean }>('PasswordChanged')
  .implement({ fields: (t) => ({ changed: t.exposeBoolean('changed') }) });

builder.queryFields((t) => ({
  adminUsers: t.field({
    ...adminOperation('GET /admin/users', 'List users'),
    type: UserPage,
    description: 'Users of your dealer groups, by email. Disabled users only with include_disabled.',
    authScopes: { adminUser: true },
    args: {
      q: t.arg.string({ description: 'Part of the email or name.' }),
      role: t.arg.string(),
      include_disabled: t.arg.boolean(),
      ...listArgs(t),
    },
    resolve: (_root, args, context) => listUsers(context, args),
  }),
}));

builder.mutationFields((t) => ({
  createUser: t.field({
    ...adminOperation('POST /admin/users', 'Create or invite a user', { status: 201 }),
    type: CreatedUser,
    description: `Create a user with a role and dealer groups. With \`password\` (at least ${MIN_PASSWORD_LENGTH} characters) the user must change it at first sign-in; without, an invitation valid ${INVITE_DAYS} days is emailed and returned once.`,
    authScopes: { adminUser: true },
    args: {
      email: t.arg.string({ required: true }),
      name: t.arg.string({ required: true }),
      role: t.arg.string({ description: 'admin, analyst or viewer (default).' }),
      dealer_group_ids: t.arg.idList({ description: 'Among your dealer groups; required when you hold several.' }),
      password: t.arg.string({ description: 'An initial password the user must change.' }),
    },
    resolve: (app, args, context) =>
      createUser(context, app, { ...args, dealer_group_ids: args.dealer_group_ids?.map(String) }),
  }),
  updateUser: t.field({
    ...adminOperation('PATCH /admin/users/:id', 'Update a user'),
    type: ManagedUser,
    description:
      'Change name, role or dealer groups (memberships in groups you do not hold stay), or disable: a disabled user is signed out everywhere and their next request gets 401.',
    authScopes: { adminUser: true },
    args: {
      id: t.arg.id({ required: true }),
      name: t.arg.string(),
      role: t.arg.string(),
      dealer_group_ids: t.arg.idList(),
      disabled: t.arg.boolean(),
    },
    resolve: (_root, args, context) =>
      updateUser(context, String(args.id), { ...args, dealer_group_ids: args.dealer_group_ids?.map(String) }),
  }),
  changePassword: t.field({
    ...authOperation('POST /auth/password', 'Change your password'),
    type: PasswordChanged,
    description: 'Change your password (required after signing in with an initial password an admin chose).',
    authScopes: { authenticated: true },
    args: { current_password: t.arg.string({ required: true }), new_password: t.arg.string({ required: true }) },
    resolve: (app, args, context) => changePassword(context, app.auth, args),
  }),
  acceptInvitation: t.field({
    ...authOperation('POST /auth/invitations/accept', 'Accept an invitation', { public: true }),
    type: AuthTokens,
    description: 'Accept an invitation: choose a password and get a token pair, as a login would.',
    args: { token: t.arg.string({ required: true }), password: t.arg.string({ required: true }) },
    resolve: async (app, args, context) => signIn(context, app.auth, await acceptInvitation(context, args)),
  }),
}));
