import { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import { badInput, forbidden } from '../../errors';
import { pageArgs } from '../../pagination';
import { dealerIds, enumList } from '../../validation';
import {
  consentedEventSql,
  EVENT_COLUMNS_SQL,
  EVENT_TYPES,
  scopeOfEvent,
  SETTLED_EVENT_SQL,
  type EventType,
} from './event-types';

/**
 * The change feed: events in the order they were recorded, after a cursor.
 *
 * An event is visible once every transaction that started writing before its own has ended
 * (`txid` below the oldest running transaction's): a transaction that commits late cannot then
 * slip an event in behind a cursor a client already holds, so a client that follows the cursors
 * never skips or repeats one. The price: while a write transaction runs, events recorded after it
 * began wait for it to end (a sync writes in batches of a few seconds each).
 */

export interface EventRow {
  id: string;
  txid: bigint;
  position: bigint;
  type: string;
  dealer_group_id: string;
  dealer_id: string | null;
  subject_id: string | null;
  data: unknown;
  sync_run_id: string | null;
  request_id: string | null;
  occurred_at: Date;
}

export interface EventFeedArgs {
  after?: string | null;
  types?: readonly string[] | null;
  dealer_id?: readonly string[] | null;
  limit?: number | null;
}

export interface EventFeedPage {
  events: EventRow[];
  limit: number;
  next_cursor: string;
  has_more: boolean;
}

/** A position in the feed, opaque to clients: the transaction and the order within it. */
interface Position {
  txid: bigint;
  position: bigint;
}

const CURSOR_VERSION = 'e1';
const START: Position = { txid: 0n, position: 0n };

export const cursorOf = (at: Position) =>
  Buffer.from(`${CURSOR_VERSION}:${at.txid}:${at.position}`).toString('base64url');

function positionOf(cursor: string | null | undefined): Position {
  if (cursor === null || cursor === undefined || cursor === '') return START;
  const match =
    cursor.length <= 80 ? /^e1:(\d{1,19}):(\d{1,19})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1')) : null;
  if (!match) throw badInput('after', 'is not a cursor this feed gave out (use next_cursor from a previous page)');
  return { txid: BigInt(match[1]!), position: BigInt(match[2]!) };
}

/** The types asked for, each one the caller may read; all the caller may read when none are named. */
export function readableTypes(
  caller: Pick<Caller, 'session'>,
  asked: readonly string[] | null | undefined,
): EventType[] {
  const named = enumList('types', asked, EVENT_TYPES);
  if (named?.length) {
    for (const type of named) {
      const scope = scopeOfEvent(type);
      if (!caller.session.has(scope))
        throw forbidden(`missing scope ${scope} for ${type} events`, { requiredScope: scope });
    }
    return [...new Set(named)];
  }
  const readable = EVENT_TYPES.filter((type) => caller.session.has(scopeOfEvent(type)));
  if (!readable.length)
    throw forbidden(
      'missing scope: events need inventory:read, leads:read, calls:read, sales:read or integrations:read',
    );
  return readable;
}

export async function listEvents(caller: Caller, args: EventFeedArgs): Promise<EventFeedPage> {
  const { limit } = pageArgs({ limit: args.limit });
  const after = positionOf(args.after);
  const types = readableTypes(caller, args.types);
  const dealers = dealerIds(args.dealer_id);
  // A partner's key: only events of the rooftops and kinds of data its partner's links allow.
  const consent = caller.session.consent;
  // Each group's events read in index order (group, txid, position), then the groups merged.
  const rows = await caller.db.$queryRaw<EventRow[]>(Prisma.sql`/* eventFeed */
    SELECT e.* FROM unnest(${[...caller.session.dealerGroupIds]}::uuid[]) AS g(id) CROSS JOIN LATERAL (
      SELECT ${Prisma.raw(EVENT_COLUMNS_SQL)}
      FROM events e
      WHERE e.dealer_group_id = g.id
        AND (e.txid, e.position) > (${after.txid}::bigint, ${after.position}::bigint)
        AND ${Prisma.raw(SETTLED_EVENT_SQL)}
        AND e.type = ANY(${types}::text[])
        ${dealers ? Prisma.sql`AND e.dealer_id = ANY(${dealers}::uuid[])` : Prisma.empty}
        ${consent ? Prisma.sql`AND ${consentedEventSql(Prisma.sql`${consent.partnerId}::uuid`)}` : Prisma.empty}
      ORDER BY e.txid, e.position
      LIMIT ${limit + 1}) e
    ORDER BY e.txid, e.position
    LIMIT ${limit + 1}`);
  const events = rows.slice(0, limit);
  const last = events.at(-1);
  return {
    events,
    limit,
    next_cursor: cursorOf(last ?? after),
    has_more: rows.length > limit,
  };
}
