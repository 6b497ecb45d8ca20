import { randomUUID } from 'node:crypto';
import { Prisma } from '../../generated/prisma/client';
import type { Caller } from '../../caller';
import { inCausedTransaction } from '../../db/bulk';
import { badInput } from '../../errors';
import { inputDealer } from '../../tenancy';
import { optionalText } from '../../validation';
import { LEAD_STATUSES, LEAD_TYPES } from '../leads/leads.service';
import { enrich } from '../sources/sources.service';
import { linkLeadsAndCalls } from '../sales/sales.service';
import { matchDealers } from '../dealers/dealers.service';
import { normalizeVin, vinProblem } from '../inventory/vin';
import { FeedError, parseAdf } from '../syncs/parsers';
import { leadRecord, type LeadRecord } from '../syncs/records';
import { checkedRecord, notInFuture, providerName, writerSource } from './intake-input';

/**
 * Leads sent in through the API, as JSON in the lead shape or as an ADF document: checked by the
 * rules lead feeds use (leadRecord), stored unless they repeat a recent lead, then resolved to a
 * canonical source and linked to a deal as feed leads are, all in one transaction whose events name
 * the request.
 */

/** The largest ADF document taken (an ADF lead is a few kilobytes). */
export const MAX_ADF_BYTES = 100_000;
/** A lead repeats another when the same customer asks about the same vehicle at the same rooftop within this time. */
export const DUPLICATE_WINDOW_HOURS = 72;

export const LEAD_DUPLICATES = ['same_external_id', 'same_customer_and_vehicle'] as const;
type LeadDuplicate = (typeof LEAD_DUPLICATES)[number];

/** The lead fields, as GET /leads answers them, or an ADF document in their place. */
export interface LeadInput {
  dealer_id?: string | null;
  provider?: string | null;
  external_id?: string | null;
  received_at?: Date | null;
  type?: string | null;
  status?: string | null;
  first_name?: string | null;
  last_name?: string | null;
  email?: string | null;
  phone?: string | null;
  vehicle_year?: number | null;
  vehicle_make?: string | null;
  vehicle_model?: string | null;
  vehicle_vin?: string | null;
  raw_source?: string | null;
  comments?: string | null;
  assignee?: string | null;
  adf?: string | null;
}

/** What became of a lead sent in: stored now, or the earlier lead it repeats (nothing stored). */
export interface LeadIntake {
  leadId: string;
  created: boolean;
  duplicate: LeadDuplicate | null;
}

/** The arguments an ADF document may come with; everything else about the lead is in the document. */
const BESIDE_ADF = new Set(['dealer_id', 'provider', 'adf']);

/** The longest value of each text field the API takes (longer is a 400, where a feed row is cut short). */
const TEXT_LIMITS: Record<string, number> = {
  external_id: 200,
  first_name: 100,
  last_name: 100,
  email: 200,
  phone: 40,
  vehicle_make: 60,
  vehicle_model: 80,
  vehicle_vin: 40,
  raw_source: 200,
  comments: 4000,
  assignee: 100,
};

export async function createLead(caller: Caller, input: LeadInput): Promise<LeadIntake> {
  const adf = input.adf ?? null;
  const given = adf === null ? leadFields(input) : await adfLead(caller, input, adf);
  const dealer = await inputDealer(caller, given.dealerId, {
    purpose: 'the rooftop the lead is for (or, for ADF, a <vendor> that names one of your rooftops)',
    active: true,
    writes: 'leads',
  });
  const provider = providerName('provider', input.provider ?? (adf === null ? writerSource(caller.session) : 'adf'));
  const row = given.row;
  for (const [field, max] of Object.entries(TEXT_LIMITS)) {
    const value = row[field];
    if (value !== null && value !== undefined) row[field] = optionalText(field, String(value), max);
  }
  const vin = row.vehicle_vin as string | null | undefined;
  const problem = vin ? vinProblem(vin) : null;
  if (problem) throw badInput('vehicle_vin', `${vin}: ${problem}`);
  const maxYear = new Date().getUTCFullYear() + 2;
  const record = checkedRecord(() =>
    leadRecord(
      {
        ...row,
        external_id: row.external_id ?? `api-${randomUUID()}`,
        received_at: row.received_at ?? new Date().toISOString(),
      },
      'used',
    ),
  );
  if (record.vehicle_year !== null && (record.vehicle_year < 1900 || record.vehicle_year > maxYear))
    throw badInput('vehicle_year', `${record.vehicle_year} is outside 1900-${maxYear}`);
  notInFuture('received_at', record.received_at);
  const status = given.status ?? 'new';
  const assignee = (row.assignee as string | null | undefined) ?? null;

  return inCausedTransaction(caller.db, { requestId: caller.requestId }, async (tx) => {
    // One intake at a time per dealer group: the natural key and the duplicate window are checked and written together.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`lead-intake:${dealer.dealerGroupId}`}))`;
    const known = await tx.lead.findUnique({
      where: {
        dealerGroupId_provider_externalId: {
          dealerGroupId: dealer.dealerGroupId,
          provider,
          externalId: record.external_id,
        },
      },
      select: { id: true },
    });
    if (known) return { leadId: known.id, created: false, duplicate: 'same_external_id' as const };
    const earlier = await repeatedLead(tx, dealer.id, record);
    if (earlier) return { leadId: earlier, created: false, duplicate: 'same_customer_and_vehicle' as const };
    const lead = await tx.lead.create({
      data: {
        dealerGroupId: dealer.dealerGroupId,
        dealerId: dealer.id,
        provider,
        externalId: record.external_id,
        receivedAt: record.received_at,
        type: record.type as (typeof LEAD_TYPES)[number],
        status: status as (typeof LEAD_STATUSES)[number],
        firstName: record.first_name,
        lastName: record.last_name,
        email: record.email,
        phone: record.phone,
        vehicleYear: record.vehicle_year,
        vehicleMake: record.vehicle_make,
        vehicleModel: record.vehicle_model,
        vehicleVin: record.vehicle_vin,
        rawSource: record.raw_source,
        comments: record.comments,
        assignee,
      },
      select: { id: true },
    });
    await enrich(tx, [dealer.dealerGroupId], 'leads', { ids: [lead.id] });
    await linkLeadsAndCalls(tx, [dealer.dealerGroupId], { leadIds: [lead.id] });
    return { leadId: lead.id, created: true, duplicate: null };
  });
}

/**
 * The earliest lead at the rooftop within the window around this one from the same customer (email
 * or phone, both stored normalised) about the same vehicle: the same VIN when both name one,
 * else the same year, make and model (none at all counts as the same).
 */
async function repeatedLead(tx: Prisma.TransactionClient, dealerId: string, lead: LeadRecord): Promise<string | null> {
  if (!lead.email && !lead.phone) return null;
  const window = Prisma.sql`make_interval(hours => ${DUPLICATE_WINDOW_HOURS})`;
  const rows = await tx.$queryRaw<Array<{ id: string }>>`/* repeatedLead */
    SELECT l.id FROM leads l
    WHERE l.dealer_id = ${dealerId}::uuid
      AND l.received_at BETWEEN ${lead.received_at}::timestamptz - ${window} AND ${lead.received_at}::timestamptz + ${window}
      AND (lower(l.email) = ${lead.email}::text OR l.phone = ${lead.phone}::text)
      AND CASE WHEN l.vehicle_vin IS NOT NULL AND ${lead.vehicle_vin}::text IS NOT NULL THEN l.vehicle_vin = ${lead.vehicle_vin}::text
        ELSE l.vehicle_year IS NOT DISTINCT FROM ${lead.vehicle_year}::int
          AND lower(l.vehicle_make) IS NOT DISTINCT FROM lower(${lead.vehicle_make}::text)
          AND lower(l.vehicle_model) IS NOT DISTINCT FROM lower(${lead.vehicle_model}::text) END
    ORDER BY l.received_at, l.id LIMIT 1`;
  return rows[0]?.id ?? null;
}

interface GivenLead {
  dealerId: string | null | undefined;
  status: string | null | undefined;
  /** The lead's fields named as feed rows name them, for leadRecord. */
  row: Record<string, unknown>;
}

/** The lead fields a feed row carries, under the same names. */
const ROW_FIELDS = [
  'external_id',
  'type',
  'first_name',
  'last_name',
  'email',
  'phone',
  'vehicle_year',
  'vehicle_make',
  'vehicle_model',
  'raw_source',
  'comments',
  'assignee',
] as const;

/** A JSON lead: its fields as a feed row, the time as ISO text, the VIN as stored. */
function leadFields(input: LeadInput): GivenLead {
  const row: Record<string, unknown> = Object.fromEntries(ROW_FIELDS.map((field) => [field, input[field]]));
  row.received_at = input.received_at?.toISOString() ?? null;
  row.vehicle_vin = input.vehicle_vin ? normalizeVin(input.vehicle_vin) : null;
  return { dealerId: input.dealer_id, status: input.status, row };
}

/** An ADF lead: its one prospect as a feed row, and its rooftop (dealer_id, or the <vendor> it names). */
async function adfLead(caller: Caller, input: LeadInput, adf: string): Promise<GivenLead> {
  for (const [field, value] of Object.entries(input))
    if (!BESIDE_ADF.has(field) && value !== null && value !== undefined)
      throw badInput(field, 'comes from the ADF document: send either adf or the lead fields');
  if (adf.length > MAX_ADF_BYTES) throw badInput('adf', `is longer than ${MAX_ADF_BYTES} characters`);
  let prospects;
  try {
    prospects = parseAdf(adf);
  } catch (error) {
    if (error instanceof FeedError) throw badInput('adf', error.message);
    throw error;
  }
  if (prospects.length !== 1)
    throw badInput(
      'adf',
      prospects.length
        ? `holds ${prospects.length} <prospect> elements; send one lead per request`
        : 'holds no <prospect>: nothing to store',
    );
  const row = { ...prospects[0]!.values };
  if (typeof row.vehicle_vin === 'string') row.vehicle_vin = normalizeVin(row.vehicle_vin);
  return { dealerId: input.dealer_id ?? (await vendorRooftop(caller, row)), status: null, row };
}

/**
 * The caller's rooftop an ADF <vendor> names (by name or alias, phone, web address, street address),
 * when one matches well and clearly better than the next; else a 400 saying what to send.
 */
async function vendorRooftop(caller: Caller, row: Record<string, unknown>): Promise<string> {
  // Matching compares words; a few hundred characters hold any rooftop's name or address.
  const text = (key: string) => (typeof row[key] === 'string' ? (row[key] as string).slice(0, 200) : null);
  const vendor = {
    name: text('vendor'),
    phone: text('vendor_phone'),
    website: text('vendor_website'),
    street: text('vendor_street'),
    city: text('vendor_city'),
    state: text('vendor_state'),
    postal_code: text('vendor_postal_code'),
  };
  if (!vendor.name && !vendor.phone && !vendor.website && !vendor.street)
    throw badInput(
      'dealer_id',
      'is required: the ADF document names no <vendor> to find the rooftop by; give dealer_id (a query parameter beside an XML body)',
    );
  const [best, next] = await matchDealers(caller, { ...vendor, limit: 2 }, undefined, 'leads');
  const named = vendor.name ? `"${vendor.name}"` : 'in the document';
  if (!best || best.score < 0.5)
    throw badInput('dealer_id', `is required: no rooftop of yours matches the ADF <vendor> ${named}; give dealer_id`);
  if (next && best.score - next.score < 0.1)
    throw badInput(
      'dealer_id',
      `is required: the ADF <vendor> ${named} matches ${best.dealer.name} and ${next.dealer.name} about as well; give dealer_id`,
    );
  return best.dealer.id;
}
