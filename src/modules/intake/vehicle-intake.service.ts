import type { Caller } from '../../caller';
import type { Database } from '../../db/database';
import { inTransaction } from '../../db/bulk';
import { badInput, conflict } from '../../errors';
import { inputDealer } from '../../tenancy';
import { optionalText } from '../../validation';
import { normalizeVin, vinProblem } from '../inventory/vin';
import type { SourcePriority } from '../multi-source/merge';
import { writeVehicleBatch, type FeedContext } from '../multi-source/vehicle-writer';
import { vehicleRecord } from '../syncs/records';
import { checkedRecord, writerSource } from './intake-input';

/**
 * A vehicle written through the API by the caller as its own source: the body is everything that
 * source says about the vehicle (it replaces what the source said before), merged with the
 * rooftop's other sources under its field priorities by the writer feeds use, with provenance,
 * history and conflicts, in one transaction whose events name the request.
 */

/** The vehicle fields, as GET /inventory answers them, and the rooftop. */
export interface VehicleInput {
  vin: string;
  dealer_id?: string | null;
  stock_number?: string | null;
  year?: number | null;
  make?: string | null;
  model?: string | null;
  trim?: string | null;
  body_style?: string | null;
  condition?: string | null;
  mileage?: number | null;
  exterior_color?: string | null;
  interior_color?: string | null;
  msrp?: string | null;
  price?: string | null;
  internet_price?: string | null;
  status?: string | null;
  date_in_stock?: Date | null;
  photos?: readonly string[] | null;
}

export interface VehicleIntake {
  vehicleId: string;
  created: boolean;
  source: string;
}

/**
 * How long an API write of a vehicle may take, waiting included: a sync batch of the same rooftop
 * holds its merge lock (or a vehicle it is inserting) until it commits, which on a loaded server can
 * outlast the statement limit that bounds reads (STATEMENT_TIMEOUT_MS).
 */
const WRITE_WAIT_MS = 60_000;

/** The longest value of each text field the API takes (longer is a 400, where a feed row is cut short). */
const TEXT_LIMITS: Record<string, number> = {
  stock_number: 40,
  make: 60,
  model: 80,
  trim: 80,
  body_style: 60,
  exterior_color: 60,
  interior_color: 60,
};
const MAX_PHOTOS = 100;

export async function upsertVehicle(
  caller: Caller,
  pool: Database['pool'],
  input: VehicleInput,
): Promise<VehicleIntake> {
  const problem = vinProblem(input.vin);
  if (problem) throw badInput('vin', `${input.vin.trim()}: ${problem}`);
  const dealer = await inputDealer(caller, input.dealer_id, {
    purpose: 'the rooftop the vehicle is at',
    active: true,
    writes: 'inventory',
  });
  if (input.status === 'presumed_sold')
    throw badInput('status', 'presumed_sold is set by the platform when feeds stop listing a vehicle; send sold');
  const { dealer_id: _dealer, date_in_stock, photos, ...fields } = input;
  const row: Record<string, unknown> = { ...fields, vin: normalizeVin(input.vin) };
  for (const [field, max] of Object.entries(TEXT_LIMITS)) {
    const value = row[field];
    if (value !== null && value !== undefined) row[field] = optionalText(field, String(value), max);
  }
  if (date_in_stock) row.date_in_stock = date_in_stock.toISOString().slice(0, 10);
  if (photos) {
    if (photos.length > MAX_PHOTOS) throw badInput('photos', `holds ${photos.length} addresses; at most ${MAX_PHOTOS}`);
    const bad = photos.findIndex((url) => url.length > 1000 || !/^https?:\/\/[^\s|,;]+$/i.test(url));
    if (bad >= 0) throw badInput(`photos[${bad}]`, 'must be an http or https address of at most 1000 characters');
    row.photos = [...photos];
  }
  const record = checkedRecord(() => vehicleRecord(row));
  const source = writerSource(caller.session);
  const feed: FeedContext = {
    dealerGroupId: dealer.dealerGroupId,
    dealerId: dealer.id,
    source,
    integrationId: null,
    syncRunId: null,
    // The body is all this source says about the vehicle: what it leaves out, it no longer claims.
    strategy: 'overwrite',
    trackHistory: true,
    priority: dealer.sourcePriority as SourcePriority,
  };
  const outcome = await inTransaction(
    pool,
    (client) => writeVehicleBatch(client, feed, [record]),
    { requestId: caller.requestId },
    { bulk: false, statementTimeoutMs: WRITE_WAIT_MS },
  );
  const [skipped] = outcome.skipped;
  if (skipped)
    throw skipped.reason.startsWith('condition')
      ? badInput('condition', 'is required for a vehicle not in inventory yet (new, used or certified)')
      : conflict(skipped.reason);
  const vehicle = await caller.db.vehicle.findUnique({
    where: { dealerId_vin: { dealerId: dealer.id, vin: record.vin } },
    select: { id: true },
  });
  // This write created the vehicle or found it (one another writer inserted meanwhile is written
  // as found once that one commits; see writeVehicleBatch), so it is there with this source's record.
  if (!vehicle) throw conflict(`vehicle ${record.vin} was not written; send it again`);
  return { vehicleId: vehicle.id, created: outcome.created > 0, source };
}
