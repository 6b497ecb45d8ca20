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
  /** Salespeople as deals and lead assignments spell them. */
  salespeople: string[];
}

/**
 * A reading: the query, whether it followed up, and what the question named that the query could not
 * use (said in the answer, never silently dropped). Or no query: why not, and whether the question was
 * declined as not a question about the data at all.
 */
export type Understanding =
  { query: AssistantQuery; followUp: boolean; unused: string[] } | { query: null; reason: string; declined?: boolean };

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

// The unit stands alone: "5 minutes" is not 5 million.
const AMOUNT = String.raw`\$?\s*(\d[\d,]*(?:\.\d+)?)\s*(k|thousand|m)?\b`;
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
  const last =
    /\b(?:last|past|previous)\s+(\d+)\s+(day|week|month)s?\b/.exec(q) ??
    /\b(?:past|previous)\s+()(week|month)\b/.exec(q);
  if (last) {
    const span = Number(last[1] || 1) * (last[2] === 'day' ? 1 : last[2] === 'week' ? 7 : 30);
    return { from: isoDay(daysAgo(span - 1)), to: isoDay(today) };
  }
  const weekday = (today.getUTCDay() + 6) % 7; // Monday = 0
  if (/\bthis week\b/.test(q)) return { from: isoDay(daysAgo(weekday)), to: isoDay(today) };
  // The weekend: the latest Saturday and Sunday, up to today.
  if (/\b(?:this|last|past|over the) weekend\b|\bweekend\b/.test(q)) {
    const saturday = weekday >= 5 ? weekday - 5 : weekday + 2;
    return { from: isoDay(daysAgo(saturday)), to: isoDay(daysAgo(Math.max(0, saturday - 1))) };
  }
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

/**
 * Requests that are not questions about the data, declined even when a data word appears in them
 * ("write an email saying the car is ready", "what will used prices be next year?").
 */
const NOT_DATA: Array<[RegExp, string]> = [
  [
    /\b(?:write|draft|compose|reply to|respond to|word)\b.*\b(?:e-?mails?|letters?|messages?|texts?|notes?|replies|reply|posts?|ads?|descriptions?|scripts?|reviews?)\b|\b(?:write|draft|compose) (?:me |us )?(?:an?|the|some)\b|\b(?:send|text|e-?mail) (?:the |a |this |that )?(?:customer|client|buyer|lead)\b/,
    'writing messages is not a question about your data',
  ],
  [
    /\b(?:forecast|predict|prediction|projection|project(?:ed)?|will (?:\w+ ){0,4}(?:be|sell|go|cost|rise|drop|fall|need)|going to (?:be|sell|go|rise|drop)|next (?:year|quarter)|tomorrow|expect (?:to|next))\b/,
    'I report what your data shows, not forecasts',
  ],
  [
    /\b(?:apprais(?:e|al)|kbb|kelley|blue book|black book|market value|trade[- ]in (?:value|offer)|what(?:'s| is) (?:my|a|this|that|his|her|their|the customer's) (?:\w+ ){0,4}worth|how much (?:is|would|could|should|can) (?:i|we|my|a|this|that|the customer) (?:\w+ ){0,5}(?:worth|get|sell|pay|offer))\b/,
    'I do not value vehicles; I report what your data holds',
  ],
  [
    /\b(?:should (?:i|we)|advice|advise|recommend|suggest(?:ion)?s?|tips?|strateg(?:y|ies)|ideas?|how (?:do|can|could|should) (?:i|we) (?:improve|increase|boost|raise|get|sell|reduce|lower|fix|handle|close|train|motivate|hire)|best way to|help me (?:sell|close|write|improve))\b/,
    'I do not give advice; I answer questions about your data',
  ],
  [/\b(?:joke|weather|poem|story|song|recipe|news|stock market|translate)\b/, 'it is not about your data'],
];

/** Shorthand and misspellings dealers type, read as the words the rules know. */
const SHORTHAND: Array<[RegExp, string]> = [
  [/\b(?:hw|hoe|hwo|homw|hiw) (many|much)\b/g, 'how $1'],
  [/\b(?:hm|hmany|howmany)\b/g, 'how many'],
  [/\bhow (?:mnay|mnany|manu|amny|mny|meny)\b/g, 'how many'],
  [/\b(?:#|no\.) of\b/g, 'number of'],
  [/(^|\s)#\s*(?=[a-z])/g, '$1number of '],
  [/\bw\/o\b/g, 'without'],
  [/\bw\//g, 'with '],
  [/\b(?:u|ya)\b/g, 'you'],
  [/\br\b/g, 'are'],
  [/\b(?:yday|yest|ystrday|yesterdy|yesturday|yesteday)\b/g, 'yesterday'],
  [/\b(?:tdy|tday|todya)\b/g, 'today'],
  [/\b(?:lst|lsat|lasst)\b/g, 'last'],
  [/\b(?:ths|tihs|thsi)\b/g, 'this'],
  [/\b(?:mo|mnth|mth|montth|monht)\b/g, 'month'],
  [/\b(?:wk|wek|weeek)\b/g, 'week'],
  [/\b(?:yr|yer)\b/g, 'year'],
  [/\b(?:wks)\b/g, 'weeks'],
  [/\b(?:mos|mths)\b/g, 'months'],
  [/\bvehs?\b|\bvehicals?\b|\bvehciles?\b|\bvehicels?\b/g, 'vehicles'],
  [/\b(?:inv|invt|inventroy|inventory's|invetory|inventry)\b/g, 'inventory'],
  [/\b(?:lds|leds|leeds|laeds|lesds)\b/g, 'leads'],
  [/\b(?:clls|cals|callz)\b/g, 'calls'],
  [/\b(?:deels|dels|deala)\b/g, 'deals'],
  [/\b(?:avg|ave|averge|avrage|avergae|aveage|averag)\b/g, 'average'],
  [/\b(?:cheapst|cheepest|chepest|cheapeast)\b/g, 'cheapest'],
  [/\b(?:expensve|expnsive|expensiv)\b/g, 'expensive'],
  [/\b(?:mised|missd|misssed)\b/g, 'missed'],
  [/\b(?:answerd|anwsered|answred)\b/g, 'answered'],
  [/\b(?:salesman|salesmen|sales ?guys?|reps?)\b/g, 'salesperson'],
  [/\b(?:conv(?:ersion)?|convrsion|converison)\b/g, 'conversion'],
  [/\bclos(?:e|ing) (?:ratio|rate|percent(?:age)?)\b|\bclos(?:e|ing) %/g, 'close rate'],
  [/\bchev(?:y|ie)(s?)\b/g, 'chevrolet$1'],
  [/\bvw\b/g, 'volkswagen'],
  [/\bappts?\b/g, 'appointments'],
  [/\bwhos\b/g, "who's"],
  [/\bdays on lot\b|\bdol\b/g, 'days on the lot'],
  [/\bpre ?owned\b/g, 'used'],
  [/\bcpo\b/g, 'certified'],
  [/\b(?:suvz|suv's)\b/g, 'suvs'],
  [/\b(?:trucs|truks|trks)\b/g, 'trucks'],
  [/\b(?:sedns|sedands)\b/g, 'sedans'],
  [/\b(?:toyta|toyot|tyota|toyotta)\b/g, 'toyota'],
  [/\b(?:hodna|hnda|honds)\b/g, 'honda'],
  [/\b(?:chevorlet|chevrolette|chevy's|cheverolet)\b/g, 'chevrolet'],
  [/\bstores?'s\b/g, 'store'],
];

/** The question as the rules read it: lower case, plain spaces and quotes, shorthand spelled out. */
export function readable(question: string): string {
  let q = normalize(question);
  for (const [pattern, replacement] of SHORTHAND) q = q.replace(pattern, replacement);
  return q.replace(/\s+/g, ' ').trim();
}

/** Model names as dealers say them: "F150" and "F-150", "Silverados" for "Silverado 1500". */
function modelsNamed(q: string, models: string[]): string[] {
  const compact = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
  const firstWords = new Map<string, string[]>();
  for (const model of models) {
    const first = model.toLowerCase().split(/[\s-]+/)[0]!;
    if (model.includes(' ') && first.length >= 4 && /^[a-z]+$/.test(first) && !MODEL_WORDS_TOO_COMMON.has(first))
      firstWords.set(first, [...(firstWords.get(first) ?? []), model]);
  }
  const named = models.filter((model) => {
    const forms = new Set([model, model.replace(/-/g, ' '), compact(model)]);
    return [...forms].some((form) => form.length > 1 && word(form).test(q));
  });
  for (const [first, family] of firstWords) if (word(first).test(q)) named.push(...family);
  return [...new Set(named)];
}
const MODEL_WORDS_TOO_COMMON = new Set(['grand', 'santa', 'range', 'land', 'model', 'town', 'sport', 'super', 'great']);

/** Salespeople named: the whole name, or a first name only one of them has. */
function salespersonNamed(q: string, salespeople: string[]): string | undefined {
  const whole = salespeople.find((person) => normalize(q).includes(normalize(person)));
  if (whole) return whole;
  const firsts = new Map<string, string[]>();
  for (const person of salespeople) {
    const first = normalize(person).split(' ')[0]!;
    if (first.length >= 3) firsts.set(first, [...new Set([...(firsts.get(first) ?? []), person])]);
  }
  for (const [first, people] of firsts)
    if (people.length === 1 && new RegExp(`(?<![a-z0-9])${escape(first)}(?:'s)?(?![a-z0-9])`).test(q)) return people[0];
  return undefined;
}

function subjectOf(q: string, vocabulary: Vocabulary, mentionsVehicle: boolean): Subject | null {
  if (
    /\bleads?\b|\binquir(?:y|ies)\b|\bprospects?\b|\bsubmissions?\b|\bclose rate\b|\bconversion\b|\bconverted\b|\bappointments? (?:set|made|booked)\b|\bshowed\b/.test(
      q,
    )
  )
    return 'leads';
  if (
    /\bcalls?\b|\bcallers?\b|\bphone\b|\bvoice ?mails?\b|\banswer(?:ed)? rate\b|\bmiss(?:ed)? rate\b|\bcalled\b/.test(q)
  )
    return 'calls';
  if (/\bpresumed sold\b/.test(q)) return 'vehicles';
  if (
    /\bsales\b(?!\s*person)|\bsale price\b|\bdeals?\b|\bsold\b|\bunits sold\b|\bsell\b|\bsells\b|\bselling\b(?!\s*price)|\bdelivered\b|\bdeliveries\b|\bgross\b|\brevenue\b|\bsalespe(?:rson|ople)\b|\bleases?\b|\bleased\b|\bfinanced\b|\bcash deals?\b|\bclosers?\b|\bpopular\b|\bbest[- ]sell(?:ing|er|ers)?\b/.test(
      q,
    )
  )
    return 'sales';
  if (
    mentionsVehicle ||
    /\b(?:cars?|vehicles?|inventory|units?|stock|on the lot|on the ground|in stock|on hand|days in (?:stock|inventory)|priced?|prices|msrp|mileage|days on (?:the )?lot|sitting|aged|aging)\b/.test(
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

/** A rate the question asks for: leads closed (sold), calls answered or missed. */
function rateOf(q: string, subject: Subject): string | null {
  const share = String.raw`(?:%|\bpercent(?:age)?\b|\bshare\b|\bratio\b|\brate\b|\bhow often\b)`;
  const asked = (what: string) => new RegExp(`${share}.*\\b(?:${what})\\b|\\b(?:${what})\\b.*${share}`).test(q);
  if (
    subject === 'leads' &&
    (/\bclose rate\b|\bconversion\b/.test(q) || asked('closed|sold|bought|converted|close|convert'))
  )
    return 'sold';
  if (subject === 'calls') {
    if (/\bmiss(?:ed)? rate\b/.test(q) || asked('miss|missed|unanswered')) return 'missed';
    if (/\bvoice ?mail rate\b/.test(q) || asked('voice ?mails?')) return 'voicemail';
    if (/\banswer(?:ed|ing)? rate\b|\bpick ?up rate\b/.test(q) || asked('answer|answered|picked up')) return 'answered';
  }
  return null;
}

function measureOf(
  q: string,
  subject: Subject,
): { measure: Measure; field?: string; order?: 'asc' | 'desc'; limit?: number } | null {
  const rate = rateOf(q, subject);
  if (rate) return { measure: 'rate', field: rate };
  const listSize = (() => {
    const number =
      /\b(?:top|latest|last|recent|show me|list|give me)\s+(\d{1,2})\b(?!\s*(?:days?|weeks?|months?))/.exec(q) ??
      /\b(\d{1,2})\s+(?:most|least|cheapest|oldest|newest|priciest|highest|lowest|longest|latest|most recent)\b/.exec(
        q,
      );
    return number ? Number(number[1]) : undefined;
  })();
  // "Which ones have been sitting the longest": several, longest first; "which one" is the extreme.
  const several = /\bwhich ones\b|\bwhat ones\b|\bwhich (?:cars|vehicles|units|trucks|suvs|sedans)\b|\blist\b/.test(q);
  const vehicles = subject === 'vehicles';
  const superlative = (measure: 'max' | 'min', field: string) =>
    listSize || several
      ? {
          measure: 'list' as const,
          field,
          order: measure === 'max' ? ('desc' as const) : ('asc' as const),
          limit: listSize ?? 10,
        }
      : { measure, field };
  if (
    /\baverage\b|\bavg\b|\bmean\b|\btypical\b/.test(q) ||
    (subject === 'sales' && /\b(?:per|a) (?:deal|unit|car|copy|sale)\b/.test(q))
  )
    return { measure: 'average', field: fieldOf(q, subject) };
  if (/\bhow many\b|\bnumber of\b|\bcount\b|\bhow much inventory\b|\btotal (?:inventory|units|stock)\b$/.test(q))
    return { measure: 'count' };
  if (
    /\btotal (?:inventory )?value\b|\bworth\b|\bvalue of\b|\bsum of\b|\btotal (?:revenue|gross|sales volume)\b|\bhow much (?:revenue|gross)\b|\btotal \$|\$ ?total\b|\btotal dollars?\b|\bdollar (?:volume|amount|total)\b|\bhow much \$|\bin dollars\b/.test(
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
    // "What did we gross in October?": gross or revenue with no other measure is their total.
    if (
      /\bgross(?:ed)?\b|\brevenue\b|\bprofit\b/.test(q) &&
      !/\bbiggest\b|\blargest\b|\bhighest\b|\bsmallest\b|\blowest\b|\bwhich\b|\blist\b|\bshow\b|\bwho\b/.test(q)
    )
      return { measure: 'sum', field: fieldOf(q, subject) ?? 'total_gross' };
    if (
      /\bbiggest\b|\blargest\b|\bhighest\b|\bmost expensive\b/.test(q) &&
      !/\b(?:most|highest) (?:deals|units|sales)\b/.test(q)
    )
      return superlative('max', fieldOf(q, subject) ?? 'sale_price');
    if (/\bsmallest\b|\blowest\b|\bcheapest\b/.test(q)) return superlative('min', fieldOf(q, subject) ?? 'sale_price');
  } else if (subject === 'calls') {
    if (/\blongest\b/.test(q)) return { measure: 'max', field: 'duration' };
  }
  if (
    /\bwhich\b|\blist\b|\bshow\b|\bwhat (?:are|were)\b|\bgive me\b|\bname (?:the|all)\b|\brecent\b|\blatest\b|\bnewest\b|\bwho\b|\bones\b|\bthem\b\??$|\bany\b/.test(
      q,
    )
  ) {
    if (/\bany\b/.test(q) && !/\bwhich\b|\blist\b|\bshow\b|\bones\b/.test(q)) return { measure: 'count' };
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
    if (
      /\bdays? on (?:the )?lot\b|\bdays in (?:stock|inventory)\b|\bon the lot\b|\baging\b|\bage\b|\bturn\b|\bhow long\b|\bsit(?:ting|s)?\b/.test(
        q,
      )
    )
      return 'days_on_lot';
    if (/\bmileage\b|\bmiles\b|\bodometer\b/.test(q)) return 'mileage';
    if (/\bmodel year\b|\byear\b/.test(q)) return 'year';
    return 'price';
  }
  if (subject === 'sales') {
    if (/\bfront(?:[- ]end)? gross\b/.test(q)) return 'front_gross';
    if (/\bback(?:[- ]end)? gross\b/.test(q)) return 'back_gross';
    if (/\bgross(?:ed)?\b|\bprofit\b/.test(q)) return 'total_gross';
    return 'sale_price';
  }
  if (subject === 'calls') return 'duration';
  return undefined;
}

function groupOf(q: string, subject: Subject): Grouping | null {
  if (
    /\b(?:by|per|each|every|across|between|rank|all)\s+(?:the\s+|our\s+)?(?:stores?|rooftops?|dealers?|dealerships?|locations?|sites?)\b|\b(?:stores|rooftops|dealerships|locations) (?:by|ranked)\b|\bcompare\b.*\b(?:stores?|rooftops?|dealers?|dealerships?|locations?)\b|\bwhich (?:stores?|rooftops?|dealers?|dealerships?|locations?)\b|\bstore by store\b/.test(
      q,
    )
  )
    return 'dealer';
  if (/\b(?:by|per|each)\s+make\b|\bwhich makes?\b/.test(q)) return 'make';
  if (
    /\b(?:by|per|each)\s+model\b|\bwhich models?\b|\bwhat models?\b|\bmost popular models?\b|\bbest[- ]selling models?\b|\btop models?\b/.test(
      q,
    )
  )
    return 'model';
  if (/\b(?:by|per|each)\s+(?:body(?: style)?|type of vehicle|vehicle type)\b/.test(q)) return 'body_style';
  if (
    /\b(?:by|per|each|every|rank)\s+(?:the\s+|our\s+)?(?:lead\s+)?(?:sources?|channels?|providers?|vendors?)\b|\b(?:sources|channels|vendors) (?:by|ranked)\b|\bwhich (?:lead )?(?:sources?|channels?|providers?|vendors?)\b|\bwhere .* come from\b|\bbest (?:lead )?sources?\b|\btop (?:lead )?sources?\b/.test(
      q,
    ) &&
    subject !== 'vehicles'
  )
    return 'source';
  if (/\bnew (?:vs\.?|versus|and|or) used\b|\b(?:by|per)\s+condition\b/.test(q))
    return subject === 'vehicles' ? 'condition' : null;
  if (
    (subject === 'sales' || subject === 'leads') &&
    /\bsalespe(?:rson|ople)\b|\bclosers?\b|\bwho (?:sold|closed|delivered|has|had|converted)\b|\bwho(?:'s| is| has| had)? (?:got |gets )?(?:the )?(?:best|top|highest|most|lowest|worst)\b/.test(
      q,
    )
  )
    return 'salesperson';
  if (/\b(?:by|per)\s+status\b/.test(q)) return 'status';
  if (/\b(?:by|per)\s+(?:lead\s+)?type\b/.test(q) && subject === 'leads') return 'type';
  return null;
}

/** What each subject's query can filter on; anything else the question names is said back as not used. */
const SUPPORTED: Record<Subject, ReadonlyArray<keyof QueryFilters>> = {
  vehicles: [
    'dealer_id',
    'condition',
    'body_style',
    'make',
    'model',
    'color',
    'status',
    'price_min',
    'price_max',
    'year_min',
    'year_max',
    'mileage_min',
    'mileage_max',
    'days_on_lot_min',
    'days_on_lot_max',
  ],
  leads: ['dealer_id', 'from', 'to', 'source', 'type', 'status', 'salesperson', 'make', 'model'],
  calls: ['dealer_id', 'from', 'to', 'source', 'status', 'first_time', 'direction', 'duration_min'],
  sales: [
    'dealer_id',
    'from',
    'to',
    'condition',
    'salesperson',
    'contract_type',
    'make',
    'model',
    'price_min',
    'price_max',
  ],
};
const SUBJECT_NOUN: Record<Subject, string> = { vehicles: 'vehicles', leads: 'leads', calls: 'calls', sales: 'deals' };

/** How a filter the query could not use is named back ("the salesperson Sam Lee", "the period 2026-11-01 to …"). */
function heardAs(key: keyof QueryFilters, filters: QueryFilters): string | null {
  const value = filters[key];
  const list = (values: unknown) => (Array.isArray(values) ? values.join(' or ') : String(values));
  switch (key) {
    case 'salesperson':
      return `the salesperson ${value}`;
    case 'source':
      return `the source ${value}`;
    case 'from':
      return `the period ${filters.from}${filters.to && filters.to !== filters.from ? ` to ${filters.to}` : ''}`;
    case 'to':
      return filters.from ? null : `the period up to ${filters.to}`;
    case 'make':
    case 'model':
      return `the ${key} ${list(value)}`;
    case 'color':
      return `the colour ${list(value)}`;
    case 'body_style':
      return `the body style ${list(value)}`;
    case 'condition':
      return `the condition ${list(value)}`;
    case 'status':
      return `the status ${list(value)}`;
    case 'type':
      return `the lead type ${list(value)}`;
    case 'contract_type':
      return `the contract type ${list(value)}`;
    case 'price_min':
    case 'price_max':
      return key === 'price_max' && filters.price_min !== undefined ? null : 'the price';
    case 'mileage_min':
    case 'mileage_max':
      return key === 'mileage_max' && filters.mileage_min !== undefined ? null : 'the mileage';
    case 'year_min':
    case 'year_max':
      return key === 'year_max' && filters.year_min !== undefined ? null : 'the model year';
    case 'days_on_lot_min':
    case 'days_on_lot_max':
      return key === 'days_on_lot_max' && filters.days_on_lot_min !== undefined ? null : 'the days on the lot';
    case 'first_time':
      return 'first-time callers';
    case 'direction':
      return `${value} calls`;
    case 'duration_min':
      return null;
    default:
      return null;
  }
}

/**
 * Every filter the question names, whatever the subject: rooftops, conditions, body styles, makes,
 * models, colours, statuses, prices, mileage, model years, days on the lot, periods, sources, lead
 * types, salespeople, contract types. The caller keeps what the subject supports and says the rest back.
 */
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
  // A rooftop's words ("the Honda store") name the rooftop, not vehicles of that make.
  const rooftopMakes = (make: string) =>
    vocabulary.dealers.some(
      (dealer) =>
        filters.dealer_id?.includes(dealer.id) &&
        new RegExp(`\\b${escape(make.toLowerCase())}\\s+(?:store|dealership|rooftop|location)\\b`).test(q),
    );

  if (vehicles || subject === 'sales') {
    if (/\b(?:certified|cpo)\b/.test(q)) filters.condition = ['certified'];
    else if (/\b(?:used|pre-?owned|second-?hand)\b/.test(q)) filters.condition = ['used'];
    else if (/\bnew\b(?! arrivals?)(?!\s+(?:leads?|customers?|callers?))/.test(q)) filters.condition = ['new'];
    // "new vs used" compares conditions: it filters on neither.
    if (/\bnew (?:vs\.?|versus|and|or) used\b|\bused (?:vs\.?|versus|and|or) new\b/.test(q)) delete filters.condition;
  }
  const bodies = BODY_WORDS.filter(([pattern]) => pattern.test(q)).flatMap(([, styles]) => {
    const known = styles.filter((style) =>
      vocabulary.bodyStyles.some((body) => body.toLowerCase() === style.toLowerCase()),
    );
    return known.length ? known : [styles[0]!];
  });
  // "Pickup" in "ready for pickup" is a collection, not a truck.
  if (bodies.length && !/\bready for pickup\b/.test(q)) filters.body_style = bodies;
  const makes = vocabulary.makes.filter((make) => word(make).test(q) && !rooftopMakes(make));
  for (const [alias, make] of Object.entries(MAKE_ALIASES)) if (word(alias).test(q)) makes.push(make);
  if (makes.length) filters.make = [...new Set(makes)];
  const models = modelsNamed(q, vocabulary.models);
  if (models.length) filters.model = models;
  const colors = COLORS.filter((color) => new RegExp(`\\b${color}\\b`).test(q)).map((color) =>
    color === 'grey' ? 'gray' : color,
  );
  if (colors.length) filters.color = colors;
  if (vehicles) {
    if (/\bpresumed sold\b/.test(q)) filters.status = ['presumed_sold'];
    else if (/\bin transit\b|\bincoming\b|\bon order\b/.test(q)) filters.status = ['in_transit'];
    else if (/\bpending\b/.test(q)) filters.status = ['pending'];
    else if (/\bsold\b/.test(q)) filters.status = ['sold'];

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

  // Days on the lot (heard on any subject: "cars we sold over 60 days old").
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

  // Call length ("calls over 5 minutes"), in seconds.
  const length = /\b(?:(over|longer than|more than)|(at least))\s+(\d+)\s*(min(?:ute)?s?|sec(?:ond)?s?)\b/.exec(q);
  if (length) filters.duration_min = Number(length[3]) * (length[4]!.startsWith('m') ? 60 : 1) + (length[1] ? 1 : 0);

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

  const range = dateRangeOf(q, now);
  if (range) Object.assign(filters, range);
  const source = [...vocabulary.sources]
    .sort((a, b) => b.length - a.length)
    .find(
      (name) => word(name).test(q) || word(name.replace(/-/g, ' ')).test(q) || normalize(q).includes(normalize(name)),
    );
  if (source) filters.source = source;
  const salesperson = salespersonNamed(q, vocabulary.salespeople);
  if (salesperson) filters.salesperson = salesperson;

  const callStatuses = [
    ...(/\bmiss(?:ed|ing)?\b|\bunanswered\b|\bdid(?:n't| not) (?:answer|pick up)\b|\bno answer\b/.test(q)
      ? ['missed']
      : []),
    ...(/\banswered\b|\bpicked up\b/.test(q) && !/\bunanswered\b/.test(q) ? ['answered'] : []),
    ...(/\bvoice ?mails?\b|\bleft a message\b/.test(q) ? ['voicemail'] : []),
  ];
  if (subject === 'calls') {
    // A rate names its numerator, not a filter: "answer rate" is over every call.
    if (callStatuses.length && !rateOf(q, subject)) filters.status = callStatuses;
    if (/\bfirst[- ]time\b|\bnew callers?\b/.test(q)) filters.first_time = true;
    if (/\binbound\b|\bincoming\b/.test(q)) filters.direction = 'inbound';
    else if (/\boutbound\b|\boutgoing\b/.test(q)) filters.direction = 'outbound';
  }
  if (subject === 'leads') {
    const types = ['service', 'finance', 'trade_in'].filter((type) =>
      new RegExp(`\\b${type.replace('_', '[- ]?')}\\b`).test(q),
    );
    if (/\bused[- ]car leads?\b|\bused (?:vehicle )?leads?\b/.test(q)) types.push('used');
    if (/\bnew[- ]car leads?\b|\bnew vehicle leads?\b/.test(q)) types.push('new');
    if (types.length) filters.type = types;
    const statuses = ['contacted', 'appointment', 'showed', 'lost'].filter((status) =>
      new RegExp(`\\b${status}s?\\b`).test(q),
    );
    if (/\b(?:lose|losing)\b/.test(q) && !statuses.includes('lost')) statuses.push('lost');
    if (
      !rateOf(q, subject) &&
      /\bsold leads?\b|\bleads? (?:that|which|who) (?:sold|bought|converted|closed)\b|\b(?:sold|closed|converted)\b/.test(
        q,
      )
    )
      statuses.push('sold');
    if (
      /\bunworked\b|\buntouched\b|\bstill new\b|\b(?:in |with )?(?:status )?new status\b|\bstatus (?:is )?new\b|\bnew leads?\b(?! this| last| today)/.test(
        q,
      ) &&
      !/\bnew[- ]car\b/.test(q)
    )
      statuses.push('new');
    if (statuses.length) filters.status = statuses;
  }
  if (subject === 'sales') {
    const contracts = [
      ...(/\bleases?\b|\bleased\b|\bleasing\b/.test(q) ? ['lease'] : []),
      ...(/\bfinanced\b|\bfinance deals?\b/.test(q) ? ['finance'] : []),
      ...(/\bcash deals?\b|\bpaid cash\b|\bcash\b/.test(q) ? ['cash'] : []),
    ];
    if (contracts.length) filters.contract_type = contracts;
  } else if (!vehicles && callStatuses.length && subject !== 'calls' && !rateOf(q, subject))
    // Call words in a question about something else ("leads we missed") are heard, and said back.
    filters.status = [...(filters.status ?? []), ...callStatuses];
  return filters;
}

const NOT_WORKED =
  /\b(?:not|never|haven'?t|hasn'?t|have not|has not|wasn'?t|weren'?t)\s+(?:been\s+|yet\s+|ever\s+)*(?:contacted|worked|touched|called back|responded to)\b|\buncontacted\b/g;
const NEGATED =
  /\b(?:not|never|haven'?t|hasn'?t|have not|has not|didn'?t|did not|don'?t|doesn'?t|wasn'?t|weren'?t|aren'?t|isn'?t)\s+(?:been\s+|yet\s+|ever\s+|get\s+|got\s+)*(?:sold|closed|bought|converted|showed|shown|show(?:ed)? up|lost|set)\b|\bunsold\b|\bno[- ]shows?\b/g;
/** Constraints dealers ask for that no filter expresses: said back as not used. */
const CANNOT_FILTER: Array<[RegExp, string]> = [
  [/\bno price\b|\bwithout (?:a )?price\b|\bunpriced\b|\bmissing (?:a )?price\b/, 'vehicles without a price'],
  [
    /\bno (?:photos?|pictures?|pics)\b|\bwithout (?:photos?|pictures?|pics)\b|\bmissing (?:photos?|pictures?|pics)\b/,
    'photos',
  ],
  [/\binternet\b|\bonline\b|\bweb\b/, '"internet" or "online" as a group of sources (name one, such as Cars.com)'],
];

const GENERIC = new Set(['the', 'and', 'auto', 'autos', 'motors', 'motor', 'group', 'cars', 'store', 'dealership']);

const FOLLOW_UP =
  /^(?:and|but|also|what about|how about|only|just|of (?:those|these|them|em)|same|now|ok(?:ay)?|then|at|for|in|from|with|without|by)\b|\b(?:of those|of these|of them|of em|those|these|them|'?em|that list|the same|which ones|ones|that (?:store|rooftop|dealership))\b|(?<!\b(?:are|is|were|was) )\bthere\b/;

/** Reads a question, given the query the conversation's last answer ran (for follow-ups). */
export function understand(
  question: string,
  vocabulary: Vocabulary,
  previous: AssistantQuery | null,
  now = new Date(),
): Understanding {
  const q = readable(question);
  if (!q) return { query: null, reason: 'the question is empty' };
  const declined = NOT_DATA.find(([pattern]) => pattern.test(q));
  if (declined) return { query: null, reason: declined[1], declined: true };
  const stocked = new Set(vocabulary.makes.map((make) => make.toLowerCase()));
  vocabulary = {
    ...vocabulary,
    salespeople: vocabulary.salespeople ?? [],
    makes: [...vocabulary.makes, ...KNOWN_MAKES.filter((make) => !stocked.has(make.toLowerCase()))],
  };
  // Source and rooftop names say nothing about the subject ("came from Cars.com" is not about cars).
  const named = [...vocabulary.sources, ...vocabulary.dealers.map((dealer) => dealer.name)].sort(
    (a, b) => b.length - a.length,
  );
  const subjectText = named.reduce((text, name) => text.replace(new RegExp(escape(normalize(name)), 'g'), ' '), q);
  const vehicleWords =
    BODY_WORDS.some(([pattern]) => pattern.test(subjectText) && !/\bready for pickup\b/.test(subjectText)) ||
    modelsNamed(subjectText, vocabulary.models).length > 0;
  const readAs = subjectOf(subjectText, vocabulary, vehicleWords);
  // "How many of those sold?" after a question about leads is still about those leads.
  const explicitSubject =
    readAs === 'sales' &&
    previous?.subject === 'leads' &&
    FOLLOW_UP.test(q) &&
    !/\b(?:deals?|sales|units|cars|vehicles|revenue|gross|leases?)\b/.test(subjectText)
      ? 'leads'
      : readAs;
  // Read once, as about the subject named or else the previous question's.
  const subject = explicitSubject ?? previous?.subject;
  if (!subject) return { query: null, reason: 'it is not about your vehicles, leads, calls or sales' };
  // "Haven't been contacted" is not "contacted": an untouched lead is new; other negations are said back, not read.
  const unused: string[] = [];
  let read = q.replace(NOT_WORKED, ' unworked ');
  read = read.replace(NEGATED, (phrase) => {
    unused.push(`"${phrase.trim()}" (I cannot count what is not in a status)`);
    return ' ';
  });
  for (const [pattern, said] of CANNOT_FILTER) if (pattern.test(read)) unused.push(said);
  const measured = measureOf(read, subject);
  const heard = filtersOf(read, subject, vocabulary, now);
  const filters: QueryFilters = {};
  for (const key of Object.keys(heard) as Array<keyof QueryFilters>) {
    if (SUPPORTED[subject].includes(key)) Object.assign(filters, { [key]: heard[key] });
    else {
      const said = heardAs(key, heard);
      if (said) unused.push(said);
    }
  }
  const group = groupOf(q, subject);
  // A short question naming no subject follows up only when it says something we read ("which ones?", "just the Fords");
  // a rate asked of the same subject with nothing else named ("what's the answer rate?") is over the same rows.
  const followUp =
    previous !== null &&
    (FOLLOW_UP.test(q) ||
      (measured?.measure === 'rate' && subject === previous.subject && Object.keys(heard).length === 0) ||
      (!explicitSubject &&
        q.split(' ').length <= 8 &&
        (measured !== null || group !== null || Object.keys(heard).length > 0)));
  if (!explicitSubject && !followUp)
    return { query: null, reason: 'it is not about your vehicles, leads, calls or sales' };
  if (group === 'salesperson' && subject !== 'sales' && subject !== 'leads')
    unused.push('the breakdown by salesperson');
  if (/\bvs\.?\b|\bversus\b|\bcompared? (?:to|with)\b/.test(q) && dateRangeOf(q, now))
    unused.push('the comparison with another period (I give one period)');
  const byTime =
    /\b(?:by|per|each|every|best|busiest|worst|slowest) (day|week|month|hour|year|time)\b|\b(daily|weekly|monthly|hourly)\b|\b(trend)s?\b/.exec(
      q,
    );
  if (byTime) unused.push(`a breakdown by ${byTime[1] ?? byTime[2] ?? 'period'} (I give the total for the period)`);
  if (subject !== 'leads' && /\btrade[- ]?ins?\b/.test(q)) unused.push('trade-ins');
  if (subject !== 'calls' && heard.duration_min !== undefined) unused.push('the call length');
  if (
    subject === 'calls' &&
    /\b(?:under|below|less than|shorter than|at most)\s+\d+\s*(?:min(?:ute)?s?|sec(?:ond)?s?)\b/.test(q)
  )
    unused.push('a longest call length (I can only count calls of at least a length)');
  if (measured?.measure === 'sum' && subject !== 'vehicles' && subject !== 'sales')
    unused.push(`a dollar total (${SUBJECT_NOUN[subject]} have no dollar amount; I counted them)`);
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
  const grouping = group ?? versus;
  const usable = (found: typeof measured) =>
    found?.measure === 'sum' && subject !== 'vehicles' && subject !== 'sales' ? { measure: 'count' as const } : found;

  if (followUp && previous) {
    const sameSubject = subject === previous.subject;
    // Across subjects a follow-up keeps what the new subject can use: rooftops, period, source, salesperson.
    // A rate counts its own statuses (sold, answered…): the previous status filter would make it 0 or 100%.
    const { status: _status, ...unrated } = previous.filters;
    const base = sameSubject
      ? measured?.measure === 'rate'
        ? unrated
        : previous.filters
      : Object.fromEntries(
          Object.entries(previous.filters).filter(
            ([key]) =>
              (['dealer_id', 'from', 'to', 'source', 'salesperson'] as string[]).includes(key) &&
              SUPPORTED[subject].includes(key as keyof QueryFilters),
          ),
        );
    const measure =
      usable(measured) ??
      (sameSubject
        ? { measure: previous.measure, field: previous.field, order: previous.order, limit: previous.limit }
        : { measure: 'count' as const });
    const keepGroup = !measured || measured.measure === previous.measure;
    // A new status or period replaces the previous one; so does a new rate.
    return {
      followUp: true,
      unused,
      query: {
        subject,
        ...measure,
        ...(grouping
          ? { group_by: grouping }
          : keepGroup && sameSubject && previous.group_by && measure.measure !== 'list'
            ? { group_by: previous.group_by }
            : {}),
        filters: { ...base, ...filters },
      },
    };
  }
  // "What percentage of inventory is used?": the count, with its share of the whole.
  if (
    measured?.measure !== 'rate' &&
    /\bpercent(?:age)?\b|%|\bshare of\b|\bproportion\b|\bwhat fraction\b|\bpenetration\b/.test(q)
  ) {
    return {
      followUp: false,
      unused,
      query: { subject, measure: 'count', share: true, ...(grouping ? { group_by: grouping } : {}), filters },
    };
  }
  if (!measured && !grouping) {
    // "Used SUVs under 30k?", "missed calls yesterday?": a count. "What's the spread on used cars?" asks for
    // something we do not know, and is not counted instead.
    const asked = /\b(?:what(?:'s| is| was| are| were)?|how(?:'s| is| are| does| do)?|why|when)\b/.exec(q);
    if (Object.keys(filters).length && (!asked || /\bany\b|\bdo (?:we|i|you) have\b|\bgot\b/.test(q)))
      return { followUp: false, unused, query: { subject, measure: 'count', filters } };
    if (asked) return { query: null, reason: 'I could not tell what it asks me to count, list, average or compare' };
    return { query: null, reason: 'I could not tell what to count, list, average or compare' };
  }
  // "Which rooftop has the most used cars?" is a breakdown: counted per group, not listed.
  const chosen = usable(measured);
  const measure = chosen && !(grouping && chosen.measure === 'list') ? chosen : { measure: 'count' as const };
  return {
    followUp: false,
    unused,
    query: { subject, ...measure, ...(grouping ? { group_by: grouping } : {}), filters },
  };
}
