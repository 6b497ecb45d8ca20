import type { AssistantMessage as MessageRow } from '../../generated/prisma/client';
import { builder } from '../../builder';
import { itemsLoaded, pageOf } from '../../pages';
import { listArgs } from '../../schema-args';
import { ask, findConversation, listConversations, startConversation, type AnswerData } from './assistant.service';
import { restOperations } from '../../http/operations';

const operation = restOperations('AI assistant');

/** The AI assistant section of docs/operations.md: conversations with the assistant, each the caller's own. */

type ConversationRow = Awaited<ReturnType<typeof findConversation>>;

const Figure = builder.objectRef<{ label: string; value: string }>('AssistantFigure').implement({
  fields: (t) => ({ label: t.exposeString('label'), value: t.exposeString('value') }),
});

const Citations = builder.objectRef<AnswerData>('AssistantCitations').implement({
  description: 'What an answer rests on.',
  fields: (t) => ({
    vins: t.stringList({ description: 'Vehicles the answer names.', resolve: (data) => data.vins ?? [] }),
    record_ids: t.idList({
      description: 'Leads, calls or deals the answer names.',
      resolve: (data) => data.records ?? [],
    }),
    figures: t.field({ type: [Figure], resolve: (data) => data.figures ?? [] }),
  }),
});

const Message = builder.objectRef<MessageRow>('AssistantMessage').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    role: t.exposeString('role', { description: 'user or assistant.' }),
    content: t.exposeString('content'),
    answered: t.exposeBoolean('answered', { description: 'False when the assistant said it cannot answer.' }),
    engine: t.exposeString('engine', {
      nullable: true,
      description: 'provider, or built_in (no provider, its limit reached, or it failed: see note).',
    }),
    model: t.exposeString('model', { nullable: true }),
    note: t.exposeString('note', { nullable: true }),
    citations: t.field({
      type: Citations,
      nullable: true,
      resolve: (message) => (message.role === 'assistant' ? (message.data as AnswerData) : null),
    }),
    query: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The structured query the answer ran (what a follow-up builds on).',
      resolve: (message) => (message.data as AnswerData).query ?? null,
    }),
    prompt_tokens: t.exposeInt('promptTokens'),
    completion_tokens: t.exposeInt('completionTokens'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const Conversation = builder.objectRef<ConversationRow>('AssistantConversation').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    message_count: t.int({ resolve: (conversation) => conversation._count.messages }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
    messages: t.field({
      type: [Message],
      description: 'Oldest first.',
      resolve: (conversation, _args, context) =>
        context.db.assistantMessage.findMany({
          where: { conversationId: conversation.id },
          orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        }),
    }),
  }),
});

const ConversationPage = pageOf('AssistantConversationPage', 'conversations', itemsLoaded(Conversation));

const Exchange = builder
  .objectRef<Awaited<ReturnType<typeof ask>> & { conversationId: string }>('AssistantExchange')
  .implement({
    fields: (t) => ({
      conversation_id: t.exposeID('conversationId'),
      question: t.field({ type: Message, resolve: (exchange) => exchange.question }),
      answer: t.field({ type: Message, resolve: (exchange) => exchange.answer }),
    }),
  });

builder.queryFields((t) => ({
  assistantConversations: t.field({
    ...operation('GET /assistant/conversations', 'List assistant conversations'),
    type: ConversationPage,
    description: 'Your conversations, most recent first.',
    authScopes: { scope: 'assistant:use' },
    args: listArgs(t),
    resolve: (_root, args, context) => listConversations(context, args),
  }),
  assistantConversation: t.field({
    ...operation('GET /assistant/conversations/:id', 'Get an assistant conversation'),
    type: Conversation,
    description: 'One of your conversations with its messages.',
    authScopes: { scope: 'assistant:use' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => findConversation(context, String(args.id)),
  }),
}));

// Each question runs several aggregates and may call the provider (whose tokens cost money). One count for both ways
// of asking (a conversation started without a question is free), over 10 minutes so that a burst of questions fits
// while a sustained stream is held to 10 a minute.
const ASSISTANT_MESSAGES = {
  operation: 'asking the assistant',
  bucket: 'assistant-messages',
  max: 100,
  window: '10m',
} as const;

builder.mutationFields((t) => ({
  startAssistantConversation: t.field({
    ...operation('POST /assistant/conversations', 'Start an assistant conversation', {
      status: 201,
      rateLimit: { ...ASSISTANT_MESSAGES, countsWhen: (args) => Boolean(args.message) },
    }),
    type: Conversation,
    description: 'Start a conversation, optionally with a first question (answered before this returns).',
    authScopes: { scope: 'assistant:use' },
    args: { title: t.arg.string(), message: t.arg.string({ description: 'A first question.' }) },
    resolve: (app, args, context) => startConversation(context, app, args),
  }),
  askAssistant: t.field({
    ...operation('POST /assistant/conversations/:id/messages', 'Ask the assistant', {
      status: 201,
      rateLimit: ASSISTANT_MESSAGES,
    }),
    type: Exchange,
    description:
      'Ask in a conversation. The answer uses your own data only, and follows up on the conversation ("and how many of those are white?").',
    authScopes: { scope: 'assistant:use' },
    args: {
      id: t.arg.id({ required: true, description: 'The conversation.' }),
      content: t.arg.string({ required: true }),
    },
    resolve: async (app, args, context) => ({
      ...(await ask(context, app, String(args.id), args.content)),
      conversationId: String(args.id),
    }),
  }),
}));
