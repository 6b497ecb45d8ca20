import { builder } from '../../builder';
import { getAiConfig, setAiConfig, type AiConfigView } from '../ai/ai-config.service';
import { usage, type UsageMeasures } from './usage.service';
import { restOperations } from '../../http/operations';

const operation = restOperations('Administration');

/** The assistant's provider and the usage report (/admin/ai-config and /admin/usage, Administration section of docs/operations.md). */

const AiConfigRef = builder.objectRef<AiConfigView>('AiConfig').implement({
  description:
    "A dealer group's assistant provider (an OpenAI-compatible chat-completions endpoint). The API key is never returned.",
  fields: (t) => ({
    dealer_group_id: t.exposeID('dealer_group_id'),
    configured: t.exposeBoolean('configured'),
    enabled: t.exposeBoolean('enabled'),
    engine: t.exposeString('engine', {
      description: 'provider, or built_in when no provider is configured or enabled.',
    }),
    provider: t.exposeString('provider', { nullable: true }),
    base_url: t.exposeString('base_url', { nullable: true }),
    model: t.exposeString('model', { nullable: true }),
    has_api_key: t.exposeBoolean('has_api_key'),
    daily_token_limit: t.exposeInt('daily_token_limit', {
      description:
        'Provider tokens (prompt + completion) the group may use per UTC day; past it the built-in engine answers.',
    }),
    timeout_ms: t.exposeInt('timeout_ms', {
      description: 'How long one provider answer may take before the built-in engine answers instead.',
    }),
    rerank_dealer_matches: t.exposeBoolean('rerank_dealer_matches', {
      description: 'POST /dealers/match asks the provider to re-rank its top candidates.',
    }),
    tokens_used_today: t.exposeInt('tokens_used_today'),
    updated_at: t.expose('updated_at', { type: 'DateTime', nullable: true }),
  }),
});

type Measured<T> = T & UsageMeasures;
const measureFields = <T extends UsageMeasures>(t: PothosFieldBuilder<T>) => ({
  requests: t.int({ resolve: (row) => row.requests }),
  errors: t.int({ description: 'Answers with status 400 or above.', resolve: (row) => row.errors }),
  server_errors: t.int({ description: 'Answers with status 500 or above.', resolve: (row) => row.server_errors }),
  error_rate: t.float({ nullable: true, resolve: (row) => row.error_rate }),
  average_duration_ms: t.float({ nullable: true, resolve: (row) => row.average_duration_ms }),
  p95_duration_ms: t.float({ nullable: true, resolve: (row) => row.p95_duration_ms }),
});
type PothosFieldBuilder<T> = PothosSchemaTypes.ObjectFieldBuilder<typeof builder.$inferSchemaTypes, T>;

const UsageTotals = builder.objectRef<UsageMeasures>('UsageTotals').implement({ fields: (t) => measureFields(t) });
const UsageDay = builder
  .objectRef<Measured<{ day: string }>>('UsageDay')
  .implement({ fields: (t) => ({ day: t.exposeString('day'), ...measureFields(t) }) });
const UsageApiKey = builder.objectRef<Measured<{ api_key_id: string; name: string | null }>>('UsageApiKey').implement({
  fields: (t) => ({
    api_key_id: t.exposeID('api_key_id'),
    name: t.exposeString('name', { nullable: true }),
    ...measureFields(t),
  }),
});
const UsageUser = builder.objectRef<Measured<{ user_id: string; email: string | null }>>('UsageUser').implement({
  fields: (t) => ({
    user_id: t.exposeID('user_id'),
    email: t.exposeString('email', { nullable: true }),
    ...measureFields(t),
  }),
});
const UsageEndpoint = builder.objectRef<Measured<{ endpoint: string }>>('UsageEndpoint').implement({
  fields: (t) => ({
    endpoint: t.exposeString('endpoint', {
      description: 'The REST route ("GET /inventory/:vin") or "GraphQL <operation>".',
    }),
    ...measureFields(t),
  }),
});

type Report = Awaited<ReturnType<typeof usage>>;
const TokenDay = builder.objectRef<Report['assistant']['by_day'][number]>('AssistantTokenDay').implement({
  fields: (t) => ({
    day: t.exposeString('day'),
    requests: t.exposeInt('requests'),
    prompt_tokens: t.exposeInt('prompt_tokens'),
    completion_tokens: t.exposeInt('completion_tokens'),
    total_tokens: t.exposeInt('total_tokens'),
  }),
});
const AssistantTokens = builder.objectRef<Report['assistant']>('AssistantTokenUsage').implement({
  description: "Tokens the assistant's provider used (the built-in engine uses none).",
  fields: (t) => ({
    requests: t.exposeInt('requests', { description: 'Provider calls.' }),
    prompt_tokens: t.exposeInt('prompt_tokens'),
    completion_tokens: t.exposeInt('completion_tokens'),
    total_tokens: t.exposeInt('total_tokens'),
    by_day: t.field({ type: [TokenDay], resolve: (assistant) => assistant.by_day }),
  }),
});

const UsageReport = builder.objectRef<Report>('UsageReport').implement({
  description:
    'Requests of your dealer groups from the request log, and assistant tokens, over a date range (UTC days). Lists by key, user and endpoint hold the 50 busiest.',
  fields: (t) => ({
    from: t.expose('from', { type: 'DateTime' }),
    to: t.expose('to', { type: 'DateTime' }),
    totals: t.field({ type: UsageTotals, resolve: (report) => report.totals }),
    by_day: t.field({ type: [UsageDay], resolve: (report) => report.by_day }),
    by_api_key: t.field({ type: [UsageApiKey], resolve: (report) => report.by_api_key }),
    by_user: t.field({ type: [UsageUser], resolve: (report) => report.by_user }),
    by_endpoint: t.field({ type: [UsageEndpoint], resolve: (report) => report.by_endpoint }),
    assistant: t.field({ type: AssistantTokens, resolve: (report) => report.assistant }),
  }),
});

builder.queryFields((t) => ({
  aiConfig: t.field({
    ...operation('GET /admin/ai-config', 'Get the assistant configuration'),
    type: AiConfigRef,
    description: "Your dealer group's assistant provider, model and limits.",
    authScopes: { scope: 'admin' },
    args: { dealer_group_id: t.arg.id({ description: 'Required when you hold several groups.' }) },
    resolve: (_root, args, context) => getAiConfig(context, args.dealer_group_id?.toString()),
  }),
  adminUsage: t.field({
    ...operation('GET /admin/usage', 'Usage report'),
    type: UsageReport,
    description:
      'Usage stats: requests per API key, user, endpoint and day, error rates, assistant tokens. Defaults to the last 30 days.',
    authScopes: { scope: 'admin' },
    args: { from: t.arg({ type: 'DateTime' }), to: t.arg({ type: 'DateTime' }) },
    resolve: (_root, args, context) => usage(context, args),
  }),
}));

builder.mutationFields((t) => ({
  setAiConfig: t.field({
    ...operation('PUT /admin/ai-config', 'Set the assistant configuration'),
    type: AiConfigRef,
    description:
      'Set the assistant provider. Fields left out keep their value; api_key "" removes the key. Admin users only.',
    authScopes: { adminUser: true },
    args: {
      dealer_group_id: t.arg.id(),
      enabled: t.arg.boolean(),
      base_url: t.arg.string({
        description: 'The OpenAI-compatible API root, e.g. https://api.openai.com/v1 (chat/completions is appended).',
      }),
      model: t.arg.string(),
      api_key: t.arg.string({ description: 'Stored encrypted; never returned.' }),
      daily_token_limit: t.arg.int(),
      timeout_ms: t.arg.int(),
      rerank_dealer_matches: t.arg.boolean(),
    },
    resolve: (app, args, context) =>
      setAiConfig(context, app, { ...args, dealer_group_id: args.dealer_group_id?.toString() }),
  }),
}));
