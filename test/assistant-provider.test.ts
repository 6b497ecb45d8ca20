import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';

/**
 * The assistant with a provider: a local OpenAI-compatible chat-completions server, started here,
 * that asks for the query_data tool, reads the tool's result and answers from it, as a model would.
 */

interface ChatRequest {
  model: string;
  messages: Array<{ role: string; content: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
  tools?: Array<{ function: { name: string; parameters: object } }>;
}

describe('the assistant with an OpenAI-compatible provider', () => {
  let app: TestApp;
  let group: SeededGroup;
  let other: SeededGroup;
  let admin: string;
  let analyst: string;
  let server: http.Server;
  let baseUrl: string;
  let mode: 'tools' | 'error' | 'slow' | 'rerank' | 'bad-arguments' = 'tools';
  const requests: Array<{ authorization: string | undefined; body: ChatRequest }> = [];

  beforeAll(async () => {
    server = http.createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk) => {
        raw += chunk;
      });
      request.on('end', () => {
        const body = JSON.parse(raw) as ChatRequest;
        requests.push({ authorization: request.headers.authorization, body });
        if (request.url !== '/v1/chat/completions') return response.writeHead(404).end();
        if (mode === 'error')
          return response
            .writeHead(500, { 'content-type': 'application/json' })
            .end('{"error":{"message":"model overloaded"}}');
        if (mode === 'slow') return; // never answers
        const reply = (message: object) =>
          response.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              id: 'chatcmpl-1',
              object: 'chat.completion',
              model: body.model,
              choices: [{ index: 0, message, finish_reason: 'stop' }],
              usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
            }),
          );
        if (mode === 'rerank') {
          const { candidates } = JSON.parse(body.messages.at(-1)!.content!) as { candidates: Array<{ id: string }> };
          return reply({
            role: 'assistant',
            content: JSON.stringify({ order: candidates.map((candidate) => candidate.id).reverse() }),
          });
        }
        const last = body.messages.at(-1)!;
        if (mode === 'bad-arguments') {
          if (last.role === 'tool') return reply({ role: 'assistant', content: `The tool said: ${last.content}` });
          return reply({
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_a',
                type: 'function',
                function: {
                  name: 'query_data',
                  arguments: JSON.stringify({
                    subject: 'vehicles',
                    measure: 'count',
                    filters: { price_max: 'cheap', body_style: 'SUV' },
                  }),
                },
              },
              { id: 'call_b', type: 'function', function: { name: 'drop_tables', arguments: '{}' } },
              { id: 'call_c', type: 'function', function: { name: 'query_data', arguments: '{not json' } },
              {
                id: 'call_d',
                type: 'function',
                function: {
                  name: 'query_data',
                  arguments: JSON.stringify({ subject: 'vehicles', measure: 'count', filters: { missing: ['vin'] } }),
                },
              },
              {
                id: 'call_e',
                type: 'function',
                function: {
                  name: 'query_data',
                  arguments: JSON.stringify({
                    subject: 'vehicles',
                    measure: 'list',
                    within: { field: 'colour', order: 'asc', limit: 5 },
                    filters: {},
                  }),
                },
              },
            ],
          });
        }
        if (last.role !== 'tool') {
          return reply({
            role: 'assistant',
            content: null,
            tool_calls: [
              {
                id: 'call_1',
                type: 'function',
                function: {
                  name: 'query_data',
                  arguments: JSON.stringify({
                    subject: 'vehicles',
                    measure: 'count',
                    filters: { condition: ['used'], dealer: ['Rooftop 1'] },
                  }),
                },
              },
            ],
          });
        }
        const result = JSON.parse(last.content!) as { count: number; vehicles: Array<{ vin: string }> };
        return reply({
          role: 'assistant',
          content: `You have ${result.count} used vehicles at Rooftop 1: ${result.vehicles.map((vehicle) => vehicle.vin).join(', ')}.`,
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    app = await startTestApp({
      SYNC_SCHEDULER: 'false',
      ALLOW_INSECURE_HTTP_PULL: 'true',
      ALLOW_PRIVATE_NETWORKS: 'true',
    });
    const vehicles = [
      { condition: 'used' as const, price: '18000.00' },
      { condition: 'used' as const, price: '21000.00' },
      { condition: 'new' as const, price: '41000.00' },
      { condition: 'used' as const, price: '15000.00', dealer: 1 },
    ];
    group = await seedGroup(app.database.prisma, { users: { admin: 'admin', analyst: 'analyst' }, vehicles });
    other = await seedGroup(app.database.prisma, {
      users: { admin: 'admin' },
      vehicles: [{ condition: 'used', price: '9000.00' }],
    });
    admin = await group.login(app.client, 'admin');
    analyst = await group.login(app.client, 'analyst');
  });
  afterAll(async () => {
    await app?.stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    mode = 'tools';
    requests.length = 0;
  });

  const configure = async (body: Record<string, unknown>) => {
    const response = await app.client.request('PUT', '/api/v1/admin/ai-config', { token: admin, body });
    if (response.status !== 400) expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response;
  };
  const ask = async (content: string) => {
    const started = await app.client.post('/assistant/conversations', { message: content }, analyst);
    expect(started.status, JSON.stringify(started.body)).toBe(201);
    return started.body.messages[1];
  };

  it('stores the provider config validated, with its API key sealed and never returned, and audits the change', async () => {
    expect((await app.client.get('/admin/ai-config', admin)).body).toMatchObject({
      configured: false,
      engine: 'built_in',
      has_api_key: false,
    });
    for (const [body, field] of [
      [{ base_url: 'ftp://models.example/v1', model: 'm' }, 'base_url'],
      [{ base_url: 'not a url', model: 'm' }, 'base_url'],
      [{ base_url: baseUrl }, 'model'],
      [{ base_url: baseUrl, model: 'm', daily_token_limit: 0 }, 'daily_token_limit'],
      [{ base_url: baseUrl, model: 'm', timeout_ms: 10 }, 'timeout_ms'],
      [{ base_url: 'https://user:secret@models.example/v1', model: 'm' }, 'base_url'],
    ] as const) {
      const refused = await configure(body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.error.details.field).toBe(field);
    }
    const saved = await configure({
      base_url: `${baseUrl}/`,
      model: 'local-test',
      api_key: 'sk-test-provider-key',
      daily_token_limit: 10_000,
      timeout_ms: 2000,
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({
      configured: true,
      enabled: true,
      engine: 'provider',
      base_url: baseUrl,
      model: 'local-test',
      has_api_key: true,
      daily_token_limit: 10_000,
      timeout_ms: 2000,
    });
    expect(JSON.stringify(saved.body)).not.toContain('sk-test-provider-key');
    const row = await app.database.prisma.aiConfig.findUniqueOrThrow({ where: { dealerGroupId: group.groupId } });
    expect(row.apiKey).not.toContain('sk-test-provider-key');
    expect(app.services.secrets.open(row.apiKey!, group.groupId)).toBe('sk-test-provider-key');
    const audit = (await app.client.get('/logs/audit?limit=20', admin)).body.events.map(
      (event: { action: string }) => event.action,
    );
    expect(audit).toEqual(expect.arrayContaining(['ai_config.changed', 'credentials.changed']));
    // Analysts cannot read or change it; API keys cannot change it.
    expect((await app.client.get('/admin/ai-config', analyst)).status).toBe(403);
    expect(
      (await app.client.request('PUT', '/api/v1/admin/ai-config', { token: analyst, body: { enabled: false } })).status,
    ).toBe(403);
  });

  it('answers through real tool-call round trips into the same queries, scoped to the caller, and records the tokens', async () => {
    const answer = await ask('How many used cars do we have at Rooftop 1?');
    expect(answer).toMatchObject({
      engine: 'provider',
      model: 'local-test',
      note: null,
      answered: true,
      prompt_tokens: 240,
      completion_tokens: 60,
    });
    const usedAtFirst = await app.database.prisma.vehicle.findMany({
      where: { dealerGroupId: group.groupId, dealerId: group.dealerIds[0], condition: 'used' },
      select: { vin: true },
    });
    expect(answer.content).toContain(`You have ${usedAtFirst.length} used vehicles at Rooftop 1`);
    expect(answer.citations.vins.sort()).toEqual(usedAtFirst.map((vehicle) => vehicle.vin).sort());
    expect(answer.query).toMatchObject({
      subject: 'vehicles',
      measure: 'count',
      filters: { condition: ['used'], dealer_id: [group.dealerIds[0]] },
    });

    expect(requests).toHaveLength(2);
    expect(requests[0]!.authorization).toBe('Bearer sk-test-provider-key');
    expect(requests[0]!.body.tools?.[0]?.function.name).toBe('query_data');
    const toolMessage = requests[1]!.body.messages.find((message) => message.role === 'tool')!;
    expect(toolMessage.tool_call_id).toBe('call_1');
    // The model saw this tenant's rows only.
    const foreign = (
      await app.database.prisma.vehicle.findMany({ where: { dealerGroupId: other.groupId }, select: { vin: true } })
    ).map((vehicle) => vehicle.vin);
    for (const vin of foreign) expect(JSON.stringify(requests.map((request) => request.body))).not.toContain(vin);

    const config = (await app.client.get('/admin/ai-config', admin)).body;
    expect(config.tokens_used_today).toBeGreaterThanOrEqual(300);
    const usage = await app.client.get('/admin/usage', admin);
    expect(usage.body.assistant).toMatchObject({
      prompt_tokens: expect.any(Number),
      completion_tokens: expect.any(Number),
    });
    expect(usage.body.assistant.total_tokens).toBeGreaterThanOrEqual(300);
    expect(usage.body.assistant.requests).toBeGreaterThanOrEqual(2);
  });

  it('falls back to the built-in engine, with a note, when the provider fails, times out or the day’s tokens are spent', async () => {
    mode = 'error';
    const failed = await ask('How many used vehicles do we have?');
    expect(failed).toMatchObject({ engine: 'built_in', answered: true, note: expect.stringContaining('HTTP 500') });
    expect(failed.content).toMatch(/^You have 3 used vehicles in stock\./);
    expect(requests).toHaveLength(1);

    mode = 'slow';
    await configure({ timeout_ms: 1000 });
    const started = Date.now();
    const slow = await ask('How many used vehicles do we have?');
    expect(slow).toMatchObject({ engine: 'built_in', note: expect.stringContaining('no complete answer within 1 s') });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(requests).toHaveLength(2);

    mode = 'tools';
    await configure({ daily_token_limit: 100 });
    const spent = await ask('How many used vehicles do we have?');
    expect(spent).toMatchObject({ engine: 'built_in', note: expect.stringContaining('daily token limit (100)') });
    expect(requests).toHaveLength(2); // spent: the provider was not asked
    await configure({ daily_token_limit: 1_000_000, timeout_ms: 5000 });
  });

  it('answers a malformed tool call with the reason, so the model can correct itself', async () => {
    mode = 'bad-arguments';
    const answer = await ask('How many cheap SUVs?');
    expect(answer).toMatchObject({ engine: 'provider', answered: true });
    const toolMessages = requests[1]!.body.messages
      .filter((message) => message.role === 'tool')
      .map((message) => JSON.parse(message.content!).error);
    expect(toolMessages).toEqual([
      expect.stringContaining('filters.price_max: must be a number'),
      expect.stringContaining('unknown tool drop_tables'),
      expect.stringContaining('not JSON'),
      expect.stringContaining('filters.missing: must list some of price, internet_price'),
      expect.stringContaining('within: needs field (one of price'),
    ]);
  });

  it('re-ranks the dealer matcher’s top candidates with the provider when enabled', async () => {
    mode = 'rerank';
    const body = { name: 'Rooftop 1', limit: 2 };
    await configure({ rerank_dealer_matches: false });
    const plain = await app.client.post('/dealers/match', body, admin);
    expect(plain.status, JSON.stringify(plain.body)).toBe(200);
    await configure({ rerank_dealer_matches: true });
    const reranked = await app.client.post('/dealers/match', body, admin);
    const ids = (response: typeof plain) =>
      response.body.candidates.map((candidate: { dealer: { id: string } }) => candidate.dealer.id);
    expect(ids(reranked)).toEqual([...ids(plain)].reverse());
    expect(JSON.stringify(reranked.body)).toContain('re-ranked by local-test');
    // On a provider failure our own order stands.
    mode = 'error';
    expect(ids(await app.client.post('/dealers/match', body, admin))).toEqual(ids(plain));
  });
});
