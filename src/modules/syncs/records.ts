import { normalizeVin, vinProblem } from '../inventory/vin';
import { isEmailAddress, toE164 } from '../../validation';
import type { MergedField } from '../inventory/vehicle-fields';
import type { VehicleData, VehicleRecord } from '../multi-source/merge';
import { cleanText, flag, isBlank, money, timestamp, wholeNumber, type Target } from '../field-mapping/fields';

/** Turns a mapped source row into a typed record of its target, or names the first field that is wrong. */

export class RowProblem extends Error {
  constructor(
    readonly field: string | null,
    message: string,
  ) {
    super(message);
  }
}

type Row = Record<string, unknown>;

function read<T>(row: Row, field: string, parse: (value: unknown) => T): T {
  try {
    return parse(row[field]);
  } catch (error) {
    throw new RowProblem(field, (error as Error).message);
  }
}

function required<T>(row: Row, field: string, parse: (value: unknown) => T | null): T {
  const value = read(row, field, parse);
  if (value === null || value === undefined) throw new RowProblem(field, 'is required');
  return value;
}

const CONDITIONS: Record<string, 'new' | 'used' | 'certified'> = {
  n: 'new',
  new: 'new',
  u: 'used',
  used: 'used',
  preowned: 'used',
  'pre-owned': 'used',
  c: 'certified',
  cpo: 'certified',
  certified: 'certified',
  'certified pre-owned': 'certified',
  'certified preowned': 'certified',
};
const STATUSES: Record<string, string> = {
  available: 'available',
  'in stock': 'available',
  instock: 'available',
  active: 'available',
  a: 'available',
  'for sale': 'available',
  pending: 'pending',
  deposit: 'pending',
  'sale pending': 'pending',
  hold: 'pending',
  p: 'pending',
  'in transit': 'in_transit',
  in_transit: 'in_transit',
  transit: 'in_transit',
  'on order': 'in_transit',
  t: 'in_transit',
  sold: 'sold',
  s: 'sold',
  delivered: 'sold',
};

const lookup =
  <T>(table: Record<string, T>, what: string) =>
  (value: unknown): T | null => {
    if (isBlank(value)) return null;
    const found = table[String(value).trim().toLowerCase()];
    if (!found)
      throw new Error(
        `"${String(value).trim()}" is not a known ${what} (${[...new Set(Object.values(table))].join(', ')})`,
      );
    return found;
  };

const MAX_PRICE = 2_000_000;
function price(field: string, row: Row): string | null {
  const value = read(row, field, money);
  if (value === null) return null;
  const amount = Number(value);
  if (amount <= 0) throw new RowProblem(field, `${value} is not a price: must be above zero`);
  if (amount < 500) throw new RowProblem(field, `${value} looks wrong for a vehicle price (under 500)`);
  if (amount > MAX_PRICE) throw new RowProblem(field, `${value} looks wrong for a vehicle price (over ${MAX_PRICE})`);
  return value;
}

const isoDay = (date: Date) => date.toISOString().slice(0, 10);

export function vehicleRecord(row: Row, today = new Date()): VehicleRecord {
  const rawVin = required(row, 'vin', (value) => cleanText(value, 40));
  const problem = vinProblem(rawVin);
  if (problem) throw new RowProblem('vin', `${rawVin}: ${problem}`);
  const maxYear = today.getUTCFullYear() + 2;
  const year = required(row, 'year', wholeNumber);
  if (year < 1900 || year > maxYear) throw new RowProblem('year', `${year} is outside 1900-${maxYear}`);
  const mileage = read(row, 'mileage', wholeNumber);
  if (mileage !== null && (mileage < 0 || mileage > 1_500_000))
    throw new RowProblem('mileage', `${mileage} is outside 0-1500000`);
  let dateInStock = read(row, 'date_in_stock', timestamp);
  const daysInStock = read(row, 'days_in_stock', wholeNumber);
  if (!dateInStock && daysInStock !== null && daysInStock >= 0)
    dateInStock = new Date(today.getTime() - daysInStock * 86_400_000);
  if (dateInStock && dateInStock.getTime() > today.getTime() + 86_400_000)
    throw new RowProblem('date_in_stock', `${isoDay(dateInStock)} is in the future`);
  const photos = isBlank(row.photos)
    ? []
    : Array.isArray(row.photos)
      ? row.photos.map(String)
      : String(row.photos)
          .split(/[|,;\s]+/)
          .filter((url) => /^https?:\/\//i.test(url));
  const fields: Record<MergedField, unknown> = {
    stock_number: cleanText(row.stock_number, 40),
    year,
    make: required(row, 'make', (value) => cleanText(value, 60)),
    model: required(row, 'model', (value) => cleanText(value, 80)),
    trim: cleanText(row.trim, 80),
    body_style: cleanText(row.body_style, 60),
    // A new vehicle with no mileage still needs a condition: a few miles means new.
    condition:
      read(row, 'condition', lookup(CONDITIONS, 'condition')) ??
      (mileage !== null ? (mileage < 500 ? 'new' : 'used') : null),
    mileage,
    exterior_color: cleanText(row.exterior_color, 60),
    interior_color: cleanText(row.interior_color, 60),
    msrp: price('msrp', row),
    price: price('price', row),
    internet_price: price('internet_price', row),
    status: read(row, 'status', lookup(STATUSES, 'status')),
    date_in_stock: dateInStock ? isoDay(dateInStock) : null,
    photos: photos.length ? photos.slice(0, 100) : null,
  };
  // Only the fields the row gives, added one by one (deleting the others would leave V8 a slow
  // dictionary object for every later step: merge, comparison, JSON).
  const data: VehicleData = {};
  for (const key in fields) {
    const value = fields[key as MergedField];
    if (value !== null) (data as Record<string, unknown>)[key] = value;
  }
  return { vin: normalizeVin(rawVin), data };
}

export interface CallRecord {
  external_id: string;
  started_at: Date;
  duration_seconds: number;
  direction: 'inbound' | 'outbound';
  status: 'answered' | 'missed' | 'voicemail';
  caller_number: string | null;
  tracking_number: string | null;
  raw_source: string | null;
  campaign: string | null;
  first_time_caller: boolean;
  recording_url: string | null;
  department: string | null;
}

/** Phone numbers as the API stores them (E.164), by the same rule as its own inputs. */
const phone = (value: unknown): string | null => {
  if (isBlank(value)) return null;
  const normalized = toE164(String(value));
  if (!normalized) throw new Error(`"${String(value).trim()}" is not a phone number; use 10 digits or +country code`);
  return normalized;
};

/** "3:25", "0:03:25" and "205" are all 205 seconds. */
const duration = (value: unknown): number | null => {
  if (isBlank(value)) return null;
  const text = String(value).trim();
  if (/^\d+(:\d{1,2}){1,2}$/.test(text)) return text.split(':').reduce((total, part) => total * 60 + Number(part), 0);
  return wholeNumber(text);
};

export function callRecord(row: Row): CallRecord {
  const status = read(
    row,
    'status',
    lookup<CallRecord['status']>(
      {
        answered: 'answered',
        completed: 'answered',
        'answered call': 'answered',
        missed: 'missed',
        'missed call': 'missed',
        'no answer': 'missed',
        abandoned: 'missed',
        voicemail: 'voicemail',
        'voice mail': 'voicemail',
        'left voicemail': 'voicemail',
      },
      'call status',
    ),
  );
  const seconds = required(row, 'duration_seconds', duration);
  if (seconds < 0 || seconds > 86_400) throw new RowProblem('duration_seconds', `${seconds} is outside 0-86400`);
  return {
    external_id: required(row, 'external_id', (value) => cleanText(value, 100)),
    started_at: required(row, 'started_at', timestamp),
    duration_seconds: seconds,
    direction:
      read(
        row,
        'direction',
        lookup<CallRecord['direction']>(
          {
            inbound: 'inbound',
            in: 'inbound',
            incoming: 'inbound',
            outbound: 'outbound',
            out: 'outbound',
            outgoing: 'outbound',
          },
          'direction',
        ),
      ) ?? 'inbound',
    status: status ?? (seconds > 0 ? 'answered' : 'missed'),
    caller_number: read(row, 'caller_number', phone),
    tracking_number: read(row, 'tracking_number', phone),
    raw_source: cleanText(row.raw_source, 200),
    campaign: cleanText(row.campaign, 200),
    first_time_caller: read(row, 'first_time_caller', flag) ?? false,
    recording_url: cleanText(row.recording_url, 1000),
    department: cleanText(row.department, 100),
  };
}

export interface LeadRecord {
  external_id: string;
  received_at: Date;
  type: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  vehicle_year: number | null;
  vehicle_make: string | null;
  vehicle_model: string | null;
  vehicle_vin: string | null;
  raw_source: string | null;
  comments: string | null;
}

export function leadRecord(row: Row, defaultType: string): LeadRecord {
  const email = cleanText(row.email, 200)?.toLowerCase() ?? null;
  if (email && !isEmailAddress(email)) throw new RowProblem('email', `"${email}" is not an email address`);
  const rawVin = cleanText(row.vehicle_vin, 40);
  const vin = rawVin && !vinProblem(rawVin) ? normalizeVin(rawVin) : null;
  const record: LeadRecord = {
    external_id: required(row, 'external_id', (value) => cleanText(value, 200)),
    received_at: required(row, 'received_at', timestamp),
    type:
      read(
        row,
        'type',
        lookup(
          {
            new: 'new',
            used: 'used',
            service: 'service',
            finance: 'finance',
            'trade-in': 'trade_in',
            trade_in: 'trade_in',
            tradein: 'trade_in',
          },
          'lead type',
        ),
      ) ?? defaultType,
    first_name: cleanText(row.first_name, 100),
    last_name: cleanText(row.last_name, 100),
    email,
    phone: read(row, 'phone', phone),
    vehicle_year: read(row, 'vehicle_year', wholeNumber),
    vehicle_make: cleanText(row.vehicle_make, 60),
    vehicle_model: cleanText(row.vehicle_model, 80),
    vehicle_vin: vin,
    raw_source: cleanText(row.raw_source, 200),
    comments: cleanText(row.comments, 4000),
  };
  if (!record.email && !record.phone) throw new RowProblem('email', 'a lead needs an email or a phone number');
  return record;
}

export interface SaleRecord {
  deal_number: string;
  sold_at: Date;
  delivered_at: Date | null;
  salesperson: string;
  contract_type: string;
  vehicle_condition: string;
  vin: string | null;
  vehicle_year: number | null;
  vehicle_make: string | null;
  vehicle_model: string | null;
  sale_price: string;
  front_gross: string;
  back_gross: string;
  amount_financed: string | null;
  trade_in_value: string | null;
  trade_in_vin: string | null;
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string | null;
}

export function saleRecord(row: Row): SaleRecord {
  const rawVin = cleanText(row.vin, 40);
  if (rawVin && vinProblem(rawVin)) throw new RowProblem('vin', `${rawVin}: ${vinProblem(rawVin)}`);
  const salePrice = required(row, 'sale_price', money);
  if (Number(salePrice) <= 0) throw new RowProblem('sale_price', `${salePrice} must be above zero`);
  return {
    deal_number: required(row, 'deal_number', (value) => cleanText(value, 60)),
    sold_at: required(row, 'sold_at', timestamp),
    delivered_at: read(row, 'delivered_at', timestamp),
    salesperson: required(row, 'salesperson', (value) => cleanText(value, 100)),
    contract_type: required(
      row,
      'contract_type',
      lookup(
        {
          cash: 'cash',
          finance: 'finance',
          retail: 'finance',
          financed: 'finance',
          lease: 'lease',
          l: 'lease',
          f: 'finance',
          c: 'cash',
        },
        'deal type',
      ),
    ),
    vehicle_condition: required(row, 'vehicle_condition', lookup(CONDITIONS, 'condition')),
    vin: rawVin ? normalizeVin(rawVin) : null,
    vehicle_year: read(row, 'vehicle_year', wholeNumber),
    vehicle_make: cleanText(row.vehicle_make, 60),
    vehicle_model: cleanText(row.vehicle_model, 80),
    sale_price: salePrice,
    front_gross: read(row, 'front_gross', money) ?? '0.00',
    back_gross: read(row, 'back_gross', money) ?? '0.00',
    amount_financed: read(row, 'amount_financed', money),
    trade_in_value: read(row, 'trade_in_value', money),
    trade_in_vin: cleanText(row.trade_in_vin, 40),
    customer_name: cleanText(row.customer_name, 200),
    customer_email: cleanText(row.customer_email, 200)?.toLowerCase() ?? null,
    customer_phone: read(row, 'customer_phone', phone),
  };
}

/** Which record builder a target uses. */
export type TypedRecord = VehicleRecord | CallRecord | LeadRecord | SaleRecord;
export function toRecord(target: Target, row: Row, options: { defaultLeadType?: string } = {}): TypedRecord {
  switch (target) {
    case 'vehicles':
      return vehicleRecord(row);
    case 'calls':
      return callRecord(row);
    case 'leads':
      return leadRecord(row, options.defaultLeadType ?? 'used');
    case 'sales':
      return saleRecord(row);
  }
}
