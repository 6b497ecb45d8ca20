import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { random } from './demo';
import { inTransaction, insertRows } from '../db/bulk';
import type { Db } from '../db/database';
import { linkLeadsAndCalls } from '../modules/sales/sales.service';
import { enrich } from '../modules/sources/sources.service';

/** Calls, leads, sales and a source directory for a seeded dealer group, with raw sources spelled as real feeds spell them. */

/** Canonical sources and the spellings feeds use for them (some mapped up front, the rest left for the work queue). */
export const DEMO_SOURCES = [
  {
    name: 'Google Ads',
    category: 'paid_search',
    channel: 'Google',
    color: '#4285f4',
    cost: 6000,
    spellings: ['Google Ads', 'google-ads', 'GOOGLE ADWORDS', 'Google PPC', 'adwords', 'google cpc'],
    mapped: 2,
  },
  {
    name: 'Google Organic',
    category: 'organic_search',
    channel: 'Google',
    color: '#34a853',
    cost: null,
    spellings: ['Google Organic', 'google / organic', 'SEO'],
    mapped: 2,
  },
  {
    name: 'Cars.com',
    category: 'third_party_listing',
    channel: 'Cars.com',
    color: '#6d28d9',
    cost: 2500,
    spellings: ['Cars.com', 'CARS.COM', 'cars com', 'Cars Dot Com', 'carscom'],
    mapped: 3,
  },
  {
    name: 'CarGurus',
    category: 'third_party_listing',
    channel: 'CarGurus',
    color: '#0ea5e9',
    cost: 2200,
    spellings: ['CarGurus', 'Car Gurus', 'cargurus.com', 'CG Lead'],
    mapped: 1,
  },
  {
    name: 'Autotrader',
    category: 'third_party_listing',
    channel: 'Autotrader',
    color: '#f97316',
    cost: 1800,
    spellings: ['Autotrader', 'AutoTrader.com', 'auto trader', 'ATC'],
    mapped: 2,
  },
  {
    name: 'Facebook',
    category: 'social',
    channel: 'Meta',
    color: '#1877f2',
    cost: 1200,
    spellings: ['Facebook', 'FB Marketplace', 'facebook ads', 'Meta Leads'],
    mapped: 1,
  },
  {
    name: 'OEM Website',
    category: 'oem',
    channel: 'Manufacturer',
    color: '#111827',
    cost: null,
    spellings: ['OEM Lead', 'toyota.com', 'Honda Digital', 'Manufacturer Site'],
    mapped: 1,
  },
  {
    name: 'Walk-in',
    category: 'walk_in',
    channel: 'Showroom',
    color: '#a3a3a3',
    cost: null,
    spellings: ['Walk In', 'walk-in', 'Showroom', 'Fresh Up'],
    mapped: 2,
  },
  {
    name: 'Referral',
    category: 'referral',
    channel: 'Word of mouth',
    color: '#22c55e',
    cost: null,
    spellings: ['Referral', 'Friend referral', 'repeat customer'],
    mapped: 1,
  },
] as const;

const PROVIDERS = ['callrail', 'ctm'];
const SALESPEOPLE = ['Alex Rivera', 'Sam Lee', 'Jordan Patel', 'Morgan Diaz', 'Casey Nguyen', 'Taylor Brooks'];
const FIRST = [
  'Ana',
  'Ben',
  'Carla',
  'Dev',
  'Elena',
  'Frank',
  'Grace',
  'Hugo',
  'Iris',
  'Jamal',
  'Kim',
  'Luis',
  'Maya',
  'Noah',
  'Olga',
  'Priya',
];
const LAST = ['Garcia', 'Smith', 'Nguyen', 'Johnson', 'Patel', 'Brown', 'Martinez', 'Lee', 'Walker', 'Hernandez'];

export async function seedActivity(
  pool: pg.Pool,
  options: { dealerGroupId: string; calls: number; leads: number; sales: number; seed?: number },
): Promise<void> {
  const rng = random(options.seed ?? 7);
  await inTransaction(pool, async (client) => {
    const { rows: dealers } = await client.query<{ id: string }>(
      'SELECT id FROM dealers WHERE dealer_group_id = $1 ORDER BY code',
      [options.dealerGroupId],
    );
    const { rows: vins } = await client.query<{
      vin: string;
      year: number;
      make: string;
      model: string;
      dealer_id: string;
      price: string | null;
      condition: string;
    }>(
      `SELECT vin, year, make::text, model::text, dealer_id, price::text, condition::text FROM vehicles WHERE dealer_group_id = $1 AND status = 'sold' LIMIT 5000`,
      [options.dealerGroupId],
    );
    for (const source of DEMO_SOURCES) {
      const id = randomUUID();
      await client.query(
        `INSERT INTO sources (id, dealer_group_id, name, category, channel, color, cost_per_month, updated_at) VALUES ($1,$2,$3,$4::source_category,$5,$6,$7,now())`,
        [id, options.dealerGroupId, source.name, source.category, source.channel, source.color, source.cost],
      );
      for (const spelling of source.spellings.slice(0, source.mapped)) {
        await client.query(
          `INSERT INTO source_mappings (id, dealer_group_id, source_id, match, raw_value, normalized) VALUES ($1,$2,$3,'exact',$4,$5)`,
          [
            randomUUID(),
            options.dealerGroupId,
            id,
            spelling,
            spelling
              .toLowerCase()
              .replace(/[^a-z0-9]+/g, ' ')
              .trim(),
          ],
        );
      }
    }
    const spellings = DEMO_SOURCES.flatMap((source) => source.spellings);
    const now = Date.now();
    const day = 86_400_000;
    const customers = Array.from({ length: Math.max(50, Math.floor(options.leads * 0.8)) }, (_, index) => {
      const first = rng.pick(FIRST);
      const last = rng.pick(LAST);
      return {
        name: `${first} ${last}`,
        email: `${first}.${last}${index}@example.com`.toLowerCase(),
        phone: `+1303${String(5550000 + index).slice(-7)}`,
      };
    });

    const sales = Array.from({ length: options.sales }, (_, index) => {
      const vehicle = vins.length ? rng.pick(vins) : null;
      const customer = rng.pick(customers);
      const price = Number(vehicle?.price ?? 25_000 + rng.int(0, 20_000));
      const contract = rng.pick(['finance', 'finance', 'finance', 'cash', 'lease']);
      return [
        randomUUID(),
        options.dealerGroupId,
        vehicle?.dealer_id ?? rng.pick(dealers).id,
        `D${100000 + index}`,
        new Date(now - rng.int(0, 180) * day - rng.int(0, 36_000_000)),
        rng.pick(SALESPEOPLE),
        contract,
        vehicle?.condition ?? 'used',
        vehicle?.vin ?? null,
        vehicle?.year ?? null,
        vehicle?.make ?? null,
        vehicle?.model ?? null,
        price.toFixed(2),
        (price * (0.02 + rng.next() * 0.06)).toFixed(2),
        rng.int(0, 2500).toFixed(2),
        contract === 'cash' ? null : (price * 0.85).toFixed(2),
        customer.name,
        customer.email,
        customer.phone,
      ];
    });
    await insertRows(
      client,
      'sales',
      [
        'id',
        'dealer_group_id',
        'dealer_id',
        'deal_number',
        'sold_at',
        'salesperson',
        'contract_type',
        'vehicle_condition',
        'vin',
        'vehicle_year',
        'vehicle_make',
        'vehicle_model',
        'sale_price',
        'front_gross',
        'back_gross',
        'amount_financed',
        'customer_name',
        'customer_email',
        'customer_phone',
        'updated_at',
      ],
      sales.map((row) => [...row, new Date()]),
      { contract_type: '::contract_type', vehicle_condition: '::vehicle_condition' },
    );

    const leads = Array.from({ length: options.leads }, (_, index) => {
      const customer = rng.pick(customers);
      const [first, last] = customer.name.split(' ');
      const roll = rng.next();
      const status =
        roll < 0.3
          ? 'new'
          : roll < 0.55
            ? 'contacted'
            : roll < 0.7
              ? 'appointment'
              : roll < 0.8
                ? 'showed'
                : roll < 0.88
                  ? 'sold'
                  : 'lost';
      return [
        randomUUID(),
        options.dealerGroupId,
        rng.pick(dealers).id,
        rng.pick(['adf', 'elead', 'vinsolutions']),
        `L${index}`,
        new Date(now - rng.int(0, 200) * day - rng.int(0, 36_000_000)),
        rng.pick(['new', 'used', 'used', 'service', 'finance', 'trade_in']),
        status,
        first,
        last,
        rng.chance(0.9) ? customer.email : null,
        rng.chance(0.7) ? customer.phone : null,
        rng.pick(spellings),
        status === 'new' ? null : rng.pick(SALESPEOPLE),
        new Date(),
      ];
    });
    await insertRows(
      client,
      'leads',
      [
        'id',
        'dealer_group_id',
        'dealer_id',
        'provider',
        'external_id',
        'received_at',
        'type',
        'status',
        'first_name',
        'last_name',
        'email',
        'phone',
        'raw_source',
        'assignee',
        'updated_at',
      ],
      leads,
      { type: '::lead_type', status: '::lead_status' },
    );

    const calls: unknown[][] = [];
    for (let index = 0; calls.length < options.calls; index += 1) {
      const customer = rng.pick(customers);
      const started = new Date(now - rng.int(0, 120) * day - rng.int(0, 36_000_000));
      const roll = rng.next();
      const status = roll < 0.72 ? 'answered' : roll < 0.88 ? 'missed' : 'voicemail';
      const duration = status === 'answered' ? rng.int(20, 900) : status === 'voicemail' ? rng.int(10, 60) : 0;
      const dealerId = rng.pick(dealers).id;
      const rawSource = rng.pick(spellings);
      const provider = rng.pick(PROVIDERS);
      const row = [
        randomUUID(),
        options.dealerGroupId,
        dealerId,
        provider,
        `${provider}-${index}`,
        started,
        duration,
        rng.chance(0.92) ? 'inbound' : 'outbound',
        status,
        customer.phone,
        `+1720555${String(rng.int(1000, 9999))}`,
        rawSource,
        rng.pick(['Spring Sale', 'Truck Month', 'Service Special', null]),
        rng.chance(0.4),
        status === 'missed' ? null : `https://recordings.summitauto.example/${provider}/${index}.mp3`,
        rng.pick(['sales', 'sales', 'service', 'parts']),
        new Date(),
      ];
      calls.push(row);
      // Some calls are tracked by both providers: the same call, a few seconds apart.
      if (rng.chance(0.08) && calls.length < options.calls) {
        const other = provider === 'callrail' ? 'ctm' : 'callrail';
        calls.push([
          randomUUID(),
          options.dealerGroupId,
          dealerId,
          other,
          `${other}-dup-${index}`,
          new Date(started.getTime() + rng.int(1, 40) * 1000),
          Math.max(0, duration - rng.int(0, 5)),
          row[7],
          status,
          customer.phone,
          row[10],
          rng.pick(spellings),
          row[12],
          row[13],
          row[14],
          row[15],
          new Date(),
        ]);
      }
    }
    await insertRows(
      client,
      'calls',
      [
        'id',
        'dealer_group_id',
        'dealer_id',
        'provider',
        'external_id',
        'started_at',
        'duration_seconds',
        'direction',
        'status',
        'caller_number',
        'tracking_number',
        'raw_source',
        'campaign',
        'first_time_caller',
        'recording_url',
        'department',
        'updated_at',
      ],
      calls,
      { direction: '::call_direction', status: '::call_status' },
    );
  });
  // Fresh statistics, so enrichment and linking right after a bulk load get hash joins.
  await pool.query('ANALYZE sources, source_mappings, sales, leads, calls');
}

/** What syncs do after loading activity: resolve raw sources through the mappings, link leads and calls to deals. */
export async function resolveAndLink(db: Db, dealerGroupId: string): Promise<void> {
  await enrich(db, [dealerGroupId], 'calls', {});
  await enrich(db, [dealerGroupId], 'leads', {});
  await linkLeadsAndCalls(db, [dealerGroupId]);
}
