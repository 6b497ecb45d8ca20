/** The fields each kind of feed fills, the header spellings they go by, and how raw cells become typed values. */

export const TARGETS = ['vehicles', 'calls', 'leads', 'sales'] as const;
export type Target = (typeof TARGETS)[number];

/** Lower case, letters and digits only: "Stock #" and "stock_no" become "stock" and "stockno". */
export const headerKey = (header: string) =>
  header
    .toLowerCase()
    .replace(/#/g, '')
    .replace(/[^a-z0-9]/g, '');
/** A header as a rule-friendly field name: "Days In Inventory" → "days_in_inventory". */
export const snakeName = (header: string) =>
  header
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64) || 'column';

/** Per target, each field and the header spellings (as headerKey gives them) that mean it. */
export const FIELD_SYNONYMS: Record<Target, Record<string, readonly string[]>> = {
  vehicles: {
    vin: ['vin', 'vinnumber', 'vehiclevin', 'vinno'],
    stock_number: ['stock', 'stocknumber', 'stockno', 'stocknum', 'stk', 'stkno', 'stocknbr'],
    year: ['year', 'modelyear', 'yr', 'vehicleyear'],
    make: ['make', 'manufacturer', 'brand', 'vehiclemake'],
    model: ['model', 'modelname', 'vehiclemodel'],
    trim: ['trim', 'series', 'trimlevel', 'modeltrim'],
    body_style: ['body', 'bodystyle', 'bodytype', 'style'],
    condition: [
      'type',
      'condition',
      'newused',
      'neworused',
      'newusedcpo',
      'vehiclecondition',
      'stocktype',
      'vehicletype',
    ],
    mileage: ['miles', 'mileage', 'odometer', 'odo', 'odometerreading'],
    exterior_color: ['extcolor', 'exteriorcolor', 'color', 'colour', 'extcolour', 'exterior', 'exteriorcolour'],
    interior_color: ['intcolor', 'interiorcolor', 'interior', 'intcolour', 'interiorcolour'],
    msrp: ['msrp', 'sticker', 'stickerprice', 'retailprice', 'listprice', 'originalmsrp'],
    price: ['price', 'sellingprice', 'saleprice', 'askingprice', 'retail', 'dealerprice'],
    internet_price: ['internetprice', 'webprice', 'onlineprice', 'specialprice', 'eprice', 'advertisedprice'],
    status: ['status', 'vehiclestatus', 'stockstatus', 'inventorystatus'],
    date_in_stock: [
      'dateinstock',
      'instockdate',
      'datereceived',
      'received',
      'inventorydate',
      'stockdate',
      'dateadded',
      'indate',
    ],
    days_in_stock: ['daysininventory', 'daysinstock', 'age', 'daysonlot', 'inventoryage'],
    photos: ['imagelist', 'images', 'photos', 'photourls', 'imageurls', 'pictures', 'photourl', 'imageurl'],
  },
  calls: {
    external_id: ['callid', 'id', 'callidentifier', 'callsid'],
    started_at: ['starttime', 'calledat', 'datetime', 'calldate', 'date', 'startedat', 'calltime'],
    duration_seconds: ['duration', 'durationseconds', 'durations', 'talktime', 'callduration', 'durationsec'],
    direction: ['direction', 'calldirection'],
    status: ['callstatus', 'status', 'result', 'disposition'],
    caller_number: ['customerphonenumber', 'callernumber', 'caller', 'callerid', 'customerphone', 'phone', 'from'],
    tracking_number: ['trackingnumber', 'trackingphonenumber', 'dialednumber', 'to'],
    raw_source: ['source', 'trackingsource', 'sourcename', 'marketingsource'],
    campaign: ['campaign', 'campaignname'],
    first_time_caller: ['firsttimecaller', 'isnewcaller', 'newcaller', 'firstcall'],
    recording_url: ['recordingurl', 'recording', 'audio', 'audiourl'],
    department: ['department', 'company', 'group'],
  },
  leads: {
    external_id: ['leadid', 'id'],
    received_at: ['requestdate', 'receivedat', 'date'],
    type: ['type', 'leadtype'],
    first_name: ['firstname'],
    last_name: ['lastname'],
    email: ['email'],
    phone: ['phone'],
    vehicle_year: ['vehicleyear', 'year'],
    vehicle_make: ['vehiclemake', 'make'],
    vehicle_model: ['vehiclemodel', 'model'],
    vehicle_vin: ['vehiclevin', 'vin'],
    raw_source: ['source', 'provider', 'providername'],
    comments: ['comments', 'notes'],
  },
  sales: {
    deal_number: ['deal', 'dealnumber', 'dealno', 'dealid', 'dealnum'],
    sold_at: ['saledate', 'solddate', 'contractdate', 'dealdate', 'date'],
    delivered_at: ['deliverydate', 'delivereddate', 'deliveredat'],
    salesperson: ['salesperson', 'salesman', 'salesrep', 'salesperson1'],
    contract_type: ['dealtype', 'contracttype', 'financetype', 'salestype'],
    vehicle_condition: ['newused', 'type', 'vehicletype', 'condition'],
    vin: ['vin', 'vehiclevin'],
    vehicle_year: ['year', 'vehicleyear'],
    vehicle_make: ['make', 'vehiclemake'],
    vehicle_model: ['model', 'vehiclemodel'],
    sale_price: ['saleprice', 'sellingprice', 'price', 'cashprice'],
    front_gross: ['frontgross', 'frontendgross', 'front'],
    back_gross: ['backgross', 'backendgross', 'back', 'figross'],
    amount_financed: ['amountfinanced', 'amtfinanced', 'financedamount'],
    trade_in_value: ['tradeacv', 'tradeinvalue', 'tradevalue', 'tradeallowance'],
    trade_in_vin: ['tradevin', 'tradeinvin'],
    customer_name: ['customername', 'customer', 'buyername', 'buyer'],
    customer_email: ['customeremail', 'email', 'buyeremail'],
    customer_phone: ['customerphone', 'phone', 'buyerphone', 'homephone'],
  },
};

export const fieldsOf = (target: Target) => Object.keys(FIELD_SYNONYMS[target]);

/** The field a header means for a target, by exact synonym; null when none does. */
export function fieldForHeader(target: Target, header: string): string | null {
  const key = headerKey(header);
  for (const [field, synonyms] of Object.entries(FIELD_SYNONYMS[target])) {
    if (field.replace(/_/g, '') === key || synonyms.includes(key)) return field;
  }
  return null;
}

export const isBlank = (value: unknown) =>
  value === null || value === undefined || (typeof value === 'string' && value.trim() === '');

/** "$18,995" and "18995.5" → "18995.00"; null when blank; throws on text that is not an amount. */
export function money(value: unknown): string | null {
  if (isBlank(value)) return null;
  const text = String(value).trim();
  const negative = /^\(.*\)$/.test(text) || text.startsWith('-');
  const cleaned = text
    .replace(/[$,\s()]/g, '')
    .replace(/^-/, '')
    .replace(/^USD/i, '');
  if (!/^\d+(\.\d+)?$/.test(cleaned)) throw new Error(`"${text}" is not an amount`);
  return `${negative ? '-' : ''}${Number(cleaned).toFixed(2)}`;
}

export function wholeNumber(value: unknown): number | null {
  if (isBlank(value)) return null;
  const text = String(value)
    .trim()
    .replace(/[,\s]/g, '')
    .replace(/(mi|miles|km)$/i, '');
  if (!/^-?\d+(\.0+)?$/.test(text)) throw new Error(`"${String(value).trim()}" is not a whole number`);
  return Number.parseInt(text, 10);
}

/** ISO dates and times, US "11/3/2026" and "11/3/2026 2:05 PM"; times without a zone are UTC. */
export function timestamp(value: unknown): Date | null {
  if (isBlank(value)) return null;
  const text = String(value).trim();
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?\s*([AaPp][Mm])?)?$/.exec(text);
  let date: Date;
  if (us) {
    const [, month, day, rawYear, rawHour, minute, second, meridiem] = us;
    const year = rawYear!.length === 2 ? 2000 + Number(rawYear) : Number(rawYear);
    let hour = Number(rawHour ?? 0);
    if (meridiem) hour = (hour % 12) + (/p/i.test(meridiem) ? 12 : 0);
    date = new Date(Date.UTC(year, Number(month) - 1, Number(day), hour, Number(minute ?? 0), Number(second ?? 0)));
    if (date.getUTCMonth() !== Number(month) - 1) throw new Error(`"${text}" is not a date`);
  } else if (/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(text)) {
    date = new Date(
      /[T ]\d{2}:/.test(text) && !/(Z|[+-]\d{2}:?\d{2})$/.test(text) ? `${text.replace(' ', 'T')}Z` : text,
    );
  } else {
    throw new Error(`"${text}" is not a date (use 2026-11-03 or 11/3/2026)`);
  }
  if (Number.isNaN(date.getTime())) throw new Error(`"${text}" is not a date`);
  return date;
}

export function flag(value: unknown): boolean | null {
  if (isBlank(value)) return null;
  const text = String(value).trim().toLowerCase();
  if (['y', 'yes', 'true', '1', 't'].includes(text)) return true;
  if (['n', 'no', 'false', '0', 'f'].includes(text)) return false;
  throw new Error(`"${String(value).trim()}" is not yes or no`);
}

export const cleanText = (value: unknown, max = 500): string | null =>
  isBlank(value) ? null : String(value).trim().replace(/\s+/g, ' ').slice(0, max);
