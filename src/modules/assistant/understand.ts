import type { AssistantQuery, Grouping, Measure, QueryFilters, Subject } from './query';

/**
 * The built-in engine's reading of a question: deterministic rules over the words dealers use,
 * with the caller's own vocabulary (rooftops, makes, models, body styles, sources) so "the north
 * store", "Tacomas" or "Cars.com" resolve to their data. A follow-up ("and how many of those are
 * white?") starts from the previous question's query and changes only what it names.
 */

export interface Vocabulary {
  dealers: Array<{ id: string; name: string; city: string | null; code: string }>;
  makes: string[];
  models: string[];
  bodyStyles: string[];
  sources: string[];
}

export type Understanding = { query: AssistantQuery; followUp: boolean } | { query: null; reason: string };

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const word = (text: string) => new RegExp(`(?<![a-z0-9])${escape(text.toLowerCase())}(?:s|es|'s)?(?![a-z0-9])`, 'i');
const normalize = (text: string) => text.toLowerCase().replace(/[’`]/g, "'").replace(/\s+/g, ' ').trim();

/** Makes a question may name even when the caller stocks none ("how many Porsches?" is 0, not everything). */
const KNOWN_MAKES = [
  'Acura',
  'Alfa Romeo',
  'Audi',
  'BMW',
  'Buick',
  'Cadillac',
  'Chevrolet',
  'Chrysler',
  'Dodge',
  'Fiat',
  'Ford',
  'Genesis',
  'GMC',
  'Honda',
  'Hyundai',
  'Infiniti',
  'Jaguar',
  'Jeep',
  'Kia',
  'Land Rover',
  'Lexus',
  'Lincoln',
  'Mazda',
  'Mercedes-Benz',
  'Mini',
  'Mitsubishi',
  'Nissan',
  'Polestar',
  'Porsche',
  'Ram',
  'Rivian',
  'Subaru',
  'Tesla',
  'Toyota',
  'Volkswagen',
  'Volvo',
];

const MAKE_ALIASES: Record<string, string> = {
  chevy: 'Chevrolet',
  vw: 'Volkswagen',
  benz: 'Mercedes-Benz',
  mercedes: 'Mercedes-Benz',
};
const BODY_WORDS: Array<[RegExp, string[]]> = [
  [/\bsuvs?\b|\bcrossovers?\b/, ['SUV']],
  [/\btrucks?\b|\bpickups?\b/, ['Truck', 'Pickup']],
  [/\bsedans?\b/, ['Sedan']],
  [/\bcoupes?\b/, ['Coupe']],
  [/\bminivans?\b|\bvans?\b/, ['Minivan', 'Van']],
  [/\bwagons?\b/, ['Wagon']],
  [/\bhatchbacks?\b/, ['Hatchback']],
  [/\bconvertibles?\b/, ['Convertible']],
];
const COLORS = [
  'white',
  'black',
  'silver',
  'gray',
  'grey',
  'red',
  'blue',
  'green',
  'brown',
  'beige',
  'gold',
  'orange',
  'yellow',
  'purple',
];

const AMOUNT = String.raw`\$?\s*(\d[\d,]*(?:\.\d+)?)\s*(k|thousand|m)?`;
const amount = (digits: string, unit: string | undefined) =>
  Number(digits.replace(/,/g, '')) * (unit === 'k' || unit === 'thousand' ? 1000 : unit === 'm' ? 1_000_000 : 1);

const STRICT_BELOW = String.raw`under|below|less than|cheaper than|lower than|fewer than|<`;
const AT_MOST = String.raw`at most|no more than|up to|max(?:imum)?|or less`;
const STRICT_ABOVE = String.raw`over|above|more than|greater than|higher than|pricier than|longer than|older than|beyond|past|>`;
const AT_LEAST = String.raw`at least|min(?:imum)?|or more`;

const startOfUtcDay = (date: Date) => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
const isoDay = (date: Date) => date.toISOString().slice(0, 10);
const MONTHS = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/** A date range named in the question ("last 30 days", "this month", "in October"), as ISO days (UTC). */
export function dateRangeOf(q: string, now = new Date()): { from?: string; to?: string } | null {
  const today = startOfUtcDay(now);
  const daysAgo = (days: number) => new Date(today.getTime() - days * 86_400_000);
  if (/\btoday\b/.test(q)) return { from: isoDay(today), to: isoDay(today) };
  if (/\byesterday\b/.test(q)) return { from: isoDay(daysAgo(1)), to: isoDay(daysAgo(1)) };
  const last = /\b(?:last|past|previous)\s+(\d+)\s+(day|week|month)s?\b/.exec(q);
  if (last) {
    const span = Number(last[1]) * (last[2] === 'day' ? 1 : last[2] === 'week' ? 7 : 30);
    return { from: isoDay(daysAgo(span - 1)), to: isoDay(today) };
  }
  const weekday = (today.getUTCDay() + 6) % 7; // Monday = 0
  if (/\bthis week\b/.test(q)) return { from: isoDay(daysAgo(weekday)), to: isoDay(today) };
  if (/\blast week\b/.test(q)) return { from: isoDay(daysAgo(weekday + 7)), to: isoDay(daysAgo(weekday + 1)) };
  const monthStart = (year: number, month: number) => new Date(Date.UTC(year, month, 1));
  if (/\bthis month\b|\bmonth to date\b|\bmtd\b/.test(q))
    return { from: isoDay(monthStart(today.getUTCFullYear(), today.getUTCMonth())), to: isoDay(today) };
  if (/\blast month\b/.test(q)) {
    const start = monthStart(today.getUTCFullYear(), today.getUTCMonth() - 1);
    return {
      from: isoDay(start),
      to: isoDay(new Date(monthStart(today.getUTCFullYear(), today.getUTCMonth()).getTime() - 86_400_000)),
    };
  }
  if (/\bthis year\b|\bytd\b|\byear to date\b/.test(q))
    return { from: `${today.getUTCFullYear()}-01-01`, to: isoDay(today) };
  if (/\blast year\b/.test(q))
    return { from: `${today.getUTCFullYear() - 1}-01-01`, to: `${today.getUTCFullYear() - 1}-12-31` };
  const named = new RegExp(`\\b(?:in|during|for)\\s+(${MONTHS.join('|')})(?:\\s+(\\d{4}))?\\b`).exec(q);
  if (named) {
    const month = MONTHS.indexOf(named[1]!);
    const year = named[2]
      ? Number(named[2])
      : month > today.getUTCMonth()
        ? today.getUTCFullYear() - 1
        : today.getUTCFullYear();
    return {
      from: isoDay(monthStart(year, month)),
      to: isoDay(new Date(monthStart(year, month + 1).getTime() - 86_400_000)),
    };
  }
  return null;
}

function subjectOf(q: string, vocabulary: Vocabulary, mentionsVehicle: boolean): Subject | null {
  if (/\bleads?\b|\binquir(?:y|ies)\b|\bprospects?\b|\bsubmissions?\b/.test(q)) return 'leads';
  if (/\bcalls?\b|\bcallers?\b|\bphone\b|\bvoice ?mails?\b/.test(q)) return 'calls';
  if (/\bpresumed sold\b/.test(q)) return 'vehicles';
  if (
    /\bsales\b(?!\s*person)|\bsale price\b|\bdeals?\b|\bsold\b|\bunits sold\b|\bsell\b|\bsells\b|\bselling\b(?!\s*price)|\bdelivered\b|\bgross\b|\brevenue\b|\bsalespe(?:rson|ople)\b/.test(
      q,
    )
  )
    return 'sales';
  if (
    mentionsVehicle ||
    /\b(?:cars?|vehicles?|inventory|units?|stock|on the lot|in stock|on hand|priced?|prices|msrp|mileage|days on (?:the )?lot)\b/.test(
      q,
    )
  )
    return 'vehicles';
  // A make names vehicles, unless it names a rooftop ("the Honda store").
  return vocabulary.makes.some(
    (make) =>
      word(make).test(q) &&
      !new RegExp(`\\b${escape(make.toLowerCase())}\\s+(?:store|dealership|rooftop|location)\\b`).test(q),
  )
    ? 'vehicles'
    : null;
}

function measureOf(
  q: string,
  subject: Subject,
): { measure: Measure; field?: string; order?: 'asc' | 'desc'; limit?: number } | null {
  const listSize = (() => {
    const number =
      /\b(?:top|latest|last|recent|show me|list|give me)\s+(\d{1,2})\b/.exec(q) ??
      /\b(\d{1,2})\s+(?:most|least|cheapest|oldest|newest|priciest|highest|lowest|longest|latest|most recent)\b/.exec(
        q,
      );
    return number ? Number(number[1]) : undefined;
  })();
  const vehicles = subject === 'vehicles';
  const superlative = (measure: 'max' | 'min', field: string) =>
    listSize
      ? {
          measure: 'list' as const,
          field,
          order: measure === 'max' ? ('desc' as const) : ('asc' as const),
          limit: listSize,
        }
      : { measure, field };
  if (/\baverage\b|\bavg\b|\bmean\b|\btypical\b/.test(q)) return { measure: 'average', field: fieldOf(q, subject) };
  if (/\bhow many\b|\bnumber of\b|\bcount\b|\bhow much inventory\b/.test(q)) return { measure: 'count' };
  if (
    /\btotal (?:inventory )?value\b|\bworth\b|\bvalue of\b|\bsum of\b|\btotal (?:revenue|gross|sales volume)\b|\bhow much (?:revenue|gross)\b/.test(
      q,
    )
  ) {
    return { measure: 'sum', field: vehicles ? 'price' : (fieldOf(q, subject) ?? 'sale_price') };
  }
  if (vehicles) {
    if (/\bmost expensive\b|\bpriciest\b|\bhighest[- ]priced\b|\bhighest price\b|\bmost costly\b/.test(q))
      return superlative('max', 'price');
    if (/\bcheapest\b|\bleast expensive\b|\blowest[- ]priced\b|\blowest price\b|\bmost affordable\b/.test(q))
      return superlative('min', 'price');
    if (
      /\blongest\b|\boldest (?:unit|vehicle|car|truck|suv|one)s? on the lot\b|\bmost days\b|\bbeen (?:sitting|on the lot) the longest\b|\baged the most\b|\boldest (?:units|inventory|stock)\b/.test(
        q,
      )
    )
      return superlative('max', 'days_on_lot');
    if (/\bnewest arrivals?\b|\bmost recent arrivals?\b|\bjust arrived\b|\bfreshest\b|\bfewest days\b/.test(q))
      return superlative('min', 'days_on_lot');
    if (/\bhighest mileage\b|\bmost miles\b/.test(q)) return superlative('max', 'mileage');
    if (/\blowest mileage\b|\bfewest miles\b|\bleast miles\b/.test(q)) return superlative('min', 'mileage');
    if (/\boldest model year\b|\boldest year\b/.test(q)) return superlative('min', 'year');
    // "Our oldest Escape": on a lot, oldest means aged the longest.
    if (/\boldest\b/.test(q)) return superlative('max', 'days_on_lot');
  } else if (subject === 'sales') {
    if (/\bbiggest\b|\blargest\b|\bhighest\b|\bmost expensive\b/.test(q))
      return superlative('max', fieldOf(q, subject) ?? 'sale_price');
    if (/\bsmallest\b|\blowest\b|\bcheapest\b/.test(q)) return superlative('min', fieldOf(q, subject) ?? 'sale_price');
  } else if (subject === 'calls') {
    if (/\blongest\b/.test(q)) return { measure: 'max', field: 'duration' };
  }
  if (
    /\bwhich\b|\blist\b|\bshow\b|\bwhat (?:are|were)\b|\bgive me\b|\bname (?:the|all)\b|\brecent\b|\blatest\b|\bnewest\b|\bwho\b|\bones\b|\bthem\b\??$/.test(
      q,
    )
  ) {
    return {
      measure: 'list',
      ...(listSize ? { limit: listSize } : {}),
      ...(vehicles ? { field: 'days_on_lot', order: 'desc' as const } : {}),
    };
  }
  return null;
}

function fieldOf(q: string, subject: Subject): string | undefined {
  if (subject === 'vehicles') {
    if (/\bdays? on (?:the )?lot\b|\bdays in (?:stock|inventory)\b|\bon the lot\b|\baging\b|\bage\b|\bturn\b/.test(q))
      return 'days_on_lot';
    if (/\bmileage\b|\bmiles\b|\bodometer\b/.test(q)) return 'mileage';
    if (/\bmodel year\b|\byear\b/.test(q)) return 'year';
    return 'price';
  }
  if (subject === 'sales') {
    if (/\bfront(?:[- ]end)? gross\b/.test(q)) return 'front_gross';
    if (/\bback(?:[- ]end)? gross\b/.test(q)) return 'back_gross';
    if (/\bgross\b|\bprofit\b/.test(q)) return 'total_gross';
    return 'sale_price';
  }
  if (subject === 'calls') return 'duration';
  return undefined;
}

function groupOf(q: string, subject: Subject): Grouping | null {
  if (
    /\b(?:by|per|each|every|across|between)\s+(?:the\s+)?(?:stores?|rooftops?|dealers?|dealerships?|locations?|sites?)\b|\bcompare\b.*\b(?:stores?|rooftops?|dealers?|dealerships?|locations?)\b|\bwhich (?:stores?|rooftops?|dealers?|dealerships?|locations?)\b|\bstore by store\b/.test(
      q,
    )
  )
    return 'dealer';
  if (/\b(?:by|per|each)\s+make\b|\bwhich makes?\b/.test(q)) return 'make';
  if (/\b(?:by|per|each)\s+(?:body(?: style)?|type of vehicle|vehicle type)\b/.test(q)) return 'body_style';
  if (
    /\b(?:by|per|each)\s+(?:lead\s+)?(?:source|channel|provider)\b|\bwhich (?:sources?|channels?)\b|\bwhere .* come from\b/.test(
      q,
    ) &&
    subject !== 'vehicles'
  )
    return 'source';
  if (/\bnew (?:vs\.?|versus|and|or) used\b|\b(?:by|per)\s+condition\b/.test(q))
    return subject === 'vehicles' ? 'condition' : null;
  if (subject === 'sales' && /\bsalespe(?:rson|ople)\b|\bsales ?reps?\b|\bwho (?:sold|closed|delivered)\b/.test(q))
    return 'salesperson';
  if (/\b(?:by|per)\s+status\b/.test(q)) return 'status';
  if (/\b(?:by|per)\s+(?:lead\s+)?type\b/.test(q) && subject === 'leads') return 'type';
  return null;
}

/** Filters the question names, with the keys it touched (a follow-up replaces only those). */
function filtersOf(q: string, subject: Subject, vocabulary: Vocabulary, now: Date): QueryFilters {
  const filters: QueryFilters = {};
  const vehicles = subject === 'vehicles';

  // Rooftops: a word only one of them has (its place, not the group's shared name), or its city.
  const words = (text: string) =>
    normalize(text)
      .split(/[^a-z0-9]+/)
      .filter((token) => token.length > 2);
  const counts = new Map<string, number>();
  for (const dealer of vocabulary.dealers)
    for (const token of new Set(words(`${dealer.name} ${dealer.city ?? ''}`)))
      counts.set(token, (counts.get(token) ?? 0) + 1);
  const makeWords = new Set(vocabulary.makes.map((make) => make.toLowerCase()));
  const dealerIds = vocabulary.dealers
    .filter((dealer) => {
      if (normalize(q).includes(normalize(dealer.name))) return true;
      return [...new Set(words(`${dealer.name} ${dealer.city ?? ''}`))].some(
        (token) =>
          counts.get(token) === 1 &&
          word(token).test(q) &&
          !GENERIC.has(token) &&
          (!makeWords.has(token) ||
            new RegExp(`\\b${escape(token)}\\s+(?:store|dealership|rooftop|location|lot|site)\\b`).test(q)),
      );
    })
    .map((dealer) => dealer.id);
  if (dealerIds.length) filters.dealer_id = dealerIds;

  if (vehicles || subject === 'sales') {
    if (/\b(?:certified|cpo)\b/.test(q)) filters.condition = ['certified'];
    else if (/\b(?:used|pre-?owned|second-?hand)\b/.test(q)) filters.condition = ['used'];
    else if (/\bnew\b(?! arrivals?)(?!\s+(?:leads?|customers?|callers?))/.test(q)) filters.condition = ['new'];
    // "new vs used" compares conditions: it filters on neither.
    if (/\bnew (?:vs\.?|versus|and|or) used\b|\bused (?:vs\.?|versus|and|or) new\b/.test(q)) delete filters.condition;
  }
  if (vehicles) {
    const bodies = BODY_WORDS.filter(([pattern]) => pattern.test(q)).flatMap(([, styles]) => {
      const known = styles.filter((style) =>
        vocabulary.bodyStyles.some((body) => body.toLowerCase() === style.toLowerCase()),
      );
      return known.length ? known : [styles[0]!];
    });
    if (bodies.length) filters.body_style = bodies;
    const makes = vocabulary.makes.filter(
      (make) =>
        word(make).test(q) &&
        !vocabulary.dealers.some(
          (dealer) =>
            filters.dealer_id?.includes(dealer.id) &&
            new RegExp(`\\b${escape(make.toLowerCase())}\\s+(?:store|dealership|rooftop|location)\\b`).test(q),
        ),
    );
    for (const [alias, make] of Object.entries(MAKE_ALIASES)) if (word(alias).test(q)) makes.push(make);
    if (makes.length) filters.make = [...new Set(makes)];
    const models = vocabulary.models.filter(
      (model) => (model.length > 1 && word(model).test(q.replace(/-/g, ' '))) || word(model).test(q),
    );
    if (models.length) filters.model = models;
    const colors = COLORS.filter((color) => new RegExp(`\\b${color}\\b`).test(q)).map((color) =>
      color === 'grey' ? 'gray' : color,
    );
    if (colors.length) filters.color = colors;
    if (/\bpresumed sold\b/.test(q)) filters.status = ['presumed_sold'];
    else if (/\bin transit\b|\bincoming\b|\bon order\b/.test(q)) filters.status = ['in_transit'];
    else if (/\bpending\b/.test(q)) filters.status = ['pending'];
    else if (/\bsold\b/.test(q)) filters.status = ['sold'];

    // Days on the lot.
    const days = new RegExp(
      String.raw`\b(?:(${STRICT_ABOVE})|(${AT_LEAST})|(${STRICT_BELOW})|(${AT_MOST}))\s+(\d+)\s*(day|week|month)s?\b`,
    ).exec(q);
    const plus = /\b(\d+)\+\s*days?\b/.exec(q);
    if (days) {
      const span = Number(days[5]) * (days[6] === 'week' ? 7 : days[6] === 'month' ? 30 : 1);
      if (days[1]) filters.days_on_lot_min = span + 1;
      else if (days[2]) filters.days_on_lot_min = span;
      else if (days[3]) filters.days_on_lot_max = span - 1;
      else filters.days_on_lot_max = span;
    } else if (plus) filters.days_on_lot_min = Number(plus[1]);

    // Mileage.
    const miles = new RegExp(
      String.raw`\b(?:(${STRICT_BELOW})|(${AT_MOST})|(${STRICT_ABOVE})|(${AT_LEAST}))\s+${AMOUNT}\s*(?:miles|mi\b|on the odometer)`,
    ).exec(q);
    if (miles) {
      const value = amount(miles[5]!, miles[6]);
      if (miles[1]) filters.mileage_max = value - 1;
      else if (miles[2]) filters.mileage_max = value;
      else if (miles[3]) filters.mileage_min = value + 1;
      else filters.mileage_min = value;
    }

    // Model years.
    const since =
      /\b((?:19|20)\d{2})\s*(?:\+|or (?:newer|later)|and (?:newer|up|later))|\b(?:since|from|newer than|after)\s+((?:19|20)\d{2})\b/.exec(
        q,
      );
    const before =
      /\b((?:19|20)\d{2})\s*(?:or (?:older|earlier)|and (?:older|earlier))|\b(?:before|older than|pre-?)\s*((?:19|20)\d{2})\b/.exec(
        q,
      );
    if (since)
      filters.year_min = since[1] ? Number(since[1]) : Number(since[2]) + (/newer than|after/.test(since[0]) ? 1 : 0);
    if (before) filters.year_max = before[1] ? Number(before[1]) : Number(before[2]) - 1;
    if (!since && !before) {
      const exact = /\b((?:19|20)\d{2})\b(?!\s*(?:miles|days))/.exec(q.replace(/\$\s*[\d,]+/g, ''));
      if (exact) filters.year_min = filters.year_max = Number(exact[1]);
    }
  }

  // Prices: amounts not about miles or days, and big enough to be money.
  const priceText = q.replace(new RegExp(String.raw`${AMOUNT}\s*(?:miles|mi\b|days?|weeks?|months?)`, 'g'), ' ');
  const between = new RegExp(String.raw`\bbetween\s+${AMOUNT}\s+(?:and|-|to)\s+${AMOUNT}`).exec(priceText);
  if (between) {
    filters.price_min = amount(between[1]!, between[2]);
    filters.price_max = amount(between[3]!, between[4] ?? between[2]);
  } else {
    const below = new RegExp(String.raw`\b(?:(${STRICT_BELOW})|(${AT_MOST}))\s+${AMOUNT}`).exec(priceText);
    const above = new RegExp(String.raw`\b(?:(${STRICT_ABOVE})|(${AT_LEAST}))\s+${AMOUNT}`).exec(priceText);
    const money = (match: RegExpExecArray) => amount(match[3]!, match[4]);
    // Money: a $ or a "k", or a number too big to be anything else; "older than 2018" is a model year.
    const isMoney = (match: RegExpExecArray) =>
      match[0].includes('$') ||
      match[4] !== undefined ||
      (money(match) >= 1000 && !(money(match) >= 1900 && money(match) <= 2100));
    if (below && isMoney(below)) filters.price_max = money(below) - (below[1] ? 0.01 : 0);
    if (above && isMoney(above)) filters.price_min = money(above) + (above[1] ? 0.01 : 0);
  }
  if (!vehicles && subject !== 'sales') {
    delete filters.price_min;
    delete filters.price_max;
  }

  if (!vehicles) {
    const range = dateRangeOf(q, now);
    if (range) Object.assign(filters, range);
    const source = [...vocabulary.sources]
      .sort((a, b) => b.length - a.length)
      .find((name) => word(name).test(q) || normalize(q).includes(normalize(name)));
    if (source && subject !== 'sales') filters.source = source;
  }
  if (subject === 'calls') {
    const statuses = ['answered', 'missed', 'voicemail'].filter((status) =>
      new RegExp(`\\b${status === 'voicemail' ? 'voice ?mails?' : status}\\b`).test(q),
    );
    if (statuses.length) filters.status = statuses;
    if (/\bfirst[- ]time\b|\bnew callers?\b/.test(q)) filters.first_time = true;
  }
  if (subject === 'leads') {
    const types = ['service', 'finance', 'trade_in'].filter((type) =>
      new RegExp(`\\b${type.replace('_', '[- ]?')}\\b`).test(q),
    );
    if (/\bused[- ]car leads?\b|\bused leads?\b/.test(q)) types.push('used');
    if (/\bnew[- ]car leads?\b|\bnew vehicle leads?\b/.test(q)) types.push('new');
    if (types.length) filters.type = types;
    const statuses = ['contacted', 'appointment', 'showed', 'lost'].filter((status) =>
      new RegExp(`\\b${status}\\b`).test(q),
    );
    if (/\bsold leads?\b|\bleads? (?:that|which) (?:sold|bought|converted)\b/.test(q)) statuses.push('sold');
    if (/\bunworked\b|\buntouched\b|\bnew leads?\b(?! this| last| today)/.test(q) && !/\bnew[- ]car\b/.test(q))
      statuses.push('new');
    if (statuses.length) filters.status = statuses;
  }
  return filters;
}

const GENERIC = new Set(['the', 'and', 'auto', 'autos', 'motors', 'motor', 'group', 'cars', 'store', 'dealership']);

const FOLLOW_UP =
  /^(?:and|but|also|what about|how about|only|just|of (?:those|these|them)|same|now|ok(?:ay)?|then|at|for|in|from|with|without)\b|\b(?:of those|of these|of them|those|these|them|that list|the same|which ones|ones|that (?:store|rooftop|dealership))\b|(?<!\b(?:are|is|were|was) )\bthere\b/;

/** Reads a question, given the query the conversation's last answer ran (for follow-ups). */
export function understand(
  question: string,
  vocabulary: Vocabulary,
  previous: AssistantQuery | null,
  now = new Date(),
): Understanding {
  const q = normalize(question);
  if (!q) return { query: null, reason: 'the question is empty' };
  const stocked = new Set(vocabulary.makes.map((make) => make.toLowerCase()));
  vocabulary = {
    ...vocabulary,
    makes: [...vocabulary.makes, ...KNOWN_MAKES.filter((make) => !stocked.has(make.toLowerCase()))],
  };
  const vehicleWords =
    BODY_WORDS.some(([pattern]) => pattern.test(q)) || vocabulary.models.some((model) => word(model).test(q));
  const explicitSubject = subjectOf(q, vocabulary, vehicleWords);
  // Read once, as about the subject named or else the previous question's.
  const subject = explicitSubject ?? previous?.subject;
  if (!subject) return { query: null, reason: 'it is not about your vehicles, leads, calls or sales' };
  const measured = measureOf(q, subject);
  const filters = filtersOf(q, subject, vocabulary, now);
  const named = groupOf(q, subject);
  // A short question naming no subject follows up only when it says something we read ("which ones?", "just the Fords").
  const followUp =
    previous !== null &&
    (FOLLOW_UP.test(q) ||
      (!explicitSubject &&
        q.split(' ').length <= 8 &&
        (measured !== null || named !== null || Object.keys(filters).length > 0)));
  if (!explicitSubject && !followUp)
    return { query: null, reason: 'it is not about your vehicles, leads, calls or sales' };
  // "Sedans vs SUVs", "Toyota versus Honda", "north compared to downtown": a breakdown over what is named.
  const versus = /\bvs\.?\b|\bversus\b|\bcompared (?:to|with)\b|\bor\b/.test(q)
    ? (filters.body_style?.length ?? 0) > 1
      ? 'body_style'
      : (filters.make?.length ?? 0) > 1
        ? 'make'
        : (filters.dealer_id?.length ?? 0) > 1
          ? 'dealer'
          : null
    : null;
  const group = named ?? versus;

  if (followUp && previous) {
    const sameSubject = subject === previous.subject;
    const base = sameSubject
      ? previous.filters
      : Object.fromEntries(Object.entries(previous.filters).filter(([key]) => key === 'dealer_id'));
    const measure =
      measured ??
      (sameSubject
        ? { measure: previous.measure, field: previous.field, order: previous.order, limit: previous.limit }
        : { measure: 'count' as const });
    const keepGroup = !measured || measured.measure === previous.measure;
    return {
      followUp: true,
      query: {
        subject,
        ...measure,
        ...(group
          ? { group_by: group }
          : keepGroup && sameSubject && previous.group_by && measure.measure !== 'list'
            ? { group_by: previous.group_by }
            : {}),
        filters: { ...base, ...filters },
      },
    };
  }
  // "What percentage of inventory is used?": the count, with its share of the whole.
  if (/\bpercent(?:age)?\b|%|\bshare of\b|\bproportion\b|\bwhat fraction\b/.test(q)) {
    return {
      followUp: false,
      query: { subject, measure: 'count', share: true, ...(group ? { group_by: group } : {}), filters },
    };
  }
  if (!measured && !group) {
    // "Used SUVs under 30k?" is a count; anything else we do not recognise is not guessed at.
    if (Object.keys(filters).length && subject === 'vehicles')
      return { followUp: false, query: { subject, measure: 'count', filters } };
    return { query: null, reason: 'I could not tell what to count, list, average or compare' };
  }
  // "Which rooftop has the most used cars?" is a breakdown: counted per group, not listed.
  const measure = measured && !(group && measured.measure === 'list') ? measured : { measure: 'count' as const };
  return { followUp: false, query: { subject, ...measure, ...(group ? { group_by: group } : {}), filters } };
}
