import { builder, Deletion } from '../../builder';
import { itemsWhere, pageOf } from '../../pages';
import { TARGETS } from '../field-mapping/fields';
import {
  cloneTemplate,
  createTemplate,
  deleteTemplate,
  findTemplate,
  publishTemplate,
  templatePage,
  updateTemplate,
  type TemplateInput,
} from './mapping-templates.service';
import { choice, listArgs } from '../../schema-args';
import { GRAPHQL_ONLY, restOperations } from '../../http/operations';

/** Mapping templates (that section of docs/operations.md): reusable, versioned field and value mappings, and the community bank. */

const templateOperation = restOperations('Mapping templates');

const TemplateVersion = builder.prismaObject('MappingTemplateVersion', {
  fields: (t) => ({
    version: t.exposeInt('version'),
    field_mappings: t.expose('fieldMappings', { type: 'JSON' }),
    value_mappings: t.expose('valueMappings', { type: 'JSON' }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const MappingTemplate = builder.prismaObject('MappingTemplate', {
  description: 'Field mappings and value mappings ("Blk", "Ebony" → "Black") an integration can use; versioned.',
  fields: (t) => ({
    id: t.exposeID('id'),
    dealer_group_id: t.id({
      nullable: true,
      description: 'The owner, shown to the owner only.',
      resolve: (template, _args, context) =>
        context.session.dealerGroupIds.includes(template.dealerGroupId) ? template.dealerGroupId : null,
    }),
    owned: t.boolean({
      description: 'Whether the caller owns it (and so may change it).',
      resolve: (template, _args, context) => context.session.dealerGroupIds.includes(template.dealerGroupId),
    }),
    name: t.exposeString('name'),
    description: t.exposeString('description', { nullable: true }),
    plugin_key: t.exposeString('pluginKey', { nullable: true }),
    target: t.exposeString('target'),
    field_mappings: t.expose('fieldMappings', { type: 'JSON' }),
    value_mappings: t.expose('valueMappings', { type: 'JSON' }),
    version: t.exposeInt('version'),
    published: t.exposeBoolean('published'),
    published_at: t.expose('publishedAt', { type: 'DateTime', nullable: true }),
    cloned_from_id: t.exposeID('clonedFromId', { nullable: true }),
    versions: t.relation('versions', { ...GRAPHQL_ONLY, query: { orderBy: { version: 'desc' } } }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});
void TemplateVersion;

const TemplatePage = pageOf(
  'MappingTemplatePage',
  'templates',
  itemsWhere(MappingTemplate, [{ name: 'asc' }, { id: 'asc' }]),
);

const templateArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  name: t.arg.string(),
  description: t.arg.string(),
  field_mappings: t.arg({ type: 'JSON', description: 'Source column → field: { "Stk No": "stock_number" }.' }),
  value_mappings: t.arg({
    type: 'JSON',
    description: 'Per field, raw value → value: { "exterior_color": { "Blk": "Black" } }.',
  }),
});

const reload = (id: string) => ({ where: { id } });

builder.queryFields((t) => ({
  mappingTemplates: t.field({
    ...templateOperation('GET /mapping-templates', 'List mapping templates'),
    type: TemplatePage,
    description: "The caller's own templates.",
    authScopes: { scope: 'mappings:read' },
    args: { q: t.arg.string(), target: t.arg.string(), ...listArgs(t) },
    resolve: (_root, args, context) => templatePage(context, args),
  }),
  communityMappingTemplates: t.field({
    ...templateOperation('GET /mapping-templates/community', 'List community mapping templates'),
    type: TemplatePage,
    description: 'Templates published to the community bank by any dealer group.',
    authScopes: { scope: 'mappings:read' },
    args: { q: t.arg.string(), target: t.arg.string(), ...listArgs(t) },
    resolve: (_root, args, context) => templatePage(context, { ...args, community: true }),
  }),
  mappingTemplate: t.prismaField({
    ...templateOperation('GET /mapping-templates/:id', 'Get a mapping template'),
    type: MappingTemplate,
    authScopes: { scope: 'mappings:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) =>
      context.db.mappingTemplate.findUniqueOrThrow({
        ...query,
        ...reload((await findTemplate(context, String(args.id))).id),
      }),
  }),
}));

builder.mutationFields((t) => ({
  createMappingTemplate: t.prismaField({
    ...templateOperation('POST /mapping-templates', 'Create a mapping template', { status: 201 }),
    type: MappingTemplate,
    authScopes: { scope: 'mappings:write' },
    args: {
      ...templateArgs(t),
      name: t.arg.string({ required: true }),
      plugin_key: t.arg.string(),
      target: t.arg.string(choice(TARGETS)),
      dealer_group_id: t.arg.id(),
    },
    resolve: async (query, _root, args, context) =>
      context.db.mappingTemplate.findUniqueOrThrow({
        ...query,
        ...reload(
          await createTemplate(context, {
            ...args,
            dealer_group_id: args.dealer_group_id?.toString(),
          } as TemplateInput),
        ),
      }),
  }),
  updateMappingTemplate: t.prismaField({
    ...templateOperation('PATCH /mapping-templates/:id', 'Update a mapping template'),
    type: MappingTemplate,
    authScopes: { scope: 'mappings:write' },
    args: { id: t.arg.id({ required: true }), ...templateArgs(t) },
    resolve: async (query, _root, { id, ...input }, context) =>
      context.db.mappingTemplate.findUniqueOrThrow({
        ...query,
        ...reload(await updateTemplate(context, String(id), input as TemplateInput)),
      }),
  }),
  deleteMappingTemplate: t.field({
    ...templateOperation('DELETE /mapping-templates/:id', 'Delete a mapping template'),
    type: Deletion,
    authScopes: { scope: 'mappings:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => ({ id: await deleteTemplate(context, String(args.id)) }),
  }),
  cloneMappingTemplate: t.prismaField({
    ...templateOperation('POST /mapping-templates/:id/clone', 'Clone a mapping template', { status: 201 }),
    type: MappingTemplate,
    description: "Copies a community (or own) template into the caller's templates.",
    authScopes: { scope: 'mappings:write' },
    args: { id: t.arg.id({ required: true }), name: t.arg.string(), dealer_group_id: t.arg.id() },
    resolve: async (query, _root, args, context) =>
      context.db.mappingTemplate.findUniqueOrThrow({
        ...query,
        ...reload(
          await cloneTemplate(context, String(args.id), {
            name: args.name,
            dealer_group_id: args.dealer_group_id?.toString(),
          }),
        ),
      }),
  }),
  publishMappingTemplate: t.prismaField({
    ...templateOperation('POST /mapping-templates/:id/publish', 'Publish a mapping template'),
    type: MappingTemplate,
    description: 'Shares a template to the community bank (published: false withdraws it).',
    authScopes: { scope: 'mappings:write' },
    args: { id: t.arg.id({ required: true }), published: t.arg.boolean() },
    resolve: async (query, _root, args, context) =>
      context.db.mappingTemplate.findUniqueOrThrow({
        ...query,
        ...reload(await publishTemplate(context, String(args.id), args.published ?? true)),
      }),
  }),
}));
