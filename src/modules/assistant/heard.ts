import { VEHICLE_RANGE_FILTERS, type QueryFilters, type Subject } from './query';
import {
  AMOUNT,
  AT_LEAST,
  AT_MOST,
  BODY_WORDS,
  COLORS,
  GENERIC,
  MAKE_ALIASES,
  STRICT_ABOVE,
  STRICT_BELOW,
  amount,
  escape,
  modelsNamed,
  trimsNamed,
  normalize,
  periodsOf,
  withoutPeriods,
  phrasePattern,
  rooftopPhrases,
  salespersonNamed,
  word,
  type Vocabulary,
} from './wording';

/** What a question names, whatever its subject, and what each subject's query can use of it. */

/** A rate the question asks for: leads closed (sold), calls answered or missed. */
export function rateOf(q: string, subject: Subject): string | null {
  const share = String.raw`(?:%|\bpercent(?:age)?\b|\bshare\b|\bratio\b|\brate\b|\bhow often\b)`;
  const asked = (what: string) => new RegExp(`${share}.*\\b(?:${what})\\b|\\b(?:${what})\\b.*${share}`).test(q);
  if (
    subject === 'leads' &&
    (/\bclose rate\b|\bconversion\b|\b(?:clos|convert)(?:es|s|ing|ed)? (?:[a-z-]+ ){0,3}(?:best|worst|highest|lowest)\b|\b(?:sold|sells?) (?:the )?(?:best|worst)\b|\b(?:clos|convert)(?:es|s|ing)? (?:the )?(?:most|least)\b|\b(?:best|worst) clos(?:e|ing|er)s?\b/.test(
      q,
    ) ||
      asked('closed|sold|bought|converted|close|convert'))
  )
    return 'sold';
  if (subject === 'calls') {
    if (/\bmiss(?:ed)? rate\b/.test(q) || asked('miss|missed|unanswered')) return 'missed';
    if (/\b(?:voice ?mail|vm) rate\b/.test(q) || asked('voice ?mails?|vms?')) return 'voicemail';
    if (/\banswer(?:ed|ing)? rate\b|\bpick ?up rate\b/.test(q) || asked('answer|answered|picked up|pick up'))
      return 'answered';
  }
  return null;
}

/**
 * Values named to be left out, as one list: "dont lump in new or cpo", "not certified", "no cash or
 * lease", "excluding finance/lease". `values` is an alternation of the words for the values.
 */
const leftOut = (values: string) =>
  new RegExp(
    String.raw`\b(?:do ?n'?t|not|no|non|excluding|exclude|without|minus|except|leave out|leaving out)[\s-]+` +
      String.raw`(?:(?:lump(?:ing)?|mix(?:ing)?|count(?:ing|ng)?|throw(?:ing)?) in\s+|count(?:ing|ng)?\s+|includ(?:e|ing)\s+|the\s+|any\s+)?` +
      String.raw`(?:${values})(?:\s*(?:,|or|and|nor|\/)\s*(?:${values}))*\b`,
    'g',
  );
const CONDITIONS_LEFT_OUT = leftOut('new|used|certified|cpo');
const CONTRACTS_LEFT_OUT = leftOut('cash|finance|financed|loans?|leases?');
const CONDITION_WORDS: Record<string, RegExp> = {
  new: /\bnew\b/,
  used: /\bused\b/,
  certified: /\b(?:certified|cpo)\b/,
};
const CONTRACT_WORDS: Record<string, RegExp> = {
  cash: /\bcash\b/,
  finance: /\bfinanc|\bloans?\b/,
  lease: /\bleases?\b/,
};
/** The values a question leaves none of named but some out ("no cash or lease"): all the others. */
const theRest = (q: string, leftOutPattern: RegExp, words: Record<string, RegExp>) => {
  const leftOutText = (q.match(leftOutPattern) ?? []).join(' ');
  if (!leftOutText) return [];
  return Object.keys(words).filter((value) => !words[value]!.test(leftOutText));
};

/** The rooftops whose names carry a make ("Summit Honda Downtown" for Honda). */
export const rooftopsOfMake = (make: string, dealers: Vocabulary['dealers']) =>
  dealers.filter((dealer) => word(make).test(normalize(dealer.name)));

/**
 * A make that is a rooftop's word named as the rooftop: "the Honda store", or "at honda" (not "at honda
 * trucks").
 */
export const namesRooftop = (word: string) =>
  new RegExp(
    `\\b${escape(word)}\\s+(?:(?:and|&|\\+|or|,)\\s+[a-z]+\\s+)?(?:stores?|dealerships?|rooftops?|locations?|lot|site)\\b|\\b(?:at|over at|out at) (?:the )?${escape(word)}\\b(?! (?:vehicles|cars|units|trucks|suvs|models?|sedans))`,
  );

const SOURCE_KINDS: Array<[RegExp, string]> = [
  [
    /\b(?:3rd|third)[- ]party(?: (?:sites?|listings?|listing sites?|sources?|portals?))?\b|\blisting (?:sites|portals)\b/,
    'third_party_listing',
  ],
  [/\bpaid search\b|\bppc\b|\bsem\b/, 'paid_search'],
  [/\bsocial(?: media)?\b/, 'social'],
];

/** What a vehicle is listed without: "no internet price", "w/o photos", "unpriced". */
const WITHOUT = String.raw`\b(?:no|without|missing|w/o|lacking|blank|empty|zero|0)\s+(?:an?\s+|any\s+)?`;
const MISSING_WORDS: Array<[RegExp, string]> = [
  [
    new RegExp(
      String.raw`${WITHOUT}(?:internet|online|web|website|e-?commerce)\s*price\b|\b(?:internet|online|web) price (?:is |that is |thats )?(?:missing|blank|empty|null)\b`,
    ),
    'internet_price',
  ],
  [
    new RegExp(
      String.raw`${WITHOUT}(?:sale |selling |asking |list |sticker )?price\b|\bunpriced\b|\bnot (?:yet )?priced\b|\b(?<!internet |online |web )price (?:is |that is )?(?:missing|blank|empty|null)\b`,
    ),
    'price',
  ],
  [
    new RegExp(
      String.raw`${WITHOUT}(?:photos?|pictures?|pics|images?)\b|\b(?:photos?|pics|pictures) (?:are |is )?missing\b`,
    ),
    'photos',
  ],
  [new RegExp(String.raw`${WITHOUT}msrp\b`), 'msrp'],
];

/** Where, when and from which sources: what leads and calls both filter on. */
const FROM_SOURCES: ReadonlyArray<keyof QueryFilters> = [
  'dealer_id',
  'from',
  'to',
  'source',
  'sources',
  'exclude_source',
  'source_category',
  'attributed',
];

/** Rows with no source only: "leads where source is null", "unattributed calls". */
const UNATTRIBUTED =
  /\bunsourced\b|\b(?<!\b(?:including|incl|plus|counting|as well as) (?:any |the |all )?(?:leads |calls |ones )?(?:that |which )?)(?:with|w\/?|have|has|had) no source\b|\bwithout (?:a |any )?source\b|\bunattributed (?:ones|leads|calls)\b|\b(?:ones|leads|calls) (?:that are |that were )?unattributed\b|\b(?:were|are|was|is) unattributed\b|\bunknown sources? (?:leads|calls)\b|\bno[- ]source (?:leads|calls)\b/;

/** Rows with a source only: "exclude unattributed", "attributed only". */
const ATTRIBUTED =
  /\b(?:exclud\w*|without|drop|minus|remove|no|leave out|leaving out|except|not|ignore) (?:the |any )?(?:unattributed|un-attributed|unknown(?: sources?)?|no[- ]source(?: ones| leads| calls)?|(?:ones|leads|calls) (?:with )?no source|blank sources?)\b|\battributed (?:ones |leads |calls )?only\b|\bonly (?:the )?attributed\b|\bwith a (?:known )?source\b/;

/** Leads assigned to no one: "any w no salesperson", "unassigned", "nobody's on it". */
export const UNASSIGNED =
  /\b(?:no|without(?: an?)?|missing(?: an?)?|not assigned to(?: an?| any)?) (?:salesperson|salespeople|sales ?person|owner|assignee|one assigned)\b|\bunassigned\b|\bnot (?:yet )?(?:been )?ass?igned\b|\b(?:nobody|no ?one|no body)(?:'s| is| has)? (?:(?:been|gotten|got) )?(?:ass?igned|on (?:it|them|em|those))\b/;

/** What each subject's query can filter on; anything else the question names is said back as not used. */
export const SUPPORTED: Record<Subject, ReadonlyArray<keyof QueryFilters>> = {
  vehicles: [
    'dealer_id',
    'condition',
    'body_style',
    'make',
    'model',
    'color',
    'trim',
    'status',
    'exclude_make',
    'stocked_from',
    'stocked_to',
    'missing',
    'stock_number',
    'vin',
    ...VEHICLE_RANGE_FILTERS,
  ],
  leads: [...FROM_SOURCES, 'type', 'status', 'salesperson', 'unassigned', 'make', 'model', 'year_min', 'year_max'],
  calls: [...FROM_SOURCES, 'status', 'first_time', 'direction', 'department', 'duration_min'],
  sales: [
    'dealer_id',
    'from',
    'to',
    'condition',
    'salesperson',
    'contract_type',
    'make',
    'model',
    'year_min',
    'year_max',
    'price_min',
    'price_max',
    'gross_min',
    'gross_max',
    'gross_field',
    'deal_number',
    'unassigned',
  ],
};
export const SUBJECT_NOUN: Record<Subject, string> = {
  vehicles: 'vehicles',
  leads: 'leads',
  calls: 'calls',
  sales: 'deals',
};

/** A number that names a record: letters then a digit, three characters at least; not a model year or an amount. */
const RECORD_NUMBER = String.raw`(?:#\s*|number\s+(?:of\s+)?|no\.?\s+|num\s+)?#?(?!(?:19|20)\d{2}\b|\d+k\b|\d{1,2}\b)([a-z]{0,3}\d[a-z0-9-]{2,19})\b`;
const DEAL_NUMBER = new RegExp(String.raw`\bdeal\s+${RECORD_NUMBER}`);
const STOCK_NUMBER = new RegExp(String.raw`\bstock\s+${RECORD_NUMBER}`);
/** A VIN: 17 letters and digits (never I, O or Q), with both in it. */
const VIN = /\b(?=[a-z0-9]*\d)(?=[a-z0-9]*[a-z])[a-hj-npr-z0-9]{17}\b/;

/** How a filter the query could not use is named back ("the salesperson Sam Lee", "the period 2026-11-01 to …"). */
export function heardAs(key: keyof QueryFilters, filters: QueryFilters): string | null {
  const value = filters[key];
  const list = (values: unknown) => (Array.isArray(values) ? values.join(' or ') : String(values));
  switch (key) {
    case 'salesperson':
      return `the salesperson ${value}`;
    case 'source':
      return `the source ${value}`;
    case 'exclude_make':
      return `leaving out ${list(value)}`;
    case 'sources':
      return `the sources ${list(value)}`;
    case 'exclude_source':
      return `leaving out ${list(value)}`;
    case 'source_category':
      return `sources of the kind ${list(value)}`;
    case 'department':
      return `the ${value} department`;
    case 'gross_min':
    case 'gross_max':
      return key === 'gross_max' && filters.gross_min !== undefined ? null : 'the gross';
    case 'gross_field':
      return null;
    case 'from':
      return `the period ${filters.from}${filters.to && filters.to !== filters.from ? ` to ${filters.to}` : ''}`;
    case 'to':
      return filters.from ? null : `the period up to ${filters.to}`;
    case 'make':
    case 'model':
      return `the ${key} ${list(value)}`;
    case 'color':
      return `the colour ${list(value)}`;
    case 'trim':
      return `the trim ${list(value)}`;
    case 'missing':
      return `vehicles without ${list(value).replaceAll('_', ' ')}`;
    case 'stocked_from':
      return `stocked in from ${value}`;
    case 'stocked_to':
      return filters.stocked_from ? null : `stocked in up to ${value}`;
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
    case 'unassigned':
      return 'no salesperson';
    case 'attributed':
      return value === false ? 'only those with no source' : 'only those with a source';
    case 'direction':
      return `${value} calls`;
    case 'duration_min':
      return null;
    case 'deal_number':
      return `deal ${value}`;
    case 'stock_number':
      return `stock number ${value}`;
    case 'vin':
      return `VIN ${value}`;
    default:
      return null;
  }
}

/**
 * Every filter the question names, whatever the subject: rooftops, conditions, body styles, makes,
 * models, colours, statuses, prices, mileage, model years, days on the lot, periods, sources, lead
 * types, salespeople, contract types. The caller keeps what the subject supports and says the rest back.
 */
export function filtersOf(q: string, subject: Subject, vocabulary: Vocabulary, now: Date): QueryFilters {
  const filters: QueryFilters = {};
  const vehicles = subject === 'vehicles';
  // One record by what the DMS calls it: "deal D100199", "stock # U14345T", a 17-character VIN.
  const dealNumber = DEAL_NUMBER.exec(q)?.[1];
  if (dealNumber) filters.deal_number = dealNumber.toUpperCase();
  const stockNumber = STOCK_NUMBER.exec(q)?.[1];
  if (stockNumber) filters.stock_number = stockNumber.toUpperCase();
  const vin = VIN.exec(q)?.[0];
  if (vin) filters.vin = vin.toUpperCase();

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
          (!makeWords.has(token) || namesRooftop(token).test(q)),
      );
    })
    .map((dealer) => dealer.id);
  // "Summit Ford": a rooftop named by words of its name in a row, a make among them or not.
  const phrases = rooftopPhrases(q, vocabulary.dealers);
  for (const { ids } of phrases) dealerIds.push(...ids.filter((id) => !dealerIds.includes(id)));
  // Calls and leads are a rooftop's: "answer rate honda", "toyota only" name the rooftop whose name has the make.
  const makesAsRooftops = new Set<string>();
  // So are deals when rooftops are compared by who sold more ("honda vs chevy who sold more cars").
  const storesCompared =
    subject === 'sales' &&
    /\b(?:vs\.?|versus|or)\b/.test(q) &&
    /\bwho (?:sold|did|moved|delivered|had|closed) (?:more|better|the most)\b|\bwhich (?:one|store) (?:sold|did|moved) more\b/.test(
      q,
    );
  if (!dealerIds.length && (subject === 'calls' || subject === 'leads' || storesCompared))
    for (const make of vocabulary.makes) {
      const rooftops = rooftopsOfMake(make, vocabulary.dealers);
      if (rooftops.length === 1 && word(make).test(q)) {
        dealerIds.push(rooftops[0]!.id);
        makesAsRooftops.add(make);
      }
    }
  if (dealerIds.length) filters.dealer_id = dealerIds;
  // What the question says of vehicles, without the rooftops' names ("Ford trucks at Summit Ford").
  const withoutRooftops = phrases.reduce((text, { phrase }) => text.replace(phrasePattern(phrase, 'g'), ' '), q);
  // A rooftop's words ("the Honda store") name the rooftop, not vehicles of that make.
  const rooftopMakes = (make: string) =>
    makesAsRooftops.has(make) ||
    vocabulary.dealers.some(
      (dealer) => filters.dealer_id?.includes(dealer.id) && namesRooftop(make.toLowerCase()).test(q),
    );

  if (vehicles || subject === 'sales') {
    // "Used only, dont lump in new or cpo": the conditions left out say nothing of the one asked for.
    const kept = q.replace(CONDITIONS_LEFT_OUT, ' ');
    // "Used incl. CPO", "used + certified", "pre owned …, cpo too": both; "certified pre-owned" is the one.
    if (
      /\b(?:used|pre[- ]?owned)\b.{0,12}?(?:\b(?:incl(?:uding|udes|\.)?|plus|and|or|with|w\/)|[+&/])\s*(?:the\s+)?(?:certified|cpo)\b|\b(?:certified|cpo)\s*(?:\+|&|\/|\band\b|\bor\b|\bplus\b)\s*(?:used|pre[- ]?owned)\b/.test(
        kept,
      ) ||
      (/\b(?:used|pre[- ]?owned)\b/.test(kept) &&
        /\b(?:certified|cpo)\s+(?:incl(?:uded|uding|\.)?|too|as well|also|included)\b|\b(?:incl(?:uding|\.)?|plus|with|w\/) (?:the )?(?:certified|cpo)\b/.test(
          kept,
        ))
    )
      filters.condition = ['used', 'certified'];
    else if (/\b(?:certified|cpo)\b/.test(kept)) filters.condition = ['certified'];
    else if (/\b(?:used|pre[- ]?owned|second-?hand)\b/.test(kept)) filters.condition = ['used'];
    else if (/\bnew\b(?! arrivals?)(?!\s+(?:leads?|customers?|callers?))/.test(kept)) filters.condition = ['new'];
    // "new vs used" compares conditions: it filters on neither.
    else if (vehicles) filters.condition = theRest(q, CONDITIONS_LEFT_OUT, CONDITION_WORDS);
    if (!filters.condition?.length) delete filters.condition;
    if (/\bnew (?:vs\.?|versus|and|or) used\b|\bused (?:vs\.?|versus|and|or) new\b/.test(q)) delete filters.condition;
  }
  const bodies = BODY_WORDS.filter(([pattern]) => pattern.test(withoutRooftops)).flatMap(([, styles]) => {
    const known = styles.filter((style) =>
      vocabulary.bodyStyles.some((body) => body.toLowerCase() === style.toLowerCase()),
    );
    return known.length ? known : [styles[0]!];
  });
  // "Pickup" in "ready for pickup" is a collection, not a truck.
  if (bodies.length && !/\bready for pickup\b/.test(q)) filters.body_style = bodies;
  // "Excluding jeeps", "other than fords", "no chevys": makes left out, not asked for.
  const exclusion =
    /\b(?:excluding|exclude|except(?: for)?|other than|besides|minus|but not|not|no)\s+(?:the\s+|any\s+)?((?:[a-z-]+)(?:\s*(?:,|or|and|\/)\s*(?:no\s+)?[a-z-]+)*)/g;
  const makeIn = (text: string) => [
    ...vocabulary.makes.filter((make) => word(make).test(text)),
    ...Object.entries(MAKE_ALIASES)
      .filter(([alias]) => word(alias).test(text))
      .map(([, make]) => make),
  ];
  const excluded = [...withoutRooftops.matchAll(exclusion)].flatMap((match) => makeIn(match[1]!));
  const included = excluded.length
    ? withoutRooftops.replace(exclusion, (phrase, named: string) => (makeIn(named).length ? ' ' : phrase))
    : withoutRooftops;
  if (excluded.length && vehicles) filters.exclude_make = [...new Set(excluded)];
  const makes = vocabulary.makes.filter((make) => word(make).test(included) && !rooftopMakes(make));
  for (const [alias, make] of Object.entries(MAKE_ALIASES)) if (word(alias).test(included)) makes.push(make);
  if (makes.length) filters.make = [...new Set(makes)];
  const models = modelsNamed(withoutRooftops, vocabulary.models);
  if (models.length) filters.model = models;
  const { trims } = trimsNamed(withoutRooftops, vocabulary);
  if (trims.length && vehicles) filters.trim = trims;
  // "In the red" is money, not paint.
  const paint = withoutRooftops.replace(/\bin the (?:red|black)\b/g, ' ');
  const colors = COLORS.filter((color) => new RegExp(`\\b${color}\\b`).test(paint)).map((color) =>
    color === 'grey' ? 'gray' : color,
  );
  if (colors.length) filters.color = colors;
  if (vehicles) {
    if (/\bpresumed sold\b/.test(q)) filters.status = ['presumed_sold'];
    else if (/\bin transit\b|\bincoming\b|\bon order\b/.test(q)) filters.status = ['in_transit'];
    else if (/\bpending\b/.test(q)) filters.status = ['pending'];
    else if (/\bsold\b/.test(q)) filters.status = ['sold'];
    const missing = MISSING_WORDS.filter(([pattern]) => pattern.test(q)).map(([, field]) => field);
    if (missing.length) filters.missing = missing;
  }

  // Periods: a year is a period of leads, calls and deals ("in 2025"); of vehicles, a model year.
  const periods = periodsOf(q, now, { years: !vehicles });
  if (periods[0]) Object.assign(filters, periods[0].range);
  Object.assign(filters, modelYearsOf(withoutPeriods(q, periods), subject, vocabulary, now));
  // Days on the lot (heard on any subject: "cars we sold over 60 days old"); of leads, calls and deals, not
  // in the period they name ("past 2 weeks").
  const aged = vehicles ? q : withoutPeriods(q, periods);
  const days = new RegExp(
    String.raw`\b(?:(${STRICT_ABOVE})|(${AT_LEAST})|(${STRICT_BELOW})|(${AT_MOST}))\s+(\d+)\s*(day|week|month)s?\b`,
  ).exec(aged);
  const plus = /\b(\d+)\+\s*days?\b/.exec(aged);
  // "Trucks over 90", "units 90+": a lot's aging buckets, in days.
  const bucket = vehicles
    ? /\b(?:over|older than|past|more than|(?=\d+\+))\s*(45|60|90|120|150|180|365)(?:\+|\b)(?!\s*(?:k\b|grand|thousand|miles|mi\b|%|percent|[$,.\d]))/.exec(
        aged,
      )
    : null;
  // "60-90 days on the ground", "between 30 and 60 days": a band of days on the lot.
  const daysBand = vehicles
    ? /\b(\d{1,3})\s*(?:-|–|to)\s*(\d{1,3})\s*days?\b|\bbetween (\d{1,3}) and (\d{1,3}) days?\b/.exec(aged)
    : null;
  if (daysBand && Number(daysBand[1] ?? daysBand[3]) <= Number(daysBand[2] ?? daysBand[4])) {
    filters.days_on_lot_min = Number(daysBand[1] ?? daysBand[3]);
    filters.days_on_lot_max = Number(daysBand[2] ?? daysBand[4]);
  } else if (days) {
    const span = Number(days[5]) * (days[6] === 'week' ? 7 : days[6] === 'month' ? 30 : 1);
    if (days[1]) filters.days_on_lot_min = span + 1;
    else if (days[2]) filters.days_on_lot_min = span;
    else if (days[3]) filters.days_on_lot_max = span - 1;
    else filters.days_on_lot_max = span;
  } else if (plus) filters.days_on_lot_min = Number(plus[1]);
  else if (bucket) filters.days_on_lot_min = Number(bucket[1]) + (bucket[0].endsWith('+') ? 0 : 1);

  // Call length ("calls over 5 minutes"), in seconds.
  const length = /\b(?:(over|longer than|more than)|(at least))\s+(\d+)\s*(min(?:ute)?s?|sec(?:ond)?s?)\b/.exec(q);
  if (length) filters.duration_min = Number(length[3]) * (length[4]!.startsWith('m') ? 60 : 1) + (length[1] ? 1 : 0);

  // Mileage.
  const miles = new RegExp(
    String.raw`\b(?:(${STRICT_BELOW})|(${AT_MOST})|(${STRICT_ABOVE})|(${AT_LEAST}))\s+${AMOUNT}\s*(?:miles|mi\b|on the (?:odometer|odo|clock))`,
  ).exec(q);
  // "100k+ mi", "100k+ on the clock".
  const milesPlus = new RegExp(String.raw`${AMOUNT}\+\s*(?:miles|mi\b|on the (?:odometer|odo|clock))`).exec(q);
  if (!miles && milesPlus) filters.mileage_min = amount(milesPlus[1]!, milesPlus[2]);
  if (miles) {
    const value = amount(miles[5]!, miles[6]);
    if (miles[1]) filters.mileage_max = value - 1;
    else if (miles[2]) filters.mileage_max = value;
    else if (miles[3]) filters.mileage_min = value + 1;
    else filters.mileage_min = value;
  }

  // Prices: amounts not about miles or days, and big enough to be money.
  const priceText = q.replace(
    new RegExp(String.raw`${AMOUNT}\s*(?:miles|mi\b|days?|weeks?|months?|on the (?:odometer|odo|clock))`, 'g'),
    ' ',
  );
  const betweenWords = new RegExp(String.raw`\bbetween\s+${AMOUNT}\s+(?:and|-|to)\s+${AMOUNT}`).exec(priceText);
  // "Priced 20-30k", "$20k to $30k": a band of money (a $ or a "k"; "2019-2021" is model years).
  const band = betweenWords
    ? null
    : new RegExp(String.raw`(?<![\w.,])${AMOUNT}\s*(?:-|to)\s*${AMOUNT}`).exec(priceText);
  const between = betweenWords ?? (band && (band[0].includes('$') || band[2] || band[4]) ? band : null);
  // "Between 2019 and 2021" is a run of model years, not prices.
  const yearsOnly =
    between &&
    !between[0].includes('$') &&
    !between[2] &&
    !between[4] &&
    [between[1]!, between[3]!].every((digits) => /^(?:19|20)\d{2}$/.test(digits));
  if (between && !yearsOnly) {
    // "Between 20 and 30k": the second amount's "k" is the first's too.
    const shared = !between[2] && between[4] && amount(between[1]!, between[4]) <= amount(between[3]!, between[4]);
    filters.price_min = amount(between[1]!, shared ? between[4] : between[2]);
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
    // "Civics under 20": a car's price said in thousands, as a lot says it (an upper bound only: "over 90" is
    // days on a lot as often as money).
    const inThousands = (match: RegExpExecArray, bound: 'min' | 'max') =>
      vehicles &&
      bound === 'max' &&
      !isMoney(match) &&
      money(match) >= 5 &&
      money(match) <= 150 &&
      Number.isInteger(money(match)) &&
      !/^\s*(?:%|percent|years?|yrs?|hours?|hrs?|[a-z]+s\b)/.test(priceText.slice(match.index + match[0].length));
    // "Deals with over 4k total gross", "back end under $500": a bound on the gross, not the sale price.
    const grossOf = (match: RegExpExecArray) => {
      const after = /^\s*(?:in |of )?(?:(?:(total|front|back)(?:[- ]?end)? )?gross\b|(front|back)(?:[- ]?end)?\b)/.exec(
        priceText.slice(match.index + match[0].length),
      );
      const before =
        /\b(?:(?:(total|front|back)(?:[- ]?end)? )?gross(?:ing)?|(front|back)[- ]?end)(?: (?:is|was|are|were|of|at))?\s*$/.exec(
          priceText.slice(0, match.index),
        );
      const found = subject === 'sales' ? (after ?? before) : null;
      return found ? (`${found[1] ?? found[2] ?? 'total'}_gross` as QueryFilters['gross_field']) : null;
    };
    for (const [match, bound] of [
      [below, 'max'],
      [above, 'min'],
    ] as const) {
      if (!match) continue;
      if (inThousands(match, bound)) {
        filters.price_max = money(match) * 1000 + (match[1] ? -0.01 : 0);
        continue;
      }
      if (!isMoney(match)) continue;
      const strict = match[1] ? (bound === 'max' ? -0.01 : 0.01) : 0;
      const gross = grossOf(match);
      if (gross) {
        filters[`gross_${bound}`] = money(match) + strict;
        filters.gross_field = gross;
      } else filters[`price_${bound}`] = money(match) + strict;
    }
  }

  const source = sourcesOf(q, vocabulary.sources).names[0];
  if (source) filters.source = source;
  if (subject === 'leads' || subject === 'calls') {
    if (ATTRIBUTED.test(q)) filters.attributed = true;
    // "Leads with no source", "unattributed calls": only those.
    else if (UNATTRIBUTED.test(q)) filters.attributed = false;
  }
  // "3rd party sites", "social", "paid search": a kind of source.
  const kinds = SOURCE_KINDS.filter(([pattern]) => pattern.test(q)).map(([, kind]) => kind);
  if (kinds.length && !vehicles) filters.source_category = kinds;
  const salesperson = salespersonNamed(q, vocabulary.salespeople);
  if (salesperson) filters.salesperson = salesperson;

  const callStatuses = [
    ...(/\bmiss(?:ed|ing)?\b|\bunanswered\b|\bdid(?:n't| not) (?:answer|pick up)\b|\bno answer\b/.test(q)
      ? ['missed']
      : []),
    ...(/\banswered\b|\bpicked up\b|\bdid (?:somebody|someone|anybody|anyone|we) (?:actually )?pick up\b/.test(q) &&
    !/\bunanswered\b/.test(q)
      ? ['answered']
      : []),
    ...(/\bvoice ?mails?\b|\bvms?\b|\bv ?mail\b|\bleft a message\b/.test(q) ? ['voicemail'] : []),
  ];
  if (subject === 'calls') {
    // A rate names its numerator, not a filter: "answer rate" is over every call.
    if (callStatuses.length && !rateOf(q, subject)) filters.status = callStatuses;
    if (/\bfirst[- ]time\b|\bnew callers?\b/.test(q)) filters.first_time = true;
    if (/\binbound\b|\bincoming\b/.test(q)) filters.direction = 'inbound';
    else if (/\boutbound\b|\boutgoing\b/.test(q)) filters.direction = 'outbound';
    // "Sales dept calls", "calls to service".
    const department =
      /\b(sales|service|parts) (?:dept|department|line|desk|calls)\b|\b(?:calls? (?:to|for|into)|(?:ones|missed|answered) in) (?:the )?(sales|service|parts)\b/.exec(
        q,
      );
    if (department) filters.department = department[1] ?? department[2];
    // "Service?" alone, after sales calls: that department's.
    const named = /^(?:and |what about |how about |now )?(?:the )?(sales|service|parts)(?: ones| side)?\??$/.exec(q);
    if (named) filters.department = named[1];
  }
  // "Leads nobody is assigned", "deals w no salesperson on them".
  if ((subject === 'leads' || subject === 'sales') && UNASSIGNED.test(q)) filters.unassigned = true;
  if (subject === 'leads') {
    const types = ['service', 'finance', 'trade_in'].filter((type) =>
      new RegExp(`\\b${type.replace('_', '[- ]?')}\\b`).test(q),
    );
    if (/\bused[- ](?:car |vehicle )?(?:leads?|inquir(?:y|ies))\b/.test(q)) types.push('used');
    if (/\bnew[- ](?:car|vehicle) (?:leads?|inquir(?:y|ies))\b/.test(q)) types.push('new');
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
      /\bunworked\b|\buntouched\b|\bstill new\b|\b(?:sitting|still|stuck) (?:at|in) new\b|\b(?:in |with )?(?:status )?new status\b|\bstatus (?:is |of |= ?)?new\b|\bnew leads?\b(?! this| last| today)/.test(
        q,
      ) &&
      !/\bnew[- ]car\b/.test(q)
    )
      statuses.push('new');
    if (statuses.length) filters.status = statuses;
  }
  if (subject === 'sales') {
    // "Financed deals only, no cash or lease": the kinds left out say nothing of the one asked for.
    // "Amount financed" is a figure, not finance deals.
    const kept = q.replace(CONTRACTS_LEFT_OUT, ' ').replace(/\b(?:amount|amt) financed\b|\bfinanced amount\b/g, ' ');
    const contracts = [
      ...(/\bleases?\b|\bleased\b|\bleasing\b/.test(kept) ? ['lease'] : []),
      ...(/\bfinanced\b|\bfinance\b|\bfinancing\b/.test(kept) ? ['finance'] : []),
      ...(/\bcash deals?\b|\bpaid cash\b|\bcash\b/.test(kept) ? ['cash'] : []),
    ];
    // "deals, no cash or lease" alone is the rest: finance.
    const rest = contracts.length ? contracts : theRest(q, CONTRACTS_LEFT_OUT, CONTRACT_WORDS);
    if (rest.length) filters.contract_type = rest;
  } else if (!vehicles && callStatuses.length && subject !== 'calls' && !rateOf(q, subject))
    // Call words in a question about something else ("leads we missed") are heard, and said back.
    filters.status = [...(filters.status ?? []), ...callStatuses];
  return filters;
}

/**
 * Nicknames dealers give sources, each with what a source's own name must hold to be the one meant: "fb" is
 * Facebook, "cg" CarGurus, "at" Autotrader (only as "at leads", "at calls" at the start of what is counted),
 * "cars" Cars.com (only as "cars leads" or "from cars"), "google" a Google source when the caller has one.
 */
const SOURCE_NICKNAMES: Array<[RegExp, RegExp]> = [
  [/\b(?:fb|facebook|meta)\b/, /facebook|\bfb\b|\bmeta\b/],
  [/\b(?:ig|insta|instagram)\b/, /instagram|\binsta\b|\big\b/],
  [/\b(?:cg|cargurus|car gurus)\b/, /car ?gurus|\bcg\b/],
  [
    /\b(?:autotrader|auto trader|atc)\b|(?:^|\b(?:many|much|of|our|the|all|any|total|and|or|vs|versus)\s+)at\s+(?:leads?|calls?)\b/,
    /auto ?trader/,
  ],
  [
    /\bcars\s+(?:leads?|calls?)\b|\b(?:from|via|thru|through|off)\s+cars(?:\.com)?(?=$|[?.!,]|\s+(?:this|last|ytd|mtd|today|yesterday|in|during|since|vs|versus|and|or|so far)\b)/,
    /^cars\.com$|\bcars\.com\b/,
  ],
  [/\bgoogle\b/, /\bgoogle\b/],
  [/\b(?:adwords|ppc|paid search)\b/, /adwords|\bppc\b|google ads|paid search/],
];

/** The nicknames' words, which name sources and not vehicles. */
export const SOURCE_NICKNAME_WORDS = new Set(
  'fb facebook meta ig insta instagram cg cargurus autotrader atc google adwords ppc'.split(' '),
);

/**
 * The sources a question names, by their own names or by nicknames dealers use, longest first; and what it
 * names that is no one source of the caller's ("google" when there are Google Ads and Google Organic; "ig"
 * with no Instagram source), to be said back, never dropped.
 */
export function sourcesOf(q: string, sources: string[]): { names: string[]; unresolved: string[] } {
  const names = [...sources]
    .sort((a, b) => b.length - a.length)
    .filter(
      (name) => word(name).test(q) || word(name.replace(/-/g, ' ')).test(q) || normalize(q).includes(normalize(name)),
    );
  // A shorter name inside a longer one named ("Google" in "Google Ads") is the longer one.
  const whole = names.filter(
    (name, index) => !names.slice(0, index).some((longer) => normalize(longer).includes(normalize(name))),
  );
  const unresolved: string[] = [];
  for (const [said, holds] of SOURCE_NICKNAMES) {
    const match = said.exec(q);
    if (!match) continue;
    const nickname = match[0]
      .replace(/^(?:.*\s)?(at|cars)\s.*$/, '$1')
      .replace(/^(?:from|via|thru|through|off)\s+/, '')
      .trim();
    const meant = sources.filter((name) => holds.test(normalize(name)));
    // Already named in full ("Google Ads"), or a word of a name it holds.
    if (meant.some((name) => whole.includes(name))) continue;
    if (meant.length === 1) whole.push(meant[0]!);
    else
      unresolved.push(
        meant.length
          ? `the source "${nickname}" (it could be ${meant.join(' or ')}; name one)`
          : `the source "${nickname}" (no source of yours goes by it)`,
      );
  }
  return { names: whole, unresolved };
}

/** A model year's words: "2021 or newer", "older than 2018", "pre-2015", "next year's models". */
const YEAR_SINCE =
  /\b((?:19|20)\d{2})\s*(?:\+|or (?:newer|later)|and (?:newer|up|later))|\b(since|from|newer than|after)\s+((?:19|20)\d{2})\b/;
const YEAR_BEFORE =
  /\b((?:19|20)\d{2})\s*(?:or (?:older|earlier)|and (?:older|earlier))|\b(before|older than|pre-?)\s*((?:19|20)\d{2})\b/;
const VEHICLE_AFTER_YEAR =
  /^(?:'?s\b|\s+(?:model|my)\b|\s+(?:[a-z-]+\s+){0,2}(?:cars?|vehicles?|units?|models?|trucks?|suvs?|sedans?|coupes?|vans?|minivans?|wagons?|hatchbacks?|convertibles?|pickups?)\b)/;

/**
 * Model years a question names, once its periods are taken out. Of vehicles, any year ("2021 Toyotas",
 * "older than 2018"). Of leads and deals, the vehicle's, when the words say so ("2025 tacomas", "2020 or newer
 * trucks", "2024 models"): "since 2024" and "before 2020" there are periods, and a year alone may be either.
 */
export function modelYearsOf(
  text: string,
  subject: Subject,
  vocabulary: Vocabulary,
  now: Date,
): Pick<QueryFilters, 'year_min' | 'year_max'> {
  const years: Pick<QueryFilters, 'year_min' | 'year_max'> = {};
  const vehicles = subject === 'vehicles';
  // "Next year's models", "this year's models": model years named as dealers say them.
  const yearModels = /\b(next|this|last) year'?s? models?\b/.exec(text);
  if (yearModels) {
    const year = now.getUTCFullYear() + (yearModels[1] === 'next' ? 1 : yearModels[1] === 'last' ? -1 : 0);
    text = text.replace(yearModels[0], `${year} models`);
  }
  // "2019-2021", "2019 to 2021", "between 2019 and 2021", "'19-'21", "2019-21": a run of model years. Of vehicles
  // always; of leads and deals when a vehicle follows ("2019-2021 tacomas"), else it may be a run of periods.
  const run = YEAR_RUN.exec(text);
  if (run) {
    const first = yearOf(run[1]!);
    const last = yearOf(run[2]!, first);
    if (
      last !== undefined &&
      last > first &&
      (vehicles || vehicleFollows(text.slice(run.index + run[0].length), vocabulary))
    )
      return { year_min: first, year_max: last };
  }
  const since = YEAR_SINCE.exec(text);
  const before = YEAR_BEFORE.exec(text);
  if (since && (vehicles || !since[2] || since[2] === 'newer than'))
    years.year_min = since[1] ? Number(since[1]) : Number(since[3]) + (/newer than|after/.test(since[2]!) ? 1 : 0);
  if (before && (vehicles || !before[2] || before[2] !== 'before'))
    years.year_max = before[1] ? Number(before[1]) : Number(before[3]) - 1;
  if (since || before) return years;
  const plain = text.replace(/\$\s*[\d,]+/g, '');
  const exact = /\b((?:19|20)\d{2})\b(?!\s*(?:miles|days))/.exec(plain);
  if (!exact) return years;
  const after = plain.slice(exact.index + exact[0].length);
  const vehicleNamed = () => vehicleFollows(after, vocabulary) || /\bmodel year\s*$/.test(plain.slice(0, exact.index));
  if (vehicles || vehicleNamed()) years.year_min = years.year_max = Number(exact[1]);
  return years;
}

/** A run of model years: "2019-2021", "2019 to 2021", "between 2019 and 2021", "'19-'21", "2019-21". */
const YEAR_RUN =
  /(?:\bbetween\s+)?(?<![\d$])((?:19|20)\d{2}|'\d{2})\s*(?:-|–|\bto\b|\bthru\b|\bthrough\b|(?<=between\s+\S+\s+)\band\b)\s*((?:19|20)\d{2}|'?\d{2})\b(?!\s*(?:k\b|grand|miles|mi\b|days|dollars|bucks|%))/;
/** A year as written: "2019", "'19"; a two-digit end of a run ("2019-21") in the century of its start. */
const yearOf = (written: string, start?: number): number => {
  const digits = written.replace("'", '');
  if (digits.length === 4) return Number(digits);
  const century = start !== undefined ? Math.floor(start / 100) * 100 : 2000;
  return century + Number(digits);
};
/** Whether the words after a year name vehicles ("2021 Toyotas", "2020 or newer trucks", "2024 models"). */
function vehicleFollows(after: string, vocabulary: Vocabulary): boolean {
  const next = after.trim().split(' ').slice(0, 3).join(' ');
  return (
    VEHICLE_AFTER_YEAR.test(after) ||
    modelsNamed(next, vocabulary.models).length > 0 ||
    vocabulary.makes.some((make) => word(make).test(next)) ||
    Object.keys(MAKE_ALIASES).some((alias) => word(alias).test(next))
  );
}

/** Words that say nothing of which vehicles: they end a run of qualifiers and are never said back. */
const PLAIN_WORDS = new Set(
  [
    'how many much of the a an our my your their his her its this that these those them do does did we i you they us',
    'me any all every each some no not what whats which who where when is are was were be been have has had got get',
    'there here in at on with without for from to by and or vs versus than as per about over under below above less',
    'more fewer least most between list show give tell count number total currently current right now still left just',
    'only also please really actually actual even so then other others different same kind type types sort lot lots',
    'stock inventory available active ones sell sold selling bought buy compare comparing find pull up see check',
    'need want know looking look search break down breakdown rank ranking sort sorted order display name include',
    'including whole entire full overall both either can could would should might im whats why it but regular plain',
    // Trade-ins are said back on their own.
    'trade ins trade-in trade-ins tradeins',
  ]
    .join(' ')
    .split(' '),
);
/** Words a question uses to pick or rank vehicles that the rules read elsewhere (conditions, statuses, ranks, model years). */
const VEHICLE_WORDS = new Set(
  [
    'new brand used pre-owned preowned second-hand certified cpo sold pending presumed transit incoming cheapest cheaper priciest pricier expensive oldest',
    'older newest newer longest highest lowest top bottom recent latest fresh freshest aged aging average avg biggest',
    'smallest largest fewest best worst popular deals deal sales units unit leads calls did do done slowest fastest quickest',
    'excluding exclude except other than besides minus first ytd mtd qtd wtd front back end gross sale asking amount financed last',
    // Where stock is: "units on the ground chevy aurora".
    'ground lot hand stock',
  ]
    .join(' ')
    .split(' '),
);
/** Words that qualify a figure or a vehicle only with another word ("low mileage", "good condition"). */
const JOINING_WORDS = new Set(['mileage', 'miles', 'price', 'priced', 'prices', 'model', 'year', 'condition', 'shape']);
const VEHICLE_NOUNS =
  /^(?:cars?|vehicles?|units?|autos?|inventory|suvs?|trucks?|pickups?|sedans?|coupes?|(?:mini)?vans?|wagons?|hatchbacks?|convertibles?|crossovers?)$/;

/**
 * Qualifiers a vehicle question puts on vehicles that no filter or rule reads ("good condition trucks",
 * "4x4 trucks", "trucks in good shape", "cars with a sunroof"): said back as not used. Conservative:
 * only words right before a vehicle noun or after "with", and never words that say nothing of which
 * vehicles ("our", "total", "available", "actual").
 */
export function unplacedQualifiers(q: string, vocabulary: Vocabulary): string[] {
  const named = new Set(
    [...vocabulary.makes, ...Object.keys(MAKE_ALIASES), ...vocabulary.models, ...vocabulary.sources]
      .concat(
        vocabulary.salespeople,
        ...vocabulary.dealers.map((dealer) => [dealer.name, dealer.city ?? '', dealer.code]),
      )
      .flatMap((name) => normalize(name).split(/[^a-z0-9]+/)),
  );
  // "Trd offrd": the words that named a trim.
  for (const trimWord of trimsNamed(q, vocabulary).words) named.add(trimWord);
  const tokens = q.split(' ').map((token) => token.replace(/^[^a-z0-9$]+|[^a-z0-9$+%]+$/g, '').replace(/'s$/, ''));
  // Each word is looked up once: a long question walks the same words again for every vehicle noun in it.
  const remembered = <T>(look: (token: string) => T) => {
    const seen = new Map<string, T>();
    return (token: string): T => {
      if (!seen.has(token)) seen.set(token, look(token));
      return seen.get(token)!;
    };
  };
  const makeOrModel = remembered(
    (token) =>
      vocabulary.makes.some((make) => word(make).test(token)) || modelsNamed(token, vocabulary.models).length > 0,
  );
  const known = remembered(
    (token) =>
      VEHICLE_WORDS.has(token) ||
      named.has(token) ||
      named.has(token.replace(/(?:s|es)$/, '')) ||
      SOURCE_NICKNAME_WORDS.has(token) ||
      makeOrModel(token) ||
      COLORS.includes(token) ||
      BODY_WORDS.some(([pattern]) => pattern.test(token)) ||
      // Model years, amounts and counts ("2021", "$30k", "2020+", "60", "the five priciest").
      /^(?:(?:19|20)\d{2}s?\+?|\$?\d[\d,.]*(?:k|m)?\+?|two|three|four|five|six|seven|eight|nine|ten)$/.test(token) ||
      // A run of model years ("2019-2021", "'19-'21").
      /^'?(?:(?:19|20)\d{2}|\d{2})[-–]'?(?:(?:19|20)\d{2}|\d{2})$/.test(token),
  );
  const spans: string[] = [];
  // A run of words: each unknown word, with the joining words beside it, is one qualifier.
  const collect = (run: string[]) => {
    let span: string[] = [];
    const flush = () => {
      if (span.some((token) => !JOINING_WORDS.has(token))) spans.push(span.join(' '));
      span = [];
    };
    for (const token of run) {
      if (known(token)) flush();
      else span.push(token);
    }
    flush();
  };
  tokens.forEach((token, index) => {
    if (VEHICLE_NOUNS.test(token) || (index > 0 && makeOrModel(token) && !makeOrModel(tokens[index - 1]!))) {
      const run: string[] = [];
      for (let back = index - 1; back >= 0 && tokens[back] && !PLAIN_WORDS.has(tokens[back]!); back -= 1)
        run.unshift(tokens[back]!);
      collect(run);
    }
    if (token === 'with') {
      const run: string[] = [];
      let next = index + 1;
      while (['a', 'an', 'the'].includes(tokens[next] ?? '')) next += 1;
      for (; next < tokens.length && tokens[next] && !PLAIN_WORDS.has(tokens[next]!); next += 1)
        run.push(tokens[next]!);
      collect(run);
    }
  });
  // "In good condition", "in rough shape".
  for (const match of q.matchAll(/\bin ((?:[a-z-]+ ){1,2}(?:condition|shape))\b/g)) spans.push(match[1]!);
  return [...new Set(spans)];
}
