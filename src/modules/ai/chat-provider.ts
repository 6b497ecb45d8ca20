import type { AiConfig } from '../../generated/prisma/client';
import type { SecretBox } from '../../secrets';
import { outboundRequest } from '../../net/outbound';

/**
 * An OpenAI-compatible chat-completions endpoint (POST {base_url}/chat/completions with tools).
 * Every failure (network, time-out, HTTP status, malformed answer) is a ProviderError, so callers
 * fall back to the built-in engine.
 */

export class ProviderError extends Error {}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
export interface ToolDefinition {
  type: 'function';
  function: { name: string; description: string; parameters: object };
}
export interface ChatAnswer {
  message: ChatMessage;
  usage: { prompt: number; completion: number };
}

export interface ProviderOptions {
  secrets: SecretBox;
  allowPrivateNetworks: boolean;
}

export class ChatProvider {
  constructor(
    readonly config: AiConfig,
    private readonly options: ProviderOptions,
  ) {}

  get model(): string {
    return this.config.model;
  }

  async chat(
    messages: ChatMessage[],
    tools: ToolDefinition[] = [],
    extra: Record<string, unknown> = {},
  ): Promise<ChatAnswer> {
    const apiKey = this.config.apiKey ? this.options.secrets.open(this.config.apiKey, this.config.dealerGroupId) : null;
    let response;
    try {
      response = await outboundRequest(`${this.config.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
        body: JSON.stringify({
          model: this.config.model,
          messages,
          ...(tools.length ? { tools, tool_choice: 'auto' } : {}),
          ...extra,
        }),
        timeoutMs: this.config.timeoutMs,
        maxBytes: 5_000_000,
        allowPrivateNetworks: this.options.allowPrivateNetworks,
      });
    } catch (error) {
      throw new ProviderError(`the provider could not be reached: ${(error as Error).message}`);
    }
    if (response.status === 401 || response.status === 403)
      throw new ProviderError(`the provider refused the API key (HTTP ${response.status})`);
    if (response.status === 429) throw new ProviderError('the provider is rate limiting us (HTTP 429)');
    if (response.status < 200 || response.status >= 300)
      throw new ProviderError(`the provider answered HTTP ${response.status}`);
    let body: {
      choices?: Array<{ message?: ChatMessage }>;
      usage?: { prompt_tokens?: number; completion_tokens?: number };
    };
    try {
      body = JSON.parse(response.text);
    } catch {
      throw new ProviderError('the provider did not answer JSON');
    }
    const message = body.choices?.[0]?.message;
    if (!message || (typeof message.content !== 'string' && !message.tool_calls?.length))
      throw new ProviderError('the provider answered without a message');
    return {
      message: {
        role: 'assistant',
        content: message.content ?? null,
        ...(message.tool_calls?.length ? { tool_calls: message.tool_calls } : {}),
      },
      usage: { prompt: body.usage?.prompt_tokens ?? 0, completion: body.usage?.completion_tokens ?? 0 },
    };
  }
}
