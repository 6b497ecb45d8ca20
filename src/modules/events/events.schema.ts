import { builder } from '../../builder';
import { accessUnchanged } from '../../auth/authenticate';
import { restOperations } from '../../http/operations';
import { consentAllowsEvent, EVENT_TYPES } from './event-types';
import { listEvents, readableTypes, type EventFeedPage, type EventRow } from './events.service';
import { dealerIds } from '../../validation';

const operation = restOperations('Events');

/** The Events section of docs/operations.md: the change feed, with the payloads webhooks deliver. */

export const Event = builder.objectRef<EventRow>('Event').implement({
  description: 'One change the platform recorded, as the change feed lists it and webhooks deliver it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Unique; a receiver that sees an id twice has seen that event before.' }),
    type: t.exposeString('type', { description: `One of ${EVENT_TYPES.join(', ')}.` }),
    occurred_at: t.expose('occurred_at', { type: 'DateTime', description: 'When the change was recorded.' }),
    dealer_group_id: t.exposeID('dealer_group_id'),
    dealer_id: t.exposeID('dealer_id', { nullable: true }),
    subject_id: t.exposeID('subject_id', {
      nullable: true,
      description: 'The record the event is about: the vehicle, lead, call, deal or sync run.',
    }),
    sync_run_id: t.exposeID('sync_run_id', { nullable: true, description: 'The sync run that made the change.' }),
    request_id: t.exposeString('request_id', {
      nullable: true,
      description: 'The API request that made the change (its X-Request-Id).',
    }),
    data: t.expose('data', {
      type: 'JSON',
      description:
        'The record (vehicle, lead, call, sale, sync_run) for created events; for updates the changed fields with old and new values (and, for vehicles, the source that now wins each).',
    }),
  }),
});

const FeedPosition = builder.objectRef<Omit<EventFeedPage, 'events'>>('EventFeedPagination').implement({
  fields: (t) => ({
    limit: t.exposeInt('limit'),
    next_cursor: t.exposeString('next_cursor', {
      description: 'Pass as `after` for the next page; when the page is empty, poll again with it later.',
    }),
    has_more: t.exposeBoolean('has_more', { description: 'True when more events wait after this page.' }),
  }),
});

const EventFeed = builder.objectRef<EventFeedPage>('EventFeed').implement({
  fields: (t) => ({
    events: t.field({ type: [Event], resolve: (page) => page.events }),
    pagination: t.field({ type: FeedPosition, resolve: (page) => page }),
  }),
});

builder.queryFields((t) => ({
  events: t.field({
    ...operation('GET /events', 'The change feed'),
    type: EventFeed,
    description:
      'Events in the order they were recorded, after a cursor: every one exactly once to a client that follows next_cursor. Only the event types your scopes read.',
    authScopes: { authenticated: true },
    args: {
      after: t.arg.string({
        description: 'A next_cursor from a previous page; omit to start at the oldest kept event.',
      }),
      types: t.arg.stringList({ description: 'Only these event types; repeat or comma-separate.' }),
      dealer_id: t.arg.idList({ description: 'Only events of these rooftops.' }),
      limit: t.arg.int({ description: '1-500, default 50.' }),
    },
    resolve: (_root, args, context) => listEvents(context, { ...args, dealer_id: args.dealer_id?.map(String) }),
  }),
}));

builder.subscriptionFields((t) => ({
  events: t.field({
    type: Event,
    description:
      'Live events as they are recorded, over server-sent events (POST /graphql with Accept: text/event-stream): the same events as the change feed, from the moment of subscribing, for the types your scopes read.',
    authScopes: { authenticated: true },
    args: {
      types: t.arg.stringList({ description: 'Only these event types.' }),
      dealer_id: t.arg.idList({ description: 'Only events of these rooftops.' }),
    },
    subscribe: (root, args, context) => {
      const types = new Set<string>(readableTypes(context, args.types));
      const groups = new Set(context.session.dealerGroupIds);
      const dealers = dealerIds(args.dealer_id?.map(String));
      const rooftops = dealers ? new Set(dealers) : null;
      const consent = context.session.consent;
      const { session } = context;
      return root.events.subscribe(
        (event) =>
          groups.has(event.dealer_group_id) &&
          types.has(event.type) &&
          (!rooftops || (event.dealer_id !== null && rooftops.has(event.dealer_id))) &&
          // A partner's key: only the rooftops and kinds of data its partner's links allow.
          (!consent || consentAllowsEvent(consent, event)),
        {
          owner: session.apiKeyId ?? session.userId ?? 'anonymous',
          stillHolds: () => accessUnchanged(context.db, session),
        },
      );
    },
    resolve: (event) => event,
  }),
}));
