import { builder, Deletion } from '../../builder';
import { restOperations } from '../../http/operations';
import { itemsLoaded, pageOf } from '../../pages';
import { listArgs, type FieldArgsBuilder } from '../../schema-args';
import { EVENT_TYPES } from '../events/event-types';
import {
  attemptsOf,
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listDeliveries,
  listEndpoints,
  redeliver,
  rotateSecret,
  sendTestEvent,
  updateEndpoint,
  type AttemptView,
  type DeliveryView,
  type EndpointInput,
  type EndpointView,
} from './webhooks.service';

const operation = restOperations('Webhooks');

/** The Webhooks section of docs/operations.md: endpoints that receive events, their secrets and delivery log. */

const WebhookEndpoint = builder.objectRef<EndpointView>('WebhookEndpoint').implement({
  description: 'A URL that receives events as signed POSTs (Standard Webhooks).',
  fields: (t) => ({
    id: t.exposeID('id'),
    dealer_group_id: t.exposeID('dealer_group_id'),
    url: t.exposeString('url'),
    description: t.exposeString('description', { nullable: true }),
    event_types: t.exposeStringList('event_types'),
    dealer_ids: t.exposeIDList('dealer_ids', {
      description: 'Only these rooftops; empty: every rooftop of the group.',
    }),
    enabled: t.exposeBoolean('enabled'),
    disabled_reason: t.exposeString('disabled_reason', { nullable: true }),
    failing_since: t.expose('failing_since', {
      type: 'DateTime',
      nullable: true,
      description: 'Since when every attempt has failed; after the retry window (3 days) the endpoint is disabled.',
    }),
    partner_id: t.exposeID('partner_id', {
      nullable: true,
      description:
        "The partner whose API key created it: it receives only the events its partner's links allow (rooftops and kinds of data).",
    }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
  }),
});

const EndpointWithSecret = builder
  .objectRef<{ endpoint: EndpointView; secret: string }>('WebhookEndpointWithSecret')
  .implement({
    fields: (t) => ({
      endpoint: t.field({ type: WebhookEndpoint, resolve: (created) => created.endpoint }),
      secret: t.exposeString('secret', {
        description: 'The signing secret (whsec_…): shown this once. Verify webhook-signature with it.',
      }),
    }),
  });

const WebhookAttempt = builder.objectRef<AttemptView>('WebhookAttempt').implement({
  fields: (t) => ({
    attempted_at: t.expose('attempted_at', { type: 'DateTime' }),
    response_status: t.exposeInt('response_status', { nullable: true }),
    duration_ms: t.exposeInt('duration_ms'),
    error: t.exposeString('error', { nullable: true }),
    next_attempt_at: t.expose('next_attempt_at', { type: 'DateTime', nullable: true }),
  }),
});

const WebhookDelivery = builder.objectRef<DeliveryView>('WebhookDelivery').implement({
  description: 'One event to one endpoint: pending, delivered (a 2xx answer) or failed (retries spent).',
  fields: (t) => ({
    id: t.exposeID('id'),
    event_id: t.exposeID('event_id'),
    event_type: t.exposeString('event_type'),
    status: t.exposeString('status'),
    attempts: t.exposeInt('attempts'),
    response_status: t.exposeInt('response_status', { nullable: true, description: 'The last answer.' }),
    duration_ms: t.exposeInt('duration_ms', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
    next_attempt_at: t.expose('next_attempt_at', { type: 'DateTime', nullable: true, description: 'The next retry.' }),
    delivered_at: t.expose('delivered_at', { type: 'DateTime', nullable: true }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    payload: t.field({ type: 'JSON', description: 'The body sent.', resolve: (delivery) => JSON.parse(delivery.body) }),
    attempt_log: t.field({
      type: [WebhookAttempt],
      description: 'Every attempt, oldest first.',
      resolve: (delivery, _args, _context, info) => attemptsOf(info.rootValue as never, delivery.id),
    }),
  }),
});

const Redelivery = builder
  .objectRef<{ delivery_id: string; status?: string; event_id?: string }>('WebhookRedelivery')
  .implement({
    fields: (t) => ({
      delivery_id: t.exposeID('delivery_id'),
      event_id: t.exposeID('event_id', { nullable: true }),
      status: t.string({ resolve: (queued) => queued.status ?? 'pending' }),
    }),
  });

const WebhookEndpointPage = pageOf('WebhookEndpointPage', 'endpoints', itemsLoaded(WebhookEndpoint));
const WebhookDeliveryPage = pageOf('WebhookDeliveryPage', 'deliveries', itemsLoaded(WebhookDelivery));

const endpointArgs = (t: FieldArgsBuilder) => ({
  url: t.arg.string({ description: 'Where to POST events (https; private addresses only where allowed).' }),
  event_types: t.arg.stringList({ description: `Any of ${EVENT_TYPES.join(', ')}.` }),
  dealer_ids: t.arg.idList({ description: 'Only these rooftops; omit or empty for all of the group.' }),
  description: t.arg.string(),
});

builder.queryFields((t) => ({
  webhookEndpoints: t.field({
    ...operation('GET /webhook-endpoints', 'List webhook endpoints'),
    type: WebhookEndpointPage,
    authScopes: { scope: 'webhooks:read' },
    args: listArgs(t),
    resolve: (_root, args, context) => listEndpoints(context, args),
  }),
  webhookEndpoint: t.field({
    ...operation('GET /webhook-endpoints/:id', 'Get a webhook endpoint'),
    type: WebhookEndpoint,
    authScopes: { scope: 'webhooks:read' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, context) => getEndpoint(context, String(args.id)),
  }),
  webhookDeliveries: t.field({
    ...operation('GET /webhook-endpoints/:id/deliveries', 'List deliveries'),
    type: WebhookDeliveryPage,
    description: 'Deliveries to the endpoint, newest first, with every attempt.',
    authScopes: { scope: 'webhooks:read' },
    args: {
      id: t.arg.id({ required: true }),
      status: t.arg.string({ description: 'pending, delivered or failed.' }),
      ...listArgs(t),
    },
    resolve: (root, { id, ...args }, context) => listDeliveries(root, context, String(id), args),
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    ...operation('POST /webhook-endpoints', 'Create a webhook endpoint', { status: 201 }),
    type: EndpointWithSecret,
    description: 'Start pushing events to a URL; the signing secret is in this answer only.',
    authScopes: { scope: 'webhooks:write' },
    args: {
      ...endpointArgs(t),
      url: t.arg.string({ required: true }),
      event_types: t.arg.stringList({ required: true }),
      dealer_group_id: t.arg.id(),
    },
    resolve: (root, args, context) =>
      createEndpoint(root, context, {
        ...args,
        dealer_ids: args.dealer_ids?.map(String),
        dealer_group_id: args.dealer_group_id?.toString(),
      } as EndpointInput),
  }),
  updateWebhookEndpoint: t.field({
    ...operation('PATCH /webhook-endpoints/:id', 'Update a webhook endpoint'),
    type: WebhookEndpoint,
    description: 'Change the URL, event types, rooftops or description; enable it again after it was disabled.',
    authScopes: { scope: 'webhooks:write' },
    args: { id: t.arg.id({ required: true }), ...endpointArgs(t), enabled: t.arg.boolean() },
    resolve: (root, { id, ...args }, context) =>
      updateEndpoint(root, context, String(id), { ...args, dealer_ids: args.dealer_ids?.map(String) } as EndpointInput),
  }),
  deleteWebhookEndpoint: t.field({
    ...operation('DELETE /webhook-endpoints/:id', 'Delete a webhook endpoint'),
    type: Deletion,
    authScopes: { scope: 'webhooks:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, context) => ({ id: await deleteEndpoint(context, String(args.id)) }),
  }),
  rotateWebhookSecret: t.field({
    ...operation('POST /webhook-endpoints/:id/rotate-secret', 'Rotate the signing secret'),
    type: EndpointWithSecret,
    description: 'A new secret, shown once; with grace_hours the old one signs beside it until then.',
    authScopes: { scope: 'webhooks:write' },
    args: { id: t.arg.id({ required: true }), grace_hours: t.arg.int({ description: '0-168, default 0.' }) },
    resolve: (root, args, context) => rotateSecret(root, context, String(args.id), args.grace_hours ?? null),
  }),
  sendWebhookTest: t.field({
    ...operation('POST /webhook-endpoints/:id/test', 'Send a test event', { status: 202 }),
    type: Redelivery,
    description: 'Queues a webhook.test event to this endpoint now; see its deliveries for the outcome.',
    authScopes: { scope: 'webhooks:write' },
    args: { id: t.arg.id({ required: true }) },
    resolve: (root, args, context) => sendTestEvent(root, context, String(args.id)),
  }),
  redeliverWebhook: t.field({
    ...operation('POST /webhook-endpoints/:id/deliveries/:deliveryId/redeliver', 'Deliver an event again', {
      status: 202,
    }),
    type: Redelivery,
    authScopes: { scope: 'webhooks:write' },
    args: { id: t.arg.id({ required: true }), deliveryId: t.arg.id({ required: true }) },
    resolve: (root, args, context) => redeliver(root, context, String(args.id), String(args.deliveryId)),
  }),
}));
