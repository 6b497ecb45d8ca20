import { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import { inCausedTransaction } from '../../db/bulk';
import type { RawSqlClient } from '../../db/database';
import { badInput, conflict, notFound } from '../../errors';
import { pageArgs, pageRef, type Page, type PageRef, type WindowArgs } from '../../pagination';
import { callerGroupsSql, findInTenant, inCallerGroups, unlessTaken, targetGroup } from '../../tenancy';
import { dateRange, dealerIds, isUuid, oneOf, optionalText, requiredText, uuid } from '../../validation';
import { jaroWinkler, nameSimilarity } from '../../similarity';
import { patternProblem } from '../../validation';
import { NORMALIZE_SQL, normalizeRawSource } from './normalize';
import { likeLiteral } from '../../sql-filters';

/** The canonical source directory, raw-value mappings, resolution and the unmapped work queue. */

export const SOURCE_CATEGORIES = [
  'paid_search',
  'organic_search',
  'third_party_listing',
  'oem',
  'social',
  'display',
  'email',
  'referral',
  'walk_in',
  'phone',
  'direct',
  'other',
] as const;
export type SourceCategory = (typeof SOURCE_CATEGORIES)[number];

export interface SourceInput {
  name?: string | null;
  category?: string | null;
  channel?: string | null;
  color?: string | null;
  cost_per_month?: string | null;
  dealer_group_id?: string | null;
}

function sourceFields(input: SourceInput) {
  if (input.color != null && !/^#[0-9a-f]{6}$/i.test(input.color))
    throw badInput('color', 'must be a hex colour such as #1f6feb');
  if (input.cost_per_month != null && Number(input.cost_per_month) < 0)
    throw badInput('cost_per_month', 'must not be negative');
  return {
    ...(input.name !== undefined ? { name: requiredText('name', input.name, 100) } : {}),
    ...(input.category != null ? { category: oneOf('category', input.category, SOURCE_CATEGORIES) } : {}),
    ...(input.channel !== undefined ? { channel: optionalText('channel', input.channel, 100) } : {}),
    ...(input.color !== undefined ? { color: input.color?.toLowerCase() ?? null } : {}),
    ...(input.cost_per_month !== undefined ? { costPerMonth: input.cost_per_month } : {}),
  };
}

export async function sourcePage(
  caller: Caller,
  args: WindowArgs & { category?: string | null; q?: string | null },
): Promise<PageRef<Prisma.SourceWhereInput>> {
  const { limit, offset } = pageArgs(args);
  const where: Prisma.SourceWhereInput = {
    dealerGroupId: inCallerGroups(caller.session),
    ...(args.category ? { category: oneOf('category', args.category, SOURCE_CATEGORIES) } : {}),
    ...(args.q ? { name: { contains: likeLiteral(requiredText('q', args.q, 100)) } } : {}),
  };
  return pageRef(where, { limit, offset }, () => caller.db.source.count({ where }));
}

export function findSource(caller: Caller, id: string) {
  return findInTenant(caller.session, 'source', id, (where) =>
    caller.db.source.findFirst({ where, select: { id: true, dealerGroupId: true } }),
  );
}

export async function createSource(caller: Caller, input: SourceInput): Promise<string> {
  const dealerGroupId = targetGroup(caller.session, input.dealer_group_id);
  if (!input.category) throw badInput('category', `is required: one of ${SOURCE_CATEGORIES.join(', ')}`);
  const fields = sourceFields(input);
  const source = await unlessTaken(
    () =>
      caller.db.source.create({
        data: {
          dealerGroupId,
          name: requiredText('name', input.name, 100),
          category: fields.category as SourceCategory,
          ...fields,
        },
      }),
    `a source named "${input.name}" already exists`,
  );
  return source.id;
}

export async function updateSource(caller: Caller, id: string, input: SourceInput): Promise<string> {
  await findSource(caller, id);
  await unlessTaken(
    () => caller.db.source.update({ where: { id }, data: sourceFields(input) }),
    `a source named "${input.name}" already exists`,
  );
  return id;
}

/** Refused while mappings, calls or leads point at the source: deleting it would orphan them. */
export async function deleteSource(caller: Caller, id: string): Promise<string> {
  await findSource(caller, id);
  const [mappings, calls, leads] = await Promise.all([
    caller.db.sourceMapping.count({ where: { sourceId: id } }),
    caller.db.call.count({ where: { sourceId: id } }),
    caller.db.lead.count({ where: { sourceId: id } }),
  ]);
  if (mappings || calls || leads) {
    throw conflict(
      `source ${id} is in use by ${mappings} mapping(s), ${calls} call(s) and ${leads} lead(s); remove the mappings and re-map the data first`,
    );
  }
  await caller.db.source.delete({ where: { id } });
  return id;
}

export async function mappingPage(
  caller: Caller,
  args: WindowArgs & { source_id?: string | null; match?: string | null },
): Promise<PageRef<Prisma.SourceMappingWhereInput>> {
  const { limit, offset } = pageArgs(args);
  const where: Prisma.SourceMappingWhereInput = {
    dealerGroupId: inCallerGroups(caller.session),
    ...(args.source_id ? { sourceId: uuid('source_id', args.source_id) } : {}),
    ...(args.match ? { match: oneOf('match', args.match, ['exact', 'pattern'] as const) } : {}),
  };
  return pageRef(where, { limit, offset }, () => caller.db.sourceMapping.count({ where }));
}

/** Maps one or many raw values to a source. Re-mapping a value to the same source is a no-op; to another, a 409. */
export async function createMappings(
  caller: Caller,
  input: { source_id: string; raw_value?: string | null; raw_values?: string[] | null; match?: string | null },
) {
  const source = await findSource(caller, input.source_id);
  const match = oneOf('match', input.match ?? 'exact', ['exact', 'pattern'] as const);
  const values = [...(input.raw_value != null ? [input.raw_value] : []), ...(input.raw_values ?? [])].map((value) =>
    value.trim(),
  );
  if (!values.length) throw badInput('raw_values', 'give raw_value or raw_values');
  if (values.length > 500) throw badInput('raw_values', 'at most 500 values at once');
  for (const value of values) {
    if (!value) throw badInput('raw_values', 'values must not be empty');
    if (match === 'pattern') {
      const problem = patternProblem(value);
      if (problem) throw badInput('raw_value', `pattern "${value}" ${problem}`);
    } else if (!normalizeRawSource(value)) throw badInput('raw_values', `"${value}" has no letters or digits`);
  }
  const keys = values.map((value) => ({ value, normalized: match === 'exact' ? normalizeRawSource(value) : null }));
  // One group's mapping writes take turns: the clash check and the insert must see each other, or two
  // requests could map "Google PPC" and "google ppc" (one normalised value) to two different sources.
  const { existing, fresh } = await caller.db.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`source-mappings:${source.dealerGroupId}`}))`;
    const existing = await tx.sourceMapping.findMany({
      where: {
        dealerGroupId: source.dealerGroupId,
        match,
        OR:
          match === 'exact'
            ? [{ normalized: { in: keys.map((key) => key.normalized as string) } }]
            : [{ rawValue: { in: values } }],
      },
      select: { id: true, rawValue: true, normalized: true, sourceId: true },
    });
    const clash = existing.find((mapping) => mapping.sourceId !== source.id);
    if (clash)
      throw conflict(
        `"${clash.rawValue}" is already mapped to another source (mapping ${clash.id}); delete that mapping first`,
      );
    const known = new Set(existing.map((mapping) => (match === 'exact' ? mapping.normalized : mapping.rawValue)));
    const fresh = [
      ...new Map(
        keys
          .filter((key) => !known.has(match === 'exact' ? key.normalized : key.value))
          .map((key) => [key.normalized ?? key.value, key]),
      ).values(),
    ];
    await tx.sourceMapping.createMany({
      data: fresh.map((key) => ({
        dealerGroupId: source.dealerGroupId,
        sourceId: source.id,
        match,
        rawValue: key.value,
        normalized: key.normalized,
      })),
    });
    return { existing, fresh };
  });
  const ids = await caller.db.sourceMapping.findMany({
    where: { dealerGroupId: source.dealerGroupId, sourceId: source.id, match, rawValue: { in: values } },
    select: { id: true },
  });
  // Calls and leads waiting in the unmapped queue take the new mapping at once.
  // Their events (lead.updated with the new source) name this request as their cause.
  if (fresh.length)
    await inCausedTransaction(caller.db, { requestId: caller.requestId }, async (tx) => {
      await enrich(tx, [source.dealerGroupId], 'calls', {});
      await enrich(tx, [source.dealerGroupId], 'leads', {});
    });
  return { ids: [...new Set([...ids.map((row) => row.id), ...existing.map((row) => row.id)])], created: fresh.length };
}

export async function deleteMapping(caller: Caller, id: string): Promise<string> {
  const { count } = isUuid(id)
    ? await caller.db.sourceMapping.deleteMany({ where: { id, dealerGroupId: inCallerGroups(caller.session) } })
    : { count: 0 };
  if (!count) throw notFound(`mapping ${id}`);
  return id;
}

export interface Resolution {
  raw_value: string;
  sourceId: string | null;
  matched_by: 'exact' | 'pattern' | null;
  mappingId: string | null;
}

/** Resolves raw values: an exact mapping (after normalising) wins over a pattern; the oldest pattern wins among patterns. */
export async function resolveRawValues(caller: Caller, rawValues: string[]): Promise<Resolution[]> {
  if (!rawValues.length) throw badInput('raw_values', 'give at least one value');
  if (rawValues.length > 1000) throw badInput('raw_values', 'at most 1000 values at once');
  const rows = await caller.db.$queryRaw<
    Array<{ raw: string; source_id: string | null; matched_by: 'exact' | 'pattern' | null; mapping_id: string | null }>
  >(Prisma.sql`/* resolveSources */
    SELECT v.raw, m.source_id, m.match::text AS matched_by, m.id AS mapping_id
    FROM unnest(${rawValues}::text[]) AS v(raw)
    LEFT JOIN LATERAL (
      SELECT m.id, m.source_id, m.match FROM source_mappings m
      WHERE ${callerGroupsSql(caller.session, 'm')}
        AND ((m.match = 'exact' AND m.normalized = ${Prisma.raw(NORMALIZE_SQL('v.raw'))}) OR (m.match = 'pattern' AND v.raw ~* m.raw_value))
      ORDER BY (m.match = 'exact') DESC, m.created_at, m.id LIMIT 1
    ) m ON true`);
  return rows.map((row) => ({
    raw_value: row.raw,
    sourceId: row.source_id,
    matched_by: row.matched_by,
    mappingId: row.mapping_id,
  }));
}

/** A raw source value no mapping resolves: how often calls and leads carried it, and the sources it looks like. */
export interface UnmappedValue {
  raw_value: string;
  normalized: string;
  calls: number;
  leads: number;
  total: number;
  last_seen_at: Date;
  suggestions: ReturnType<typeof suggestSources>;
}

/**
 * Raw values seen in calls and leads that no mapping resolves, most frequent first, with suggested
 * sources. The rows are counted per spelling first (a feed repeats a few dozen spellings over its
 * million rows), so each spelling is normalised once, not once per row; a value shows its most
 * frequent spelling (the first in order among equals).
 */
export async function unmappedValues(caller: Caller, args: WindowArgs): Promise<Page<UnmappedValue>> {
  const { limit, offset } = pageArgs(args);
  const groups = [...caller.session.dealerGroupIds];
  const rows = await caller.db.$queryRaw<
    Array<{
      raw_value: string;
      normalized: string;
      calls: number;
      leads: number;
      last_seen_at: Date;
      total_count: bigint;
    }>
  >(Prisma.sql`/* unmappedSources */
    WITH seen AS (
      SELECT dealer_group_id, raw_source, count(*) AS calls, 0 AS leads, max(started_at) AS at FROM calls
      WHERE dealer_group_id = ANY(${groups}::uuid[]) AND raw_source IS NOT NULL AND source_id IS NULL GROUP BY 1, 2
      UNION ALL
      SELECT dealer_group_id, raw_source, 0, count(*), max(received_at) FROM leads
      WHERE dealer_group_id = ANY(${groups}::uuid[]) AND raw_source IS NOT NULL AND source_id IS NULL GROUP BY 1, 2
    ), spelled AS (
      SELECT raw_source, sum(calls + leads) AS times FROM seen GROUP BY 1
    ), grouped AS (
      SELECT ${Prisma.raw(NORMALIZE_SQL('s.raw_source'))} AS normalized,
        (array_agg(s.raw_source ORDER BY p.times DESC, s.raw_source))[1] AS raw_value,
        sum(s.calls)::int AS calls, sum(s.leads)::int AS leads, max(s.at) AS last_seen_at, min(s.dealer_group_id::text)::uuid AS dealer_group_id
      FROM seen s JOIN spelled p USING (raw_source) GROUP BY 1
    )
    SELECT g.raw_value, g.normalized, g.calls, g.leads, g.last_seen_at, count(*) OVER () AS total_count FROM grouped g
    WHERE g.normalized <> '' AND NOT EXISTS (
      SELECT 1 FROM source_mappings m WHERE m.dealer_group_id = g.dealer_group_id
        AND ((m.match = 'exact' AND m.normalized = g.normalized) OR (m.match = 'pattern' AND g.raw_value ~* m.raw_value)))
    ORDER BY g.calls + g.leads DESC, g.normalized LIMIT ${limit} OFFSET ${offset}`);
  const sources = await caller.db.source.findMany({
    where: { dealerGroupId: { in: groups } },
    select: { id: true, name: true, mappings: { where: { match: 'exact' }, select: { normalized: true } } },
  });
  const values = rows.map((row) => ({
    raw_value: row.raw_value,
    normalized: row.normalized,
    calls: row.calls,
    leads: row.leads,
    total: row.calls + row.leads,
    last_seen_at: row.last_seen_at,
    suggestions: suggestSources(row.normalized, sources),
  }));
  return { items: values, total: Number(rows[0]?.total_count ?? 0), limit, offset };
}

/** Sources whose name or mapped spellings look like the raw value, best first. */
export function suggestSources(
  normalized: string,
  sources: Array<{ id: string; name: string; mappings: Array<{ normalized: string | null }> }>,
) {
  const tokens = normalized.split(' ').filter(Boolean);
  const compact = normalized.replace(/ /g, '');
  return sources
    .map((source) => {
      const spellings = [
        normalizeRawSource(source.name),
        ...source.mappings.map((mapping) => mapping.normalized ?? ''),
      ].filter(Boolean);
      const score = Math.max(
        ...spellings.map((spelling) =>
          Math.max(nameSimilarity(tokens, spelling.split(' ')), jaroWinkler(compact, spelling.replace(/ /g, ''))),
        ),
      );
      return { sourceId: source.id, sourceName: source.name, score: Math.round(score * 100) / 100 };
    })
    .filter((suggestion) => suggestion.score >= 0.6)
    .sort((a, b) => b.score - a.score)
    .slice(0, 3);
}

/**
 * Attaches canonical sources to calls (or leads) whose raw source a mapping resolves. Each distinct
 * raw value is resolved once (exact mapping after normalising, else the oldest matching pattern),
 * then one UPDATE joins on the raw value, so a million rows cost one pass, not a regex per row.
 * `ids` narrows it to those records (one posted through the API, in its own transaction).
 */
export async function enrich(
  db: RawSqlClient,
  dealerGroupIds: readonly string[],
  table: 'calls' | 'leads',
  args: {
    from?: Date | null;
    to?: Date | null;
    dealer_id?: string[] | null;
    overwrite?: boolean | null;
    ids?: readonly string[];
  },
) {
  const timeColumn = Prisma.raw(table === 'calls' ? 't.started_at' : 't.received_at');
  const tableSql = Prisma.raw(table);
  dateRange(args.from, args.to);
  const conditions = [
    Prisma.sql`t.dealer_group_id = ANY(${[...dealerGroupIds]}::uuid[])`,
    Prisma.sql`t.raw_source IS NOT NULL`,
  ];
  if (args.from) conditions.push(Prisma.sql`${timeColumn} >= ${args.from}`);
  if (args.to) conditions.push(Prisma.sql`${timeColumn} <= ${args.to}`);
  const dealers = dealerIds(args.dealer_id);
  if (dealers) conditions.push(Prisma.sql`t.dealer_id = ANY(${dealers}::uuid[])`);
  if (!args.overwrite) conditions.push(Prisma.sql`t.source_id IS NULL`);
  if (args.ids) conditions.push(Prisma.sql`t.id = ANY(${[...args.ids]}::uuid[])`);
  const where = Prisma.join(conditions, ' AND ');
  const [examined] = await db.$queryRaw<Array<{ count: number }>>(
    Prisma.sql`/* enrichExamined */ SELECT count(*)::int AS count FROM ${tableSql} t WHERE ${where}`,
  );
  const enriched = await db.$executeRaw(Prisma.sql`/* enrich */
    WITH raw AS (SELECT DISTINCT t.dealer_group_id, t.raw_source FROM ${tableSql} t WHERE ${where}),
    resolved AS (
      SELECT raw.dealer_group_id, raw.raw_source, (
        SELECT m.source_id FROM source_mappings m WHERE m.dealer_group_id = raw.dealer_group_id
          AND ((m.match = 'exact' AND m.normalized = ${Prisma.raw(NORMALIZE_SQL('raw.raw_source'))}) OR (m.match = 'pattern' AND raw.raw_source ~* m.raw_value))
        ORDER BY (m.match = 'exact') DESC, m.created_at, m.id LIMIT 1) AS source_id
      FROM raw)
    UPDATE ${tableSql} t SET source_id = r.source_id, updated_at = now() FROM resolved r
    WHERE ${where} AND r.source_id IS NOT NULL AND t.dealer_group_id = r.dealer_group_id AND t.raw_source = r.raw_source AND t.source_id IS DISTINCT FROM r.source_id`);
  const count = examined?.count ?? 0;
  return { examined: count, enriched, unmapped: Math.max(0, count - enriched) };
}
