import { Prisma } from '../../generated/prisma/client';
import type { Context } from '../../context';
import type { Database } from '../../db/database';
import { badInput } from '../../errors';
import { pageArgs } from '../../pagination';
import { inCallerGroups, inputDealer } from '../../tenancy';
import { dealerIds, enumList } from '../../validation';
import { MERGED_FIELDS, type SourcePriority } from './merge';
import { lockDealerMerges, remergeVehicles } from '../syncs/inventory-writer';
import { inTransaction } from '../../db/bulk';

/** Field-level source priority per rooftop, re-merging after a change, and the conflicts and discrepancies list (rows 25-29). */

type Caller = Pick<Context, 'db' | 'session'>;

const callerDealer = (caller: Caller, dealerId: string | null | undefined) => inputDealer(caller, dealerId, { purpose: 'the rooftop whose priorities these are' });

export interface DealerPriorities { dealer_id: string; dealer_name: string; priorities: SourcePriority; known_sources: string[] }

export async function priorities(caller: Caller, args: { dealer_id?: string[] | null }): Promise<DealerPriorities[]> {
  const dealers = dealerIds(args.dealer_id);
  const rows = await caller.db.dealer.findMany({
    where: { dealerGroupId: inCallerGroups(caller.session), archivedAt: null, ...(dealers ? { id: { in: dealers } } : {}) },
    select: { id: true, name: true, sourcePriority: true }, orderBy: { name: 'asc' },
  });
  const known = rows.length ? await caller.db.$queryRaw<Array<{ dealer_id: string; sources: string[] }>>`/* knownSources */
    SELECT d.id AS dealer_id, ARRAY(
      SELECT DISTINCT s FROM (
        SELECT r.source AS s FROM vehicle_source_records r JOIN vehicles v ON v.id = r.vehicle_id WHERE v.dealer_id = d.id
        UNION SELECT i.source FROM integrations i WHERE i.dealer_id = d.id AND i.disconnected_at IS NULL) all_sources ORDER BY s) AS sources
    FROM dealers d WHERE d.id = ANY(${rows.map((row) => row.id)}::uuid[])` : [];
  const sourcesOf = new Map(known.map((row) => [row.dealer_id, row.sources]));
  return rows.map((row) => ({ dealer_id: row.id, dealer_name: row.name, priorities: row.sourcePriority as SourcePriority, known_sources: sourcesOf.get(row.id) ?? [] }));
}

/** Sets a rooftop's priorities: per field (or "*" for the rest), source names in order of trust. */
export async function setPriorities(caller: Caller, args: { dealer_id?: string | null; priorities?: unknown }): Promise<DealerPriorities> {
  const dealer = await callerDealer(caller, args.dealer_id);
  const given = args.priorities;
  if (!given || typeof given !== 'object' || Array.isArray(given)) throw badInput('priorities', 'must be an object: { "price": ["dms", "website"], "*": ["dms", "homenet"] }');
  const fields = [...MERGED_FIELDS, '*'] as string[];
  for (const [field, sources] of Object.entries(given as Record<string, unknown>)) {
    if (!fields.includes(field)) throw badInput(`priorities.${field}`, `is not a merged field (${fields.join(', ')})`);
    if (!Array.isArray(sources) || !sources.length || sources.length > 20 || sources.some((source) => typeof source !== 'string' || !/^[a-z][a-z0-9_]{1,39}$/.test(source))) {
      throw badInput(`priorities.${field}`, 'must list 1-20 source names (lower case, e.g. "dms")');
    }
    if (new Set(sources).size !== sources.length) throw badInput(`priorities.${field}`, 'names a source twice');
  }
  await caller.db.dealer.update({ where: { id: dealer.id }, data: { sourcePriority: given as Prisma.InputJsonValue } });
  return (await priorities(caller, { dealer_id: [dealer.id] }))[0]!;
}

/** Re-merges every vehicle of a rooftop under its current priorities, in batches; returns what moved. */
export async function rebuild(caller: Caller, pool: Database['pool'], args: { dealer_id?: string | null }) {
  const dealer = await callerDealer(caller, args.dealer_id);
  const priority = dealer.sourcePriority as SourcePriority;
  let examined = 0;
  let changed = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const ids = await pool.query<{ id: string }>('SELECT id FROM vehicles WHERE dealer_id = $1 AND id > $2 ORDER BY id LIMIT 500', [dealer.id, after]);
    if (!ids.rows.length) break;
    after = ids.rows.at(-1)!.id;
    const outcome = await inTransaction(pool, async (client) => {
      await lockDealerMerges(client, dealer.id);
      return remergeVehicles(client, { priority, source: 'rebuild', syncRunId: null, trackHistory: true }, ids.rows.map((row) => row.id));
    });
    examined += ids.rows.length;
    changed += outcome.updated;
  }
  return { dealer_id: dealer.id, vehicles_examined: examined, vehicles_changed: changed };
}

export const CONFLICT_KINDS = ['source_disagreement', 'price_disagreement', 'mileage_disagreement', 'duplicate_stock_number', 'invalid_vin', 'vin_make_mismatch'] as const;

/** World manufacturer identifiers of the makes dealers stock most, for the VIN-against-make check. */
const WMI_MAKES: Array<[string, string]> = [
  ['1HG', 'Honda'], ['2HG', 'Honda'], ['5J6', 'Honda'], ['5FN', 'Honda'], ['7FA', 'Honda'], ['JHM', 'Honda'], ['19X', 'Honda'], ['2HK', 'Honda'], ['SHH', 'Honda'],
  ['4T1', 'Toyota'], ['4T3', 'Toyota'], ['4T4', 'Toyota'], ['2T1', 'Toyota'], ['2T3', 'Toyota'], ['5TD', 'Toyota'], ['5TF', 'Toyota'], ['3TM', 'Toyota'], ['3TY', 'Toyota'], ['JTD', 'Toyota'], ['JTE', 'Toyota'], ['JTM', 'Toyota'], ['JTN', 'Toyota'], ['7MU', 'Toyota'],
  ['1FA', 'Ford'], ['1FM', 'Ford'], ['1FT', 'Ford'], ['1FD', 'Ford'], ['2FM', 'Ford'], ['3FA', 'Ford'], ['3FM', 'Ford'], ['3FT', 'Ford'],
  ['1G1', 'Chevrolet'], ['1GC', 'Chevrolet'], ['1GN', 'Chevrolet'], ['2GN', 'Chevrolet'], ['3GN', 'Chevrolet'], ['3GC', 'Chevrolet'], ['KL7', 'Chevrolet'], ['KL4', 'Buick'],
  ['KNA', 'Kia'], ['KND', 'Kia'], ['5XY', 'Kia'], ['KMH', 'Hyundai'], ['5NP', 'Hyundai'], ['5NM', 'Hyundai'], ['JN1', 'Nissan'], ['JN8', 'Nissan'], ['1N4', 'Nissan'], ['1N6', 'Nissan'], ['5N1', 'Nissan'],
  ['WBA', 'BMW'], ['5UX', 'BMW'], ['WDD', 'Mercedes-Benz'], ['W1K', 'Mercedes-Benz'], ['4JG', 'Mercedes-Benz'], ['WAU', 'Audi'], ['WVW', 'Volkswagen'], ['3VW', 'Volkswagen'],
  ['JF1', 'Subaru'], ['JF2', 'Subaru'], ['4S4', 'Subaru'], ['JM1', 'Mazda'], ['JM3', 'Mazda'], ['1C4', 'Jeep'], ['1C6', 'Ram'], ['2T2', 'Lexus'], ['JTH', 'Lexus'], ['58A', 'Lexus'],
];

export interface ConflictFilters { dealer_id?: string[] | null; kind?: string[] | null; vehicle_id?: string | null; price_threshold?: number | null; mileage_threshold?: number | null }
export interface Conflict { vehicle_id: string; vin: string; dealer_id: string; field: string; kind: string; winning_source: string | null; difference: number | null; details: unknown; detected_at: Date }

/**
 * Fields where sources disagree (most recent first), and the discrepancies: price or mileage
 * disagreements beyond a threshold, duplicate stock numbers at a rooftop, invalid VINs (check digit
 * computed in SQL) and VINs whose manufacturer code disagrees with the make.
 */
export async function conflicts(caller: Caller, filters: ConflictFilters & { limit?: number | null; offset?: number | null }) {
  const { limit, offset } = pageArgs(filters);
  const dealers = dealerIds(filters.dealer_id);
  const kinds = enumList('kind', filters.kind, CONFLICT_KINDS);
  const priceThreshold = filters.price_threshold ?? 500;
  const mileageThreshold = filters.mileage_threshold ?? 250;
  if (priceThreshold < 0 || mileageThreshold < 0) throw badInput(priceThreshold < 0 ? 'price_threshold' : 'mileage_threshold', 'must not be negative');
  const scope = [Prisma.sql`v.dealer_group_id = ANY(${[...caller.session.dealerGroupIds]}::uuid[])`];
  if (dealers) scope.push(Prisma.sql`v.dealer_id = ANY(${dealers}::uuid[])`);
  if (filters.vehicle_id) scope.push(Prisma.sql`v.id = ${filters.vehicle_id}::uuid`);
  const wmi = Prisma.join(WMI_MAKES.map(([code, make]) => Prisma.sql`(${code}, ${make})`));
  const numeric = (value: string) => Prisma.raw(`CASE WHEN (${value} #>> '{}') ~ '^-?[0-9]+(\\.[0-9]+)?$' THEN (${value} #>> '{}')::numeric END`);
  const rows = await caller.db.$queryRaw<Array<Conflict & { total: number }>>`/* multiSourceConflicts */
    WITH scope AS (SELECT v.id, v.vin, v.dealer_id, v.dealer_group_id, v.make, v.stock_number, v.status, v.updated_at, v.field_sources FROM vehicles v WHERE ${Prisma.join(scope, ' AND ')}),
    vals AS (
      SELECT r.vehicle_id, f.key AS field, f.value, r.source, r.seen_at FROM scope v JOIN vehicle_source_records r ON r.vehicle_id = v.id
      CROSS JOIN LATERAL jsonb_each(r.data) f WHERE f.key <> 'photos' AND f.value <> 'null'::jsonb AND f.value <> '""'::jsonb),
    disagreements AS (
      SELECT vehicle_id, field, max(seen_at) AS detected_at,
        jsonb_agg(jsonb_build_object('source', source, 'value', value, 'seen_at', seen_at) ORDER BY seen_at DESC) AS details,
        CASE WHEN field IN ('price', 'msrp', 'internet_price', 'mileage') THEN (max(${numeric('value')}) - min(${numeric('value')}))::float8 END AS difference
      FROM vals GROUP BY vehicle_id, field HAVING count(DISTINCT lower(value #>> '{}')) > 1),
    found AS (
      SELECT d.vehicle_id, d.field, CASE
          WHEN d.field IN ('price', 'msrp', 'internet_price') AND d.difference > ${priceThreshold} THEN 'price_disagreement'
          WHEN d.field = 'mileage' AND d.difference > ${mileageThreshold} THEN 'mileage_disagreement'
          ELSE 'source_disagreement' END AS kind, d.difference, d.details, d.detected_at
      FROM disagreements d
      UNION ALL
      SELECT v.id, 'stock_number', 'duplicate_stock_number', NULL, jsonb_build_object('stock_number', v.stock_number, 'other_vins',
          (SELECT jsonb_agg(o.vin ORDER BY o.vin) FROM vehicles o WHERE o.dealer_group_id = v.dealer_group_id AND o.dealer_id = v.dealer_id AND o.stock_number = v.stock_number AND o.id <> v.id AND o.status NOT IN ('sold', 'presumed_sold'))),
        v.updated_at
      FROM scope v WHERE v.stock_number IS NOT NULL AND v.status NOT IN ('sold', 'presumed_sold') AND EXISTS (
        SELECT 1 FROM vehicles o WHERE o.dealer_group_id = v.dealer_group_id AND o.dealer_id = v.dealer_id AND o.stock_number = v.stock_number AND o.id <> v.id AND o.status NOT IN ('sold', 'presumed_sold'))
      UNION ALL
      SELECT v.id, 'vin', 'invalid_vin', NULL, jsonb_build_object('vin', v.vin, 'problem', CASE WHEN check_digit.expected IS NULL THEN 'not 17 characters of digits and letters other than I, O and Q' ELSE 'check digit (9th character) should be ' || check_digit.expected END), v.updated_at
      FROM scope v CROSS JOIN LATERAL (
        SELECT CASE WHEN v.vin ~ '^[A-HJ-NPR-Z0-9]{17}$' THEN (
          SELECT CASE WHEN sum % 11 = 10 THEN 'X' ELSE (sum % 11)::text END FROM (
            SELECT sum(substr(translate(v.vin, 'ABCDEFGHJKLMNPRSTUVWXYZ', '12345678123457923456789'), i, 1)::int * (ARRAY[8,7,6,5,4,3,2,10,0,9,8,7,6,5,4,3,2])[i]) AS sum
            FROM generate_series(1, 17) i) digits) END AS expected) check_digit
      WHERE check_digit.expected IS NULL OR check_digit.expected <> substr(v.vin, 9, 1)
      UNION ALL
      SELECT v.id, 'make', 'vin_make_mismatch', NULL, jsonb_build_object('vin', v.vin, 'make', v.make, 'vin_make', w.make), v.updated_at
      FROM scope v JOIN (VALUES ${wmi}) AS w(code, make) ON w.code = left(v.vin, 3) WHERE lower(w.make) <> lower(v.make::text))
    SELECT f.vehicle_id::text, v.vin, v.dealer_id::text, f.field, f.kind, v.field_sources ->> f.field AS winning_source, f.difference, f.details, f.detected_at,
      count(*) OVER ()::int AS total
    FROM found f JOIN scope v ON v.id = f.vehicle_id
    WHERE ${kinds ? Prisma.sql`f.kind = ANY(${kinds}::text[])` : Prisma.sql`true`}
    ORDER BY f.detected_at DESC, v.vin, f.field LIMIT ${limit} OFFSET ${offset}`;
  return { conflicts: rows, total: rows[0]?.total ?? 0, limit, offset };
}
