import type pg from 'pg';
import { inTransaction } from '../../db/bulk';
import { lockDealerMerges } from './merge-lock';

/**
 * Conflicts and discrepancies, kept in vehicle_conflicts by the writers: each sync batch refreshes
 * the vehicles it wrote, a rebuild or seed refreshes a whole rooftop. Reading them is then an
 * indexed lookup instead of a comparison of every source record on every request.
 */

/** World manufacturer identifiers of the makes dealers stock most, for the VIN-against-make check. */
export const WMI_MAKES: Array<[string, string]> = [
  ['1HG', 'Honda'],
  ['2HG', 'Honda'],
  ['5J6', 'Honda'],
  ['5FN', 'Honda'],
  ['7FA', 'Honda'],
  ['JHM', 'Honda'],
  ['19X', 'Honda'],
  ['2HK', 'Honda'],
  ['SHH', 'Honda'],
  ['4T1', 'Toyota'],
  ['4T3', 'Toyota'],
  ['4T4', 'Toyota'],
  ['2T1', 'Toyota'],
  ['2T3', 'Toyota'],
  ['5TD', 'Toyota'],
  ['5TF', 'Toyota'],
  ['3TM', 'Toyota'],
  ['3TY', 'Toyota'],
  ['JTD', 'Toyota'],
  ['JTE', 'Toyota'],
  ['JTM', 'Toyota'],
  ['JTN', 'Toyota'],
  ['7MU', 'Toyota'],
  ['1FA', 'Ford'],
  ['1FM', 'Ford'],
  ['1FT', 'Ford'],
  ['1FD', 'Ford'],
  ['2FM', 'Ford'],
  ['3FA', 'Ford'],
  ['3FM', 'Ford'],
  ['3FT', 'Ford'],
  ['1G1', 'Chevrolet'],
  ['1GC', 'Chevrolet'],
  ['1GN', 'Chevrolet'],
  ['2GN', 'Chevrolet'],
  ['3GN', 'Chevrolet'],
  ['3GC', 'Chevrolet'],
  ['KL7', 'Chevrolet'],
  ['KL4', 'Buick'],
  ['KNA', 'Kia'],
  ['KND', 'Kia'],
  ['5XY', 'Kia'],
  ['KMH', 'Hyundai'],
  ['5NP', 'Hyundai'],
  ['5NM', 'Hyundai'],
  ['JN1', 'Nissan'],
  ['JN8', 'Nissan'],
  ['1N4', 'Nissan'],
  ['1N6', 'Nissan'],
  ['5N1', 'Nissan'],
  ['WBA', 'BMW'],
  ['5UX', 'BMW'],
  ['WDD', 'Mercedes-Benz'],
  ['W1K', 'Mercedes-Benz'],
  ['4JG', 'Mercedes-Benz'],
  ['WAU', 'Audi'],
  ['WVW', 'Volkswagen'],
  ['3VW', 'Volkswagen'],
  ['JF1', 'Subaru'],
  ['JF2', 'Subaru'],
  ['4S4', 'Subaru'],
  ['JM1', 'Mazda'],
  ['JM3', 'Mazda'],
  ['1C4', 'Jeep'],
  ['1C6', 'Ram'],
  ['2T2', 'Lexus'],
  ['JTH', 'Lexus'],
  ['58A', 'Lexus'],
];
const WMI_CODES = WMI_MAKES.map(([code]) => code);
const WMI_NAMES = WMI_MAKES.map(([, make]) => make);

/** The VIN check digit (ISO 3779) as one arithmetic expression per row: letters transliterated, positions weighted, mod 11. */
const CHECK_WEIGHTS = [8, 7, 6, 5, 4, 3, 2, 10, 0, 9, 8, 7, 6, 5, 4, 3, 2];
const CHECK_SUM = CHECK_WEIGHTS.flatMap((weight, index) =>
  weight ? [`substr(t.digits, ${index + 1}, 1)::int * ${weight}`] : [],
).join(' + ');

/** VINs whose check digit (or shape) is wrong. A vehicle's VIN never changes and syncs refuse bad ones, so only whole-rooftop checks look. */
const CHECK_DIGITS = `     check_digits AS MATERIALIZED (
       SELECT v.id, s.expected FROM scope v
       CROSS JOIN LATERAL (SELECT CASE WHEN v.vin ~ '^[A-HJ-NPR-Z0-9]{17}$' THEN translate(v.vin, 'ABCDEFGHJKLMNPRSTUVWXYZ', '12345678123457923456789') END AS digits) t
       CROSS JOIN LATERAL (SELECT (${CHECK_SUM}) % 11 AS remainder) r
       CROSS JOIN LATERAL (SELECT CASE WHEN t.digits IS NULL THEN NULL WHEN r.remainder = 10 THEN 'X' ELSE r.remainder::text END AS expected) s
       WHERE t.digits IS NULL OR s.expected <> substr(v.vin, 9, 1)),
`;
const INVALID_VINS = `       UNION ALL
       SELECT v.id, v.dealer_group_id, v.dealer_id, 'vin', 'invalid_vin', NULL, jsonb_build_object('vin', v.vin, 'problem', CASE WHEN c.expected IS NULL
           THEN 'not 17 characters of digits and letters other than I, O and Q' ELSE 'check digit (9th character) should be ' || c.expected END), v.vin, $3::timestamptz
       FROM scope v JOIN check_digits c ON c.id = v.id
`;

/**
 * The planner would JIT-compile these statements (their expressions look costly), which takes
 * longer than running them. Callers hold a transaction, so this lasts until it ends.
 */
const withoutJit = (client: pg.PoolClient) => client.query('SET LOCAL jit = off');

const NUMERIC = (value: string) =>
  `CASE WHEN (${value} #>> '{}') ~ '^-?[0-9]+(\\.[0-9]+)?$' THEN (${value} #>> '{}')::numeric END`;

/** An unchanged conflict keeps when it was first detected; a new or changed one takes the new time. */
const UPSERT = `INSERT INTO vehicle_conflicts (vehicle_id, dealer_group_id, dealer_id, field, kind, difference, details, signature, detected_at)
  SELECT vehicle_id, dealer_group_id, dealer_id, field, kind, difference, details, md5(signature), detected_at FROM found
  ON CONFLICT (vehicle_id, field, kind) DO UPDATE SET difference = excluded.difference, details = excluded.details, signature = excluded.signature,
    detected_at = CASE WHEN vehicle_conflicts.signature = excluded.signature THEN vehicle_conflicts.detected_at ELSE excluded.detected_at END`;

/**
 * Recomputes the conflicts of a rooftop's vehicles (`vehicleIds`, or all of them with null):
 * fields whose sources disagree (with the spread for prices and mileage), VINs whose manufacturer
 * code disagrees with the make, and (whole rooftop only) invalid VINs; then the duplicate stock
 * numbers those vehicles take part in.
 */
export async function refreshConflicts(
  client: pg.PoolClient,
  dealerId: string,
  vehicleIds: string[] | null,
  now = new Date(),
): Promise<void> {
  if (vehicleIds && !vehicleIds.length) return;
  await withoutJit(client);
  // Two shapes, so each plans well: the batch's vehicles and their records one index lookup each
  // (OFFSET 0 keeps the planner from turning the lookups into scans of the whole rooftop, which it
  // prefers for thousands of keys and which grow with the rooftop), or the whole rooftop.
  const chosen = vehicleIds
    ? `unnest($2::uuid[]) AS chosen(id) CROSS JOIN LATERAL (
         SELECT v.id, v.vin, v.dealer_id, v.dealer_group_id, v.make, v.updated_at FROM vehicles v WHERE v.id = chosen.id AND v.dealer_id = $1 OFFSET 0) v`
    : 'vehicles v WHERE v.dealer_id = $1 AND $2::uuid[] IS NULL';
  const records = vehicleIds
    ? `CROSS JOIN LATERAL (SELECT r.vehicle_id, r.source, r.seen_at, r.data FROM vehicle_source_records r WHERE r.vehicle_id = v.id
         AND EXISTS (SELECT 1 FROM vehicle_source_records o WHERE o.vehicle_id = v.id AND o.source <> r.source) OFFSET 0) r`
    : `JOIN vehicle_source_records r ON r.vehicle_id = v.id
         AND EXISTS (SELECT 1 FROM vehicle_source_records o WHERE o.vehicle_id = r.vehicle_id AND o.source <> r.source)`;
  await client.query(
    `/* conflictsRefresh */ WITH scope AS MATERIALIZED (
       SELECT v.id, v.vin, v.dealer_id, v.dealer_group_id, v.make, v.updated_at FROM ${chosen}),
     vals AS (
       -- Only vehicles more than one source reports can disagree.
       SELECT r.vehicle_id, f.key AS field, f.value, r.source, r.seen_at FROM scope v ${records}
       CROSS JOIN LATERAL jsonb_each(r.data) f
       WHERE f.key <> 'photos' AND f.value <> 'null'::jsonb AND f.value <> '""'::jsonb),
     disagreements AS (
       SELECT vehicle_id, field, max(seen_at) AS detected_at,
         jsonb_agg(jsonb_build_object('source', source, 'value', value, 'seen_at', seen_at) ORDER BY seen_at DESC, source) AS details,
         jsonb_agg(jsonb_build_object('source', source, 'value', value) ORDER BY source)::text AS signature,
         CASE WHEN field IN ('price', 'msrp', 'internet_price', 'mileage') THEN (max(${NUMERIC('value')}) - min(${NUMERIC('value')}))::float8 END AS difference
       FROM vals GROUP BY vehicle_id, field HAVING count(DISTINCT lower(value #>> '{}')) > 1),
${vehicleIds ? '' : CHECK_DIGITS}     found AS (
       SELECT d.vehicle_id, s.dealer_group_id, s.dealer_id, d.field, 'disagreement' AS kind, d.difference, d.details, d.signature, d.detected_at
       FROM disagreements d JOIN scope s ON s.id = d.vehicle_id
${vehicleIds ? '' : INVALID_VINS}       UNION ALL
       SELECT v.id, v.dealer_group_id, v.dealer_id, 'make', 'vin_make_mismatch', NULL, jsonb_build_object('vin', v.vin, 'make', v.make, 'vin_make', w.make), v.vin || v.make, $3::timestamptz
       FROM scope v JOIN unnest($4::text[], $5::text[]) AS w(code, make) ON w.code = left(v.vin, 3) WHERE lower(w.make) <> lower(v.make::text)),
     removed AS (
       DELETE FROM vehicle_conflicts c USING scope s WHERE c.vehicle_id = s.id AND c.kind NOT IN ('duplicate_stock_number'${vehicleIds ? ", 'invalid_vin'" : ''})
         AND NOT EXISTS (SELECT 1 FROM found f WHERE f.vehicle_id = c.vehicle_id AND f.field = c.field AND f.kind = c.kind))
     ${UPSERT}`,
    [dealerId, vehicleIds, now, WMI_CODES, WMI_NAMES],
  );
  await refreshDuplicateStockNumbers(client, dealerId, vehicleIds, now);
}

/**
 * A rooftop's vehicles on hand that share a stock number with another one on hand. With
 * `vehicleIds`, only the stock numbers those vehicles have or had are looked at (what a write to
 * them can change), so a sync batch does not re-read the whole rooftop.
 */
export async function refreshDuplicateStockNumbers(
  client: pg.PoolClient,
  dealerId: string,
  vehicleIds: string[] | null,
  now = new Date(),
): Promise<void> {
  if (vehicleIds && !vehicleIds.length) return;
  await withoutJit(client);
  await client.query(
    `/* conflictsDuplicateStock */ WITH rooftop AS (SELECT id, dealer_group_id FROM dealers WHERE id = $1),
     -- The stock numbers to look at: those the given vehicles have or had, or every one the rooftop
     -- uses twice. The query is driven from them, through the (group, stock number) index.
     -- The given vehicles are looked up one by one (OFFSET 0 keeps them index lookups, see above).
     touched AS (
       SELECT v.stock_number FROM unnest($3::uuid[]) AS given(id)
         CROSS JOIN LATERAL (SELECT stock_number FROM vehicles WHERE id = given.id OFFSET 0) v WHERE v.stock_number IS NOT NULL
       UNION SELECT c.stock_number FROM unnest($3::uuid[]) AS given(id) CROSS JOIN LATERAL (
         SELECT details ->> 'stock_number' AS stock_number FROM vehicle_conflicts WHERE vehicle_id = given.id AND kind = 'duplicate_stock_number' OFFSET 0) c
       UNION SELECT v.stock_number FROM rooftop d JOIN vehicles v ON v.dealer_group_id = d.dealer_group_id AND v.dealer_id = d.id
         WHERE $3::uuid[] IS NULL AND v.stock_number IS NOT NULL AND v.status NOT IN ('sold', 'presumed_sold') GROUP BY v.stock_number HAVING count(*) > 1),
     -- The rooftop's vehicles on hand holding each of those stock numbers, one index lookup per
     -- number (OFFSET 0 again: joined whole, the planner scans the rooftop twice for a large batch,
     -- which made a first load's batches slower as the rooftop grew); then each paired with the others.
     holders AS (
       SELECT t.stock_number, v.id, v.vin, v.dealer_group_id, v.dealer_id FROM touched t CROSS JOIN rooftop d
       CROSS JOIN LATERAL (SELECT v.id, v.vin, v.dealer_group_id, v.dealer_id FROM vehicles v
         WHERE v.dealer_group_id = d.dealer_group_id AND v.stock_number = t.stock_number AND v.dealer_id = d.id
           AND v.status NOT IN ('sold', 'presumed_sold') OFFSET 0) v),
     dupes AS (
       SELECT v.id, v.dealer_group_id, v.dealer_id, v.stock_number, jsonb_agg(o.vin ORDER BY o.vin) AS other_vins
       FROM holders v JOIN holders o ON o.stock_number = v.stock_number AND o.id <> v.id
       GROUP BY v.id, v.dealer_group_id, v.dealer_id, v.stock_number),
     found AS (
       SELECT id AS vehicle_id, dealer_group_id, dealer_id, 'stock_number' AS field, 'duplicate_stock_number' AS kind, NULL::float8 AS difference,
         jsonb_build_object('stock_number', stock_number, 'other_vins', other_vins) AS details, stock_number || other_vins::text AS signature, $2::timestamptz AS detected_at
       FROM dupes),
     removed AS (
       DELETE FROM vehicle_conflicts c WHERE c.dealer_id = $1 AND c.kind = 'duplicate_stock_number'
         AND ($3::uuid[] IS NULL OR c.details ->> 'stock_number' IN (SELECT stock_number FROM touched)) AND NOT EXISTS (SELECT 1 FROM dupes u WHERE u.id = c.vehicle_id))
     ${UPSERT}`,
    [dealerId, now, vehicleIds],
  );
}

/** Recomputes every vehicle of a rooftop and marks it checked. */
export async function refreshDealerConflicts(client: pg.PoolClient, dealerId: string, now = new Date()): Promise<void> {
  await refreshConflicts(client, dealerId, null, now);
  await client.query('UPDATE dealers SET conflicts_checked_at = $2 WHERE id = $1', [dealerId, now]);
}

/**
 * Rooftops whose vehicles were never checked together (those that had vehicles before
 * vehicle_conflicts existed; rooftops created since are kept current by their writers): checked once, each under its merge lock, so concurrent starts of
 * several instances do the work once. Answers how many rooftops were checked.
 */
export async function checkUncheckedDealers(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ id: string }>(
    'SELECT d.id FROM dealers d WHERE d.conflicts_checked_at IS NULL AND EXISTS (SELECT 1 FROM vehicles v WHERE v.dealer_id = d.id)',
  );
  let checked = 0;
  for (const { id } of rows) {
    await inTransaction(pool, async (client) => {
      await lockDealerMerges(client, id);
      const still = await client.query('SELECT 1 FROM dealers WHERE id = $1 AND conflicts_checked_at IS NULL', [id]);
      if (!still.rows.length) return;
      await refreshDealerConflicts(client, id);
      checked += 1;
    });
  }
  return checked;
}
