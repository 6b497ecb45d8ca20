import type { ActivityRow, AssistantQuery, QueryResult, VehicleRow } from './query';

/** Plain sentences for a query's result, naming what was counted and citing the VINs or figures it rests on. */

const dollars = (value: number) =>
  `$${value.toLocaleString('en-US', { minimumFractionDigits: 0, maximumFractionDigits: 0 })}`;
const number = (value: number) => value.toLocaleString('en-US');
const one = (value: number, digits = 1) => value.toLocaleString('en-US', { maximumFractionDigits: digits });

const BODY_PLURALS: Record<string, string> = {
  suv: 'SUVs',
  truck: 'trucks',
  pickup: 'pickups',
  sedan: 'sedans',
  coupe: 'coupes',
  minivan: 'minivans',
  van: 'vans',
  wagon: 'wagons',
  hatchback: 'hatchbacks',
  convertible: 'convertibles',
};
const list = (items: string[], joiner = 'or'): string =>
  items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} ${joiner} ${items.at(-1)}`;

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const dayName = (iso: string) => {
  const [year, month, date] = iso.split('-').map(Number);
  return { year: year!, month: MONTH_NAMES[month! - 1] ?? '', date: date! };
};

/** A period in words: "on 21 November 2026", "1–22 November 2026", "from 2026-10-01 to 2026-11-22". */
/** Rows of a list by their place ("Number 3 of 16", "Number 3 to 5 of 16"). */
const placed = (offset: number, shown: number, count: number) =>
  `Number ${number(offset + 1)}${shown > 1 ? ` to ${number(offset + shown)}` : ''} of ${number(count)}`;

/** A lead, call or deal as a line of an answer. */
const activityLine = (row: ActivityRow) =>
  `${row.at.toISOString().slice(0, 16).replace('T', ' ')} UTC, ${row.dealer_name}: ${row.label}${row.source ? ` via ${row.source}` : ''} (${row.detail})`;

/** How a vehicle is said to be without a value ("without an internet price"). */
const MISSING_WORDS: Record<string, string> = {
  price: 'a price',
  internet_price: 'an internet price',
  msrp: 'an MSRP',
  photos: 'photos',
  mileage: 'a mileage',
  trim: 'a trim',
  color: 'a colour',
};

/** A vehicle list's order, said: "longest on the lot", "latest stocked in", "lowest price". */
function listOrder(name: string, order: 'asc' | 'desc' | undefined): string {
  if (name === 'days_on_lot') return order === 'asc' ? 'latest stocked in' : 'longest on the lot';
  if (name === 'newest') return 'latest';
  const label = (FIELD_WORDS[name] ?? FIELD_WORDS.price!).label;
  return order === 'asc' ? `lowest ${label}` : `highest ${label}`;
}

export function period(from: string | undefined, to: string | undefined): string | null {
  const days = /^\d{4}-\d{2}-\d{2}$/;
  if (from && to && days.test(from) && days.test(to)) {
    const [start, end] = [dayName(from), dayName(to)];
    if (from === to) return `on ${start.date} ${start.month} ${start.year}`;
    if (start.year === end.year && start.month === end.month)
      return `${start.date}–${end.date} ${end.month} ${end.year}`;
    return `from ${from} to ${to}`;
  }
  if (from && to) return `from ${from} to ${to}`;
  if (from) return `since ${from}`;
  if (to) return `up to ${to}`;
  return null;
}

/**
 * A bound on money as the question said it: "at $30,000 or less", or "under $30,000" for a strict bound
 * (read as a cent inside it: "over 4k" is 4,000.01 or more).
 */
const moneyBound = (value: number, side: 'min' | 'max', lead: 'at' | 'of') =>
  Number.isInteger(value)
    ? `${lead} ${dollars(value)} or ${side === 'min' ? 'more' : 'less'}`
    : side === 'min'
      ? `over ${dollars(value - 0.01)}`
      : `under ${dollars(value + 0.01)}`;

const capitalised = (text: string) => `${text[0]!.toUpperCase()}${text.slice(1)}`;

/** "used white Toyota SUVs under $30,000 at Summit Toyota North"; "deals by Sam Lee, 1–22 November 2026". */
export function describe(query: AssistantQuery, dealerNames: Map<string, string>, plural = true): string {
  const f = query.filters;
  if (query.subject !== 'vehicles') {
    const noun = plural
      ? { leads: 'leads', calls: 'calls', sales: 'deals' }[query.subject]
      : { leads: 'lead', calls: 'call', sales: 'deal' }[query.subject];
    const kind = [
      ...(f.status?.length ? [list(f.status.map((status) => status.replace('_', ' ')))] : []),
      ...(f.type ?? []).map((type) => `${type.replace('_', '-')}`),
      ...(f.first_time ? ['first-time'] : []),
      ...(query.subject === 'calls' && f.direction ? [f.direction] : []),
      ...(query.subject === 'calls' && f.department ? [`${f.department}-department`] : []),
      ...(query.subject === 'sales' && f.condition ? f.condition : []),
      ...(query.subject === 'sales' && f.contract_type?.length ? [list(f.contract_type)] : []),
      ...(f.year_min && f.year_min === f.year_max ? [String(f.year_min)] : []),
      ...(f.make ?? []),
      ...(f.model?.length ? [list(f.model)] : []),
    ];
    // "Deal D100199": one deal by its number.
    const parts = [f.deal_number ? `deal ${f.deal_number}` : `${kind.length ? `${kind.join(' ')} ` : ''}${noun}`];
    if (f.year_min !== undefined && f.year_max !== undefined && f.year_min !== f.year_max)
      parts.push(`for model years ${f.year_min}–${f.year_max}`);
    else if (f.year_min !== undefined && f.year_min !== f.year_max) parts.push(`for model year ${f.year_min} or later`);
    else if (f.year_max !== undefined && f.year_min !== f.year_max)
      parts.push(`for model year ${f.year_max} or earlier`);
    if (f.salesperson) parts.push(query.subject === 'sales' ? `by ${f.salesperson}` : `assigned to ${f.salesperson}`);
    if (query.subject === 'leads' && f.unassigned) parts.push('with no salesperson assigned');
    if (query.subject === 'sales' && f.unassigned) parts.push('with no salesperson');
    if (f.source) parts.push(`from ${f.source}`);
    if (f.sources?.length) parts.push(`from ${f.sources.join(' or ')}`);
    if (f.exclude_source?.length) parts.push(`not from ${f.exclude_source.join(' or ')}`);
    if (f.attributed !== undefined) parts.push(f.attributed ? 'with a source' : 'with no source');
    if (f.source_category?.length)
      parts.push(`from ${list(f.source_category.map((kind) => kind.replaceAll('_', ' ')))} sources`);
    if (f.price_min !== undefined && f.price_max !== undefined)
      parts.push(`between ${dollars(f.price_min)} and ${dollars(f.price_max)}`);
    else if (f.price_max !== undefined) parts.push(`at ${dollars(f.price_max)} or less`);
    else if (f.price_min !== undefined) parts.push(`at ${dollars(f.price_min)} or more`);
    const gross = (f.gross_field ?? 'total_gross').replace('_', ' ');
    if (f.gross_min !== undefined) parts.push(`with ${gross} ${moneyBound(f.gross_min, 'min', 'of')}`);
    if (f.gross_max !== undefined) parts.push(`with ${gross} ${moneyBound(f.gross_max, 'max', 'of')}`);
    if (query.subject === 'calls' && f.duration_min !== undefined)
      parts.push(
        `of at least ${f.duration_min % 60 === 0 && f.duration_min > 0 ? `${f.duration_min / 60} min` : `${f.duration_min} s`}`,
      );
    if (f.dealer_id?.length) parts.push(`at ${list(f.dealer_id.map((id) => dealerNames.get(id) ?? 'a rooftop'))}`);
    const when = period(f.from, f.to);
    // "deals by Sam Lee, 1–22 November 2026": a range of days reads apart from the names before it.
    if (when) return `${parts.join(' ')}${/^\d/.test(when) ? ',' : ''} ${when}`;
    return parts.join(' ');
  }
  // Vehicles over a period are those sold in it: "used vehicles sold 1–31 October 2026".
  const when = period(f.from, f.to);
  const soldWhen = when !== null && f.status?.length === 1 && f.status[0] === 'sold';
  const adjectives = [
    ...(f.status?.length && !soldWhen ? f.status.map((status) => status.replace('_', ' ')) : []),
    ...(f.condition ?? []),
    ...(f.color ?? []),
    ...(f.year_min && f.year_min === f.year_max ? [String(f.year_min)] : []),
    ...(f.make?.length ? [list(f.make)] : []),
    ...(f.model?.length ? [list(f.model)] : []),
    ...(f.trim?.length ? [list(f.trim)] : []),
  ];
  const body = f.body_style?.length
    ? list([
        ...new Set(f.body_style.map((style) => (plural ? (BODY_PLURALS[style.toLowerCase()] ?? `${style}s`) : style))),
      ])
    : plural
      ? 'vehicles'
      : 'vehicle';
  const parts = [[...adjectives, body].join(' ')];
  if (f.stock_number) parts.push(`with stock number ${f.stock_number}`);
  if (f.vin) parts.push(`with VIN ${f.vin}`);
  if (f.exclude_make?.length) parts.push(`other than ${list(f.exclude_make)}`);
  if (f.price_min !== undefined && f.price_max !== undefined)
    parts.push(`between ${dollars(f.price_min)} and ${dollars(f.price_max)}`);
  else if (f.price_max !== undefined) parts.push(moneyBound(f.price_max, 'max', 'at'));
  else if (f.price_min !== undefined) parts.push(moneyBound(f.price_min, 'min', 'at'));
  if (f.days_on_lot_min !== undefined)
    parts.push(f.days_on_lot_min > 0 ? `on the lot more than ${f.days_on_lot_min - 1} days` : 'on the lot');
  if (f.days_on_lot_max !== undefined) parts.push(`on the lot ${f.days_on_lot_max} days or less`);
  if (f.mileage_max !== undefined) parts.push(`with ${number(f.mileage_max)} miles or fewer`);
  if (f.mileage_min !== undefined) parts.push(`with ${number(f.mileage_min)} miles or more`);
  if (f.year_min !== undefined && f.year_max !== undefined && f.year_min !== f.year_max)
    parts.push(`from model years ${f.year_min}–${f.year_max}`);
  else if (f.year_min !== undefined && f.year_min !== f.year_max) parts.push(`from model year ${f.year_min} on`);
  else if (f.year_max !== undefined && f.year_min !== f.year_max)
    parts.push(`from model year ${f.year_max} or earlier`);
  if (f.missing?.length) parts.push(`without ${list(f.missing.map((name) => MISSING_WORDS[name] ?? name))}`);
  if (f.dealer_id?.length) parts.push(`at ${list(f.dealer_id.map((id) => dealerNames.get(id) ?? 'a rooftop'))}`);
  const stocked = period(f.stocked_from, f.stocked_to);
  if (stocked) parts.push(`stocked in ${stocked.replace(/^on /, '')}`);
  if (soldWhen) return `${parts.join(' ')} sold ${when}`;
  if (when) return `${parts.join(' ')}${/^\d/.test(when) ? ',' : ''} ${when}`;
  return parts.join(' ');
}

const vehicleLine = (vehicle: VehicleRow) =>
  `${vehicle.year} ${vehicle.make} ${vehicle.model}${vehicle.trim ? ` ${vehicle.trim}` : ''} at ${vehicle.dealer_name}: ${vehicle.price ? dollars(Number(vehicle.price)) : 'no price'}, ${vehicle.days_on_lot} days on the lot${vehicle.mileage !== null ? `, ${number(vehicle.mileage)} miles` : ''} (VIN ${vehicle.vin})`;

const FIELD_WORDS: Record<string, { label: string; format: (value: number) => string }> = {
  price: { label: 'price', format: dollars },
  msrp: { label: 'MSRP', format: dollars },
  internet_price: { label: 'internet price', format: dollars },
  days_on_lot: { label: 'days on the lot', format: (value) => `${one(value)} days` },
  days_to_sell: { label: 'days to sell (from stock-in to sale)', format: (value) => `${one(value)} days` },
  mileage: { label: 'mileage', format: (value) => `${number(Math.round(value))} miles` },
  year: { label: 'model year', format: (value) => one(value, 0) },
  sale_price: { label: 'sale price', format: dollars },
  front_gross: { label: 'front gross', format: dollars },
  back_gross: { label: 'back gross', format: dollars },
  total_gross: { label: 'total gross', format: dollars },
  amount_financed: { label: 'amount financed', format: dollars },
  duration: { label: 'answered-call duration', format: (value) => `${one(value)} seconds` },
  duration_minutes: { label: 'answered-call duration (minutes)', format: (value) => `${one(value)} minutes` },
};

const RATE_WORDS: Record<string, { title: string; counted: string; of: string; note?: string }> = {
  sold: {
    title: 'Close rate',
    counted: 'sold',
    of: 'leads',
    note: 'A lead counts as sold when it is linked to a deal or its status is sold.',
  },
  answered: { title: 'Answer rate', counted: 'answered', of: 'calls' },
  missed: { title: 'Missed-call rate', counted: 'missed', of: 'calls' },
  voicemail: { title: 'Voicemail rate', counted: 'sent to voicemail', of: 'calls' },
};

/** The group with the highest (or lowest) figure; the first of equals, in the order shown. */
/** The group at one end of a ranking: the lowest or the highest figure. */
export const extreme = <T>(groups: T[], figure: (group: T) => number, lowest: boolean): T =>
  groups.reduce((best, group) =>
    lowest ? (figure(group) < figure(best) ? group : best) : figure(group) > figure(best) ? group : best,
  );

/** What a figure rests on when the words asked for are not a column of their own. */
function notesOf(query: AssistantQuery): string[] {
  return query.subject === 'leads' && query.filters.status?.includes('appointment')
    ? [
        'An appointment is counted as a lead whose status is appointment, on the day the lead came in (the data holds no date for the appointment itself).',
      ]
    : [];
}

/** What a ranking left out: the rows with no group ("42 leads with no source are not ranked."). */
function unrankedLine(result: QueryResult, groupWord: string): string[] {
  const unranked = result.unranked ?? 0;
  if (!unranked) return [];
  const noun = { vehicles: 'vehicles', leads: 'leads', calls: 'calls', sales: 'deals' }[result.query.subject];
  return [
    `${number(unranked)} ${unranked === 1 ? noun.replace(/s$/, '') : noun} with no ${groupWord} ${unranked === 1 ? 'is' : 'are'} not ranked.`,
  ];
}

/** What a share is of: the part's rooftops (every rooftop's with `whole_of_group`) and period, and `whole_filters`. */
const wholeOf = (query: AssistantQuery, dealerNames: Map<string, string>) =>
  describe(
    {
      ...query,
      filters: {
        ...query.whole_filters,
        ...(query.whole_of_group ? {} : { dealer_id: query.filters.dealer_id }),
        from: query.filters.from,
        to: query.filters.to,
      },
    },
    dealerNames,
  );
/** A part's share of its whole in percent, to one decimal (0 of nothing). */
const shareOf = (part: number, whole: number | null) => (whole ? Math.round((part / whole) * 1000) / 10 : 0);

export interface Composed {
  text: string;
  figures: Array<{ label: string; value: string }>;
}

export function compose(result: QueryResult, dealerNames: Map<string, string>): Composed {
  const { query } = result;
  const field = FIELD_WORDS[query.field ?? 'price'] ?? FIELD_WORDS.price!;
  // "Cheapest of those" after the 5 latest in: of those 5 only.
  const within = query.within;
  const what = within
    ? `${describe(query, dealerNames)} among the ${number(within.limit)} ${listOrder(within.field, within.order)}`
    : describe(query, dealerNames);
  const figures: Composed['figures'] = [{ label: `${what}: count`, value: String(result.count) }];
  // The one record asked for by what the DMS calls it ("Deal D100199:", "Vehicle with stock number …:").
  const oneRecord =
    result.count === 1 && !!(query.filters.deal_number || query.filters.stock_number || query.filters.vin);
  const lines: string[] = [];
  const inStock =
    query.subject === 'vehicles' &&
    !query.filters.status?.length &&
    !query.filters.stock_number &&
    !query.filters.vin &&
    query.filters.days_on_lot_min === undefined &&
    query.filters.days_on_lot_max === undefined &&
    !within
      ? query.filters.stocked_from || query.filters.stocked_to
        ? ' and still in stock'
        : ' in stock'
      : '';

  if (query.group_by) {
    const groupWord = {
      dealer: 'rooftop',
      make: 'make',
      body_style: 'body style',
      condition: 'condition',
      source: 'source',
      status: 'status',
      type: 'type',
      salesperson: 'salesperson',
      model: 'model',
      contract_type: 'contract type',
      trim: 'trim',
      color: 'colour',
      year: 'model year',
      age: 'days on the lot',
      department: 'department',
    }[query.group_by];
    if (query.measure === 'rate') {
      const rate = RATE_WORDS[query.field ?? 'sold'] ?? RATE_WORDS.sold!;
      lines.push(`${rate.title} of ${what} by ${groupWord}:`);
      for (const group of result.groups) {
        lines.push(
          `- ${group.label}: ${group.value === null ? 'no ' + rate.of : `${one(group.value)}%`} (${number(group.part ?? 0)} of ${number(group.count)} ${rate.counted})`,
        );
        figures.push({ label: group.label, value: group.value === null ? 'none' : String(group.value) });
      }
      if (!result.groups.length) lines.push(`- none`);
      else if (result.groups.length > 1)
        lines.push(
          `${query.order === 'asc' ? 'Lowest' : 'Highest'}: ${extreme(result.groups, (group) => group.value ?? 0, query.order === 'asc').label}.`,
        );
      lines.push(...unrankedLine(result, groupWord));
      if (rate.note) lines.push(rate.note);
      return { text: lines.join('\n'), figures };
    }
    const valued = query.measure !== 'count' && query.measure !== 'list';
    // "How many different models": how many groups first, then the groups.
    if (query.distinct && !valued) {
      const kinds = result.groups.filter((group) => group.key !== null).length;
      const plural =
        groupWord === 'body style' ? 'body styles' : groupWord === 'salesperson' ? 'salespeople' : `${groupWord}s`;
      figures.unshift({ label: `${what}: different ${plural}`, value: String(kinds) });
      lines.push(
        `${number(kinds)} different ${kinds === 1 ? groupWord : plural} among ${number(result.count)} ${what}${inStock}:`,
      );
    } else
      lines.push(
        `${what[0]!.toUpperCase()}${what.slice(1)}${inStock} by ${groupWord}${valued ? `, ${query.measure === 'average' ? 'average' : query.measure} ${field.label}` : ''}:`,
      );
    for (const group of result.groups) {
      lines.push(
        `- ${group.label}: ${number(group.count)}${valued && group.value !== null ? ` (${field.format(group.value)})` : ''}`,
      );
      figures.push({
        label: `${group.label}${valued ? ` ${field.label}` : ''}`,
        value: valued && group.value !== null ? String(group.value) : String(group.count),
      });
    }
    if (!result.groups.length) lines.push(`- none${inStock}`);
    else if (result.groups.length > 1) {
      // "Which store has the fewest leads?" asks for the other end of the same ranking.
      const fewest = query.order === 'asc';
      // Named groups lead: "unattributed" lumps many sources together and is no answer to "which had the most".
      const named = result.groups.filter((group) => group.key !== null);
      const ranked = named.length ? named : result.groups;
      const top = valued
        ? extreme(ranked, (group) => group.value ?? 0, query.measure === 'min' || fewest)
        : extreme(ranked, (group) => group.count, fewest);
      lines.push(
        valued
          ? `${query.measure === 'min' || fewest ? 'Lowest' : 'Highest'}: ${top.label}.`
          : `${fewest ? 'Fewest' : 'Most'}: ${top.label} with ${number(top.count)} of ${number(result.count)}.`,
      );
    }
    return { text: [...lines, ...unrankedLine(result, groupWord), ...notesOf(query)].join('\n'), figures };
  }

  switch (query.measure) {
    case 'rate': {
      const rate = RATE_WORDS[query.field ?? 'sold'] ?? RATE_WORDS.sold!;
      lines.push(
        result.value === null
          ? `${rate.title} of ${what}: there are none to rate.`
          : `${rate.title} of ${what}: ${one(result.value)}% (${number(result.part ?? 0)} of ${number(result.count)} ${rate.counted}).`,
      );
      if (rate.note) lines.push(rate.note);
      figures.push({ label: 'rate (%)', value: result.value === null ? 'none' : String(result.value) });
      figures.push({ label: rate.counted, value: String(result.part ?? 0) });
      break;
    }
    case 'count': {
      lines.push(
        result.count === 0
          ? `You have no ${what}${inStock}.`
          : `You have ${number(result.count)} ${result.count === 1 ? describe(query, dealerNames, false) : what}${inStock}.`,
      );
      if (result.whole !== undefined) {
        const whole = wholeOf(query, dealerNames);
        const percent = shareOf(result.count, result.whole);
        lines[lines.length - 1] =
          `${lines.at(-1)!.slice(0, -1)}: ${one(percent)}% of your ${number(result.whole)} ${whole}${inStock}.`;
        figures.push(
          { label: 'share (%)', value: String(percent) },
          { label: `${whole}: count`, value: String(result.whole) },
        );
      }
      if (result.vehicles.length) {
        lines.push(
          result.count <= result.vehicles.length ? 'They are:' : `The ${result.vehicles.length} longest on the lot:`,
        );
        for (const vehicle of result.vehicles) lines.push(`- ${vehicleLine(vehicle)}`);
      }
      if (result.activity.length) {
        lines.push(result.count <= result.activity.length ? 'They are:' : `The latest ${result.activity.length}:`);
        for (const row of result.activity) lines.push(`- ${activityLine(row)}`);
      }
      break;
    }
    case 'average':
    case 'sum': {
      if (result.value === null)
        lines.push(`There are no ${what}${inStock} to ${query.measure === 'sum' ? 'add up' : 'average'}.`);
      else if (query.measure === 'sum' && result.whole_value !== undefined) {
        // "What proportion of this month's revenue came from the Honda store": the part, its share, the whole.
        const whole = wholeOf(query, dealerNames);
        const percent = shareOf(result.value ?? 0, result.whole_value);
        lines.push(
          `The ${field.label.startsWith('total ') ? '' : 'total '}${field.label} of ${what}${inStock} is ${field.format(result.value)}: ${one(percent)}% of the ${field.format(result.whole_value ?? 0)} of your ${whole}${inStock}.`,
        );
        figures[0] = { label: `${what}: sum ${field.label}`, value: String(result.value) };
        figures.push(
          { label: 'share (%)', value: String(percent) },
          { label: `${whole}: sum ${field.label}`, value: String(result.whole_value ?? 0) },
        );
        break;
      } else if (query.measure === 'sum' && result.count === 1 && query.filters.deal_number)
        // "Amt financed on it?" after deal D100199: its figure.
        lines.push(`The ${field.label.replace(/^total /, '')} of ${what} is ${field.format(result.value)}.`);
      else if (query.measure === 'sum')
        lines.push(
          `The ${field.label.startsWith('total ') ? '' : 'total '}${field.label} of ${what}${inStock} is ${field.format(result.value)} (${number(result.count)} ${query.subject === 'vehicles' ? 'vehicles' : 'records'}).`,
        );
      else
        lines.push(
          `The average ${field.label} of ${what}${inStock} is ${field.format(result.value)}, across ${number(result.count)} ${query.subject === 'vehicles' ? 'vehicles' : query.subject === 'sales' ? 'deals' : query.subject}.`,
        );
      figures.push({
        label: `${query.measure} ${field.label}`,
        value: result.value === null ? 'none' : String(result.value),
      });
      break;
    }
    case 'max':
    case 'min': {
      const extreme =
        query.measure === 'max'
          ? {
              price: 'most expensive',
              days_on_lot: 'longest on the lot',
              days_to_sell: 'slowest to sell',
              mileage: 'highest-mileage',
              year: 'newest model year',
            }[query.field ?? 'price']
          : {
              price: 'least expensive',
              days_on_lot: 'newest arrival',
              days_to_sell: 'quickest to sell',
              mileage: 'lowest-mileage',
              year: 'oldest model year',
            }[query.field ?? 'price'];
      if (result.value === null) lines.push(`There are no ${what}${inStock}.`);
      else if (query.subject === 'vehicles') {
        const [first, ...others] = result.vehicles;
        lines.push(
          `The ${extreme ?? `${query.measure} ${field.label}`} of your ${what}${inStock}${first ? ` is the ${vehicleLine(first)}` : ''}.`,
        );
        if (others.length)
          lines.push(
            `Tied at ${field.format(result.value)}: ${others.map((vehicle) => `${vehicle.year} ${vehicle.make} ${vehicle.model} (VIN ${vehicle.vin})`).join('; ')}.`,
          );
      } else {
        lines.push(
          `The ${query.measure === 'max' ? 'highest' : 'lowest'} ${field.label} among ${what} is ${field.format(result.value)}${result.activity[0] ? `: ${result.activity[0].label} at ${result.activity[0].dealer_name} on ${result.activity[0].at.toISOString().slice(0, 10)} (${result.activity[0].detail})` : ''}.`,
        );
      }
      figures.push({
        label: `${query.measure} ${field.label}`,
        value: result.value === null ? 'none' : String(result.value),
      });
      break;
    }
    case 'list': {
      if (!result.count) {
        lines.push(`You have no ${what}${inStock}.`);
        break;
      }
      if (query.subject === 'vehicles') {
        const ordered = listOrder(query.field ?? 'days_on_lot', query.order);
        const order = `${ordered} first`;
        const offset = query.offset ?? 0;
        // "Cheapest of those": the one, said as such.
        const theOne = /^(?:lowest|highest) /.test(ordered) ? `the one with the ${ordered}` : `the one ${ordered}`;
        lines.push(
          offset
            ? `${placed(offset, result.vehicles.length, result.count)} ${what}${inStock}, ${order}:`
            : query.limit === 1 && result.count > 1
              ? `Of ${number(result.count)} ${what}${inStock}, ${theOne}:`
              : oneRecord
                ? `${capitalised(describe(query, dealerNames, false))}:`
                : `${result.count > result.vehicles.length ? `The first ${result.vehicles.length} of ${number(result.count)}` : `All ${number(result.count)}`} ${what}${inStock}, ${order}:`,
        );
        if (!result.vehicles.length) lines.push('- none (the list is shorter)');
        for (const vehicle of result.vehicles) lines.push(`- ${vehicleLine(vehicle)}`);
        // One vehicle asked for ("the third one", "what's the oldest one priced at"): its figures.
        const [only] = result.vehicles;
        if (only && result.vehicles.length === 1 && query.limit === 1) {
          const its = [
            { name: 'price', label: 'price', value: only.price ?? 'none' },
            { name: 'mileage', label: 'mileage', value: only.mileage === null ? 'none' : String(only.mileage) },
            { name: 'days_on_lot', label: 'days on the lot', value: String(only.days_on_lot) },
          ];
          // "Whats the miles on it": that figure first, and said.
          const asked = its.find((figure) => figure.name === query.asked);
          if (asked) {
            lines.push(
              `Its ${asked.label}: ${asked.value === 'none' ? 'not recorded' : asked.name === 'price' ? dollars(Number(asked.value)) : asked.name === 'mileage' ? `${number(Number(asked.value))} miles` : `${asked.value} days`}.`,
            );
            its.sort((a, b) => Number(b === asked) - Number(a === asked));
          }
          figures.push(...its.map(({ label, value }) => ({ label, value })));
        }
      } else {
        const offset = query.offset ?? 0;
        lines.push(
          offset
            ? `${placed(offset, result.activity.length, result.count)} ${what}, newest first:`
            : oneRecord
              ? `${capitalised(describe(query, dealerNames, false))}:`
              : `${result.count > result.activity.length ? `The latest ${result.activity.length} of ${number(result.count)}` : `All ${number(result.count)}`} ${what}:`,
        );
        for (const row of result.activity) lines.push(`- ${activityLine(row)}`);
      }
      break;
    }
  }
  return { text: [...lines, ...notesOf(query)].join('\n'), figures };
}

export const CAPABILITIES =
  'I answer from your own data: counts and lists of vehicles with filters ("how many used SUVs under $30k"), averages and extremes ("average days on lot for Toyota", "avg days to sell a used car", "most expensive car at the north store"), comparisons across rooftops, leads, calls and deals by source, rooftop, salesperson and period ("leads by source last month", "deals by Sam Lee this month"), close rates and answer rates ("close rate by source", "answer rate last week").';
