import { builder, Deletion } from '../../builder';
import { itemsWhere, pageOf } from '../../pages';
import { listArgs, type FieldArgsBuilder } from '../../schema-args';
import { createRule, deleteRule, rulePage, testRules, updateRule, type RuleInput } from './rules.service';
import { ACTIONS, OPERATORS } from './engine';
import { restOperations } from '../../http/operations';

const operation = restOperations('Transformation rules');

/** The Transformation rules section of docs/operations.md: transformation rules and their dry run. */

const TransformationRule = builder.prismaObject('TransformationRule', {
  description: `A rule applied to each source row during a sync: when every condition holds (operators: ${OPERATORS.join(', ')}), the action runs (${ACTIONS.join(', ')}).`,
  fields: (t) => ({
    id: t.exposeID('id'),
    dealer_group_id: t.exposeID('dealerGroupId'),
    name: t.exposeString('name'),
    position: t.exposeInt('position', { description: 'Rules run in ascending position.' }),
    enabled: t.exposeBoolean('enabled'),
    conditions: t.expose('conditions', { type: 'JSON' }),
    action: t.expose('action', { type: 'JSON' }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const RulePage = pageOf(
  'TransformationRulePage',
  'rules',
  itemsWhere(TransformationRule, [{ position: 'asc' }, { createdAt: 'asc' }]),
);

type TestResult = Awaited<ReturnType<typeof testRules>>[number];
const FiredRule = builder
  .objectRef<{ id: string; name: string }>('FiredRule')
  .implement({ fields: (t) => ({ id: t.exposeString('id'), name: t.exposeString('name') }) });
const RuleTestRecord = builder.objectRef<TestResult>('RuleTestRecord').implement({
  fields: (t) => ({
    before: t.expose('before', { type: 'JSON' }),
    after: t.expose('after', { type: 'JSON' }),
    skipped: t.exposeBoolean('skipped'),
    skip_reason: t.exposeString('skip_reason', { nullable: true }),
    flags: t.exposeStringList('flags'),
    fired: t.field({ type: [FiredRule], resolve: (record) => record.fired }),
  }),
});
const RuleTest = builder
  .objectRef<TestResult[]>('RuleTest')
  .implement({ fields: (t) => ({ records: t.field({ type: [RuleTestRecord], resolve: (records) => records }) }) });

const ruleArgs = (t: FieldArgsBuilder) => ({
  name: t.arg.string(),
  conditions: t.arg({
    type: 'JSON',
    description: 'All must hold: [{ "field": "make", "operator": "equals", "value": "Chevy" }]. Empty: always.',
  }),
  action: t.arg({
    type: 'JSON',
    description:
      '{ "type": "set_field", "field": "make", "value": "Chevrolet" }; templates: { "type": "set_field", "field": "title", "template": "{year} {make} {model}" }.',
  }),
  position: t.arg.int(),
  enabled: t.arg.boolean(),
});

builder.queryFields((t) => ({
  transformationRules: t.field({
    ...operation('GET /transformation-rules', 'List transformation rules'),
    type: RulePage,
    description: 'Rules applied during sync, in order.',
    authScopes: { scope: 'mappings:read' },
    args: { enabled: t.arg.boolean(), ...listArgs(t) },
    resolve: (_root, args, context) => rulePage(context, args),
  }),
  testTransformationRules: t.field({
    // Runs every rule over every sample record the caller sends (up to the body limit).
    ...operation('POST /transformation-rules/test', 'Dry-run transformation rules', {
      rateLimit: { operation: 'dry-running rules', max: 60, window: '1m' },
    }),
    type: RuleTest,
    description:
      'Dry run on sample records: each before and after, with the rules that fired. Uses your enabled rules, or the draft `rules` given.',
    authScopes: { scope: 'mappings:read' },
    args: {
      records: t.arg({ type: 'JSON', required: true }),
      rules: t.arg({
        type: 'JSON',
        description: 'Draft rules [{ name, conditions, action }] to try instead of the saved ones.',
      }),
    },
    resolve: (_root, args, context) => testRules(context, args),
  }),
}));

builder.mutationFields((t) => ({
  createTransformationRule: t.prismaField({
    ...operation('POST /transformation-rules', 'Create a transformation rule', { status: 201 }),
    type: TransformationRule,
    authScopes: { scope: 'mappings:write' },
    args: {
      ...ruleArgs(t),
      name: t.arg.string({ required: true }),
      action: t.arg({ type: 'JSON', required: true }),
      dealer_group_id: t.arg.id(),
    },
    resolve: async (query, _root, args, context) =>
      context.db.transformationRule.findUniqueOrThrow({
        ...query,
        where: {
          id: await createRule(context, { ...args, dealer_group_id: args.dealer_group_id?.toString() } as RuleInput),
        },
      }),
  }),
  updateTransformationRule: t.prismaField({
    ...operation('PATCH /transformation-rules/:id', 'Update a transformation rule'),
    type: TransformationRule,
    authScopes: { scope: 'mappings:write' },
    args: { id: t.arg.id({ required: true }), ...ruleArgs(t) },
    resolve: async (query, _root, { id, ...input }, context) =>
      context.db.transformationRule.findUniqueOrThrow({
        ...query,
        where: { id: await updateRule(context, String(id), input as RuleInput) },
      }),
  }),
  deleteTransformationRule: t.field({
    ...operation('DELETE /transformation-rules/:id', 'Delete a transformation rule'),
    type: Deletion,
    authScopes: { scope: 'mappings:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => ({ id: await deleteRule(context, String(args.id)) }),
  }),
}));
