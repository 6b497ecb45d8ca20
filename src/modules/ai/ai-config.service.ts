import type { AiConfig } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import type { AppServices } from '../../app-services';
import type { SecretBox } from '../../secrets';
import { recordAudit } from '../../audit';
import { badInput } from '../../errors';
import { targetGroup } from '../../tenancy';
import { optionalText } from '../../validation';

import { ChatProvider } from './chat-provider';

/**
 * The AI provider per dealer group, shared by the assistant and dealer matching: its configuration
 * (validated, the API key sealed and never returned), the tokens it used per day, and the provider
 * a caller's requests go to.
 */

type ProviderServices = Pick<AppServices, 'secrets' | 'feeds'>;

export const DEFAULT_DAILY_TOKEN_LIMIT = 200_000;
export const DEFAULT_TIMEOUT_MS = 20_000;

export interface AiConfigView {
  dealer_group_id: string;
  configured: boolean;
  enabled: boolean;
  /** Which engine answers: the provider, or the built-in engine when none is configured or enabled. */
  engine: 'provider' | 'built_in';
  provider: string | null;
  base_url: string | null;
  model: string | null;
  has_api_key: boolean;
  daily_token_limit: number;
  timeout_ms: number;
  rerank_dealer_matches: boolean;
  tokens_used_today: number;
  updated_at: Date | null;
}

const today = () => new Date(new Date().toISOString().slice(0, 10));

export async function tokensUsedToday(db: Caller['db'], dealerGroupId: string): Promise<number> {
  const usage = await db.assistantUsage.findUnique({ where: { dealerGroupId_day: { dealerGroupId, day: today() } } });
  return usage ? usage.promptTokens + usage.completionTokens : 0;
}

/** Adds one provider exchange's tokens to the group's day (one upsert; concurrent answers add up). */
export async function recordTokens(
  db: Caller['db'],
  dealerGroupId: string,
  prompt: number,
  completion: number,
): Promise<void> {
  await db.$executeRaw`/* assistantUsage */ INSERT INTO assistant_usage (dealer_group_id, day, requests, prompt_tokens, completion_tokens)
    VALUES (${dealerGroupId}::uuid, (now() AT TIME ZONE 'UTC')::date, 1, ${prompt}, ${completion})
    ON CONFLICT (dealer_group_id, day) DO UPDATE SET requests = assistant_usage.requests + 1,
      prompt_tokens = assistant_usage.prompt_tokens + excluded.prompt_tokens, completion_tokens = assistant_usage.completion_tokens + excluded.completion_tokens`;
}

function view(dealerGroupId: string, config: AiConfig | null, used: number): AiConfigView {
  return {
    dealer_group_id: dealerGroupId,
    configured: config !== null,
    enabled: config?.enabled ?? false,
    engine: config?.enabled ? 'provider' : 'built_in',
    provider: config ? 'openai_compatible' : null,
    base_url: config?.baseUrl ?? null,
    model: config?.model ?? null,
    has_api_key: Boolean(config?.apiKey),
    daily_token_limit: config?.dailyTokenLimit ?? DEFAULT_DAILY_TOKEN_LIMIT,
    timeout_ms: config?.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    rerank_dealer_matches: config?.rerankDealerMatches ?? true,
    tokens_used_today: used,
    updated_at: config?.updatedAt ?? null,
  };
}

export async function getAiConfig(caller: Caller, dealerGroupId: string | null | undefined): Promise<AiConfigView> {
  const group = targetGroup(caller.session, dealerGroupId);
  const [config, used] = await Promise.all([
    caller.db.aiConfig.findUnique({ where: { dealerGroupId: group } }),
    tokensUsedToday(caller.db, group),
  ]);
  return view(group, config, used);
}

export interface AiConfigInput {
  dealer_group_id?: string | null;
  enabled?: boolean | null;
  base_url?: string | null;
  model?: string | null;
  api_key?: string | null;
  daily_token_limit?: number | null;
  timeout_ms?: number | null;
  rerank_dealer_matches?: boolean | null;
}

function baseUrl(app: ProviderServices, value: string | null | undefined): string | undefined {
  if (value == null) return undefined;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw badInput('base_url', 'must be a URL such as https://api.openai.com/v1');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && app.feeds.allowInsecureHttpPull))
    throw badInput('base_url', 'must use https');
  if (url.username || url.password) throw badInput('base_url', 'must not carry credentials; send the key as api_key');
  if (url.search || url.hash) throw badInput('base_url', 'must not have a query or fragment');
  return url.toString().replace(/\/+$/, '');
}

function wholeNumber(field: string, value: number | null | undefined, min: number, max: number): number | undefined {
  if (value == null) return undefined;
  if (!Number.isInteger(value) || value < min || value > max)
    throw badInput(field, `must be a whole number from ${min} to ${max}`);
  return value;
}

/** Sets the group's provider. Fields left out keep their value; `api_key: ""` removes the key. */
export async function setAiConfig(caller: Caller, app: ProviderServices, input: AiConfigInput): Promise<AiConfigView> {
  const group = targetGroup(caller.session, input.dealer_group_id);
  const current = await caller.db.aiConfig.findUnique({ where: { dealerGroupId: group } });
  const url = baseUrl(app, input.base_url);
  const model = optionalText('model', input.model, 200) ?? undefined;
  const limit = wholeNumber('daily_token_limit', input.daily_token_limit, 1, 100_000_000);
  const timeout = wholeNumber('timeout_ms', input.timeout_ms, 1000, 120_000);
  if (!current && !url)
    throw badInput('base_url', 'is required: the OpenAI-compatible endpoint, e.g. https://api.openai.com/v1');
  if (!current && !model) throw badInput('model', 'is required: the model name the endpoint serves, e.g. gpt-4o-mini');
  const apiKey = input.api_key == null ? undefined : input.api_key.trim();
  if (apiKey !== undefined && apiKey.length > 500) throw badInput('api_key', 'must be at most 500 characters');
  const sealed = apiKey === undefined ? undefined : apiKey === '' ? null : app.secrets.seal(apiKey, group);
  const data = {
    enabled: input.enabled ?? undefined,
    baseUrl: url,
    model,
    apiKey: sealed,
    dailyTokenLimit: limit,
    timeoutMs: timeout,
    rerankDealerMatches: input.rerank_dealer_matches ?? undefined,
    updatedById: caller.session.userId,
  };
  const saved = await caller.db.$transaction(async (tx) => {
    const row = current
      ? await tx.aiConfig.update({ where: { dealerGroupId: group }, data })
      : await tx.aiConfig.create({
          data: {
            ...data,
            dealerGroupId: group,
            baseUrl: url!,
            model: model!,
            dailyTokenLimit: limit ?? DEFAULT_DAILY_TOKEN_LIMIT,
            timeoutMs: timeout ?? DEFAULT_TIMEOUT_MS,
            apiKey: sealed ?? null,
          },
        });
    const changed = Object.entries({
      enabled: input.enabled,
      base_url: url,
      model,
      daily_token_limit: limit,
      timeout_ms: timeout,
      rerank_dealer_matches: input.rerank_dealer_matches,
    })
      .filter(([, value]) => value != null)
      .map(([name]) => name);
    await recordAudit(tx, caller, {
      action: 'ai_config.changed',
      targetType: 'ai_config',
      targetId: group,
      dealerGroupIds: [group],
      details: { changed, base_url: row.baseUrl, model: row.model },
    });
    if (sealed !== undefined) {
      await recordAudit(tx, caller, {
        action: 'credentials.changed',
        targetType: 'ai_config',
        targetId: group,
        dealerGroupIds: [group],
        details: { credential: 'assistant provider API key', removed: sealed === null },
      });
    }
    return row;
  });
  return view(group, saved, await tokensUsedToday(caller.db, group));
}

/** The provider that answers for a caller: the first of their groups with one enabled. */
export async function activeProvider(db: Caller['db'], dealerGroupIds: readonly string[]): Promise<AiConfig | null> {
  if (!dealerGroupIds.length) return null;
  return db.aiConfig.findFirst({
    where: { dealerGroupId: { in: [...dealerGroupIds] }, enabled: true },
    orderBy: { dealerGroupId: 'asc' },
  });
}

/** After a key rotation (CREDENTIALS_KEYS), re-seals provider API keys with the newest key; answers how many. */
export async function resealProviderKeys(db: Caller['db'], secrets: SecretBox): Promise<number> {
  const configs = await db.aiConfig.findMany({
    where: { apiKey: { not: null } },
    select: { dealerGroupId: true, apiKey: true },
  });
  return secrets.resealAll(
    configs.map((config) => ({ context: config.dealerGroupId, sealed: config.apiKey! })),
    (dealerGroupId, apiKey) => db.aiConfig.update({ where: { dealerGroupId }, data: { apiKey } }),
  );
}

/** The caller's provider (the first of their groups with one enabled), and whether its group's tokens for today are spent. */
export async function providerFor(
  caller: Pick<Caller, 'db' | 'session'>,
  app: ProviderServices,
): Promise<{ provider: ChatProvider; limitReached: boolean } | null> {
  const config = await activeProvider(caller.db, caller.session.dealerGroupIds);
  if (!config) return null;
  return {
    provider: new ChatProvider(config, { secrets: app.secrets, allowPrivateNetworks: app.feeds.allowPrivateNetworks }),
    limitReached: (await tokensUsedToday(caller.db, config.dealerGroupId)) >= config.dailyTokenLimit,
  };
}
