import type { Prisma } from '../../generated/prisma/client';
import type { PageRef } from '../../pagination';
import { builder, Deletion, Pagination } from '../../builder';
import { TARGETS } from '../syncs/fields';
import type { Suggestion } from '../syncs/detect';
import {
  cloneTemplate, createTemplate, deleteTemplate, detect, fileColumnMappings, findTemplate, previewFileColumns, publishTemplate, setFileColumnMapping,
  templatePage, updateTemplate, type FileColumnMapping, type PreviewColumn, type TemplateInput,
} from './mappings.service';
import { choice } from '../../schema-args';
import { GRAPHQL_ONLY, restOperations } from '../../http/operations';

const templateOperation = restOperations('Mapping templates');
const columnMappingOperation = restOperations('File column mappings');

/** The Mapping templates and File column mappings sections of docs/operations.md. */

const FileColumnMappingRef = builder.objectRef<FileColumnMapping>('FileColumnMapping').implement({
  description: "An integration's source column → field mapping; columns not listed map by their known names.",
  fields: (t) => ({
    integration_id: t.exposeID('integration_id'),
    integration_name: t.exposeString('integration_name'),
    plugin_key: t.exposeString('plugin_key'),
    target: t.exposeString('target', { description: TARGETS.join(', ') }),
    mapping: t.expose('mapping', { type: 'JSON', description: '{ "Stk No": "stock_number", "Lot Location": null }' }),
    fields: t.exposeStringList('fields', { description: 'The fields columns can map to.' }),
  }),
});

const FileColumnMappingPage = builder.objectRef<Awaited<ReturnType<typeof fileColumnMappings>>>('FileColumnMappingPage').implement({
  fields: (t) => ({
    mappings: t.field({ type: [FileColumnMappingRef], resolve: (page) => page.mappings }),
    pagination: t.field({ type: Pagination, resolve: ({ total, limit, offset }) => ({ total, limit, offset }) }),
  }),
});

const SuggestionRef = builder.objectRef<Suggestion>('ColumnSuggestion').implement({
  fields: (t) => ({
    column: t.exposeString('column'),
    field: t.exposeString('field', { nullable: true }),
    confidence: t.exposeFloat('confidence', { description: '0 to 1' }),
    reason: t.exposeString('reason'),
  }),
});

const PreviewColumnRef = builder.objectRef<PreviewColumn>('FileColumnPreview').implement({
  fields: (t) => ({
    column: t.exposeString('column'),
    mapped_to: t.exposeString('mapped_to', { nullable: true }),
    mapped_by: t.exposeString('mapped_by', { description: 'integration, template, known_name or unmapped' }),
    samples: t.expose('samples', { type: 'JSON' }),
  }),
});

const FilePreview = builder.objectRef<Awaited<ReturnType<typeof previewFileColumns>>>('FileColumnMappingPreview').implement({
  fields: (t) => ({
    integration_id: t.exposeID('integration_id'),
    file_name: t.exposeString('file_name', { nullable: true }),
    columns: t.field({ type: [PreviewColumnRef], resolve: (preview) => preview.columns }),
    suggestions: t.field({ type: [SuggestionRef], resolve: (preview) => preview.suggestions }),
  }),
});

const Detection = builder.objectRef<ReturnType<typeof detect>>('ColumnMappingDetection').implement({
  fields: (t) => ({
    target: t.exposeString('target'),
    suggestions: t.field({ type: [SuggestionRef], resolve: (result) => result.suggestions }),
    mapping: t.expose('mapping', { type: 'JSON', description: 'The suggested mapping, ready for PUT /file-column-mappings/:integrationId.' }),
    unmapped_fields: t.exposeStringList('unmapped_fields'),
  }),
});

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
    dealer_group_id: t.id({ nullable: true, description: 'The owner, shown to the owner only.', resolve: (template, _args, context) => (context.session.dealerGroupIds.includes(template.dealerGroupId) ? template.dealerGroupId : null) }),
    owned: t.boolean({ description: 'Whether the caller owns it (and so may change it).', resolve: (template, _args, context) => context.session.dealerGroupIds.includes(template.dealerGroupId) }),
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

const TemplatePage = builder.objectRef<PageRef<Prisma.MappingTemplateWhereInput>>('MappingTemplatePage').implement({
  fields: (t) => ({
    templates: t.prismaField({
      type: [MappingTemplate],
      resolve: (query, page, _args, context) => context.db.mappingTemplate.findMany({ ...query, where: page.where, orderBy: [{ name: 'asc' }, { id: 'asc' }], take: page.limit, skip: page.offset }),
    }),
    pagination: t.field({ type: Pagination, resolve: ({ total, limit, offset }) => ({ total, limit, offset }) }),
  }),
});

const templateArgs = (t: Parameters<Parameters<typeof builder.mutationFields>[0]>[0]) => ({
  name: t.arg.string(),
  description: t.arg.string(),
  field_mappings: t.arg({ type: 'JSON', description: 'Source column → field: { "Stk No": "stock_number" }.' }),
  value_mappings: t.arg({ type: 'JSON', description: 'Per field, raw value → value: { "exterior_color": { "Blk": "Black" } }.' }),
});

const reload = (id: string) => ({ where: { id } });

builder.queryFields((t) => ({
  fileColumnMappings: t.field({
    ...columnMappingOperation('GET /file-column-mappings', 'List file column mappings'),
    type: FileColumnMappingPage,
    authScopes: { scope: 'mappings:read' },
    args: { integration_id: t.arg.id(), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context) => fileColumnMappings(context, { ...args, integration_id: args.integration_id?.toString() }),
  }),
  fileColumnMappingPreview: t.field({
    ...columnMappingOperation('GET /file-column-mappings/:integrationId/preview', "Preview the latest file's mapping"),
    type: FilePreview,
    description: "The latest file's headers, the current mapping of each, sample values and suggestions.",
    authScopes: { scope: 'mappings:read' },
    args: { integrationId: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => previewFileColumns(context, String(args.integrationId)),
  }),
  detectFileColumnMapping: t.field({
    ...columnMappingOperation('POST /file-column-mappings/detect', "Detect a file's column mapping"),
    type: Detection,
    description: 'Suggests a mapping from a header row and sample rows, with a confidence per column.',
    authScopes: { scope: 'mappings:read' },
    args: { headers: t.arg.stringList({ required: true }), rows: t.arg({ type: 'JSON', description: 'Sample rows: lists in header order, or objects keyed by header.' }), target: t.arg.string(choice(TARGETS)) },
    resolve: (_root, args) => detect(args),
  }),
  mappingTemplates: t.field({
    ...templateOperation('GET /mapping-templates', 'List mapping templates'),
    type: TemplatePage,
    description: "The caller's own templates.",
    authScopes: { scope: 'mappings:read' },
    args: { q: t.arg.string(), target: t.arg.string(), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context) => templatePage(context, args),
  }),
  communityMappingTemplates: t.field({
    ...templateOperation('GET /mapping-templates/community', 'List community mapping templates'),
    type: TemplatePage,
    description: 'Templates published to the community bank by any dealer group.',
    authScopes: { scope: 'mappings:read' },
    args: { q: t.arg.string(), target: t.arg.string(), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context) => templatePage(context, { ...args, community: true }),
  }),
  mappingTemplate: t.prismaField({
    ...templateOperation('GET /mapping-templates/:id', 'Get a mapping template'),
    type: MappingTemplate,
    authScopes: { scope: 'mappings:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) => context.db.mappingTemplate.findUniqueOrThrow({ ...query, ...reload((await findTemplate(context, String(args.id))).id) }),
  }),
}));

builder.mutationFields((t) => ({
  setFileColumnMapping: t.field({
    ...columnMappingOperation('PUT /file-column-mappings/:integrationId', "Set an integration's column mapping"),
    type: FileColumnMappingRef,
    authScopes: { scope: 'mappings:write' },
    args: { integrationId: t.arg.id({ required: true }), mapping: t.arg({ type: 'JSON', required: true }) },
    resolve: (_root, args, context) => setFileColumnMapping(context, String(args.integrationId), args.mapping),
  }),
  createMappingTemplate: t.prismaField({
    ...templateOperation('POST /mapping-templates', 'Create a mapping template', { status: 201 }),
    type: MappingTemplate,
    authScopes: { scope: 'mappings:write' },
    args: { ...templateArgs(t), name: t.arg.string({ required: true }), plugin_key: t.arg.string(), target: t.arg.string(choice(TARGETS)), dealer_group_id: t.arg.id() },
    resolve: async (query, _root, args, context) => context.db.mappingTemplate.findUniqueOrThrow({ ...query, ...reload(await createTemplate(context, { ...args, dealer_group_id: args.dealer_group_id?.toString() } as TemplateInput)) }),
  }),
  updateMappingTemplate: t.prismaField({
    ...templateOperation('PATCH /mapping-templates/:id', 'Update a mapping template'),
    type: MappingTemplate,
    authScopes: { scope: 'mappings:write' },
    args: { id: t.arg.id({ required: true }), ...templateArgs(t) },
    resolve: async (query, _root, { id, ...input }, context) => context.db.mappingTemplate.findUniqueOrThrow({ ...query, ...reload(await updateTemplate(context, String(id), input as TemplateInput)) }),
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
    description: 'Copies a community (or own) template into the caller\'s templates.',
    authScopes: { scope: 'mappings:write' },
    args: { id: t.arg.id({ required: true }), name: t.arg.string(), dealer_group_id: t.arg.id() },
    resolve: async (query, _root, args, context) => context.db.mappingTemplate.findUniqueOrThrow({ ...query, ...reload(await cloneTemplate(context, String(args.id), { name: args.name, dealer_group_id: args.dealer_group_id?.toString() })) }),
  }),
  publishMappingTemplate: t.prismaField({
    ...templateOperation('POST /mapping-templates/:id/publish', 'Publish a mapping template'),
    type: MappingTemplate,
    description: 'Shares a template to the community bank (published: false withdraws it).',
    authScopes: { scope: 'mappings:write' },
    args: { id: t.arg.id({ required: true }), published: t.arg.boolean() },
    resolve: async (query, _root, args, context) => context.db.mappingTemplate.findUniqueOrThrow({ ...query, ...reload(await publishTemplate(context, String(args.id), args.published ?? true)) }),
  }),
}));
