import { builder, Deletion } from '../../builder';
import { itemsLoaded, itemsWhere, pageOf } from '../../pages';
import {
  createMappings,
  createSource,
  deleteMapping,
  deleteSource,
  findSource,
  mappingPage,
  resolveRawValues,
  SOURCE_CATEGORIES,
  sourcePage,
  unmappedValues,
  updateSource,
  type SourceInput,
  type UnmappedValue,
} from './sources.service';
import { choice, listArgs, type FieldArgsBuilder } from '../../schema-args';
import { restOperations } from '../../http/operations';

const operation = restOperations('Sources');

/** The Sources section of docs/operations.md: the canonical source directory, mappings, resolution and the unmapped queue. */

export const SourceCategoryEnum = builder.enumType('SourceCategory', { values: SOURCE_CATEGORIES });
const MappingMatchEnum = builder.enumType('MappingMatch', { values: ['exact', 'pattern'] as const });

export const Source = builder.prismaObject('Source', {
  description: 'A canonical source of calls and leads, with its category, channel, chart colour and monthly cost.',
  fields: (t) => ({
    id: t.exposeID('id'),
    dealer_group_id: t.exposeID('dealerGroupId'),
    name: t.exposeString('name'),
    category: t.expose('category', { type: SourceCategoryEnum }),
    channel: t.exposeString('channel', { nullable: true }),
    color: t.exposeString('color', { nullable: true }),
    cost_per_month: t.expose('costPerMonth', { type: 'Money', nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const SourceMapping = builder.prismaObject('SourceMapping', {
  fields: (t) => ({
    id: t.exposeID('id'),
    source_id: t.exposeID('sourceId'),
    source_name: t.string({
      select: { source: { select: { name: true } } },
      resolve: (mapping) => mapping.source.name,
    }),
    match: t.expose('match', { type: MappingMatchEnum }),
    raw_value: t.exposeString('rawValue', {
      description: 'The raw value (exact) or the regular expression (pattern).',
    }),
    normalized: t.exposeString('normalized', {
      nullable: true,
      description: 'What exact matching compares: lower case, punctuation and spacing folded.',
    }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const SourcePage = pageOf('SourcePage', 'sources', itemsWhere(Source, [{ name: 'asc' }, { id: 'asc' }]));

const MappingPage = pageOf(
  'SourceMappingPage',
  'mappings',
  itemsWhere(SourceMapping, [{ createdAt: 'desc' }, { id: 'asc' }]),
);

const CreatedMappings = builder.objectRef<{ ids: string[]; created: number }>('CreatedSourceMappings').implement({
  fields: (t) => ({
    created: t.exposeInt('created', {
      description: 'New mappings; values already mapped to this source are left as they were.',
    }),
    mappings: t.prismaField({
      type: [SourceMapping],
      resolve: (query, result, _args, context) =>
        context.db.sourceMapping.findMany({
          ...query,
          where: { id: { in: result.ids } },
          orderBy: { rawValue: 'asc' },
        }),
    }),
  }),
});

const Resolution = builder
  .objectRef<Awaited<ReturnType<typeof resolveRawValues>>[number]>('SourceResolution')
  .implement({
    fields: (t) => ({
      raw_value: t.exposeString('raw_value'),
      matched_by: t.exposeString('matched_by', {
        nullable: true,
        description: '"exact", "pattern", or null when nothing maps the value.',
      }),
      mapping_id: t.exposeID('mappingId', { nullable: true }),
      source: t.prismaField({
        type: Source,
        nullable: true,
        resolve: (query, row, _args, context) =>
          row.sourceId ? context.db.source.findUnique({ ...query, where: { id: row.sourceId } }) : null,
      }),
    }),
  });

const ResolutionResult = builder
  .objectRef<Awaited<ReturnType<typeof resolveRawValues>>>('SourceResolutions')
  .implement({
    fields: (t) => ({ results: t.field({ type: [Resolution], resolve: (rows) => rows }) }),
  });

const Suggestion = builder
  .objectRef<{ sourceId: string; sourceName: string; score: number }>('SourceSuggestion')
  .implement({
    fields: (t) => ({
      source_id: t.exposeID('sourceId'),
      source_name: t.exposeString('sourceName'),
      score: t.exposeFloat('score', {
        description: 'How alike the value and the source (or one of its mapped spellings) are, 0 to 1.',
      }),
    }),
  });

const UnmappedValueRef = builder.objectRef<UnmappedValue>('UnmappedSourceValue').implement({
  fields: (t) => ({
    raw_value: t.exposeString('raw_value', { description: 'The most common spelling seen.' }),
    normalized: t.exposeString('normalized'),
    calls: t.exposeInt('calls'),
    leads: t.exposeInt('leads'),
    total: t.exposeInt('total'),
    last_seen_at: t.expose('last_seen_at', { type: 'DateTime' }),
    suggestions: t.field({ type: [Suggestion], resolve: (row) => row.suggestions }),
  }),
});

const UnmappedPage = pageOf('UnmappedSourcePage', 'values', itemsLoaded(UnmappedValueRef));

const sourceArgs = (t: FieldArgsBuilder) => ({
  name: t.arg.string(),
  category: t.arg.string(choice(SOURCE_CATEGORIES)),
  channel: t.arg.string({ description: 'e.g. "Google Ads", "Cars.com".' }),
  color: t.arg.string({ description: 'Hex colour for charts, e.g. #1f6feb.' }),
  cost_per_month: t.arg({ type: 'Money' }),
});

builder.queryFields((t) => ({
  sources: t.field({
    ...operation('GET /sources', 'List sources'),
    type: SourcePage,
    authScopes: { scope: 'sources:read' },
    args: { category: t.arg.string(), q: t.arg.string(), ...listArgs(t) },
    resolve: (_root, args, context) => sourcePage(context, args),
  }),
  source: t.prismaField({
    ...operation('GET /sources/:id', 'Get a source'),
    type: Source,
    authScopes: { scope: 'sources:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, context) =>
      context.db.source.findUniqueOrThrow({ ...query, where: { id: (await findSource(context, String(args.id))).id } }),
  }),
  sourceMappings: t.field({
    ...operation('GET /sources/mappings', 'List source mappings'),
    type: MappingPage,
    authScopes: { scope: 'sources:read' },
    args: { source_id: t.arg.id(), match: t.arg.string(), ...listArgs(t) },
    resolve: (_root, args, context) => mappingPage(context, { ...args, source_id: args.source_id?.toString() }),
  }),
  resolveSources: t.field({
    ...operation('POST /sources/resolve', 'Resolve raw source values'),
    type: ResolutionResult,
    description: 'Resolve raw values to canonical sources.',
    authScopes: { scope: 'sources:read' },
    args: { raw_values: t.arg.stringList({ required: true }) },
    resolve: (_root, args, context) => resolveRawValues(context, args.raw_values),
  }),
  unmappedSources: t.field({
    ...operation('GET /sources/unmapped', 'List unmapped source values'),
    type: UnmappedPage,
    description:
      'Raw source values seen in calls and leads that no mapping resolves, most frequent first, with suggestions.',
    authScopes: { scope: 'sources:read' },
    args: listArgs(t),
    resolve: (_root, args, context) => unmappedValues(context, args),
  }),
}));

builder.mutationFields((t) => ({
  createSource: t.prismaField({
    ...operation('POST /sources', 'Create a source', { status: 201 }),
    type: Source,
    authScopes: { scope: 'sources:write' },
    args: {
      ...sourceArgs(t),
      name: t.arg.string({ required: true }),
      category: t.arg.string({ required: true }),
      dealer_group_id: t.arg.id(),
    },
    resolve: async (query, _root, args, context) =>
      context.db.source.findUniqueOrThrow({
        ...query,
        where: {
          id: await createSource(context, {
            ...args,
            dealer_group_id: args.dealer_group_id?.toString(),
          } as SourceInput),
        },
      }),
  }),
  updateSource: t.prismaField({
    ...operation('PATCH /sources/:id', 'Update a source'),
    type: Source,
    authScopes: { scope: 'sources:write' },
    args: { id: t.arg.id({ required: true }), ...sourceArgs(t) },
    resolve: async (query, _root, { id, ...input }, context) =>
      context.db.source.findUniqueOrThrow({
        ...query,
        where: { id: await updateSource(context, String(id), input as SourceInput) },
      }),
  }),
  deleteSource: t.field({
    ...operation('DELETE /sources/:id', 'Delete a source'),
    type: Deletion,
    description: 'Remove a source; refused (409) while mappings, calls or leads point at it.',
    authScopes: { scope: 'sources:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => ({ id: await deleteSource(context, String(args.id)) }),
  }),
  createSourceMappings: t.field({
    ...operation('POST /sources/mappings', 'Map raw source values', { status: 201 }),
    type: CreatedMappings,
    description:
      'Map one raw value (raw_value) or many (raw_values) to a source, exactly (after normalising) or by pattern.',
    authScopes: { scope: 'sources:write' },
    args: {
      source_id: t.arg.id({ required: true }),
      raw_value: t.arg.string(),
      raw_values: t.arg.stringList(),
      match: t.arg.string({ description: 'exact (default) or pattern (a case-insensitive regular expression).' }),
    },
    resolve: (_root, args, context) => createMappings(context, { ...args, source_id: String(args.source_id) }),
  }),
  deleteSourceMapping: t.field({
    ...operation('DELETE /sources/mappings/:id', 'Delete a source mapping'),
    type: Deletion,
    authScopes: { scope: 'sources:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => ({ id: await deleteMapping(context, String(args.id)) }),
  }),
}));
