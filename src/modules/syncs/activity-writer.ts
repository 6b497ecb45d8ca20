import type pg from 'pg';
import type { CallRecord, LeadRecord, SaleRecord } from './records';

/**
 * Batch upserts of calls, leads and deals: one statement per batch keyed on the record's natural
 * key (provider and external id, or rooftop and deal number). A row identical to the stored one is
 * left alone, so re-running a file changes nothing.
 */

export interface ActivityFeed {
  dealerGroupId: string;
  dealerId: string;
  provider: string;
}
export interface UpsertCounts {
  created: number;
  updated: number;
  unchanged: number;
}

interface TableSpec {
  table: string;
  key: string[];
  columns: Array<[name: string, type: string]>;
}

const SPECS: Record<'calls' | 'leads' | 'sales', TableSpec> = {
  calls: {
    table: 'calls',
    key: ['dealer_group_id', 'provider', 'external_id'],
    columns: [
      ['external_id', 'text'],
      ['started_at', 'timestamptz'],
      ['duration_seconds', 'int'],
      ['direction', 'call_direction'],
      ['status', 'call_status'],
      ['caller_number', 'text'],
      ['tracking_number', 'text'],
      ['raw_source', 'text'],
      ['campaign', 'text'],
      ['first_time_caller', 'boolean'],
      ['recording_url', 'text'],
      ['department', 'text'],
    ],
  },
  leads: {
    table: 'leads',
    key: ['dealer_group_id', 'provider', 'external_id'],
    columns: [
      ['external_id', 'text'],
      ['received_at', 'timestamptz'],
      ['type', 'lead_type'],
      ['first_name', 'text'],
      ['last_name', 'text'],
      ['email', 'text'],
      ['phone', 'text'],
      ['vehicle_year', 'int'],
      ['vehicle_make', 'text'],
      ['vehicle_model', 'text'],
      ['vehicle_vin', 'text'],
      ['raw_source', 'text'],
      ['comments', 'text'],
    ],
  },
  sales: {
    table: 'sales',
    key: ['dealer_id', 'deal_number'],
    columns: [
      ['deal_number', 'text'],
      ['sold_at', 'timestamptz'],
      ['delivered_at', 'timestamptz'],
      ['salesperson', 'text'],
      ['contract_type', 'contract_type'],
      ['vehicle_condition', 'vehicle_condition'],
      ['vin', 'text'],
      ['vehicle_year', 'int'],
      ['vehicle_make', 'text'],
      ['vehicle_model', 'text'],
      ['sale_price', 'numeric'],
      ['front_gross', 'numeric'],
      ['back_gross', 'numeric'],
      ['amount_financed', 'numeric'],
      ['trade_in_value', 'numeric'],
      ['trade_in_vin', 'text'],
      ['customer_name', 'text'],
      ['customer_email', 'text'],
      ['customer_phone', 'text'],
    ],
  },
};

function upsertSql(spec: TableSpec, withProvider: boolean): string {
  const names = spec.columns.map(([name]) => name);
  // Enum columns arrive as text from jsonb_to_recordset and are cast on the way in.
  const recordset = spec.columns
    .map(
      ([name, type]) =>
        `${name} ${['text', 'timestamptz', 'int', 'boolean', 'numeric'].includes(type) ? type : 'text'}`,
    )
    .join(', ');
  const selected = spec.columns
    .map(([name, type]) =>
      ['text', 'timestamptz', 'int', 'boolean', 'numeric'].includes(type) ? `u.${name}` : `u.${name}::${type}`,
    )
    .join(', ');
  const changed = names.filter((name) => !spec.key.includes(name));
  return `/* feedUpsert_${spec.table} */ INSERT INTO ${spec.table} (id, dealer_group_id, dealer_id, ${withProvider ? 'provider, ' : ''}${names.join(', ')}, created_at, updated_at)
    SELECT gen_random_uuid(), $2, $3, ${withProvider ? '$4, ' : ''}${selected}, now(), now() FROM jsonb_to_recordset($1::jsonb) AS u(${recordset})
    ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET ${changed.map((name) => `${name} = excluded.${name}`).join(', ')}, dealer_id = excluded.dealer_id, updated_at = now()
    WHERE (${changed.map((name) => `${spec.table}.${name}`).join(', ')}, ${spec.table}.dealer_id) IS DISTINCT FROM (${changed.map((name) => `excluded.${name}`).join(', ')}, excluded.dealer_id)
    RETURNING (xmax = 0) AS inserted`;
}

const SQL = {
  calls: upsertSql(SPECS.calls, true),
  leads: upsertSql(SPECS.leads, true),
  sales: upsertSql(SPECS.sales, false),
};

export async function upsertActivity(
  client: pg.PoolClient,
  target: 'calls' | 'leads' | 'sales',
  feed: ActivityFeed,
  records: Array<CallRecord | LeadRecord | SaleRecord>,
): Promise<UpsertCounts> {
  if (!records.length) return { created: 0, updated: 0, unchanged: 0 };
  // The last of several rows with one key wins, as it would row by row (one statement may not touch a row twice).
  const keyOf = (record: Record<string, unknown>) =>
    String(target === 'sales' ? record.deal_number : record.external_id);
  const unique = [
    ...new Map(records.map((record) => [keyOf(record as unknown as Record<string, unknown>), record])).values(),
  ];
  const params = [
    JSON.stringify(unique),
    feed.dealerGroupId,
    feed.dealerId,
    ...(target === 'sales' ? [] : [feed.provider]),
  ];
  const result = await client.query<{ inserted: boolean }>(SQL[target], params);
  const created = result.rows.filter((row) => row.inserted).length;
  const updated = result.rows.length - created;
  return { created, updated, unchanged: records.length - created - updated };
}
