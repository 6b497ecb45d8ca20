import { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import type { Database } from '../../db/database';
import { badInput } from '../../errors';
import { pageArgs } from '../../pagination';
import { callerGroupsSql, inCallerGroups, inputDealer, visibleDealers } from '../../tenancy';
import { equalsAny } from '../../sql-filters';
import { dealerIds, enumList } from '../../validation';
import { MERGED_FIELDS } from '../inventory/vehicle-fields';
import type { SourcePriority } from './merge';
import { remergeVehicles } from './vehicle-writer';
import { lockDealerMerges } from './merge-lock';
import { inTransaction } from '../../db/bulk';
import { queryRows } from '../../db/direct-reads';
import { refreshDealerConflicts } from './conflicts';

/** Field-level source priority per rooftop, re-merging after a change, and the conflicts and discrepancies list (Multi-source section of docs/operations.md). */

const callerDealer = (caller: Caller, dealerId: string | null | undefined) =>
  inputDealer(caller, dealerId, { purpose: 'the rooftop whose priorities these are' });

export interface DealerPriorities {
  dealer_id: string;
  dealer_name: string;
  priorities: SourcePriority;
  known_sources: string[];
}

export async function priorities(caller: Caller, args: { dealer_id?: string[] | null }): Promise<DealerPriorities[]> {
  const dealers = visibleDealers(caller.session, 'inventory', dealerIds(args.dealer_id));
  const rows = await caller.db.dealer.findMany({
    where: {
      dealerGroupId: inCallerGroups(caller.session),
      archivedAt: null,
      ...(dealers ? { id: { in: dealers } } : {}),
    },
    select: { id: true, name: true, sourcePriority: true },
    orderBy: { name: 'asc' },
  });
  const known = rows.length
    ? await caller.db.$queryRaw<Array<{ dealer_id: string; sources: string[] }>>`/* knownSources */
    SELECT d.id AS dealer_id, ARRAY(
      SELECT DISTINCT s FROM (
        SELECT r.source AS s FROM vehicle_source_records r JOIN vehicles v ON v.id = r.vehicle_id WHERE v.dealer_id = d.id
        UNION SELECT i.source FROM integrations i WHERE i.dealer_id = d.id AND i.disconnected_at IS NULL) all_sources ORDER BY s) AS sources
    FROM dealers d WHERE d.id = ANY(${rows.map((row) => row.id)}::uuid[])`
    : [];
  const sourcesOf = new Map(known.map((row) => [row.dealer_id, row.sources]));
  return rows.map((row) => ({
    dealer_id: row.id,
    dealer_name: row.name,
    priorities: row.sourcePriority as SourcePriority,
    known_sources: sourcesOf.get(row.id) ?? [],
  }));
}

/** Sets a rooftop's priorities: per field (or "*" for the rest), source names in order of trust. */
export async function setPriorities(
  caller: Caller,
  args: { dealer_id?: string | null; priorities?: unknown },
): Promise<DealerPriorities> {
  const dealer = await callerDealer(caller, args.dealer_id);
  const given = args.priorities;
  if (!given || typeof given !== 'object' || Array.isArray(given))
    throw badInput('priorities', 'must be an object: { "price": ["dms", "website"], "*": ["dms", "homenet"] }');
  const fields = [...MERGED_FIELDS, '*'] as string[];
  for (const [field, sources] of Object.entries(given as Record<string, unknown>)) {
    if (!fields.includes(field)) throw badInput(`priorities.${field}`, `is not a merged field (${fields.join(', ')})`);
    if (
      !Array.isArray(sources) ||
      !sources.length ||
      sources.length > 20 ||
      sources.some((source) => typeof source !== 'string' || !/^[a-z][a-z0-9_]{1,39}$/.test(source))
    ) {
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
    const ids = await pool.query<{ id: string }>(
      'SELECT id FROM vehicles WHERE dealer_id = $1 AND id > $2 ORDER BY id LIMIT 500',
      [dealer.id, after],
    );
    if (!ids.rows.length) break;
    after = ids.rows.at(-1)!.id;
    // The vehicle.updated events of a rebuild name the request that asked for it.
    const outcome = await inTransaction(
      pool,
      async (client) => {
        await lockDealerMerges(client, dealer.id);
        return remergeVehicles(
          client,
          { priority, source: 'rebuild', syncRunId: null, trackHistory: true },
          ids.rows.map((row) => row.id),
        );
      },
      { requestId: caller.requestId },
    );
    examined += ids.rows.length;
    changed += outcome.updated;
  }
  await inTransaction(
    pool,
    async (client) => {
      await lockDealerMerges(client, dealer.id);
      await refreshDealerConflicts(client, dealer.id);
    },
    { requestId: caller.requestId },
  );
  return { dealer_id: dealer.id, vehicles_examined: examined, vehicles_changed: changed };
}

export const CONFLICT_KINDS = [
  'source_disagreement',
  'price_disagreement',
  'mileage_disagreement',
  'duplicate_stock_number',
  'invalid_vin',
  'vin_make_mismatch',
] as const;

export interface ConflictFilters {
  dealer_id?: string[] | null;
  kind?: string[] | null;
  vehicle_id?: string | null;
  price_threshold?: number | null;
  mileage_threshold?: number | null;
}
export interface Conflict {
  vehicle_id: string;
  vin: string;
  dealer_id: string;
  field: string;
  kind: string;
  winning_source: string | null;
  difference: number | null;
  details: unknown;
  detected_at: Date;
}

/**
 * Fields where sources disagree (most recent first), and the discrepancies: price or mileage
 * disagreements beyond a threshold, duplicate stock numbers at a rooftop, invalid VINs (check digit
 * computed in SQL) and VINs whose manufacturer code disagrees with the make.
 */
export async function conflicts(
  caller: Caller,
  filters: ConflictFilters & { limit?: number | null; offset?: number | null },
) {
  const { limit, offset } = pageArgs(filters);
  const dealers = visibleDealers(caller.session, 'inventory', dealerIds(filters.dealer_id));
  const kinds = enumList('kind', filters.kind, CONFLICT_KINDS);
  const priceThreshold = filters.price_threshold ?? 500;
  const mileageThreshold = filters.mileage_threshold ?? 250;
  if (priceThreshold < 0 || mileageThreshold < 0)
    throw badInput(priceThreshold < 0 ? 'price_threshold' : 'mileage_threshold', 'must not be negative');
  const scope: Prisma.Sql[] = [];
  if (dealers) scope.push(equalsAny(Prisma.sql`c.dealer_id`, dealers, 'uuid'));
  if (filters.vehicle_id) scope.push(Prisma.sql`c.vehicle_id = ${filters.vehicle_id}::uuid`);
  // Disagreements are stored with their spread; the thresholds decide here which are price or mileage discrepancies.
  const kind = Prisma.sql`CASE
      WHEN c.kind <> 'disagreement' THEN c.kind
      WHEN c.field IN ('price', 'msrp', 'internet_price') AND c.difference > ${priceThreshold} THEN 'price_disagreement'
      WHEN c.field = 'mileage' AND c.difference > ${mileageThreshold} THEN 'mileage_disagreement'
      ELSE 'source_disagreement' END`;
  if (kinds) scope.push(Prisma.sql`${kind} = ANY(${kinds}::text[])`);
  const filtered = scope.length ? Prisma.sql`AND ${Prisma.join(scope, ' AND ')}` : Prisma.empty;
  // Each of the caller's groups is read in its (group, detected_at, vehicle, field) index order and
  // stops at the window, so a page costs what it shows however many conflicts there are; only the
  // page's rows are then joined to their details and vehicles.
  const [rows, [count]] = await Promise.all([
    queryRows<Conflict>(
      caller.db,
      Prisma.sql`/* multiSourceConflicts */
      WITH page AS (
        SELECT picked.* FROM unnest(${[...caller.session.dealerGroupIds]}::uuid[]) AS g(id)
        CROSS JOIN LATERAL (
          SELECT c.vehicle_id, c.field, c.kind, c.detected_at, ${kind} AS shown_kind FROM vehicle_conflicts c
          WHERE c.dealer_group_id = g.id ${filtered}
          ORDER BY c.detected_at DESC, c.vehicle_id, c.field LIMIT ${offset + limit}) picked
        ORDER BY picked.detected_at DESC, picked.vehicle_id, picked.field LIMIT ${limit} OFFSET ${offset})
      SELECT c.vehicle_id::text, v.vin, c.dealer_id::text, c.field, page.shown_kind AS kind, v.field_sources ->> c.field AS winning_source,
        c.difference, c.details, c.detected_at
      FROM page JOIN vehicle_conflicts c USING (vehicle_id, field, kind) JOIN vehicles v ON v.id = c.vehicle_id
      ORDER BY page.detected_at DESC, page.vehicle_id, page.field`,
    ),
    queryRows<{ total: number }>(
      caller.db,
      // Without a kind or vehicle filter the rooftops' totals (kept by triggers) add up to the count.
      kinds || filters.vehicle_id
        ? Prisma.sql`/* multiSourceConflictsCount */
      SELECT count(*)::int AS total FROM vehicle_conflicts c WHERE ${callerGroupsSql(caller.session, 'c')} ${filtered}`
        : Prisma.sql`/* multiSourceConflictTotals */
      SELECT coalesce(sum(c.conflicts), 0)::int AS total FROM vehicle_conflict_totals c
      WHERE ${callerGroupsSql(caller.session, 'c')} ${filtered}`,
    ),
  ]);
  return { items: rows, total: count?.total ?? 0, limit, offset };
}
