import type { Caller } from '../../caller';
import { inCausedTransaction } from '../../db/bulk';
import { badInput } from '../../errors';
import { inputDealer } from '../../tenancy';
import { optionalText } from '../../validation';
import { enrich } from '../sources/sources.service';
import { linkLeadsAndCalls } from '../sales/sales.service';
import { callRecord } from '../syncs/records';
import { checkedRecord, notInFuture, providerName, writerSource } from './intake-input';

/**
 * Calls a call-tracking system records through the API: checked by the rules call feeds use
 * (callRecord), stored once per provider and call id (the same call sent again answers the stored
 * one), then resolved to a canonical source and linked to a deal as feed calls are, in one
 * transaction whose events name the request.
 */

/** The call fields, as GET /calls answers them. */
export interface CallInput {
  dealer_id?: string | null;
  provider?: string | null;
  external_id?: string | null;
  started_at?: Date | null;
  duration_seconds?: number | null;
  direction?: string | null;
  status?: string | null;
  caller_number?: string | null;
  tracking_number?: string | null;
  raw_source?: string | null;
  campaign?: string | null;
  first_time_caller?: boolean | null;
  recording_url?: string | null;
  department?: string | null;
}

export interface CallIntake {
  callId: string;
  created: boolean;
}

/** The longest value of each text field the API takes (longer is a 400, where a feed row is cut short). */
const TEXT_LIMITS: Record<string, number> = {
  external_id: 100,
  caller_number: 40,
  tracking_number: 40,
  raw_source: 200,
  campaign: 200,
  recording_url: 1000,
  department: 100,
};

export async function createCall(caller: Caller, input: CallInput): Promise<CallIntake> {
  const dealer = await inputDealer(caller, input.dealer_id, {
    purpose: 'the rooftop the call came in to',
    active: true,
    writes: 'calls',
  });
  const provider = providerName('provider', input.provider ?? writerSource(caller.session));
  if (!input.external_id?.trim())
    throw badInput('external_id', "is required: the provider's id of the call, which makes sending it again safe");
  if (input.started_at === null || input.started_at === undefined)
    throw badInput('started_at', 'is required: when the call began');
  if (input.duration_seconds === null || input.duration_seconds === undefined)
    throw badInput('duration_seconds', 'is required: 0 for a call nobody answered');
  const row: Record<string, unknown> = {
    ...input,
    started_at: notInFuture('started_at', input.started_at).toISOString(),
  };
  for (const [field, max] of Object.entries(TEXT_LIMITS)) {
    const value = row[field];
    if (value !== null && value !== undefined) row[field] = optionalText(field, String(value), max);
  }
  if (row.recording_url && !/^https?:\/\/[^\s]+$/i.test(String(row.recording_url)))
    throw badInput('recording_url', 'must be an http or https address');
  const record = checkedRecord(() => callRecord(row));

  return inCausedTransaction(caller.db, { requestId: caller.requestId }, async (tx) => {
    // The same call sent twice (or by two requests at once) is stored once: the second finds the first.
    const { count } = await tx.call.createMany({
      data: [
        {
          dealerGroupId: dealer.dealerGroupId,
          dealerId: dealer.id,
          provider,
          externalId: record.external_id,
          startedAt: record.started_at,
          durationSeconds: record.duration_seconds,
          direction: record.direction,
          status: record.status,
          callerNumber: record.caller_number,
          trackingNumber: record.tracking_number,
          rawSource: record.raw_source,
          campaign: record.campaign,
          firstTimeCaller: record.first_time_caller,
          recordingUrl: record.recording_url,
          department: record.department,
        },
      ],
      skipDuplicates: true,
    });
    const call = await tx.call.findUniqueOrThrow({
      where: {
        dealerGroupId_provider_externalId: {
          dealerGroupId: dealer.dealerGroupId,
          provider,
          externalId: record.external_id,
        },
      },
      select: { id: true },
    });
    if (count) {
      await enrich(tx, [dealer.dealerGroupId], 'calls', { ids: [call.id] });
      await linkLeadsAndCalls(tx, [dealer.dealerGroupId], { callIds: [call.id] });
    }
    return { callId: call.id, created: count > 0 };
  });
}
