import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { mergeRecords, type SourcePriority, type SourceRecord } from '../modules/multi-source/merge';
import type { MergedField } from '../modules/inventory/vehicle-fields';
import { withCheckDigit } from '../modules/inventory/vin';
import { refreshDealerConflicts } from '../modules/multi-source/conflicts';
import { inTransaction, insertRows } from '../db/bulk';
import { CATALOG, EXTERIOR_COLORS, INTERIOR_COLORS, type MakeSpec } from './catalog';

/** Builds a realistic dealer group: rooftops and vehicles whose sources sometimes disagree. */

/** Small deterministic PRNG (mulberry32), so the same seed builds the same data set. */
export function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (probability: number) => next() < probability,
  };
}
type Random = ReturnType<typeof random>;

const YEAR_CODES: Record<number, string> = {
  2014: 'E',
  2015: 'F',
  2016: 'G',
  2017: 'H',
  2018: 'J',
  2019: 'K',
  2020: 'L',
  2021: 'M',
  2022: 'N',
  2023: 'P',
  2024: 'R',
  2025: 'S',
  2026: 'T',
  2027: 'V',
};
const VIN_CHARS = 'ABCDEFGHJKLMNPRSTUVWXYZ0123456789';

export function makeVin(rng: Random, wmi: string, year: number): string {
  let vds = '';
  for (let index = 0; index < 5; index += 1) vds += rng.pick([...VIN_CHARS]);
  const plant = rng.pick([...VIN_CHARS]);
  const serial = String(rng.int(0, 999_999)).padStart(6, '0');
  return withCheckDigit(`${wmi}${vds}0${YEAR_CODES[year] ?? 'T'}${plant}${serial}`);
}

export const DEMO_ROOFTOPS = [
  {
    name: 'Summit Toyota North',
    code: 'STN',
    city: 'Denver',
    state: 'CO',
    postalCode: '80221',
    phone: '+13035550101',
    website: 'https://www.summittoyotanorth.example',
    franchise: 'Toyota',
  },
  {
    name: 'Summit Honda Downtown',
    code: 'SHD',
    city: 'Denver',
    state: 'CO',
    postalCode: '80202',
    phone: '+13035550102',
    website: 'https://www.summithonda.example',
    franchise: 'Honda',
  },
  {
    name: 'Summit Ford Westside',
    code: 'SFW',
    city: 'Lakewood',
    state: 'CO',
    postalCode: '80226',
    phone: '+13035550103',
    website: 'https://www.summitfordwest.example',
    franchise: 'Ford',
  },
  {
    name: 'Summit Chevrolet Aurora',
    code: 'SCA',
    city: 'Aurora',
    state: 'CO',
    postalCode: '80012',
    phone: '+13035550104',
    website: 'https://www.summitchevy.example',
    franchise: 'Chevrolet',
  },
];

/** Which source a field trusts first: the DMS for price and mileage, the inventory tool for photos. */
export const DEFAULT_PRIORITY: SourcePriority = {
  price: ['dms', 'website', 'inventory_feed'],
  internet_price: ['website', 'inventory_feed', 'dms'],
  photos: ['inventory_feed', 'website'],
  mileage: ['dms', 'inventory_feed', 'website'],
  '*': ['dms', 'inventory_feed', 'website'],
};

interface Rooftop {
  id: string;
  franchise: string;
}

interface BuiltVehicle {
  row: unknown[];
  sources: unknown[][];
  changes: unknown[][];
}

const today = () => {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
};
const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);
const roundTo = (value: number, step: number) => Math.round(value / step) * step;

function buildVehicle(rng: Random, groupId: string, rooftop: Rooftop, vins: Set<string>): BuiltVehicle {
  const thisYear = new Date().getUTCFullYear();
  const isNew = rng.chance(0.55);
  const spec: MakeSpec = isNew
    ? (CATALOG.find((make) => make.make === rooftop.franchise) ?? rng.pick(CATALOG))
    : rng.pick(CATALOG);
  const model = rng.pick(spec.models);
  const trimIndex = rng.int(0, model.trims.length - 1);
  const year = isNew ? rng.pick([thisYear, thisYear, thisYear + 1]) : rng.int(thisYear - 9, thisYear - 1);
  let vin = makeVin(rng, rng.pick(spec.wmi), Math.min(year, 2027));
  while (vins.has(vin)) vin = makeVin(rng, rng.pick(spec.wmi), Math.min(year, 2027));
  vins.add(vin);
  const age = Math.max(0, thisYear - year);
  const msrp = roundTo(model.msrp * (1 + trimIndex * 0.09) * (1 + (year - 2020) * 0.02), 5);
  const condition = isNew ? 'new' : rng.chance(0.25) && age <= 5 ? 'certified' : 'used';
  const mileage = isNew ? rng.int(2, 45) : Math.max(800, Math.round(age * rng.int(8000, 15000) + rng.int(-3000, 3000)));
  const value = isNew
    ? msrp * (0.94 + rng.next() * 0.06)
    : msrp * Math.pow(0.9, age) * (1 - Math.min(0.25, mileage / 600000));
  const price = roundTo(value, 100) - (rng.chance(0.6) ? 5 : 0);
  const internetPrice = price - roundTo(rng.int(0, 1200), 100);
  const daysInStock = Math.floor(Math.pow(rng.next(), 1.6) * 160);
  const dateInStock = today() - daysInStock * 86_400_000;
  const roll = rng.next();
  const status = roll < 0.17 ? 'sold' : roll < 0.25 ? 'pending' : isNew && roll < 0.3 ? 'in_transit' : 'available';
  const soldAt =
    status === 'sold'
      ? new Date(dateInStock + rng.int(0, Math.max(0, daysInStock)) * 86_400_000 + rng.int(9, 19) * 3_600_000)
      : null;
  const [color, colorMarketing] = rng.pick(EXTERIOR_COLORS);
  const interior = rng.pick(INTERIOR_COLORS);
  const stockNumber = `${isNew ? 'N' : 'U'}${String(rng.int(10000, 99999))}${String.fromCharCode(65 + rng.int(0, 25))}`;
  const photos = Array.from(
    { length: rng.int(8, 24) },
    (_, index) => `https://img.summitauto.example/${vin}/${index + 1}.jpg`,
  );

  const base: Partial<Record<MergedField, unknown>> = {
    stock_number: stockNumber,
    year,
    make: spec.make,
    model: model.model,
    trim: model.trims[trimIndex],
    body_style: model.body,
    condition,
    mileage,
    exterior_color: color,
    interior_color: interior,
    msrp: msrp.toFixed(2),
    price: price.toFixed(2),
    internet_price: internetPrice.toFixed(2),
    status,
    date_in_stock: isoDay(dateInStock),
  };
  const seen = (hoursAgo: number) => new Date(Date.now() - hoursAgo * 3_600_000);
  const records: SourceRecord[] = [
    { source: 'dms', data: { ...base, internet_price: undefined }, seenAt: seen(rng.int(1, 20)) },
  ];
  if (rng.chance(0.9)) {
    records.push({
      source: 'inventory_feed',
      seenAt: seen(rng.int(1, 30)),
      data: {
        ...base,
        exterior_color: rng.chance(0.4) ? colorMarketing : color,
        mileage: rng.chance(0.1) ? mileage + rng.int(5, 400) : mileage,
        photos,
      },
    });
  }
  if (rng.chance(0.6)) {
    records.push({
      source: 'website',
      seenAt: seen(rng.int(2, 48)),
      data: {
        ...base,
        price: rng.chance(0.15) ? (price + roundTo(rng.int(-800, 800), 100)).toFixed(2) : base.price,
        photos: photos.slice(0, 6),
        stock_number: undefined,
      },
    });
  }
  const merged = mergeRecords(records, DEFAULT_PRIORITY);
  const values = merged.values;
  const id = randomUUID();
  const updatedAt = new Date(Math.max(...records.map((record) => record.seenAt.getTime())));
  const row = [
    id,
    groupId,
    rooftop.id,
    vin,
    values.stock_number ?? null,
    values.year,
    values.make,
    values.model,
    values.trim ?? null,
    values.body_style ?? null,
    values.condition,
    values.mileage ?? null,
    values.exterior_color ?? null,
    values.interior_color ?? null,
    values.msrp ?? null,
    values.price ?? null,
    values.internet_price ?? null,
    values.status,
    values.date_in_stock,
    soldAt,
    (values.photos as string[] | undefined) ?? [],
    JSON.stringify(merged.fieldSources),
    new Date(dateInStock),
    updatedAt,
  ];
  const sources = records.map((record) => [
    randomUUID(),
    id,
    record.source,
    JSON.stringify(record.data),
    record.seenAt,
  ]);
  const changes: unknown[][] = [];
  let current = price + roundTo(rng.int(0, 3) * 500, 100);
  const priceChanges = rng.chance(0.4) ? rng.int(1, 3) : 0;
  for (let step = 0; step < priceChanges; step += 1) {
    const next = step === priceChanges - 1 ? price : current - roundTo(rng.int(2, 10) * 100, 100);
    if (next === current) continue;
    changes.push([
      randomUUID(),
      id,
      'price',
      JSON.stringify(current.toFixed(2)),
      JSON.stringify(next.toFixed(2)),
      'dms',
      new Date(dateInStock + ((step + 1) * (daysInStock + 1) * 86_400_000) / (priceChanges + 1)),
    ]);
    current = next;
  }
  if (soldAt)
    changes.push([randomUUID(), id, 'status', JSON.stringify('available'), JSON.stringify('sold'), 'dms', soldAt]);
  return { row, sources, changes };
}

const VEHICLE_COLUMNS = [
  'id',
  'dealer_group_id',
  'dealer_id',
  'vin',
  'stock_number',
  'year',
  'make',
  'model',
  'trim',
  'body_style',
  'condition',
  'mileage',
  'exterior_color',
  'interior_color',
  'msrp',
  'price',
  'internet_price',
  'status',
  'date_in_stock',
  'sold_at',
  'photos',
  'field_sources',
  'created_at',
  'updated_at',
];
const VEHICLE_CASTS: Record<string, string> = {
  condition: '::vehicle_condition',
  status: '::vehicle_status',
  field_sources: '::jsonb',
  date_in_stock: '::date',
};

/** Creates a dealer group with its rooftops and `vehicles` vehicles; returns the group id. */
export async function seedDealerGroup(
  pool: pg.Pool,
  options: { name: string; slug: string; vehicles: number; seed?: number },
): Promise<string> {
  const rng = random(options.seed ?? 20261121);
  return inTransaction(pool, async (client) => {
    const groupId = randomUUID();
    await client.query('INSERT INTO dealer_groups (id, name, slug, updated_at) VALUES ($1, $2, $3, now())', [
      groupId,
      options.name,
      options.slug,
    ]);
    const rooftops: Rooftop[] = [];
    for (const rooftop of DEMO_ROOFTOPS) {
      const id = randomUUID();
      await client.query(
        `INSERT INTO dealers (id, dealer_group_id, name, code, street, city, state, postal_code, phone, website, time_zone, source_priority, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'America/Denver', $11, now())`,
        [
          id,
          groupId,
          rooftop.name,
          rooftop.code,
          `${rng.int(100, 9999)} ${rng.pick(['Federal Blvd', 'Colfax Ave', 'Wadsworth Blvd', 'Havana St'])}`,
          rooftop.city,
          rooftop.state,
          rooftop.postalCode,
          rooftop.phone,
          rooftop.website,
          JSON.stringify(DEFAULT_PRIORITY),
        ],
      );
      rooftops.push({ id, franchise: rooftop.franchise });
    }
    const vins = new Set<string>();
    const batch = 2000;
    for (let start = 0; start < options.vehicles; start += batch) {
      const built = Array.from({ length: Math.min(batch, options.vehicles - start) }, () =>
        buildVehicle(rng, groupId, rng.pick(rooftops), vins),
      );
      await insertRows(
        client,
        'vehicles',
        VEHICLE_COLUMNS,
        built.map((vehicle) => vehicle.row),
        VEHICLE_CASTS,
      );
      await insertRows(
        client,
        'vehicle_source_records',
        ['id', 'vehicle_id', 'source', 'data', 'seen_at', 'updated_at'],
        built.flatMap((vehicle) => vehicle.sources.map((source) => [...source, source[4]])),
        { data: '::jsonb' },
      );
      await insertRows(
        client,
        'vehicle_changes',
        ['id', 'vehicle_id', 'field', 'old_value', 'new_value', 'source', 'changed_at'],
        built.flatMap((vehicle) => vehicle.changes),
        { old_value: '::jsonb', new_value: '::jsonb' },
      );
    }
    // Where the demo's sources disagree (they do, on purpose), the conflicts list shows it.
    await client.query('ANALYZE vehicles, vehicle_source_records');
    for (const rooftop of rooftops) await refreshDealerConflicts(client, rooftop.id);
    return groupId;
  });
}
