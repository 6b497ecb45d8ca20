import { builder, Deletion } from '../../builder';
import { itemsWhere, pageOf } from '../../pages';
import {
  createPartner,
  DATA_PERMISSIONS,
  deletePartner,
  findPartner,
  linkDealer,
  PARTNER_KINDS,
  partnerPage,
  RELATIONSHIP_TYPES,
  unlinkDealer,
  updatePartner,
  type PartnerInput,
} from './partners.service';
import { choice, choices, listArgs, type FieldArgsBuilder } from '../../schema-args';
import { restOperations } from '../../http/operations';

const operation = restOperations('Partners');

/** The Partners section of docs/operations.md: data partners and their dealer relationships. */

builder.prismaObject('PartnerDealer', {
  description: "A partner's relationship with one rooftop and the data it may receive.",
  fields: (t) => ({
    dealer_id: t.exposeID('dealerId'),
    dealer_name: t.string({ select: { dealer: { select: { name: true } } }, resolve: (link) => link.dealer.name }),
    relationship_type: t.exposeString('relationshipType'),
    data_permissions: t.exposeStringList('dataPermissions'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const Partner = builder.prismaObject('Partner', {
  description: 'A data partner: a vendor, agency or OEM program.',
  fields: (t) => ({
    id: t.exposeID('id'),
    dealer_group_id: t.exposeID('dealerGroupId'),
    name: t.exposeString('name'),
    kind: t.exposeString('kind', { description: PARTNER_KINDS.join(', ') }),
    contact_email: t.exposeString('contactEmail', { nullable: true }),
    website: t.exposeString('website', { nullable: true }),
    notes: t.exposeString('notes', { nullable: true }),
    dealers: t.relation('dealers', {
      description: 'Its dealer relationships.',
      query: { orderBy: { createdAt: 'asc' } },
    }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const PartnerPage = pageOf('PartnerPage', 'partners', itemsWhere(Partner, [{ name: 'asc' }, { id: 'asc' }]));

const partnerArgs = (t: FieldArgsBuilder) => ({
  name: t.arg.string(),
  kind: t.arg.string(choice(PARTNER_KINDS)),
  contact_email: t.arg.string(),
  website: t.arg.string(),
  notes: t.arg.string(),
});

const reload = (id: string) => ({ where: { id } });

builder.queryFields((t) => ({
  partners: t.field({
    ...operation('GET /partners', 'List partners'),
    type: PartnerPage,
    authScopes: { scope: 'partners:read' },
    args: { kind: t.arg.string(), ...listArgs(t) },
    resolve: (_root, args, context) => partnerPage(context, args),
  }),
  partner: t.prismaField({
    ...operation('GET /partners/:id', 'Get a partner'),
    type: Partner,
    description: 'One partner with its dealer relationships.',
    authScopes: { scope: 'partners:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) =>
      context.db.partner.findUniqueOrThrow({ ...query, ...reload((await findPartner(context, String(args.id))).id) }),
  }),
}));

builder.mutationFields((t) => ({
  createPartner: t.prismaField({
    ...operation('POST /partners', 'Create a partner', { status: 201 }),
    type: Partner,
    authScopes: { scope: 'partners:write' },
    args: {
      ...partnerArgs(t),
      name: t.arg.string({ required: true }),
      kind: t.arg.string({ required: true }),
      dealer_group_id: t.arg.id(),
    },
    resolve: async (query, _root, args, context) =>
      context.db.partner.findUniqueOrThrow({
        ...query,
        ...reload(
          await createPartner(context, { ...args, dealer_group_id: args.dealer_group_id?.toString() } as PartnerInput),
        ),
      }),
  }),
  updatePartner: t.prismaField({
    ...operation('PATCH /partners/:id', 'Update a partner'),
    type: Partner,
    authScopes: { scope: 'partners:write' },
    args: { id: t.arg.id({ required: true }), ...partnerArgs(t) },
    resolve: async (query, _root, { id, ...input }, context) =>
      context.db.partner.findUniqueOrThrow({
        ...query,
        ...reload(await updatePartner(context, String(id), input as PartnerInput)),
      }),
  }),
  deletePartner: t.field({
    ...operation('DELETE /partners/:id', 'Delete a partner'),
    type: Deletion,
    description: 'Remove a partner; refused (409) while it has dealer relationships.',
    authScopes: { scope: 'partners:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => ({ id: await deletePartner(context, String(args.id)) }),
  }),
  linkPartnerDealer: t.prismaField({
    ...operation('POST /partners/:id/dealers', 'Link a partner to a dealer', { status: 201 }),
    type: Partner,
    description: 'Link a rooftop to the partner (or change the link): relationship type and the data it may receive.',
    authScopes: { scope: 'partners:write' },
    args: {
      id: t.arg.id({ required: true }),
      dealer_id: t.arg.id({ required: true }),
      relationship_type: t.arg.string({ required: true, ...choice(RELATIONSHIP_TYPES) }),
      data_permissions: t.arg.stringList({ required: true, ...choices(DATA_PERMISSIONS) }),
    },
    resolve: async (query, _root, args, context) =>
      context.db.partner.findUniqueOrThrow({
        ...query,
        ...reload(await linkDealer(context, String(args.id), { ...args, dealer_id: String(args.dealer_id) })),
      }),
  }),
  unlinkPartnerDealer: t.field({
    ...operation('DELETE /partners/:id/dealers/:dealerId', 'Unlink a partner from a dealer'),
    type: Deletion,
    authScopes: { scope: 'partners:write' },
    args: { id: t.arg.id({ required: true }), dealerId: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => ({
      id: await unlinkDealer(context, String(args.id), String(args.dealerId)),
    }),
  }),
}));
