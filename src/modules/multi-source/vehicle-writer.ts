import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { insertRows } from '../../db/bulk';
import { MERGED_FIELDS, sameValue, type MergedField } from '../inventory/vehicle-fields';
import { refreshConflicts, refreshDuplicateStockNumbers } from './conflicts';
import { lockDealerMerges } from './merge-lock';
import { mergeRecords, type SourcePriority, type SourceRecord, type VehicleData, type VehicleRecord } from './merge';

/**
 * Writes a batch of one feed's vehicles the fast way: one statement per step for the whole batch
 * (read, insert new vehicles, upsert the source's records, re-merge, write changes), never a
 * statement per row. Each batch is one transaction, so a crash leaves whole batches or none.
 */

export type Strategy = 'overwrite' | 'merge' | 'update_only';

export interface FeedContext {
  dealerGroupId: string;
  dealerId: string;
  source: string;
  integrationId: string | null;
  syncRunId: string | null;
  strategy: Strategy;
  trackHistory: boolean;
  priority: SourcePriority;
}

export interface BatchOutcome {
  created: number;
  updated: number;
  unchanged: number;
  skipped: Array<{ vin: string; reason: string }>;
  returned: number;
}

const COLUMN_SQL = `v.stock_number, v.year, v.make::text AS make, v.model::text AS model, v.trim, v.body_style::text AS body_style, v.condition::text AS condition,
  v.mileage, v.exterior_color, v.interior_color, v.msrp::text AS msrp, v.price::text AS price, v.internet_price::text AS internet_price,
  v.status::text AS status, to_char(v.date_in_stock, 'YYYY-MM-DD') AS date_in_stock, v.photos`;

type VehicleRow = Record<MergedField, unknown> & {
  id: string;
  vin: string;
  sold_at: Date | null;
  field_sources: Record<string, string>;
};

const blank = (value: unknown) =>
  value === null || value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
const normalized = (data: VehicleData) =>
  Object.fromEntries(MERGED_FIELDS.filter((field) => !blank(data[field])).map((field) => [field, data[field]]));
/** Field-to-source maps compared regardless of key order (jsonb does not keep it). */
const sameSources = (a: Record<string, string>, b: Record<string, string> | null) => {
  const entries = (map: Record<string, string> | null) =>
    Object.entries(map ?? {}).sort(([x], [y]) => x.localeCompare(y));
  return sameValue(entries(a), entries(b));
};
const isOff = (status: unknown) => status === 'sold' || status === 'presumed_sold';

/** What a source record becomes: the row alone (overwrite), or the row over what the source said before (merge). */
export function nextSourceData(previous: VehicleData | null, incoming: VehicleData, strategy: Strategy): VehicleData {
  return strategy === 'overwrite' || !previous
    ? normalized(incoming)
    : normalized({ ...previous, ...normalized(incoming) });
}

/**
 * Whether a row leaves its source's record as it is, decided field by field without building the
 * next record: the same answer as comparing nextSourceData with the normalized previous record,
 * at a fraction of the cost for a feed whose rows are mostly unchanged.
 */
export function changesNothing(previous: VehicleData, incoming: VehicleData, strategy: Strategy): boolean {
  for (const field of MERGED_FIELDS) {
    const before = previous[field];
    const after = incoming[field];
    if (blank(after)) {
      // Overwrite drops what the row leaves blank; merge keeps it.
      if (strategy === 'overwrite' && !blank(before)) return false;
      continue;
    }
    if (blank(before) || (before !== after && !sameValue(before, after))) return false;
  }
  return true;
}

/** A record missing from its feed past the grace period stands for "presumed sold" when the vehicle is re-merged. */
export function effectiveRecords(records: Array<SourceRecord & { presumed: boolean }>): SourceRecord[] {
  return records.map(({ presumed, ...record }) =>
    presumed ? { ...record, data: { ...record.data, status: 'presumed_sold' } } : record,
  );
}

/** The vehicle row values a merge gives, with defaults for the columns that may not be empty. */
function vehicleValues(values: VehicleData, current: Partial<VehicleRow> | null, today: string) {
  const row: Record<string, unknown> = {};
  for (const field of MERGED_FIELDS) row[field] = blank(values[field]) ? null : values[field];
  row.date_in_stock ??= current?.date_in_stock ?? today;
  row.status ??= 'available';
  row.condition ??= current?.condition ?? null;
  row.photos ??= [];
  return row;
}

type ExistingRow = {
  id: string;
  vin: string;
  status: string;
  data: VehicleData | null;
  missed_syncs: number | null;
  sync_run_id: string | null;
};

/** The rooftop's vehicles with the listed VINs, each with this source's record if it has one. */
const readExisting = (client: pg.PoolClient, feed: FeedContext, vins: string[]) =>
  client.query<ExistingRow>(
    // One index lookup per listed VIN (each key is unique, so LIMIT 1 changes no answer): with a
    // list of thousands the planner would otherwise scan the whole rooftop for every batch.
    `/* feedExisting */ SELECT v.id, v.vin, v.status::text AS status, r.data, r.missed_syncs, r.sync_run_id FROM unnest($2::text[]) AS listed(vin)
     JOIN LATERAL (SELECT v.id, v.vin, v.status FROM vehicles v WHERE v.dealer_id = $1 AND v.vin = listed.vin LIMIT 1) v ON true
     LEFT JOIN LATERAL (SELECT r.data, r.missed_syncs, r.sync_run_id FROM vehicle_source_records r WHERE r.vehicle_id = v.id AND r.source = $3 LIMIT 1) r ON true`,
    [feed.dealerId, vins, feed.source],
  );

/** Which of the listed VINs the rooftop has (one scan of its (dealer, VIN) index for the whole list). */
async function knownVins(client: pg.PoolClient, feed: FeedContext, vins: string[]) {
  const { rows } = await client.query<{ vin: string }>(
    `/* feedKnown */ SELECT v.vin FROM vehicles v WHERE v.dealer_id = $1 AND v.vin = ANY($2::text[])`,
    [feed.dealerId, vins],
  );
  return new Set(rows.map((row) => row.vin));
}

/**
 * The batches of one run, when two are written at once. A batch whose VINs the batch before it
 * also lists waits until that one holds the merge lock (or has ended), so of two rows with one VIN
 * the earlier row in the file is the one kept and the later one is reported as its duplicate, as
 * when the batches are written one after the other; batches with no VIN in common go side by side.
 * (At most two batches are in flight: any earlier one has committed.)
 */
export class BatchTurns {
  private last: Promise<void> = Promise.resolve();
  private lastVins = new Set<string>();

  /** The next batch's turn: `ready` settles once the batch before may be overtaken; `pass` lets the next one go. */
  next(vins: string[]): Turn {
    const before = this.lastVins;
    const ready = vins.some((vin) => before.has(vin)) ? this.last : Promise.resolve();
    let pass!: () => void;
    this.last = new Promise((resolve) => (pass = resolve));
    this.lastVins = new Set(vins);
    return { ready, pass };
  }
}

type Turn = { ready: Promise<void>; pass: () => void };
const ALONE: Turn = { ready: Promise.resolve(), pass: () => {} };

/**
 * `mentionedVins`: VINs of rows that failed validation. They still count as listed (a typo must not
 * make a vehicle presumed sold), so their records are marked as seen by this run.
 *
 * Vehicles new to the rooftop are inserted, with their records, before the rooftop's merge lock is
 * taken, so writers of one rooftop (two batches of a sync run, other runs, the API) insert side by
 * side, in VIN order, and no writer ever holds the merge lock while it waits for a vehicle another
 * has inserted but not committed: the waits cannot form a circle. Under the merge lock the rest is
 * written: rows of vehicles the rooftop has (read again, whole), rows whose vehicle another writer
 * inserted meanwhile (an earlier batch of this run: then they are its duplicates), the re-merge and
 * the conflicts, which then see every vehicle committed before. `turns` orders a run's batches.
 */
export async function writeVehicleBatch(
  client: pg.PoolClient,
  feed: FeedContext,
  records: VehicleRecord[],
  mentionedVins: string[] = [],
  now = new Date(),
  turns?: BatchTurns,
): Promise<BatchOutcome> {
  const vins = records.map((record) => record.vin);
  const turn = turns?.next(vins) ?? ALONE;
  try {
    const outcome = emptyOutcome();
    if (!records.length && !mentionedVins.length) return outcome;
    const today = now.toISOString().slice(0, 10);
    const known = records.length ? await knownVins(client, feed, vins) : new Set<string>();
    const fresh: FreshVehicle[] = [];
    for (const record of records) {
      if (known.has(record.vin)) continue;
      const made = freshVehicle(feed, record, now, today);
      if ('reason' in made) outcome.skipped.push({ vin: record.vin, reason: made.reason });
      else fresh.push(made);
    }
    fresh.sort((a, b) => (a.vin === b.vin ? 0 : a.vin < b.vin ? -1 : 1));
    await turn.ready;
    const created = await insertVehicles(client, feed, fresh, now);
    const inserted = fresh.filter((vehicle) => created.has(vehicle.id));
    await upsertRecords(
      client,
      feed,
      inserted.map((vehicle) => ({ vehicleId: vehicle.id, data: vehicle.data })),
      now,
    );
    await lockDealerMerges(client, feed.dealerId);
    turn.pass();
    outcome.created = created.size;
    const lost = new Set(fresh.filter((vehicle) => !created.has(vehicle.id)).map((vehicle) => vehicle.vin));
    const rest = records.filter((record) => known.has(record.vin) || lost.has(record.vin));
    let merged: string[] = [];
    if (rest.length || mentionedVins.length) {
      const locked = await writeLocked(client, feed, rest, mentionedVins, now);
      outcome.updated = locked.updated;
      outcome.unchanged = locked.unchanged;
      outcome.returned = locked.returned;
      outcome.skipped.push(...locked.skipped);
      merged = locked.written;
    }
    // The vehicles whose records this write wrote: their conflicts and discrepancies may have moved.
    await refreshConflicts(client, feed.dealerId, [...inserted.map((vehicle) => vehicle.id), ...merged], now);
    return outcome;
  } finally {
    turn.pass();
  }
}

const emptyOutcome = (): BatchOutcome => ({ created: 0, updated: 0, unchanged: 0, skipped: [], returned: 0 });

/** A new vehicle's row as inserted (with its id and VIN), and what its source's record says. */
type FreshVehicle = { id: string; vin: string; row: Record<string, unknown>; data: VehicleData };

/** A vehicle the rooftop does not have yet, as the row's source alone makes it, or why it cannot be added. */
function freshVehicle(
  feed: FeedContext,
  record: VehicleRecord,
  now: Date,
  today: string,
): FreshVehicle | { reason: string } {
  if (feed.strategy === 'update_only')
    return { reason: 'not in inventory yet; the update_only strategy adds no vehicles' };
  const data = nextSourceData(null, record.data, feed.strategy);
  const merged = mergeRecords([{ source: feed.source, data, seenAt: now }], feed.priority);
  const values = vehicleValues(merged.values, null, today);
  if (!values.condition)
    return { reason: 'condition: is required for a vehicle not yet in inventory (new, used or certified)' };
  const id = randomUUID();
  return {
    id,
    vin: record.vin,
    row: {
      id,
      vin: record.vin,
      ...values,
      field_sources: merged.fieldSources,
      sold_at: isOff(values.status) ? now.toISOString() : null,
    },
    data,
  };
}

/** Inserts new vehicles; answers the ids written (a VIN another writer inserted first is left out). */
async function insertVehicles(client: pg.PoolClient, feed: FeedContext, fresh: FreshVehicle[], now: Date) {
  if (!fresh.length) return new Set<string>();
  const inserted = await client.query<{ id: string }>(
    `/* feedInsertVehicles */ INSERT INTO vehicles (id, dealer_group_id, dealer_id, vin, stock_number, year, make, model, trim, body_style, condition, mileage,
       exterior_color, interior_color, msrp, price, internet_price, status, date_in_stock, sold_at, photos, field_sources, created_at, updated_at)
     SELECT u.id, $2, $3, u.vin, u.stock_number, u.year, u.make, u.model, u.trim, u.body_style, u.condition::vehicle_condition, u.mileage,
       u.exterior_color, u.interior_color, u.msrp, u.price, u.internet_price, u.status::vehicle_status, u.date_in_stock, u.sold_at,
       ARRAY(SELECT jsonb_array_elements_text(u.photos)), u.field_sources, $4, $4
     FROM jsonb_to_recordset($1::jsonb) AS u(id uuid, vin text, stock_number text, year int, make text, model text, trim text, body_style text, condition text,
       mileage int, exterior_color text, interior_color text, msrp numeric, price numeric, internet_price numeric, status text, date_in_stock date,
       sold_at timestamptz, photos jsonb, field_sources jsonb)
     ON CONFLICT (dealer_id, vin) DO NOTHING RETURNING id`,
    [JSON.stringify(fresh.map((vehicle) => vehicle.row)), feed.dealerGroupId, feed.dealerId, now],
  );
  return new Set(inserted.rows.map((row) => row.id));
}

/** This source's records of the given vehicles: written, or replaced with what the rows say. */
async function upsertRecords(
  client: pg.PoolClient,
  feed: FeedContext,
  upserts: Array<{ vehicleId: string; data: VehicleData }>,
  now: Date,
) {
  if (!upserts.length) return;
  await client.query(
    `/* feedUpsertRecords */ INSERT INTO vehicle_source_records (id, vehicle_id, source, data, seen_at, missed_syncs, missing_since, integration_id, sync_run_id, created_at, updated_at)
     SELECT gen_random_uuid(), u.vehicle_id, $2, u.data, $3, 0, NULL, $4, $5, $3, $3 FROM jsonb_to_recordset($1::jsonb) AS u(vehicle_id uuid, data jsonb)
     ON CONFLICT (vehicle_id, source) DO UPDATE SET data = excluded.data, seen_at = excluded.seen_at, missed_syncs = 0, missing_since = NULL,
       integration_id = excluded.integration_id, sync_run_id = excluded.sync_run_id, updated_at = excluded.updated_at`,
    [
      JSON.stringify(upserts.map((upsert) => ({ vehicle_id: upsert.vehicleId, data: upsert.data }))),
      feed.source,
      now,
      feed.integrationId,
      feed.syncRunId,
    ],
  );
}

/** Records of rows that failed validation still count as listed by this run (see writeVehicleBatch). */
async function markMentioned(client: pg.PoolClient, feed: FeedContext, mentionedVins: string[]) {
  if (!mentionedVins.length || !feed.syncRunId) return;
  await client.query(
    `/* feedMentioned */ UPDATE vehicle_source_records r SET sync_run_id = $4 FROM vehicles v
    WHERE v.id = r.vehicle_id AND v.dealer_id = $1 AND v.vin = ANY($2::text[]) AND r.source = $3`,
    [feed.dealerId, mentionedVins, feed.source, feed.syncRunId],
  );
}

/**
 * Rows of vehicles the rooftop has, written under its merge lock: the vehicles and this source's
 * records read, the records written, changed vehicles re-merged, the unchanged marked as seen.
 * Answers the vehicles whose records it wrote (`written`), whose conflicts the caller refreshes.
 */
async function writeLocked(
  client: pg.PoolClient,
  feed: FeedContext,
  records: VehicleRecord[],
  mentionedVins: string[],
  now: Date,
): Promise<BatchOutcome & { written: string[] }> {
  const outcome = emptyOutcome();
  const existing = records.length
    ? await readExisting(
        client,
        feed,
        records.map((record) => record.vin),
      )
    : { rows: [] };
  const byVin = new Map(existing.rows.map((row) => [row.vin, row]));

  const upserts: Array<{ vehicleId: string; data: VehicleData }> = [];
  const toMerge: string[] = [];
  const seenUnchanged: string[] = [];
  for (const record of records) {
    const known = byVin.get(record.vin);
    if (!known) {
      // Found when the write began, gone now: no vehicle is created under the merge lock (see writeVehicleBatch).
      outcome.skipped.push({
        vin: record.vin,
        reason: 'not written: the vehicle was removed meanwhile; writing it again adds it',
      });
      continue;
    }
    // The run already wrote this vehicle from an earlier batch: a duplicate row further down the file.
    if (known.data && feed.syncRunId && known.sync_run_id === feed.syncRunId) {
      outcome.skipped.push({
        vin: record.vin,
        reason: 'duplicate: the same VIN is listed earlier in this file; the first one was kept',
      });
      continue;
    }
    const presumed = known.status === 'presumed_sold';
    if (known.data && !known.missed_syncs && !presumed && changesNothing(known.data, record.data, feed.strategy)) {
      outcome.unchanged += 1;
      seenUnchanged.push(known.id);
      continue;
    }
    upserts.push({ vehicleId: known.id, data: nextSourceData(known.data, record.data, feed.strategy) });
    toMerge.push(known.id);
  }
  await upsertRecords(client, feed, upserts, now);

  // Listed, unchanged: only when it was last seen, and by which run, moves (the sold grace period counts on it).
  if (seenUnchanged.length) {
    await client.query(
      `/* feedSeen */ UPDATE vehicle_source_records r SET seen_at = $3, sync_run_id = $4
       FROM unnest($1::uuid[]) AS listed(vehicle_id) WHERE r.vehicle_id = listed.vehicle_id AND r.source = $2`,
      [seenUnchanged, feed.source, now, feed.syncRunId],
    );
  }
  await markMentioned(client, feed, mentionedVins);
  if (toMerge.length) {
    const merged = await remergeVehicles(client, feed, toMerge, now);
    outcome.updated = merged.updated;
    outcome.unchanged += toMerge.length - merged.updated;
    outcome.returned = merged.returned;
  }
  return { ...outcome, written: upserts.map((upsert) => upsert.vehicleId) };
}

/**
 * Re-merges vehicles from all their source records under the dealer's priority and writes the
 * vehicles (and their change history) whose merged values moved. Returns how many changed.
 */
export async function remergeVehicles(
  client: pg.PoolClient,
  feed: Pick<FeedContext, 'priority' | 'source' | 'syncRunId' | 'trackHistory'>,
  vehicleIds: string[],
  now = new Date(),
) {
  const today = now.toISOString().slice(0, 10);
  const [vehicles, sources] = await Promise.all([
    client.query<VehicleRow>(
      `/* mergeVehicles */ SELECT v.id, v.vin, v.sold_at, v.field_sources, ${COLUMN_SQL} FROM vehicles v WHERE v.id = ANY($1::uuid[])`,
      [vehicleIds],
    ),
    client.query<{ vehicle_id: string; source: string; data: VehicleData; seen_at: Date; presumed: boolean }>(
      `/* mergeSources */ SELECT r.vehicle_id, r.source, r.data, r.seen_at, (r.missing_since IS NOT NULL AND v.status = 'presumed_sold') AS presumed
       FROM vehicle_source_records r JOIN vehicles v ON v.id = r.vehicle_id WHERE r.vehicle_id = ANY($1::uuid[])`,
      [vehicleIds],
    ),
  ]);
  const recordsOf = new Map<string, Array<SourceRecord & { presumed: boolean }>>();
  for (const row of sources.rows) {
    const list = recordsOf.get(row.vehicle_id) ?? [];
    list.push({ source: row.source, data: row.data, seenAt: row.seen_at, presumed: row.presumed });
    recordsOf.set(row.vehicle_id, list);
  }
  const updates: Array<Record<string, unknown>> = [];
  const changes: unknown[][] = [];
  let returned = 0;
  for (const vehicle of vehicles.rows) {
    const records = recordsOf.get(vehicle.id);
    if (!records?.length) continue;
    const merged = mergeRecords(effectiveRecords(records), feed.priority);
    const values = vehicleValues(merged.values, vehicle, today);
    const moved = MERGED_FIELDS.filter(
      (field) =>
        !sameValue(values[field] ?? null, field === 'photos' ? (vehicle.photos ?? []) : (vehicle[field] ?? null)),
    );
    if (!moved.length && sameSources(merged.fieldSources, vehicle.field_sources)) continue;
    let soldAt = vehicle.sold_at;
    if (isOff(values.status) && !isOff(vehicle.status)) soldAt = now;
    if (!isOff(values.status)) soldAt = null;
    if (vehicle.status === 'presumed_sold' && !isOff(values.status)) returned += 1;
    updates.push({ id: vehicle.id, ...values, field_sources: merged.fieldSources, sold_at: soldAt });
    if (feed.trackHistory) {
      for (const field of moved) {
        changes.push([
          randomUUID(),
          vehicle.id,
          field,
          JSON.stringify(field === 'photos' ? (vehicle.photos ?? []) : (vehicle[field] ?? null)),
          JSON.stringify(values[field] ?? null),
          merged.fieldSources[field] ?? feed.source,
          feed.syncRunId,
          now,
        ]);
      }
    }
  }
  if (updates.length) {
    await client.query(
      `/* mergeWrite */ UPDATE vehicles v SET stock_number = u.stock_number, year = u.year, make = u.make, model = u.model, trim = u.trim, body_style = u.body_style,
         condition = COALESCE(u.condition::vehicle_condition, v.condition), mileage = u.mileage, exterior_color = u.exterior_color, interior_color = u.interior_color,
         msrp = u.msrp, price = u.price, internet_price = u.internet_price, status = u.status::vehicle_status, date_in_stock = u.date_in_stock,
         sold_at = u.sold_at, photos = ARRAY(SELECT jsonb_array_elements_text(u.photos)), field_sources = u.field_sources, updated_at = $2
       FROM jsonb_to_recordset($1::jsonb) AS u(id uuid, stock_number text, year int, make text, model text, trim text, body_style text, condition text,
         mileage int, exterior_color text, interior_color text, msrp numeric, price numeric, internet_price numeric, status text, date_in_stock date,
         sold_at timestamptz, photos jsonb, field_sources jsonb)
       WHERE v.id = u.id`,
      [JSON.stringify(updates), now],
    );
  }
  if (changes.length) await insertChanges(client, changes);
  return { updated: updates.length, returned };
}

/** Rows of [id, vehicle_id, field, old_value, new_value, source, sync_run_id, changed_at]. */
const insertChanges = (client: pg.PoolClient, changes: unknown[][]) =>
  insertRows(
    client,
    'vehicle_changes',
    ['id', 'vehicle_id', 'field', 'old_value', 'new_value', 'source', 'sync_run_id', 'changed_at'],
    changes,
  );

/**
 * The sold grace period, after a complete run of a full-inventory feed: the source's vehicles it
 * did not list count one more missed run; past the grace (runs or hours) they become presumed
 * sold. Nothing is deleted; a vehicle that reappears is merged back (see writeVehicleBatch).
 */
export async function applySoldGrace(
  client: pg.PoolClient,
  feed: FeedContext,
  grace: { syncs: number | null; hours: number | null },
  now = new Date(),
) {
  await lockDealerMerges(client, feed.dealerId);
  // Every record the run listed carries its id (written, unchanged or mentioned by a failed row); the rest were missing.
  await client.query(
    `/* graceMissed */ UPDATE vehicle_source_records r SET missed_syncs = r.missed_syncs + 1, missing_since = COALESCE(r.missing_since, $4), updated_at = $4
     FROM vehicles v WHERE v.id = r.vehicle_id AND v.dealer_id = $1 AND r.source = $2 AND r.sync_run_id IS DISTINCT FROM $3::uuid`,
    [feed.dealerId, feed.source, feed.syncRunId, now],
  );
  if (grace.syncs === null && grace.hours === null) return 0;
  const presumed = await client.query<{ id: string; status: string }>(
    `/* gracePresumeCandidates */ SELECT v.id, v.status::text AS status FROM vehicles v
     WHERE v.dealer_id = $1 AND v.status IN ('available', 'pending', 'in_transit') AND EXISTS (
       SELECT 1 FROM vehicle_source_records r WHERE r.vehicle_id = v.id AND r.source = $2
         AND (($3::int IS NOT NULL AND r.missed_syncs >= $3) OR ($4::int IS NOT NULL AND r.missing_since <= $5::timestamptz - make_interval(hours => $4::int))))
     FOR UPDATE`,
    [feed.dealerId, feed.source, grace.syncs, grace.hours, now],
  );
  if (!presumed.rows.length) return 0;
  await client.query(
    `/* gracePresume */ UPDATE vehicles SET status = 'presumed_sold', sold_at = $2, updated_at = $2 WHERE id = ANY($1::uuid[])`,
    [presumed.rows.map((row) => row.id), now],
  );
  // Vehicles no longer on hand no longer share stock numbers.
  await refreshDuplicateStockNumbers(
    client,
    feed.dealerId,
    presumed.rows.map((row) => row.id),
    now,
  );
  if (feed.trackHistory && presumed.rows.length) {
    await insertChanges(
      client,
      presumed.rows.map((row) => [
        randomUUID(),
        row.id,
        'status',
        JSON.stringify(row.status),
        JSON.stringify('presumed_sold'),
        feed.source,
        feed.syncRunId,
        now,
      ]),
    );
  }
  return presumed.rows.length;
}
