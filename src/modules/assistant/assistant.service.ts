import { Prisma, type AssistantMessage } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import type { AppServices } from '../../app-services';
import { AppError, badInput, notFound } from '../../errors';
import type { Scope } from '../../auth/scopes';
import { pageArgs, type WindowArgs } from '../../pagination';
import { isUuid, optionalText } from '../../validation';
import { providerFor, recordTokens } from '../ai/ai-config.service';
import { CAPABILITIES, compose, extreme } from './compose';
import { ProviderError, type ChatMessage, type ChatProvider, type ToolDefinition } from '../ai/chat-provider';
import {
  cleanFilters,
  GROUPINGS,
  MEASURES,
  QUERY_SCHEMA,
  runQuery,
  SUBJECTS,
  WITHIN_FIELDS,
  type AssistantQuery,
  type QueryFilters,
  type QueryResult,
} from './query';
import { understand, type Vocabulary } from './understand';

/**
 * Conversations with the assistant (AI assistant section of docs/operations.md). Each question is
 * answered by the group's provider through tool calls into the structured queries, or by the
 * built-in engine when there is no provider, the day's token limit is spent or the provider fails;
 * both run the same queries with the caller's session, so they see only what the caller may see.
 */

type ProviderServices = Pick<AppServices, 'secrets' | 'feeds'>;

const SUBJECT_SCOPES: Record<AssistantQuery['subject'], Scope> = {
  vehicles: 'inventory:read',
  leads: 'leads:read',
  calls: 'calls:read',
  sales: 'sales:read',
};
const MAX_QUESTION = 2000;
const MAX_TOOL_ROUNDS = 4;

export interface AnswerData {
  query?: AssistantQuery | null;
  /** VINs of the vehicles the answer cites. */
  vins?: string[];
  /** Ids of the leads, calls or deals it cites. */
  records?: string[];
  figures?: Array<{ label: string; value: string }>;
}

const citationsOf = (results: QueryResult[]) => ({
  vins: [...new Set(results.flatMap((result) => result.vehicles.map((vehicle) => vehicle.vin)))],
  records: [...new Set(results.flatMap((result) => result.activity.map((row) => row.id)))],
});

const owner = (caller: Caller): Prisma.AssistantConversationWhereInput =>
  caller.session.userId
    ? { ownerUserId: caller.session.userId }
    : { ownerApiKeyId: caller.session.apiKeyId ?? '00000000-0000-0000-0000-000000000000' };

export async function vocabularyOf(caller: Caller): Promise<Vocabulary> {
  const groups = [...caller.session.dealerGroupIds];
  const [dealers, terms, sources] = await Promise.all([
    caller.db.dealer.findMany({
      where: { dealerGroupId: { in: groups }, archivedAt: null },
      select: { id: true, name: true, city: true, code: true },
      orderBy: { name: 'asc' },
    }),
    // One pass over the vehicles for their makes, models, body styles and trims; one over deals and leads for people.
    caller.db.$queryRaw<Array<{ kind: string; term: string }>>(Prisma.sql`/* assistantVocabulary */
      WITH kinds AS (
        SELECT DISTINCT make::text AS make, model::text AS model, body_style::text AS body, trim
        FROM vehicles WHERE dealer_group_id = ANY(${groups}::uuid[])
      )
      SELECT DISTINCT 'make' AS kind, make AS term FROM kinds
      UNION SELECT DISTINCT 'model', model FROM kinds
      UNION SELECT DISTINCT 'body', body FROM kinds WHERE body IS NOT NULL
      UNION SELECT DISTINCT 'trim', trim FROM kinds WHERE trim IS NOT NULL
      UNION SELECT DISTINCT 'person', salesperson FROM sales WHERE dealer_group_id = ANY(${groups}::uuid[])
      UNION SELECT DISTINCT 'person', assignee FROM leads WHERE dealer_group_id = ANY(${groups}::uuid[]) AND assignee IS NOT NULL`),
    caller.db.source.findMany({ where: { dealerGroupId: { in: groups } }, select: { name: true } }),
  ]);
  const of = (kind: string) => terms.filter((term) => term.kind === kind).map((term) => term.term);
  return {
    dealers,
    makes: of('make'),
    models: of('model'),
    bodyStyles: of('body'),
    trims: of('trim'),
    sources: sources.map((source) => source.name),
    // One person however the DMS spells the name.
    salespeople: [...new Map(of('person').map((name) => [name.toLowerCase(), name] as const)).values()],
  };
}

export async function listConversations(caller: Caller, args: WindowArgs) {
  const { limit, offset } = pageArgs(args);
  const where = owner(caller);
  const [total, conversations] = await Promise.all([
    caller.db.assistantConversation.count({ where }),
    caller.db.assistantConversation.findMany({
      where,
      orderBy: [{ updatedAt: 'desc' }, { id: 'asc' }],
      take: limit,
      skip: offset,
      include: { _count: { select: { messages: true } } },
    }),
  ]);
  return { items: conversations, total, limit, offset };
}

/** The caller's own conversation, else 404 (another user's answers the same as a missing one). */
export async function findConversation(caller: Caller, id: string) {
  const conversation = isUuid(id)
    ? await caller.db.assistantConversation.findFirst({
        where: { id, ...owner(caller) },
        include: { _count: { select: { messages: true } } },
      })
    : null;
  if (!conversation) throw notFound(`conversation ${id}`);
  return conversation;
}

export async function startConversation(
  caller: Caller,
  app: ProviderServices,
  input: { title?: string | null; message?: string | null },
) {
  const title =
    optionalText('title', input.title, 200) ??
    (input.message?.trim() ? input.message.trim().slice(0, 80) : 'New conversation');
  const conversation = await caller.db.assistantConversation.create({
    data: {
      ownerUserId: caller.session.userId,
      ownerApiKeyId: caller.session.userId ? null : caller.session.apiKeyId,
      dealerGroupIds: [...caller.session.dealerGroupIds],
      title,
    },
  });
  if (input.message?.trim()) await ask(caller, app, conversation.id, input.message);
  return findConversation(caller, conversation.id);
}

export interface Exchange {
  question: AssistantMessage;
  answer: AssistantMessage;
}

export async function ask(
  caller: Caller,
  app: ProviderServices,
  conversationId: string,
  content: string | null | undefined,
): Promise<Exchange> {
  const conversation = await findConversation(caller, conversationId);
  const question = content?.trim() ?? '';
  if (!question) throw badInput('content', 'ask a question');
  if (question.length > MAX_QUESTION) throw badInput('content', `must be at most ${MAX_QUESTION} characters`);
  const history = await caller.db.assistantMessage.findMany({
    where: { conversationId: conversation.id },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: 12,
  });
  const asked = await caller.db.assistantMessage.create({
    data: { conversationId: conversation.id, role: 'user', content: question },
  });
  // The queries the conversation's answers ran, newest first: the last one is what a follow-up starts from.
  const askedBefore = history.flatMap((message) =>
    message.role === 'assistant' && (message.data as AnswerData).query ? [(message.data as AnswerData).query!] : [],
  );
  const vocabulary = await vocabularyOf(caller);

  const chosen = await providerFor(caller, app);
  let answer: Omit<Prisma.AssistantMessageUncheckedCreateInput, 'conversationId' | 'role'>;
  if (!chosen) answer = await builtIn(caller, question, vocabulary, askedBefore, null);
  else if (chosen.limitReached) {
    answer = await builtIn(
      caller,
      question,
      vocabulary,
      askedBefore,
      `The assistant's daily token limit (${chosen.provider.config.dailyTokenLimit.toLocaleString('en-US')}) is used up for today, so the built-in engine answered.`,
    );
  } else {
    answer = await withProvider(caller, chosen.provider, question, [...history].reverse(), vocabulary).catch(
      async (error: Error & { usage?: { prompt: number; completion: number } }) => {
        if (!(error instanceof ProviderError)) throw error;
        const fallback = await builtIn(
          caller,
          question,
          vocabulary,
          askedBefore,
          `The assistant's provider failed (${error.message}), so the built-in engine answered.`,
        );
        return { ...fallback, promptTokens: error.usage?.prompt ?? 0, completionTokens: error.usage?.completion ?? 0 };
      },
    );
  }
  const saved = await caller.db.$transaction(async (tx) => {
    const message = await tx.assistantMessage.create({
      data: { ...answer, conversationId: conversation.id, role: 'assistant' },
    });
    await tx.assistantConversation.update({
      where: { id: conversation.id },
      data: {
        updatedAt: new Date(),
        ...(conversation._count.messages === 0 && conversation.title === 'New conversation'
          ? { title: question.slice(0, 80) }
          : {}),
      },
    });
    return message;
  });
  return { question: asked, answer: saved };
}

async function execute(caller: Caller, query: AssistantQuery): Promise<QueryResult> {
  const scope = SUBJECT_SCOPES[query.subject];
  if (!caller.session.has(scope))
    throw new AppError(403, 'FORBIDDEN', `you may not read ${query.subject} (scope ${scope})`);
  return runQuery(caller, query);
}

/** "september" as "September" (a period's words are kept as the question had them, lowercased). */
const monthsCapitalised = (phrase: string) =>
  phrase.replace(
    /\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\b/g,
    (month) => month[0]!.toUpperCase() + month.slice(1),
  );

/** A ranking's answer remembers the group it named first ("who is dead last": that one), for "his" or "that store". */
function withLeader(result: QueryResult): AssistantQuery {
  const { query } = result;
  // The one deal asked for ("pull deal D100199"): its salesperson, for "that salesperson's deals".
  const [deal] = result.activity;
  if (
    query.subject === 'sales' &&
    !query.group_by &&
    result.activity.length === 1 &&
    result.count === 1 &&
    deal?.person
  )
    return { ...query, leader: deal.person };
  const named = result.groups.filter((group) => group.key !== null);
  if (!query.ranked || !named.length) return query;
  const valued = query.measure !== 'count' && query.measure !== 'list';
  const figure = (group: (typeof named)[number]) => (valued ? (group.value ?? 0) : group.count);
  const low = query.order === 'asc' || query.measure === 'min';
  return { ...query, leader: extreme(named, figure, low).label };
}

const dealerNamesOf = (vocabulary: Vocabulary) => new Map(vocabulary.dealers.map((dealer) => [dealer.id, dealer.name]));

async function builtIn(
  caller: Caller,
  question: string,
  vocabulary: Vocabulary,
  asked: AssistantQuery[],
  note: string | null,
) {
  const previous = asked[0] ?? null;
  const understanding = understand(question, vocabulary, previous, new Date(), asked.slice(1));
  const base = { engine: 'built_in', model: null, note };
  if (!understanding.query) {
    return {
      ...base,
      answered: false,
      content: understanding.declined
        ? `I can't help with that: ${understanding.reason}. ${CAPABILITIES}`
        : `I can't answer that: ${understanding.reason}. ${CAPABILITIES}`,
      data: { query: previous } as Prisma.InputJsonObject,
    };
  }
  try {
    const result = await execute(caller, understanding.query);
    const composed = compose(result, dealerNamesOf(vocabulary));
    // "…and how does that compare with September?": the same figure over the other period, said next.
    const compared = understanding.compareWith
      ? compose(
          await execute(caller, {
            ...understanding.query,
            filters: { ...understanding.query.filters, ...understanding.compareWith.range },
          }),
          dealerNamesOf(vocabulary),
        )
      : null;
    // What the question named that the query could not use is said, never dropped in silence.
    // Said right after the figure it qualifies, before any list of records.
    const [figure, ...rest] = composed.text.split('\n');
    const unused = understanding.unused.length
      ? [
          `Not used: ${understanding.unused.join('; ')}. The figure above is without ${understanding.unused.length === 1 ? 'it' : 'them'}.`,
        ]
      : [];
    return {
      ...base,
      answered: true,
      content: [
        figure,
        ...(compared
          ? [`Compared with ${monthsCapitalised(understanding.compareWith!.phrase)}: ${compared.text.split('\n')[0]}`]
          : []),
        ...unused,
        ...rest,
      ].join('\n'),
      data: {
        query: withLeader(result),
        ...citationsOf([result]),
        figures: [
          ...composed.figures,
          ...(compared?.figures.map((entry) => ({ ...entry, label: `compared: ${entry.label}` })) ?? []),
        ],
      } as unknown as Prisma.InputJsonObject,
    };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return {
      ...base,
      answered: false,
      content: `I can't answer that: ${error.message}.`,
      data: { query: previous } as Prisma.InputJsonObject,
    };
  }
}

const TOOL: ToolDefinition = {
  type: 'function',
  function: {
    name: 'query_data',
    description:
      "Count, list, average, sum or find the extremes of the caller's vehicles in inventory, leads, calls or sales, with filters and an optional breakdown. Returns figures and the records (VINs) they rest on. Never guess a figure: ask this tool.",
    parameters: QUERY_SCHEMA,
  },
};

/** A tool call's arguments, checked: only known subjects, measures and groupings; rooftop names resolved to the caller's own rooftops. */
function toolQuery(raw: string, vocabulary: Vocabulary): AssistantQuery {
  let args: Record<string, unknown>;
  try {
    args = JSON.parse(raw || '{}');
  } catch {
    throw new AppError(400, 'INVALID_ARGUMENT', 'the arguments are not JSON');
  }
  const pick = <T extends string>(name: string, allowed: readonly T[], required: boolean): T | undefined => {
    const value = args[name];
    if (value === undefined || value === null) {
      if (required) throw badInput(name, `is required: one of ${allowed.join(', ')}`);
      return undefined;
    }
    if (!allowed.includes(value as T)) throw badInput(name, `must be one of ${allowed.join(', ')}`);
    return value as T;
  };
  const {
    dealer,
    dealer_id: _ids,
    ...rest
  } = (args.filters && typeof args.filters === 'object' ? args.filters : {}) as Record<string, unknown>;
  // Rooftops are named, never given by id: the model only knows names, and only the caller's.
  const filters: QueryFilters & { dealer?: string[] } = cleanFilters(rest);
  const names = dealer === undefined || dealer === null ? [] : Array.isArray(dealer) ? dealer : [dealer];
  if (names.some((name) => typeof name !== 'string'))
    throw badInput('filters.dealer', 'must be a list of rooftop names');
  filters.dealer = names as string[];
  if (filters.dealer.length) {
    const wanted = filters.dealer.map((name) => name.toLowerCase());
    const ids = vocabulary.dealers
      .filter((dealer) =>
        wanted.some(
          (name) =>
            dealer.name.toLowerCase().includes(name) ||
            name.includes(dealer.name.toLowerCase()) ||
            (dealer.city ?? '').toLowerCase() === name ||
            dealer.code.toLowerCase() === name,
        ),
      )
      .map((dealer) => dealer.id);
    if (!ids.length)
      throw badInput(
        'filters.dealer',
        `no rooftop of yours is called ${filters.dealer.join(' or ')}; yours are ${vocabulary.dealers.map((dealer) => dealer.name).join(', ')}`,
      );
    filters.dealer_id = ids;
  }
  delete filters.dealer;
  return {
    subject: pick('subject', SUBJECTS, true)!,
    measure: pick('measure', MEASURES, true)!,
    field: typeof args.field === 'string' ? args.field : undefined,
    group_by: pick('group_by', GROUPINGS, false),
    order: pick('order', ['asc', 'desc'] as const, false),
    limit: typeof args.limit === 'number' ? Math.max(1, Math.min(25, Math.round(args.limit))) : undefined,
    offset: typeof args.offset === 'number' ? Math.max(0, Math.min(24, Math.round(args.offset))) : undefined,
    share: args.share === true,
    ...(args.share === true && args.whole_filters && typeof args.whole_filters === 'object'
      ? { whole_filters: wholeFilters(args.whole_filters) }
      : {}),
    ...(args.share === true && args.whole_of_group === true ? { whole_of_group: true } : {}),
    ranked: args.ranked === true,
    distinct: args.distinct === true,
    ...withinOf(args.within),
    filters,
  };
}

/** A tool call's `within` (the last list's rows), checked: a vehicle figure, an order and 1 to 25 rows. */
function withinOf(raw: unknown): Pick<AssistantQuery, 'within'> {
  if (raw === undefined || raw === null) return {};
  const { field, order, limit } = (typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  if (
    !WITHIN_FIELDS.includes(field as string) ||
    (order !== 'asc' && order !== 'desc') ||
    typeof limit !== 'number' ||
    !Number.isFinite(limit)
  )
    throw badInput('within', `needs field (one of ${WITHIN_FIELDS.join(', ')}), order (asc or desc) and limit`);
  return { within: { field: field as string, order, limit: Math.max(1, Math.min(25, Math.round(limit))) } };
}

/** The whole of a share, beyond its rooftops and period (those are the part's): no rooftop or dates of its own. */
function wholeFilters(raw: object): QueryFilters {
  const { dealer_id: _ids, from: _from, to: _to, ...rest } = cleanFilters(raw);
  return rest;
}

function toolResult(result: QueryResult, dealerNames: Map<string, string>) {
  return {
    count: result.count,
    whole: result.whole ?? null,
    unranked: result.unranked ?? null,
    value: result.value,
    field: result.query.field ?? null,
    groups: result.groups.map((group) => ({ label: group.label, count: group.count, value: group.value })),
    vehicles: result.vehicles.map((vehicle) => ({ ...vehicle, price: vehicle.price })),
    records: result.activity.map((row) => ({ ...row, at: row.at.toISOString() })),
    dealers: result.query.filters.dealer_id?.map((id) => dealerNames.get(id)) ?? null,
  };
}

async function withProvider(
  caller: Caller,
  provider: ChatProvider,
  question: string,
  history: AssistantMessage[],
  vocabulary: Vocabulary,
) {
  const dealerNames = dealerNamesOf(vocabulary);
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content: [
        "You are the dealership data assistant. Answer questions about the caller's own inventory, leads, calls and sales using only the query_data tool's results; never invent figures.",
        'Answer in plain sentences, cite the VINs or figures you used, and say plainly when the data cannot answer.',
        `Today is ${new Date().toISOString().slice(0, 10)} (UTC). The caller's rooftops: ${vocabulary.dealers.map((dealer) => dealer.name).join(', ') || 'none'}.`,
      ].join(' '),
    },
    ...history
      .filter((message) => message.role === 'user' || message.role === 'assistant')
      .map((message) => ({ role: message.role as 'user' | 'assistant', content: message.content })),
    { role: 'user', content: question },
  ];
  const usage = { prompt: 0, completion: 0 };
  const results: QueryResult[] = [];
  let lastQuery: AssistantQuery | null = null;
  try {
    for (let round = 0; round < MAX_TOOL_ROUNDS; round += 1) {
      const reply = await provider.chat(messages, [TOOL]);
      usage.prompt += reply.usage.prompt;
      usage.completion += reply.usage.completion;
      await recordTokens(caller.db, provider.config.dealerGroupId, reply.usage.prompt, reply.usage.completion);
      if (!reply.message.tool_calls?.length) {
        return {
          engine: 'provider',
          model: provider.model,
          note: null,
          answered: true,
          content: reply.message.content ?? '',
          promptTokens: usage.prompt,
          completionTokens: usage.completion,
          data: {
            query: lastQuery,
            ...citationsOf(results),
            figures: results.map((result) => ({
              label: `${result.query.subject} ${result.query.measure}${result.query.field ? ` ${result.query.field}` : ''}`,
              value: String(result.value ?? result.count),
            })),
          } as unknown as Prisma.InputJsonObject,
        };
      }
      messages.push(reply.message);
      for (const call of reply.message.tool_calls) {
        let content: string;
        try {
          if (call.function.name !== 'query_data')
            throw new AppError(400, 'INVALID_ARGUMENT', `unknown tool ${call.function.name}; use query_data`);
          const query = toolQuery(call.function.arguments, vocabulary);
          const result = await execute(caller, query);
          lastQuery = result.query;
          results.push(result);
          content = JSON.stringify(toolResult(result, dealerNames));
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          content = JSON.stringify({ error: error.message });
        }
        messages.push({ role: 'tool', tool_call_id: call.id, content });
      }
    }
    throw new ProviderError(`no answer after ${MAX_TOOL_ROUNDS} rounds of tool calls`);
  } catch (error) {
    if (error instanceof ProviderError) throw Object.assign(error, { usage });
    throw error;
  }
}
