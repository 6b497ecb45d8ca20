import {
  VEHICLE_RANGE_FILTERS,
  type AssistantQuery,
  type Grouping,
  type Measure,
  type QueryFilters,
  type Subject,
} from './query';
import {
  filtersOf,
  heardAs,
  UNASSIGNED,
  namesRooftop,
  rooftopsOfMake,
  rateOf,
  SOURCE_NICKNAME_WORDS,
  sourcesOf,
  SUBJECT_NOUN,
  SUPPORTED,
  unplacedQualifiers,
} from './heard';
import {
  BODY_WORDS,
  CANNOT_FILTER,
  COLORS,
  DAYS_TO_SELL,
  dateRangeOf,
  escape,
  KNOWN_MAKES,
  modelsNamed,
  NEGATED,
  NOT_DATA,
  NOT_MEASURED,
  NOT_WORKED,
  normalize,
  periodBefore,
  periodsOf,
  type Period,
  withoutPeriods,
  phrasePattern,
  readable,
  rooftopPhrases,
  word,
  type Vocabulary,
} from './wording';

export { dateRangeOf, readable, type Vocabulary };

/**
 * The built-in engine's reading of a question: deterministic rules over the words dealers use,
 * with the caller's own vocabulary (rooftops, makes, models, body styles, sources) so "the north
 * store", "Tacomas" or "Cars.com" resolve to their data. A follow-up ("and how many of those are
 * white?") starts from the previous question's query and changes only what it names.
 */

/**
 * A reading: the query, whether it followed up, and what the question named that the query could not
 * use (said in the answer, never silently dropped). Or no query: why not, and whether the question was
 * declined as not a question about the data at all.
 */
export type Understanding =
  | {
      query: AssistantQuery;
      followUp: boolean;
      unused: string[];
      /** "…and how does that compare with September?": the same query over this period too. */
      compareWith?: Period;
    }
  | { query: null; reason: string; declined?: boolean };

function subjectOf(q: string, vocabulary: Vocabulary, mentionsVehicle: boolean): Subject | null {
  // Days to sell are sold vehicles' days in stock, not deals.
  if (DAYS_TO_SELL.test(q)) return 'vehicles';
  // "Which lead source had the most missed ones": calls missed, whatever the source is called.
  if (
    /\blead sources?\b/.test(q) &&
    /\bmissed\b|\bunanswered\b|\bvoice ?mails?\b|\bpicked up\b|\btalk time\b|\b(?:phone )?calls\b/.test(q) &&
    !/\bleads\b|\binquir|\bclose rate\b|\bconver|\bappointments?\b/.test(q)
  )
    return 'calls';
  // "Which source brought us the most customers": customers counted by where they came from are leads.
  if (
    /\bcustomers?\b/.test(q) &&
    /\bsources?\b|\bchannels?\b|\b(?:come|comes|coming|came)(?: to us)? from\b|\bbrought\b|\battribut/.test(q)
  )
    return 'leads';
  if (
    /\bleads?\b|\binquir(?:y|ies)\b|\bprospects?\b|\bsubmissions?\b|\bclose rate\b|\bconversion\b|\bconverted\b|\bappointments?\b|\bshowed\b/.test(
      q,
    )
  )
    return 'leads';
  if (
    /\bcalls?\b|\bcallers?\b|\bphones?\b|\bvoice ?mails?\b|\banswer(?:ed)? rate\b|\bmiss(?:ed)? rate\b|\bcalled\b|\brang\b/.test(
      q,
    )
  )
    return 'calls';
  if (
    /\bpresumed sold\b|\bmarked (?:as )?sold\b|\b(?:status|flagged) (?:of |as )?sold\b|\bsold in the system\b|\b(?:per|according to|from|in|on|by) (?:the |our )?(?:vehicle|inventory|stock) (?:records?|data|file|system)\b/.test(
      q,
    )
  )
    return 'vehicles';
  // "Ytd units honda vs toyota", "units mtd": units counted over a period to date are units sold.
  if (/\b(?:ytd|mtd|year to date|month to date)\s+units\b|\bunits\s+(?:ytd|mtd|year to date|month to date)\b/.test(q))
    return 'sales';
  if (
    /\bon the board\b|\b(?:we|they|did|who|he|she) retail(?:ed)?\b|\bretailed\b|\bmoved the most\b|\b(?:bring|brought)\b(?! in\b)|\b(?:go for|went for|sell for)\b|\bsales\b(?!\s*(?:person|meeting|team|floor|manager|staff|desk|board|tower|dept|department|line))|\bsale price\b|\bdeals?\b|\bsold\b|\bunits sold\b|\bsell\b|\bsells\b|\bselling\b(?!\s*price)|\bdelivered\b|\bdeliveries\b|\bgross\b|\brevenue\b|\bsalespe(?:rson|ople)\b|\bleases?\b|\bleased\b|\bfinanced\b|\bcash deals?\b|\bclosers?\b|\bpopular\b|\bbest[- ]sell(?:ing|er|ers)?\b|\bpvr\b|\bper vehicle retailed\b|\b(?:front|back)[- ]?end\b|\b(?:total|average|sum|his|her|their|our) (?:front|back)\b(?! (?:of|door|seat|row|line|lot|desk|to)\b)|\b(?:top|best|worst) (?:guy|guys|gal|rep|person|seller|producer|closer)s?\b|\bwho (?:was|were) (?:the )?(?:top|best|#1|number one)\b|\bwho(?:'s| is| was)? (?:leading|winning|ahead)\b.*\b(?:units|deals|sold|sales|gross)\b|\b(?:leading|led|topped|tops|ran|runs) the (?:floor|board|team)\b/.test(
      q,
    )
  )
    return 'sales';
  if (
    mentionsVehicle ||
    /\bwhat(?:'s| has| have)? (?:arrived|landed|came in|come in)\b|\b(?:cars?|vehicles?|inventory|units?|stock|vins?|models?|certified|arrivals?|pending|in[- ]transit|(?:hit|on|to|onto|of) the lot|on the ground|in stock|on hand|days in (?:stock|inventory)|priced?|prices|msrp|mileage|days on (?:the )?lot|sitting|aged|aging)\b/.test(
      q,
    )
  )
    return 'vehicles';
  // A make names vehicles, unless it names a rooftop ("the Honda store").
  return vocabulary.makes.some((make) => word(make).test(q) && !namesRooftop(make.toLowerCase()).test(q))
    ? 'vehicles'
    : null;
}

const NUMBER_WORDS = ['two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const NUMBER_WORD = new RegExp(`\\b(?:${NUMBER_WORDS.join('|')})\\b`, 'g');

function measureOf(
  q: string,
  subject: Subject,
): { measure: Measure; field?: string; order?: 'asc' | 'desc'; limit?: number } | null {
  const rate = rateOf(q, subject);
  if (rate) return { measure: 'rate', field: rate };
  // "Top guy by units": ranked by how many.
  // "Break the call volume down by rooftop": how many.
  if (
    /\bby (?:units?|deals?|volume|count|unit count|deal count|number of (?:deals|units|sales|leads|calls))\b|\b(?:calls?|leads?|deals?|units?|sales) volume\b|\bthe volume\b/.test(
      q,
    )
  )
    return { measure: 'count' };
  const listSize = (() => {
    // "The five oldest": a number said in words.
    const counted = q.replace(NUMBER_WORD, (said) => String(NUMBER_WORDS.indexOf(said) + 2));
    const number =
      /\b(?:top|latest|last|recent|show me|list|give me|pull up|the|which|what)\s+(?:the\s+)?(\d{1,2})\b(?!\s*(?:days?|weeks?|months?|years?|hours?|k\b|grand|miles|%|percent))/.exec(
        counted,
      ) ??
      /\b(\d{1,2})\s+(?:most|least|cheapest|oldest|newest|priciest|highest|lowest|longest|latest|most recent)\b/.exec(
        counted,
      ) ??
      // "10 units sitting the longest at the chevy store": as many as it says.
      /^(\d{1,2})\s+(?:units|cars|vehicles|trucks|suvs|sedans|ones|leads|calls|deals)\b(?!\s+(?:in|on|at|over|under)\b.*\?$)/.exec(
        counted,
      ) ??
      // "Cheapest 3?": the number after the word that orders them.
      /\b(?:cheapest|oldest|newest|priciest|most expensive|highest|lowest|longest|latest|worst|best|bottom|slowest|fastest|quickest)\s+(\d{1,2})\b(?!\s*(?:days?|weeks?|months?|years?|hours?|k\b|grand|miles|%|percent))/.exec(
        counted,
      );
    return number ? Number(number[1]) : undefined;
  })();
  // "Which ones have been sitting the longest": several, longest first; "which one" is the extreme.
  const several =
    /\b(?:show|list|give|pull up|bring up)(?: me| us)? (?:the |our |all )?(?:[a-z]+ ){0,2}(?:cars|vehicles|units|trucks|suvs|sedans|ones)\b|\bwhich (?:[a-z]+ ){0,2}ones\b|\bwhat (?:[a-z]+ ){0,2}ones\b|\bwhich (?:cars|vehicles|units|trucks|suvs|sedans)\b|\bwhich of (?:those|these|them|'?em) (?:have|are|were)\b|\blist\b|\b(?:cheapest|priciest|most expensive|newest|oldest|longest|lowest|highest|least|most)(?: [a-z]+)? first\b|\b(?:cheapest|priciest|most expensive|newest|oldest) (?:[a-z0-9-]+ )?(?:units|cars|vehicles|trucks|suvs|sedans|ones|stuff|arrivals|inventory)\b/.test(
      q,
    );
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
  // "Avg days to sell", "which trucks sold the fastest": days from stock-in to sale, never another figure.
  if (vehicles && DAYS_TO_SELL.test(q)) {
    // "Break those out by days to sell 0-30/31-60/61-90/90+": how many in each bucket.
    if (AGING_BUCKETS.test(q)) return { measure: 'count', field: 'days_to_sell' };
    // "Which model took the longest to sell on avg": models ranked by their average, slowest first.
    const averaged =
      /\b(?:avg|average|mean)\b/.test(q) ||
      /\bwhich (?:[a-z]+ )?(?:makes?|models?|stores?|rooftops?|body styles?|trims?|brands?)\b|\b(?:by|per) (?:make|model|store|rooftop)\b/.test(
        q,
      );
    if (/\b(?:longest|slowest|most days)\b/.test(q))
      return averaged
        ? { measure: 'average', field: 'days_to_sell', order: 'desc' }
        : superlative('max', 'days_to_sell');
    if (averaged && /\b(?:fastest|quickest|shortest|fewest days)\b/.test(q))
      return { measure: 'average', field: 'days_to_sell', order: 'asc' };
    // "Pull up the used explorers we sold and how long each one took": each one listed with its days, longest first.
    if (/\b(?:how long|how many days) (?:each|every) (?:one|of (?:them|em|those)|unit|car|truck)\b/.test(q))
      return { measure: 'list', field: 'days_to_sell', order: 'desc', limit: listSize ?? 10 };
    if (/\b(?:fastest|quickest|shortest|fewest days)\b/.test(q)) return superlative('min', 'days_to_sell');
    return { measure: 'average', field: 'days_to_sell' };
  }
  if (
    /\baverage\b|\bavg\b|(?<!\bi )\bmean\b|\btypical\b|\basp\b/.test(q) ||
    (subject === 'sales' &&
      /\b(?:per|a) (?:retail |retailed |sold )?(?:deal|unit|car|copy|sale|vehicle)\b(?! (?:throughput|baseline|volume|count|mix|level|number|basis|total)\b)|\bpvr\b|\bper vehicle retailed\b/.test(
        q,
      ))
  )
    return { measure: 'average', field: fieldOf(q, subject) };
  if (
    /\bhow many\b|\bnumber of\b|\bcount\b|\bhow much inventory\b|\btotal (?:inventory|units|stock)\b$|\btotal (?:units|cars|vehicles) (?:in stock|on the (?:lot|ground))\b|^(?:units|deals|leads|calls|volume|unit count)\b/.test(
      q,
    )
  )
    return { measure: 'count' };
  // "The biggest deal we did last month, by total gross": the one deal, by that figure.
  if (
    subject === 'sales' &&
    /\b(?:biggest|largest|highest|best|top|most profitable) (?:single )?(?:deal|sale)\b(?!s)/.test(q)
  )
    return superlative('max', fieldOf(q, subject) ?? 'sale_price');
  if (
    /\btotal (?:inventory )?value\b|\b(?:inventory|stock) (?:\$|dollars?)|\$ (?:at|of|in) (?:asking|list|sticker)\b|\bworth\b|\bvalue of\b|\bsum of\b|\btotal (?:revenue|gross|sales volume|amount financed|financed)\b|\btotal (?:front|back)\b(?! (?:of|door|seat|row|line|lot|desk|to)\b)|\bhow much (?:revenue|gross)\b|\btotal \$|\$ ?total\b|\btotal dollars?\b|\bdollar (?:volume|amount|total)\b|\bhow much \$|\bin dollars\b|\bhow much money\b|\btotal (?:asking |list(?:ed)? |sticker )?prices?\b|\btied up\b|\badds? up\b|\badd(?:ed)? up to\b|^\$ /.test(
      q,
    )
  ) {
    return { measure: 'sum', field: vehicles ? 'price' : (fieldOf(q, subject) ?? 'sale_price') };
  }
  if (vehicles) {
    if (
      /\bmost expensive\b|\bpriciest\b|\bhighest[- ]priced\b|\bhighest (?:asking |list |sticker )?price\b|\bmost costly\b/.test(
        q,
      )
    )
      return superlative('max', 'price');
    if (
      /\bcheapest\b|\bleast expensive\b|\blowest[- ]priced\b|\blowest (?:asking |list |sticker )?price\b|\bmost affordable\b/.test(
        q,
      )
    )
      return superlative('min', 'price');
    if (
      /\blongest\b|\boldest (?:unit|vehicle|car|truck|suv|one)s? on the lot\b|\bmost days\b|\bbeen (?:sitting|on the lot) the longest\b|\baged the most\b|\boldest (?:units|inventory|stock)\b/.test(
        q,
      )
    )
      return superlative('max', 'days_on_lot');
    if (/\bnewest (?:model )?years?\b/.test(q)) return superlative('max', 'year');
    // "Sort those by price", "order em by miles high to low": the list in that order (of the same length after one).
    const sorted = SORTED.exec(q);
    if (sorted) {
      const field = /^mile/.test(sorted[1]!)
        ? 'mileage'
        : /^(?:days|age)/.test(sorted[1]!)
          ? 'days_on_lot'
          : /year/.test(sorted[1]!)
            ? 'year'
            : 'price';
      const high = /\bhigh(?:est)? (?:to|-) low|\bdesc|\bmost (?:first|to)|\bbiggest first\b|\btop down\b/.test(q);
      const low = /\blow(?:est)? (?:to|-) high|\basc|\bleast (?:first|to)|\bsmallest first\b/.test(q);
      // Unless said, cheapest, fewest miles, longest on the lot and newest model year first.
      const order = high ? 'desc' : low ? 'asc' : field === 'price' || field === 'mileage' ? 'asc' : 'desc';
      return { measure: 'list', field, order, ...(listSize ? { limit: listSize } : {}) };
    }
    // "What came in this week": the arrivals, listed latest stocked in first.
    if (
      /\bwhat(?:'s| has| have| all)? (?:came|come|arrived|landed|got checked|been stocked|been checked)(?: in)?\b|\bwhat (?:did we|have we|we) (?:get|got|take|took|check|checked|stock|stocked) in\b/.test(
        q,
      )
    )
      return { measure: 'list', field: 'days_on_lot', order: 'asc', limit: listSize ?? 10 };
    // On a lot, the newest are those that arrived last (as the oldest have sat the longest).
    if (/\bnewest\b|\bmost recent arrivals?\b|\bjust arrived\b|\bfreshest\b|\bfewest days\b/.test(q))
      return superlative('min', 'days_on_lot');
    if (/\b(?:highest|biggest|largest|top) (?:msrp|sticker)\b/.test(q)) return superlative('max', 'msrp');
    if (/\b(?:lowest|smallest) (?:msrp|sticker)\b/.test(q)) return superlative('min', 'msrp');
    if (/\b(?:highest|biggest|largest|top) (?:internet|online|web) price\b/.test(q))
      return superlative('max', 'internet_price');
    if (/\b(?:lowest|smallest) (?:internet|online|web) price\b/.test(q)) return superlative('min', 'internet_price');
    if (/\bhighest (?:mileage|miles)\b|\bmost (?:miles|mileage)\b/.test(q)) return superlative('max', 'mileage');
    if (/\blowest (?:mileage|miles)\b|\bfewest miles\b|\bleast (?:miles|mileage)\b/.test(q))
      return superlative('min', 'mileage');
    if (/\boldest model year\b|\boldest year\b/.test(q)) return superlative('min', 'year');
    // "Our oldest Escape": on a lot, oldest means aged the longest.
    if (/\boldest\b/.test(q)) return superlative('max', 'days_on_lot');
  } else if (subject === 'sales') {
    // "Which one had the most front end gross?": the one deal with the most, not a total.
    if (/\bwhich (?:one|deal|sale)\b/.test(q) && /\b(?:most|highest|biggest|largest)\b/.test(q))
      return superlative('max', fieldOf(q, subject) ?? 'sale_price');
    if (/\bwhich (?:one|deal|sale)\b/.test(q) && /\b(?:least|lowest|smallest)\b/.test(q))
      return superlative('min', fieldOf(q, subject) ?? 'sale_price');
    // "Top salesperson by gross", "who sold the most front end gross": ranked by the total of that figure.
    if (
      /\bby (?:(?:total|front|back)(?:[- ]?end)? )?(?:gross|profit|revenue)\b|\bmost (?:(?:total|front|back)(?:[- ]?end)? )?(?:gross|profit)\b/.test(
        q,
      )
    )
      return { measure: 'sum', field: fieldOf(q, subject) ?? 'total_gross' };
    // "What did we gross in October?", "what's his front end": gross or revenue with no other measure is their total.
    if (
      (/\bgross(?:ed)?\b|\brevenue\b|\bprofit\b/.test(q) ||
        /^what(?:'s|s| is| was)\b.*\b(?:front|back)[- ]?end\??$/.test(q)) &&
      !/\bbiggest\b|\blargest\b|\bhighest\b|\bsmallest\b|\blowest\b|\bwhich\b|\blist\b|\bshow\b|\bwho\b/.test(q)
    )
      return { measure: 'sum', field: fieldOf(q, subject) ?? 'total_gross' };
    if (
      /\bbiggest\b|\blargest\b|\bhighest\b|\bmost expensive\b/.test(q) &&
      !/\b(?:most|highest) (?:deals|units|sales)\b/.test(q)
    )
      return superlative('max', fieldOf(q, subject) ?? 'sale_price');
    if (/\bsmallest\b|\blowest\b|\bcheapest\b/.test(q)) return superlative('min', fieldOf(q, subject) ?? 'sale_price');
    // "Top 5 back end deals": the deals, by that figure.
    if (
      /\btop\b/.test(q) &&
      /\b(?:front|back|gross|profit|price)\b/.test(q) &&
      !/\b(?:salespe|reps?|stores?|sources?)\b/.test(q)
    )
      return superlative('max', fieldOf(q, subject) ?? 'sale_price');
  } else if (subject === 'calls') {
    if (/\blongest\b/.test(q)) return { measure: 'max', field: 'duration' };
  }
  // "And for the used ones only?": a narrowing of the last answer, not a list.
  const narrowing =
    /^(?:(?:and|but|what about|how about|now|ok|okay|so) )*(?:for |just |only )?(?:the |those )?(?:[a-z0-9-]+ ){1,2}ones(?: only| too| as well)?\??$/.test(
      q,
    );
  if (
    /\bwhich\b|\blist\b|\bshow\b|\bpull(?: up)?\b|\bbring up\b|\bwhat (?:are|were)\b|\bgive me\b|\bname (?:the|all)\b|\brecent\b|\blatest\b|\bnewest\b|\bwho\b|\bthem\b\??$|\bany\b/.test(
      q,
    ) ||
    (/\bones\b/.test(q) && !narrowing)
  ) {
    if (/\bany\b/.test(q) && !/\bwhich\b|\blist\b|\bshow\b|\bones\b/.test(q)) return { measure: 'count' };
    return {
      measure: 'list',
      ...(listSize ? { limit: listSize } : {}),
      ...(vehicles ? { field: 'days_on_lot', order: 'desc' as const } : {}),
    };
  }
  // "What'd the last 3 used tahoes bring": those deals, listed with what they sold for.
  if (
    subject === 'sales' &&
    listSize !== undefined &&
    /\b(?:bring|brought|go for|went for|sell for|sold for)\b/.test(q)
  )
    return { measure: 'list', limit: listSize };
  // "Last 5 cargurus leads", "top 3 trucks": so many of them, listed.
  if (listSize !== undefined && /^(?:the )?(?:last|latest|top|recent|most recent) \d/.test(q)) {
    return {
      measure: 'list',
      ...(listSize ? { limit: listSize } : {}),
      // "Last 5 in stock units": the latest stocked in.
      ...(vehicles
        ? {
            field: 'days_on_lot',
            order: /^(?:the )?(?:last|latest|recent|most recent) \d/.test(q) ? ('asc' as const) : ('desc' as const),
          }
        : {}),
    };
  }
  return null;
}

/** "His avg front", "total back": a deal's front or back gross named by its side alone. */
const bareSide = (side: string) =>
  new RegExp(
    `(?:^|\\b(?:average|mean|total|sum|highest|lowest|biggest|best|most|the|his|her|their|our|and|about|just|on|for) )${side}\\b(?! (?:of|door|seat|row|line|lot|desk|to))`,
  );
const BARE_SIDE = { front: bareSide('front'), back: bareSide('back') };

function fieldOf(q: string, subject: Subject): string | undefined {
  if (subject === 'vehicles') {
    if (DAYS_TO_SELL.test(q)) return 'days_to_sell';
    // The figure named right after "average", "total"… ("avg price of cars under 50k miles" is a price).
    const figure =
      /\b(?:average|mean|typical|total|highest|lowest|biggest|largest|smallest)\s+((?:[a-z-]+\s+){0,2}[a-z-]+)/.exec(
        q,
      )?.[1] ?? '';
    if (/\b(?:msrp|sticker)\b/.test(figure) || /\bmsrp\b/.test(q)) return 'msrp';
    if (
      /\b(?:internet|online|web(?:site)?) price\b/.test(`${figure} ${q}`) &&
      !/\b(?:no|missing|without|w\/o)\b/.test(q)
    )
      return 'internet_price';
    if (/\b(?:price|priced|pricing|asking|listed|listing|sale price)\b/.test(figure)) return 'price';
    if (/\b(?:miles|mileage|odometer|odo)\b/.test(figure)) return 'mileage';
    if (/\b(?:days?|age|aging|time)\b/.test(figure)) return 'days_on_lot';
    if (
      /\bdays? on (?:the )?lot\b|\bdays in (?:stock|inventory)\b|\bon the lot\b|\baging\b|\bage\b|\bturn\b|\bhow long\b|\bsit(?:ting|s)?\b/.test(
        q,
      )
    )
      return 'days_on_lot';
    if (/\bmileage\b|\bmiles\b|\bodometer\b|\bodo\b/.test(q)) return 'mileage';
    if (/\bmodel year\b|\byear\b/.test(q)) return 'year';
    return 'price';
  }
  if (subject === 'sales') {
    // "Total gross front n back": both sides together.
    if (
      /\bfront(?:[- ]?end)?\s*(?:and|&|\+|\/|plus)\s*back\b|\bback(?:[- ]?end)?\s*(?:and|&|\+|\/|plus)\s*front\b/.test(
        q,
      )
    )
      return 'total_gross';
    if (/\bamount financed\b|\bfinanced amount\b|\bamount (?:we |they )?(?:financed|borrowed)\b/.test(q))
      return 'amount_financed';
    if (/\bfront(?:[- ]?end)? gross\b|\bfront[- ]?end\b/.test(q) || BARE_SIDE.front.test(q)) return 'front_gross';
    if (/\bback(?:[- ]?end)? gross\b|\bback[- ]?end\b/.test(q) || BARE_SIDE.back.test(q)) return 'back_gross';
    // PVR: gross per vehicle retailed ("back end pvr" is the back gross).
    if (/\bgross(?:ed)?\b|\bprofit\b|\bpvr\b|\bper vehicle retailed\b/.test(q)) return 'total_gross';
    return 'sale_price';
  }
  // "Avg talk time in minutes": the same length, in minutes.
  if (subject === 'calls')
    return /\bin min(?:ute)?s\b|\bhow many min(?:ute)?s\b|\bmin(?:ute)?s (?:on average|avg|per call)\b/.test(q)
      ? 'duration_minutes'
      : 'duration';
  return undefined;
}

/** Words that, after "average", "total", "highest"…, name a figure the reader computes or what it is of. */
const FIGURE_WORDS = new Set(
  [
    'price priced pricing asking sale sales selling sold sell deal size amount dollar value worth revenue gross grossed',
    'grossing front back end profit pvr asp average avg mean day age aging aged time lot stock inventory turn mileage mile odometer',
    'year model call length duration talk lead source number count unit car vehicle store rooftop dealership location',
    'salesperson salespeople volume a an the our my their your its all overall current new used certified',
    // As dealers say them: "frontend", "odo", "listed", "old".
    'frontend backend odo listed listing old total financed',
    // What the figure is of, pointed at: "lowest miles one?".
    'one ones',
    // A call's length as said: "avg talk time secs answered calls".
    'second seconds minute minutes answered msrp sticker internet online web',
  ]
    .join(' ')
    .split(' '),
);
const FIGURE_ENDS = new Set(
  'of on for per at in by across from with to this last past over under between among and or vs do does did is are was were been be has have had we i you they so that which who when where since during than each every split broken break out up'.split(
    ' ',
  ),
);

/**
 * The words after "average", "total", "highest"… when they name a figure the reader does not compute
 * ("avg msrp of new suvs", "average apr on finance deals"): answered as unsupported, never with another figure.
 */
function figureNotRead(q: string, vocabulary: Vocabulary): string | null {
  const after =
    // "On average how long does it take…": an adverb, not the figure's name.
    /\b(?<!\bon )(?:average|mean|typical|total|highest|lowest|biggest|largest|smallest|max(?:imum)?|min(?:imum)?)\s+(.+)$/.exec(
      q,
    );
  if (!after) return null;
  const named = new Set(
    [...vocabulary.makes, ...vocabulary.models, ...vocabulary.sources, ...vocabulary.salespeople]
      .concat(vocabulary.dealers.flatMap((dealer) => [dealer.name, dealer.city ?? '']))
      .flatMap((name) => normalize(name).split(/[^a-z0-9]+/)),
  );
  const known = (word: string) =>
    [word, word.replace(/'s$/, ''), word.replace(/s$/, ''), word.replace(/es$/, '')].some(
      (form) => FIGURE_WORDS.has(form) || named.has(form) || SOURCE_NICKNAME_WORDS.has(form) || COLORS.includes(form),
    ) ||
    /[\d$]/.test(word) ||
    BODY_WORDS.some(([pattern]) => pattern.test(word));
  const words: string[] = [];
  for (const token of after[1]!.split(' ')) {
    const word = token.replace(/^[^a-z0-9$]+|[^a-z0-9$]+$/g, '');
    if (!word || FIGURE_ENDS.has(word) || words.length === 4) break;
    words.push(word);
    if (word !== token) break;
  }
  return words.some((word) => word.split('-').some((part) => !known(part))) ? words.join(' ') : null;
}

function groupOf(q: string, subject: Subject): Grouping | null {
  // "Colors?", "and models": a breakdown named alone, of the rows being talked about.
  const alone =
    /^(?:and |what about |how about |now |ok |the )?(colou?rs|trims|models|makes|sources|stores|rooftops|model years|years|body styles)\??$/.exec(
      q,
    )?.[1];
  if (alone) {
    const named = alone.startsWith('colo') ? 'color' : ALONE[alone]!;
    if (SUPPORTED_GROUPS[subject].includes(named)) return named;
  }
  // "0-30 / 31-60 / 61-90 / 90+ bucket counts", "aging buckets": days on the lot (of sold ones, days to sell) in buckets.
  if (subject === 'vehicles' && AGING_BUCKETS.test(q)) return 'age';
  // "Calls by dept (sales/service/parts)".
  if (
    subject === 'calls' &&
    /\b(?:by|per|each|every|across) (?:dept|department)s?\b|\b(?:dept|department) (?:split|breakdown|mix)\b|\bsales\s*\/\s*service\s*\/\s*parts\b/.test(
      q,
    )
  )
    return 'department';
  // "Used inv by model yr": the vehicles' model years.
  if (subject === 'vehicles' && /\b(?:by|per|each)\s+(?:model\s+)?years?\b|\bwhich (?:model )?years\b/.test(q))
    return 'year';
  if (
    /\b(?:by|per|each|every|across(?! all)|between|rank)\s+(?:of\s+)?(?:the\s+|our\s+|those\s+|these\s+)?(?:(?:\d|two|three|four|five|six|all)\s+)?(?:stores?|rooftops?|dealers?|dealerships?|locations?|sites?)\b|\b(?:stores|rooftops|dealerships|locations) (?:by|ranked)\b|\bcompare\b.*\b(?:stores?|rooftops?|dealers?|dealerships?|locations?)\b|\b(?:which|what) (?:of (?:our|the|all)(?: (?:\d|four|all))? )?(?:stores?|rooftops?|dealers?|dealerships?|locations?)\b|\bstore by store\b|\b(?:vs\.?|versus|against|to|with|do|did|are|were) (?:the |all the |our )?(?:other|rest of the|rest of our) (?:stores?|rooftops?|dealers?|dealerships?|locations?)\b/.test(
      q,
    )
  )
    return 'dealer';
  if (/\b(?:by|per|each)\s+make\b|\bwhich (?:(?:new|used|cpo|certified|pre-?owned|sold) )?makes?\b/.test(q))
    return 'make';
  if (
    /\b(?:by|per|each)\s+model\b|\bmodel mix\b|\bmix by model\b|\bwhich (?:(?:new|used|cpo|certified|pre-?owned|sold) )?models?\b(?! years?\b)|\bwhat models?\b|\bmost popular models?\b|\bbest[- ]selling models?\b|\btop models?\b/.test(
      q,
    )
  )
    return 'model';
  if (/\b(?:by|per|each)\s+(?:body(?: style)?|type of vehicle|vehicle type)\b/.test(q)) return 'body_style';
  if (/\b(?:by|per|each)\s+trims?\b|\bwhich trims?\b|\btrim levels?\b/.test(q) && subject === 'vehicles') return 'trim';
  if (
    /\b(?:by|per|each)\s+colou?rs?\b|\b(?:what|which) colou?rs?\b|\bmost (?:common|popular) colou?rs?\b|\bcolou?r (?:breakdown|mix|split)\b/.test(
      q,
    ) &&
    subject === 'vehicles'
  )
    return 'color';
  // "Split last month's deals out by cash finance lease", "deals by contract type".
  if (
    subject === 'sales' &&
    (/\b(?:by|per|between|among|into)\s+(?:contract(?: type)?|deal type|finance type|type\b|cash\W+(?:or\W+|and\W+|vs\.?\W+)?finance\b)|\b(?:deal|contract) type (?:split|breakdown|mix)\b/.test(
      q,
    ) ||
      /\b(?:cash|finance|lease)\s*\/\s*(?:cash|finance|lease)\b|\bsplit (?:by |into |between )?(?:cash|finance|lease)\b|\bhow many (?:is|are|were|was) (?:cash|finance|lease)s?(?:\s*,\s*|\s+(?:and|&|or)\s+)(?:cash|finance|lease)/.test(
        q,
      ))
  )
    return 'contract_type';
  if (
    /\b(?:by|per|each|every|rank)\s+(?:of\s+)?(?:the\s+|our\s+|those\s+|these\s+)?(?:lead\s+)?(?:sources?|channels?|providers?|vendors?)\b|\b(?:sources|channels|vendors) (?:by|ranked)\b|\b(?:which|what) (?:of (?:our|the) )?(?:\d{1,2} |top \d{1,2} )?(?:lead |marketing |ad |advertising |traffic |attribution |tracking |referral )?(?:sources?|channels?|providers?|vendors?)\b|\b(?:which|what) (?:(?:3rd|third)[- ]party |listing |lead )?(?:sites?|websites?)\b|\bwhere .* (?:come|comes|came|coming) from\b|\bbest (?:\d+ )?(?:lead |marketing )?sources?\b|\btop (?:\d+ )?(?:lead |marketing )?sources?\b/.test(
      q,
    ) &&
    subject !== 'vehicles'
  )
    return 'source';
  if (CONDITION_MIX.test(q) || /\b(?:by|per)\s+condition\b/.test(q))
    return subject === 'vehicles' || subject === 'sales' ? 'condition' : null;
  if (
    (subject === 'sales' || subject === 'leads') &&
    !((subject === 'leads' || subject === 'sales') && UNASSIGNED.test(q)) &&
    /\bsalespe(?:rson|ople)\b|\bsales ?(?:people|persons?|reps?|guys|team|staff|consultants?|associates?)\b|\breps\b|\bclosers?\b|\bwho(?:'s| has| have)? (?:sold|closed|delivered|has|had|converted|wrote|booked|did|moved|retailed|retails)\b|\bwho(?:'s| is| are)? (?:writing|selling|closing|delivering|moving|booking|sending|bringing|turning in|producing|generating) (?:in )?(?:the )?(?:most|best)\b|\bwho(?:'s| is| has| had| was| were)? (?:got |gets )?(?:the )?(?:best|top|highest|most|lowest|worst)\b|\b(?:top|best|worst) (?:guy|guys|gal|rep|person|seller|producer)s?\b|\b(?:by|per|each) (?:guy|gal|rep|person|seller|producer|closer)s?\b|\bwho (?:are|were|is|was) (?:they|those|these|them|em|it) assigned to\b|\bassigned to whom\b|\bwho(?:'s| is| was)? (?:leading|winning|ahead|on top)\b|\b(?:leading|led|topped|tops|ran|runs) the (?:floor|board|team|group|pack)\b|\b(?:top of|on top of|leading) the board\b/.test(
      // "All reps", "across the team": everyone together, not a breakdown.
      RANKING.test(q)
        ? q
        : q.replace(
            /\b(?:all|across|every) (?:the |our )?(?:salesperson|salespeople|sales ?people|sales ?team|team)\b/,
            ' ',
          ),
    )
  )
    return 'salesperson';
  if (
    /\b(?:by|per)\s+(?:status|stage)\b|\bstatus(?:es)? (?:breakdown|split|mix|counts?)\b|\bbreak(?:down|out) (?:by|of) status\b|\bfunnel\b(?<!\b(?:top|bottom|middle|rest) of (?:the |our |my )?(?:[a-z]+ )?funnel)|\bpipeline\b/.test(
      q,
    )
  )
    return 'status';
  if (/\b(?:by|per)\s+(?:lead\s+)?type\b/.test(q) && subject === 'leads') return 'type';
  return null;
}

/** Aging buckets asked for: "aging buckets", "0-30/31-60/61-90/90+", "by days to sell bucket". */
const AGING_BUCKETS =
  /\b(?:aging|age|days?(?: on (?:the )?lot)?|days to sell|dol) (?:buckets?|brackets?|bands?)\b|\bbuckets? (?:counts?|breakdown|split)\b|\b0\s*-\s*30\s*(?:\/|,)\s*31\s*-\s*60\b/;

/** Conditions side by side: "new vs used", "new/used/CPO", "new, used and certified". */
const CONDITION_MIX =
  /\bnew (?:vs\.?|versus|and|or) used\b|\bnew\s*\/\s*used\b|\bnew,? used,? (?:and |& |or )?(?:cpo|certified)\b/;

const ALONE: Record<string, Grouping> = {
  trims: 'trim',
  models: 'model',
  makes: 'make',
  sources: 'source',
  stores: 'dealer',
  rooftops: 'dealer',
  'model years': 'year',
  years: 'year',
  'body styles': 'body_style',
};
/** The breakdowns a word alone may ask of each subject. */
const SUPPORTED_GROUPS: Record<Subject, Grouping[]> = {
  vehicles: ['color', 'trim', 'model', 'make', 'dealer', 'year', 'body_style', 'age'],
  leads: ['source', 'dealer', 'make', 'model'],
  calls: ['source', 'dealer', 'department'],
  sales: ['make', 'model', 'dealer', 'source'],
};

/** Where and when: what the whole of a share keeps from its part, whatever else the part names. */
const PLACE_AND_PERIOD: ReadonlyArray<keyof QueryFilters> = ['dealer_id', 'from', 'to'];
/** The ranges a follow-up may bound afresh: a bound it names replaces both of the last answer's. */
const RANGES: Array<[keyof QueryFilters, keyof QueryFilters]> = [
  ['price_min', 'price_max'],
  ['mileage_min', 'mileage_max'],
  ['days_on_lot_min', 'days_on_lot_max'],
  ['year_min', 'year_max'],
];

/** "Sort those by price", "order em by miles high to low": a vehicle list in that order. */
const SORTED =
  /\b(?:sort|order|rank|arrange)(?:ed)? (?:(?:those|these|them|em|it|the list|that list|the ones) )?by (price|miles|mileage|days(?: on (?:the )?lot)?|age|aging|model year|year)\b/;

/** "How are we doing on deals", "how's honda doing": asked of a subject, its count. */
const HOW_DOING =
  /\bhow(?:'s|s| is| are| r)? (?:we|things|it|[a-z]+) (?:doing|doin'?|going|goin'?|looking|lookin'?|tracking|trending|pacing)\b|\bhow(?:'re| are| r) we (?:doing|doin'?)\b/;

/** A period's rows named by the period: "todays", "last week's" ("wk" is spelled out before). */
const PERIOD_ROWS = /\b(?:today|yesterday|(?:this|last) (?:week|month|year|quarter)|mtd|ytd|wtd)'?s\b/;
/** A period's rows named by their span: "those 30 days of calls", "the last 90 days' leads". */
const SPAN_ROWS =
  /\b(?:those|these|that|the|the last|the past) (?:\d+|two|three|four|six|seven|ten|thirty|ninety) (?:days?|weeks?|months?)'?(?: (?:of|worth of))? (?:calls|leads|deals|sales)\b/;

/** The rows of the last answer, pointed at: "cheapest of those", "which of them has the most miles". */
const OF_THOSE =
  /\b(?:of|among|out of|from) (?:those|these|them|'?em|the (?:\d+|last \d+|list))\b|\b(?:sort|order|rank|arrange)(?:ed)? (?:those|these|them|'?em|that list|the list)\b/;
/** Vehicles said to have come in: their period is when they were stocked in. */
const ARRIVED =
  /\b(?:came|come|comes|coming|checked|stocked|brought|taken|took|traded|trade[ds]?)\s+in\b|\bgot in\b(?! (?:stock|inventory))|\barriv(?:e|es|ed|als?|ing)\b|\b(?:hit|landed on|landed at|got to) the (?:lot|ground)\b|\bstocked\b|\bnew (?:to|on) the lot\b|\badded to (?:inventory|stock|the lot)\b/;
/** What a follow-up about another subject, or a ranking named afresh, keeps of the last question. */
// A call's department is where it went, like its rooftop: "missed calls by store" after sales-department calls keeps it.
const CONTEXT_FILTERS: ReadonlyArray<keyof QueryFilters> = [
  ...PLACE_AND_PERIOD,
  'source',
  'sources',
  'salesperson',
  'department',
];

/** What narrows a set without moving it in place or time: a status, condition, colour, body style, kind of deal. */
const NARROWING: ReadonlyArray<keyof QueryFilters> = [
  'status',
  'condition',
  'color',
  'trim',
  'body_style',
  'contract_type',
  'type',
  'direction',
  'first_time',
  'unassigned',
];

/** The caller's own rooftop, named as theirs: "back to mine", "at my store". */
const MINE = /\bback to (?:mine|ours|our (?:store|rooftop))\b|\bmy (?:store|rooftop|dealership|location|place|lot)\b/;

/** The caller as a salesperson: "assigned to me", "my close rate", "have i closed". */
const ME =
  /\b(?:to me|for me|my (?:own )?(?:deals|leads|close rate|closing|gross|front|back|pvr|numbers|units|sales|calls)|i (?:closed|sold|did|delivered|booked)|(?:have|did) i)\b/;

const EVERY_SOURCE = /\b(?:all|any|every) (?:the )?(?:lead )?(?:sources?|channels?|providers?|vendors?)\b/;
/** "Any condition", "any colour": what the last question narrowed, left open. */
const ANY_OF: Partial<Record<keyof QueryFilters, RegExp>> = {
  condition: /\bany condition\b|\bnew (?:and|or|&) used\b|\ball conditions\b/,
  color: /\bany colou?r\b|\ball colou?rs\b/,
  model: /\bany model\b|\ball models\b/,
  department: /\b(?:all|any|every) (?:the )?departments?\b/,
  attributed: /\b(?:incl|including|include|with|plus) (?:the )?(?:unattributed|no[- ]source)\b/,
  body_style: /\bany (?:body|body style|type)\b/,
  direction: /\ball directions\b/,
  // "Regardless of status", "whatever their status": every status again.
  status: /\b(?:regardless of|irrespective of|whatever (?:the|their)|any|all) (?:the |their )?status(?:es)?\b/,
  // "Ok now all sources together": every source, as one.
  source: EVERY_SOURCE,
  sources: EVERY_SOURCE,
};

/** The filters whose keys `keep` accepts. */
function pickFilters(filters: QueryFilters, keep: (key: keyof QueryFilters) => boolean): QueryFilters {
  return Object.fromEntries(Object.entries(filters).filter(([key]) => keep(key as keyof QueryFilters))) as QueryFilters;
}

/** The filters without one of them. */
function omitKey(filters: QueryFilters, key: keyof QueryFilters): QueryFilters {
  const { [key]: _dropped, ...rest } = filters;
  return key === 'source' ? omitKey(rest, 'sources') : rest;
}

/** A follow-up naming one source or several replaces whichever the last question had, and any left out. */
function withSources(merged: QueryFilters, named: QueryFilters): QueryFilters {
  if (named.source) delete merged.sources;
  if (named.sources) delete merged.source;
  // Sources named after some were left out are the ones asked for.
  if ((named.source || named.sources) && !named.exclude_source) delete merged.exclude_source;
  return merged;
}

/**
 * "And back end?" after "total front end gross last month": the same measure of another figure the
 * question names, when it names nothing else to measure.
 */
function otherFigure(q: string, subject: Subject, previous: AssistantQuery | null): ReturnType<typeof measureOf> {
  if (!previous || previous.subject !== subject || !['average', 'sum', 'max', 'min'].includes(previous.measure))
    return null;
  if (q.split(' ').length > 5 || subject !== 'sales') return null;
  if (!/\b(?:front|back|total|gross|profit|price|sale price)\b/.test(q)) return null;
  const field = fieldOf(q, subject);
  return field && field !== previous.field ? { measure: previous.measure, field } : null;
}

/** The filter that picks one row of a breakdown. */
const GROUP_FILTER: Partial<Record<Grouping, keyof QueryFilters>> = {
  dealer: 'dealer_id',
  make: 'make',
  model: 'model',
  body_style: 'body_style',
  condition: 'condition',
  source: 'source',
  status: 'status',
  type: 'type',
  salesperson: 'salesperson',
  contract_type: 'contract_type',
  color: 'color',
  department: 'department',
};

/** The last answer's rows as a share of a whole: "what % of calls is that", "what percent of our leads are those". */
const SHARE_OF_LAST =
  /^(?:and |so )?what (?:%|(?:percent(?:age)?|share|portion|fraction)\b).*\b(?:is|are|was|were) (?:that|those|these|this|they|it)\??(?:[,;]? (?:(?:for|over|in) )?(?:the )?same (?:window|period|timeframe|time frame|range|dates|months?|weeks?)\??)?$/;

/** A share of a total rather than of a count: "what proportion of revenue", "share of that value". */
const SUMMED =
  /\brevenue\b|\b(?:inventory |stock |dollar |total )?value\b|\bgross\b|\bsales? volume\b|\bdollars?\b|\bsale prices?\b/;

/** A share asked for: "what % of …", "what percentage", "proportion". */
const SHARE = /\bpercent(?:age)?\b|%|\bshare of\b|\bproportion\b|\bwhat fraction\b|\bpenetration\b/;

/** Every rooftop of the group together, in place of the one the last answer had: "how bout group wide". */
const GROUP_WIDE =
  /\b(?:group[- ]?wide|company[- ]?wide|whole group|entire group|(?:the )?group as a whole|(?:for|across) the (?:whole )?group|all (?:our |the )?(?:stores|rooftops|dealerships|locations) (?:together|combined)|all stores combined|combined)\b/;

/** Words that point back at the last answer's rows: "the 5 that's been sitting the longest". */
const REFERS_BACK =
  /\bthe \d{1,2}\b|\bthat(?:'?s| have| has|'ve| are| is)? (?:been|sitting|on the lot)\b|\bwhich \d{1,2} (?:have |has |are |r )?(?:been|sitting|sat)\b/;

/** A breakdown asked as a ranking ("which source brought the most", "who sold the most"), not a table. */
const RANKING = /\b(?:which|who|top|best|worst|most|fewest|least|highest|lowest|leading|bottom)\b/;

const FOLLOW_UP =
  /\b(?:that(?: same)?|the same|same) (?:time|period|stretch|window|span|range|timeframe|month|week|quarter|day|dates)\b|\bflip (?:it|that) to\b|\b(?:what|how much) (?:does|did|would) that (?:work|come|average) out\b|\bthat (?:works|worked|comes|came) out\b|\bsame (?:last )?\d+ (?:days?|weeks?|months?)\b|\btheir\b|^(?:and|but|also|what about|how about|vs\.?|versus|compared? (?:to|with)|only|just|of (?:those|these|them|em)|same|now|ok(?:ay)?|then|at|for|in|from|with|without|by)\b|\b(?:just|only) (?:the|those|these)\b|\b(?:that|this|it) (?:stacks? up|compares?|looks?)\b|\b(?:the )?other (?:stores|rooftops|locations|dealerships)\b|\b(?:on|of|for) that\b|\b(?:split|break|broke|divide|spread)s? (?:that|it|those|them|'?em)\b|\bthat (?:split|break|broke|divide)s?\b|\bon the (?:finance|lease|cash|used|new|certified) (?:deals|ones|units|leads)\b|\b(?:of those|of these|of them|of em|of his|of hers|of theirs|those|these|them|'?em|that list|the same|which ones|ones|that (?:store|rooftop|dealership))\b|(?<!\b(?:are|is|were|was) )\bthere\b|\b(?:the|those|these|that) aged\b|\bthe (?:[a-z]+est|most [a-z]+|least [a-z]+) one\b|\bas (?:a )?(?:%|(?:percent(?:age)?|share|pct)\b)|\bthey\b|\bwhich (?:[a-z]+ )?one\b(?! of)|\b(?:does|do|did) (?:that|those|this) (?:represent|include|cover|come to|make up)\b/;

/** What leads did when they sold: "turned into deals", "became sales", "bought", "closed". */
const LEADS_SOLD =
  /\b(?:turned|turn|converted|convert|became|become|led|resulted|ended up)(?: (?:into|to|in|as))? (?:an? )?(?:deals?|sales?|buyers?|customers?)\b|\b(?:ended up|went on to|wound up) (?:buying|purchasing|buy|purchase)(?: (?:a|an|the) (?:car|vehicle|truck|suv|one))?\b|\bbought\b|\b(?:close|closed)\b(?! rates?\b)/g;

/** What "by …" may name in a ranking counted: groups, counts and periods, none of them a figure it cannot read. */
const RANKED_BY_COUNT =
  /^(?:stores?|rooftops?|dealers?|dealerships?|locations?|sites?|makes?|models?|body|bodies|styles?|conditions?|sources?|channels?|providers?|vendors?|status(?:es)?|types?|salespe(?:rson|ople)|reps?|persons?|people|closers?|volume|units?|deals?|count|numbers?|sales|leads?|calls?|cars?|vehicles?|day|week|month|year|hour|time|far|the|a|an|our|each|every|all|far)$/;

/** "90+?" after "used units over 60 days", "over 100k?" after miles: a bare bound is in the last answer's unit. */
function withLastUnit(q: string, previous: AssistantQuery | null): string {
  const bounded = (key: 'days_on_lot' | 'mileage') =>
    previous?.filters[`${key}_min`] !== undefined || previous?.filters[`${key}_max`] !== undefined;
  const unit = bounded('days_on_lot') ? 'days' : bounded('mileage') ? 'miles' : null;
  if (!unit) return q;
  return (
    q
      .replace(
        /^((?:and |what about |how about |now |ok )?)(?:(over|more than|under|less than|older than) (\d+k?)|(\d+k?) ?(\+|plus))\s*\??$/,
        (_match, lead: string, word?: string, number?: string, bare?: string, plus?: string) =>
          word ? `${lead}${word} ${number} ${unit}` : `${lead}${bare}${plus === 'plus' ? ' plus' : '+'} ${unit}`,
      )
      // "31-60?" after the 0-30 day ones: another band of days.
      .replace(/^((?:and |what about |how about |now |ok )?)(\d+k?) ?- ?(\d+k?)\s*\??$/, `$1$2-$3 ${unit}`)
  );
}

/** Words that name a figure of each subject: without them, "per deal" or "on average" is of the last figure. */
const FIGURE_NAMED: Record<Subject, RegExp> = {
  vehicles:
    /\bmsrp\b|\bsticker\b|\binternet\b|\bpric|\bmiles\b|\bmileage\b|\bodo|\bdays?\b|\bage\b|\baging\b|\byears?\b|\bold\b|\bsitting\b|\blong\b|\bsell\b/,
  sales: /\bpric|\bgross|\bfront|\bback|\bprofit|\bpvr\b|\brevenue|\bsold for\b|\bfinanced\b/,
  calls: /\blength|\bduration|\btalk|\bminutes?\b|\bmins?\b|\bseconds?\b|\blong\b/,
  leads: /$^/,
};
/** "And what does that work out to per deal?" after total gross: the same figure, averaged. */
const sameFigure = (
  measured: ReturnType<typeof measureOf>,
  previous: AssistantQuery,
  subject: Subject,
  q: string,
): ReturnType<typeof measureOf> =>
  measured &&
  ['average', 'sum'].includes(measured.measure) &&
  previous.subject === subject &&
  previous.field &&
  !FIGURE_NAMED[subject].test(q)
    ? { ...measured, field: previous.field }
    : // "And back gross on the Ford deals?" after an average front gross: the average of the other figure.
      measured?.measure === 'sum' &&
        previous.measure === 'average' &&
        previous.subject === subject &&
        /^(?:and|what about|how about|now)\b/.test(q) &&
        !/\btotal\b|\bsum\b|\bhow much\b|\bcombined\b|\ball together\b/.test(q)
      ? { ...measured, measure: 'average' }
      : measured;

/** Words that name salespeople themselves, not only "who". */
const SALESPEOPLE_NAMED =
  /\bsalespe|\bsales ?(?:people|persons?|reps?|guys|team|staff|consultants?|associates?)\b|\breps?\b|\bclosers?\b|\bguys?\b|\bgals?\b|\bperson\b/;

/** Sources named to be left out: "exclude walk-ins", "without facebook or cargurus". */
const SOURCES_LEFT_OUT =
  /\b(?:exclude|excluding|without|minus|except|not counting|leave out|leaving out|take out|no)\s+(?:the\s+|any\s+)?([a-z0-9.' \/-]+?)(?=$|[,;?!]|\s+(?:leads?|calls?|from|in|for|this|last|over|since|but|then)\b)/;

/** Said back when a comparison with another period is not given. */
const ONE_PERIOD = 'the comparison with another period (I give one period)';

/** "Top 3 sources": a ranking of so many. */
/** "Top 3", "bottom 2", "first 5": how many of a ranking. */
const TOP_N = /\b(?:top|best|bottom|worst|first) (\d{1,2})\b/;
const topOf = (measured: ReturnType<typeof measureOf>, q = '') => {
  const named = TOP_N.exec(q)?.[1];
  const limit = named ? Number(named) : measured?.limit;
  return limit ? { limit } : {};
};

/** A question said to be about something else: "ok diff question", "new topic", "switching gears". */
const FRESH =
  /\b(?:diff(?:erent)?|new|other|separate|unrelated) (?:question|q|topic|subject)\b|\bswitching gears\b|\bchanging (?:the )?subject\b/;

/** What the rules deciding whether a question follows up on the last answer see of it. */
interface Asked {
  q: string;
  /** How many words it has: a few words name no subject of their own. */
  words: number;
  subject: Subject;
  /** The subject it names itself, if any. */
  explicitSubject: Subject | null;
  previous: AssistantQuery;
  heard: QueryFilters;
  keys: Array<keyof QueryFilters>;
  measured: ReturnType<typeof measureOf>;
  group: Grouping | null;
  groupWide: boolean;
  orderOnly: boolean;
  soldOfLeads: boolean;
  sameQuestion: boolean;
}

/**
 * When a question is about the last answer's rows (narrowed, measured again, broken down or moved), one
 * rule per way of saying so; a question no rule takes is read on its own.
 */
const FOLLOWS_UP: ReadonlyArray<(asked: Asked) => boolean> = [
  // "Which ones?", "of those", "what about last month".
  ({ q }) => FOLLOW_UP.test(q),
  // "How are we trending vs the 30 days before that?": the same question, in the period before.
  ({ q, explicitSubject }) =>
    !explicitSubject &&
    /\b(?:\d{1,3} days|day|week|month|year) (?:before|prior to|earlier than) (?:that|this|then|it)\b/.test(q),
  // "How bout group wide" after one rooftop.
  ({ groupWide, previous }) => groupWide && previous.filters.dealer_id !== undefined,
  // "Highest price", "most miles" after a count or list.
  ({ orderOnly }) => orderOnly,
  // "How many were first time callers?": of the last answer's rows, with what it names added.
  ({ q, subject, previous }) =>
    /^how many (?:were|was|are|is|had|have|did|got)\b/.test(q) && subject === previous.subject,
  // "How many deals is that" after an average over deals: how many rows the figure was over.
  ({ q, subject, previous }) =>
    /^(?:and |so )?how many (?:[a-z]+ )?(?:is|are|was|were) (?:that|those|these|this|they|it)\??$/.test(q) &&
    subject === previous.subject,
  // "How many of those sold?" after leads.
  ({ soldOfLeads }) => soldOfLeads,
  // "Answer rate honda" after missed calls last 30 days: a rate of the same rows, at most narrowed to a place.
  ({ measured, subject, previous, keys, words }) =>
    measured?.measure === 'rate' &&
    subject === previous.subject &&
    (keys.length === 0 || (keys.every((key) => key === 'dealer_id') && words <= 4)),
  // "How many of auroras missed calls were first time callers": of the rows being talked about.
  ({ q, subject, previous }) => /^how many of\b/.test(q) && subject === previous.subject,
  // "Which source is sending aurora the most calls" after calls in the last 30 days: ranked in that period.
  ({ q, group, subject, previous, heard }) =>
    group !== null &&
    RANKING.test(q) &&
    subject === previous.subject &&
    previous.filters.from !== undefined &&
    !heard.from &&
    !heard.to,
  // "How many showed" after "how many appointments this week": the same rows, narrowed to what it names.
  ({ q, words, subject, previous, keys }) =>
    /^how many\b/.test(q) &&
    words <= 4 &&
    subject === previous.subject &&
    keys.length > 0 &&
    keys.every((key) => NARROWING.includes(key)),
  // "Missed calls per store?" after the answer rate over the last 30 days: a breakdown of that period's rows,
  // narrowed as it says.
  ({ group, subject, previous, heard, keys, words }) =>
    group !== null &&
    subject === previous.subject &&
    previous.filters.from !== undefined &&
    !heard.from &&
    !heard.to &&
    keys.length > 0 &&
    keys.every((key) => NARROWING.includes(key)) &&
    words <= 16,
  // "What did we do all of last month", "break this month out by store": the same rows, in another period.
  ({ q, subject, previous, heard }) =>
    subject === previous.subject &&
    (heard.from !== undefined || heard.to !== undefined) &&
    /^(?:so |and |ok )?what (?:did|do|have) we (?:do|done)\b|\b(?:split|break|broke|divide|spread)s? (?:this|last|that) (?:month|week|year|quarter)\b/.test(
      q,
    ),
  // "Equinox?" after "avg days to turn a silverado at aurora": the same question of what it names.
  ({ words, keys, measured, group }) => words <= 2 && keys.length > 0 && measured === null && group === null,
  // "Avg dys on lot" after "how many used on the ground": a figure of the same rows, asked in a few words.
  ({ measured, subject, previous, keys, words }) =>
    measured !== null &&
    measured.measure !== 'count' &&
    subject === previous.subject &&
    keys.length === 0 &&
    words <= 5,
  // "Units by salesman" after "how many deals mtd": the same deals, broken down. "Split lease/finance/cash":
  // the values named are the breakdown's own.
  ({ q, group, subject, previous, keys }) =>
    group !== null &&
    subject === previous.subject &&
    keys.every((key) => key === GROUP_FILTER[group]) &&
    (q.match(/[a-z0-9]+/g)?.length ?? 0) <= (keys.length ? 8 : 5),
  // "Same question for ford + chevy".
  ({ sameQuestion }) => sameQuestion,
  // "5 oldest by DOL" after a count or figure of vehicles: those, listed.
  ({ measured, subject, previous, keys, words }) =>
    measured?.measure === 'list' &&
    measured.limit !== undefined &&
    subject === previous.subject &&
    keys.length === 0 &&
    words <= 8,
  // "Fin deals only" after a figure of deals: the same figure, of the rows it names.
  ({ q, subject, previous, keys, words }) =>
    /\b(?:only|just)\W*$/.test(q) &&
    words <= 5 &&
    subject === previous.subject &&
    keys.length > 0 &&
    keys.every((key) => NARROWING.includes(key) || PLACE_AND_PERIOD.includes(key)),
  // "Leads by store this month", then "what's the close rate for Aurora": one row of the breakdown, in its period.
  ({ previous, subject, heard }) =>
    previous.group_by !== undefined &&
    subject === previous.subject &&
    GROUP_FILTER[previous.group_by] !== undefined &&
    GROUP_FILTER[previous.group_by]! in heard &&
    !heard.from &&
    !heard.to,
  // "Whats the avg asking price on the white units?" after the white ones at a store: those, by what they were.
  ({ q, subject, previous, heard, keys }) =>
    subject === previous.subject &&
    keys.length > 0 &&
    keys.every((key) => JSON.stringify(heard[key]) === JSON.stringify(previous.filters[key])) &&
    /\bthe (?:[a-z0-9-]+ ){1,3}(?:units|ones|cars|vehicles|trucks|suvs|sedans|leads|calls|deals)\b/.test(q),
  // "Avg DOL for each?" after a breakdown: the figure, for each of its rows.
  ({ q, subject, previous }) =>
    subject === previous.subject && previous.group_by !== undefined && /\b(?:for|of|at|in) each(?: one)?\??$/.test(q),
  // "Which store missed the most over the last 30 days" after missed calls: the same rows, ranked.
  ({ q, explicitSubject, group }) => !explicitSubject && group !== null && RANKING.test(q),
  // "Which make has the most sitting over 90" after used stock by make: the same breakdown, ranked and narrowed.
  ({ q, group, subject, previous }) =>
    group !== null && RANKING.test(q) && subject === previous.subject && previous.group_by === group,
  // "Toyota store vs the chevy store on days to sell": the rows being talked about, compared across rooftops.
  ({ q, subject, previous, heard, keys }) =>
    subject === previous.subject &&
    (heard.dealer_id?.length ?? 0) > 1 &&
    keys.every((key) => key === 'dealer_id') &&
    /\bvs\.?\b|\bversus\b/.test(q),
  // "Break the honda store down by body style for me": a breakdown naming no subject is of the conversation's.
  ({ explicitSubject, group }) => !explicitSubject && group !== null,
  // A short question naming no subject that says something read ("just the Fords", "by store").
  ({ explicitSubject, words, measured, group, keys }) =>
    !explicitSubject && words <= 8 && (measured !== null || group !== null || keys.length > 0),
];

/**
 * Reads a question, given the query the conversation's last answer ran (for follow-ups) and the ones
 * before it, newest first ("back to mine": the rooftop the conversation was last about).
 */
export function understand(
  question: string,
  vocabulary: Vocabulary,
  previous: AssistantQuery | null,
  now = new Date(),
  earlier: readonly AssistantQuery[] = [],
): Understanding {
  return withVehiclePeriod(withGroupWhole(reading(question, vocabulary, previous, now, earlier), question));
}

/** "What share of group units was the honda store": a rooftop's share of every rooftop's, not of its own. */
function withGroupWhole(read: Understanding, question: string): Understanding {
  if (read.query === null || !read.query.share || !read.query.filters.dealer_id?.length) return read;
  if (
    !/\b(?:of|vs) (?:the )?(?:whole |entire |total )?group\b|\bgroup(?:'s)? (?:units|deals|leads|calls|total|volume)\b|\bof all (?:the |our )?(?:stores|rooftops|locations|dealerships)\b/.test(
      normalize(question),
    )
  )
    return read;
  return { ...read, query: { ...read.query, whole_of_group: true } };
}

/**
 * Vehicles take a period as when they sold (sold ones, or days to sell) or, as `stocked_from`/`stocked_to`, when
 * they came in: a period any other reading kept ("how many in stock" after units sold this month) is said back.
 */
function withVehiclePeriod(read: Understanding): Understanding {
  if (read.query === null || read.query.subject !== 'vehicles') return read;
  const { from, to, ...filters } = read.query.filters;
  if ((!from && !to) || aboutSoldVehicles(read.query)) return read;
  const said = heardAs('from', { from, to }) ?? heardAs('to', { to });
  return {
    ...read,
    unused: [...read.unused, `${said} (a period of vehicles is when they sold or came in: ask what sold or came in)`],
    query: { ...read.query, filters },
  };
}

function reading(
  question: string,
  vocabulary: Vocabulary,
  previous: AssistantQuery | null,
  now: Date,
  earlier: readonly AssistantQuery[],
): Understanding {
  const asked = readable(question, vocabulary);
  // "What should i drop the first one to", "ok mark that one sold": declined, whichever row it points at.
  const declined = NOT_DATA.find(([pattern]) => pattern.test(asked));
  if (declined) return { query: null, reason: declined[1], declined: true };
  // "What's his front end" after "who is dead last in units" or after Sam's deals: the one named before.
  const leader =
    (previous?.leader || previous?.filters.salesperson) && !NOT_DATA.some(([pattern]) => pattern.test(asked))
      ? leaderNamed(asked, previous, vocabulary)
      : null;
  if (leader) question = leader;
  const spelled = leader ? readable(leader, vocabulary) : asked;
  // "The third one, how many miles on it": a row of the last list, by its place.
  const place = previous ? rowAt(spelled, previous) : null;
  if (place) return { followUp: true, unused: [], query: place };
  // "Bottom 3?" after a top 3: the same ranking, from its other end.
  const end = previous ? otherEnd(spelled, previous) : null;
  if (end) return { followUp: true, unused: [], query: end };
  // "Whats the miles on it" after the one vehicle: that vehicle, with the figure asked first.
  const aboutIt = previous ? figureOfIt(spelled, previous) : null;
  if (aboutIt) return { followUp: true, unused: [], query: aboutIt };
  // "Count distinct models in new inventory", "how many different makes do we carry": the breakdown, led by how
  // many rows it has.
  const distinct = DISTINCT.exec(spelled);
  if (!distinct)
    return withLastPeriod(
      withOneRecord(withAskedFigure(readQuestion(question, vocabulary, previous, now, earlier), spelled), spelled),
      spelled,
      previous,
      now,
    );
  const kind = distinct[1]!.replace(/s$/, '').replace('colour', 'color');
  const read = readQuestion(
    spelled.replace(distinct[0], `how many vehicles by ${kind}`),
    vocabulary,
    previous,
    now,
    earlier,
  );
  if (read.query === null || read.query.group_by !== DISTINCT_GROUPS[kind] || read.query.measure !== 'count')
    return read;
  return { ...read, query: { ...read.query, distinct: true } };
}

const RANKING_END =
  /^(?:and |what about |how about |now |ok |okay |then )?(?:the )?(top|best|bottom|worst|lowest)(?: (\d{1,2}))?(?: ones?)?\??$/;
function otherEnd(q: string, previous: AssistantQuery): AssistantQuery | null {
  const said = RANKING_END.exec(q);
  if (!said || !previous.group_by || !previous.ranked) return null;
  const low = /^(?:bottom|worst|lowest)$/.test(said[1]!);
  const limit = said[2] ? Number(said[2]) : previous.limit;
  return { ...previous, order: low ? 'asc' : 'desc', ...(limit ? { limit } : {}) };
}

/** Words that ask over all time, or start afresh: no period of the last question is kept. */
const ALL_TIME =
  /\b(?:all[- ]time|ever|lifetime|since (?:we|the) (?:start|began|opened)|in total|overall|altogether|any time|total to date)\b/;
const aboutSoldVehicles = (query: AssistantQuery) =>
  query.subject === 'vehicles' &&
  (query.field === 'days_to_sell' || (query.filters.status?.length === 1 && query.filters.status[0] === 'sold'));

/**
 * "What was the average duration of the answered calls?" after October's calls, "which truck took the longest"
 * after trucks sold in Q3: a question of the same subject that names no period of its own is asked over the last
 * one's (the answer says which). Vehicles keep it only when both questions are about sold ones.
 */
function withLastPeriod(read: Understanding, q: string, previous: AssistantQuery | null, now: Date): Understanding {
  if (read.query === null || read.followUp || !previous || read.query.subject !== previous.subject) return read;
  const { from, to } = previous.filters;
  if ((!from && !to) || read.query.filters.from || read.query.filters.to) return read;
  if (read.query.subject === 'vehicles' && !(aboutSoldVehicles(read.query) && aboutSoldVehicles(previous))) return read;
  if (FRESH.test(q) || ALL_TIME.test(q) || periodsOf(q, now, { years: true }).length) return read;
  const period = { ...(from ? { from } : {}), ...(to ? { to } : {}) };
  // "Avg talk time secs answered calls" after missed calls at Aurora in the last 30 days: there too, unless the
  // question names a place, every rooftop or a breakdown by rooftop.
  const place =
    previous.filters.dealer_id &&
    !read.query.filters.dealer_id &&
    read.query.group_by !== 'dealer' &&
    !GROUP_WIDE.test(q) &&
    !/\b(?:all|every|each|any) (?:the |our )?(?:stores|rooftops|dealerships|locations|rooftop|store)\b|\bgroup\b/.test(
      q,
    )
      ? { dealer_id: previous.filters.dealer_id }
      : {};
  return { ...read, query: { ...read.query, filters: { ...read.query.filters, ...period, ...place } } };
}

/**
 * The row of the last answer a question points at by its place ("the third one", "#2"), of a list or of a count
 * without a breakdown (a count is answered with its rows listed: vehicles longest on the lot first, leads, calls
 * and deals newest first).
 */
/** The last answer's query as its rows: without the whole a share of them was of. */
function rowsOf(previous: AssistantQuery): AssistantQuery {
  const { share: _share, whole_filters: _whole, whole_of_group: _group, ...rows } = previous;
  return rows;
}

function rowAt(q: string, previous: AssistantQuery): AssistantQuery | null {
  if (previous.measure !== 'list' && (previous.measure !== 'count' || previous.group_by)) return null;
  const place = placeIn(q);
  if (place === null) return null;
  const rows = rowsOf(previous);
  const list =
    previous.measure === 'list'
      ? rows
      : previous.subject === 'vehicles'
        ? { ...rows, measure: 'list' as const, field: 'days_on_lot', order: 'desc' as const }
        : { ...rows, measure: 'list' as const };
  return { ...list, limit: 1, offset: place - 1 };
}

/** The question with "his", "that store" or "that source" as the group the last ranking named, if it points at it. */
function leaderNamed(q: string, previous: AssistantQuery, vocabulary: Vocabulary): string | null {
  // Or the salesperson the last question was about ("whats his total front gross" after Sam's deals).
  // A leader with no breakdown is the salesperson of the one deal shown.
  const [group, name] = previous.leader
    ? [previous.group_by ?? 'salesperson', previous.leader]
    : (['salesperson', previous.filters.salesperson!] as const);
  // "And sam? how many leads did he get" after Alex's: "he" is the one named now.
  const other = (vocabulary.salespeople ?? []).some(
    (person) =>
      person.toLowerCase() !== name.toLowerCase() &&
      person
        .toLowerCase()
        .split(' ')
        .some((part) => part.length > 2 && word(part).test(q)),
  );
  if (group === 'salesperson' && other) return null;
  const pointers: Partial<Record<Grouping, Array<[RegExp, string]>>> = {
    salesperson: [
      // "Pull up his deals" after Alex's finance deals: those deals, as the conversation has them.
      ...(previous.leader ? [] : [[/\b(?:his|her) (deals|leads|sales|units|ones)\b/g, 'those $1'] as [RegExp, string]]),
      [/\b(?:his|her)\b/g, `${name}'s`],
      [/\b(?:he|she|him|that guy|that gal|that rep|that salesperson)\b/g, name],
    ],
    dealer: [[/\b(?:that|this|the same|the worst|the best) (?:store|rooftop|location|dealership|one)\b/g, name]],
    source: [
      [/\b(?:that|this|the same|the top|the best) (?:source|site|channel|one)\b/g, name],
      [
        /\bthe (?:#1|number one|no\.? ?1|top one|first one)(?: (?:source|site|channel|one))?(?: (?:from|on|in) (?:that|the) (?:list|ranking))?\b/g,
        name,
      ],
    ],
    model: [[/\b(?:that|this|the same|the top) (?:model|one)\b/g, name]],
  };
  const rules = group ? (pointers[group] ?? []) : [];
  const named = rules.reduce((text, [pattern, said]) => text.replace(pattern, said), q);
  return named === q ? null : named;
}

const PLACES = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];
/** A place in a list: "the third one", "the 2nd car", "#4". */
function placeIn(q: string): number | null {
  const said =
    /\b(?:the )?(first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|(?:[1-9]|1\d|2[0-5])(?:st|nd|rd|th))(?: (?:one|vehicle|unit|car|truck|suv|lead|call|deal)\b| on (?:the|that) list\b)|(?:^|\s)#(\d{1,2})\b/.exec(
      q,
    );
  if (!said) return null;
  const place = said[2]
    ? Number(said[2])
    : PLACES.includes(said[1]!)
      ? PLACES.indexOf(said[1]!) + 1
      : parseInt(said[1]!, 10);
  return place >= 1 && place <= 25 ? place : null;
}

/** What names one record: kept by a follow-up about it ("who sold it"), not by one about others. */
const RECORD_KEYS: Array<keyof QueryFilters> = ['deal_number', 'stock_number', 'vin'];

/** The figure of one vehicle a question asks for: its miles, price or days on the lot. */
function figureAsked(q: string): AssistantQuery['asked'] | null {
  if (/\bmiles\b|\bmileage\b|\bodo(?:meter)?\b/.test(q)) return 'mileage';
  if (/\bpric|\basking\b|\bcost\b/.test(q)) return 'price';
  if (/\bhow long\b|\bdays\b|\bsitting\b|\baged?\b/.test(q)) return 'days_on_lot';
  return null;
}

/** A figure asked of the one vehicle just named: "whats the miles on it", "hows the miles on that one". */
const OF_IT = /\b(?:it|that one|this one|that|her|him|that truck|that car)\b/;
function figureOfIt(q: string, previous: AssistantQuery): AssistantQuery | null {
  // "Amt financed on it?" after "pull deal D100199": that deal's figure (its total, over the one deal).
  const oneDeal =
    previous.subject === 'sales' &&
    !previous.group_by &&
    (previous.filters.deal_number !== undefined ||
      (previous.measure === 'list' && previous.limit === 1 && !previous.order));
  if (q.split(' ').length > 8 || !OF_IT.test(q)) return null;
  if (oneDeal && /\bfinanc|\bgross\b|\bfront\b|\bback\b|\bpric|\bprofit\b|\bamount\b/.test(q)) {
    const field = fieldOf(q, 'sales');
    if (!field) return null;
    const rows = rowsOf(previous);
    const { offset: _offset, limit: _limit, order: _order, ...rest } = rows;
    return {
      ...rest,
      measure: 'sum',
      field,
      ...(previous.filters.deal_number
        ? {}
        : { within: { field: 'newest', order: 'desc' as const, limit: 1, filters: previous.filters } }),
    };
  }
  const one =
    previous.subject === 'vehicles' &&
    !previous.group_by &&
    (previous.measure === 'max' || previous.measure === 'min' || (previous.measure === 'list' && previous.limit === 1));
  if (!one) return null;
  const asked = figureAsked(q);
  if (!asked) return null;
  const rows = rowsOf(previous);
  return previous.measure === 'list'
    ? { ...rows, asked }
    : { ...rows, measure: 'list', order: previous.measure === 'max' ? 'desc' : 'asc', limit: 1, asked };
}

/** "What's the oldest one priced at": the one vehicle at that end, for another of its figures. */
const ASKED_FIGURE =
  /\bpriced at\b|\bwhat(?:'s| is| are)? (?:we |they )?asking\b|\basking (?:price )?on (?:it|that|her)\b|\bhow many miles\b|\bmiles on (?:it|that|her|him)\b/;
function withAskedFigure(read: Understanding, q: string): Understanding {
  if (read.query === null) return read;
  const query = read.query;
  if (query.subject !== 'vehicles' || (query.measure !== 'max' && query.measure !== 'min') || !ASKED_FIGURE.test(q))
    return read;
  const asked = /\bmiles\b/.test(q) && !/\bpric|\basking\b/.test(q) ? 'mileage' : 'price';
  if (asked === query.field) return read;
  return {
    ...read,
    query: { ...query, measure: 'list', order: query.measure === 'max' ? 'desc' : 'asc', limit: 1, asked },
  };
}

/** "Whats the price on stock # U14345T", "deal D100199": the one record, listed (with the figure asked first). */
function withOneRecord(read: Understanding, q: string): Understanding {
  const query = read.query;
  if (query === null || query.group_by || !RECORD_KEYS.some((key) => query.filters[key] !== undefined)) return read;
  if (query.measure !== 'count' && query.measure !== 'list') return read;
  const asked = query.subject === 'vehicles' ? figureAsked(q) : null;
  return { ...read, query: { ...query, measure: 'list', limit: 1, ...(asked ? { asked } : {}) } };
}

const DISTINCT =
  /\b(?:count (?:of )?(?:distinct|different|unique)|how many (?:different|distinct|unique|separate)|number of (?:different|distinct|unique)|(?:distinct|unique) count of)\s+(model years?|models?|makes?|colou?rs?|trims?|body styles?)\b/;
const DISTINCT_GROUPS: Record<string, Grouping> = {
  model: 'model',
  make: 'make',
  color: 'color',
  trim: 'trim',
  'body style': 'body_style',
  'model year': 'year',
};

function readQuestion(
  question: string,
  vocabulary: Vocabulary,
  previous: AssistantQuery | null,
  now: Date,
  earlier: readonly AssistantQuery[],
): Understanding {
  // After a question about leads, "turned into deals" or "bought" is those leads sold (a deal linked or the status).
  const spelled = readable(question, vocabulary);
  // "Ok diff question …": not about the last answer.
  // The conversation's rooftop or salesperson still stands ("switching gears - how many leads has my store gotten").
  if (FRESH.test(spelled) && previous) {
    earlier = [previous, ...earlier];
    previous = null;
  }
  const q = withLastUnit(previous?.subject === 'leads' ? spelled.replace(LEADS_SOLD, 'sold') : spelled, previous);
  if (!q) return { query: null, reason: 'the question is empty' };
  const declined = NOT_DATA.find(([pattern]) => pattern.test(q));
  if (declined) return { query: null, reason: declined[1], declined: true };
  // "How many of the missed ones were svc dept" after calls: read as about calls, as the conversation is.
  const unmeasured = NOT_MEASURED.find(
    ([pattern]) => pattern.test(q) && (previous?.subject !== 'calls' || pattern.test(`calls: ${q}`)),
  );
  if (unmeasured) return { query: null, reason: unmeasured[1] };
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
  const subjectText = rooftopPhrases(q, vocabulary.dealers).reduce(
    (text, { phrase }) => text.replace(phrasePattern(phrase, 'g'), ' '),
    named.reduce((text, name) => text.replace(new RegExp(escape(normalize(name)), 'g'), ' '), q),
  );
  const vehicleWords =
    BODY_WORDS.some(([pattern]) => pattern.test(subjectText) && !/\bready for pickup\b/.test(subjectText)) ||
    modelsNamed(subjectText, vocabulary.models).length > 0;
  // "Anything red under 20 grand?": what only vehicles have (a colour, mileage, model years, days on the lot), or a
  // price with nothing else named, asks about vehicles, unless it narrows the last answer ("how many of those r red").
  const vehicleOnly = (() => {
    if (previous && FOLLOW_UP.test(q)) return false;
    const heard = filtersOf(subjectText, 'vehicles', vocabulary, now);
    // A year alone ("in 2020") may be a period: only a range of model years ("2020 or older") is of vehicles.
    const attributes = (Object.keys(heard) as Array<keyof QueryFilters>).filter(
      (key) =>
        /^(?:color|price_(?:min|max)|mileage_(?:min|max)|days_on_lot_(?:min|max))$/.test(key) ||
        (/^year_(?:min|max)$/.test(key) && heard.year_min !== heard.year_max),
    );
    return attributes.some((key) => !previous || !SUPPORTED[previous.subject].includes(key));
  })();
  const readAs = subjectOf(subjectText, vocabulary, vehicleWords) ?? (vehicleOnly ? 'vehicles' : null);
  // "How many of those sold?" or "how many sold?" after a question about leads is still about those leads.
  const soldOfLeads =
    readAs === 'sales' &&
    previous?.subject === 'leads' &&
    // "How many of his did he close?" after his leads.
    (FOLLOW_UP.test(q) || q.split(' ').length <= 5 || /^how many of\b/.test(q)) &&
    (!/\b(?:deals?|sales|units|cars|vehicles|revenue|gross|leases?)\b/.test(subjectText) ||
      // "Which source sold the most cars out of those" after leads: those leads.
      /\bout of (?:those|these|them|em)\b/.test(q));
  // "How many did each salesperson get" after leads: the leads, by their salesperson.
  const leadsBySalesperson =
    readAs === 'sales' &&
    previous?.subject === 'leads' &&
    /\bsalespe|\breps?\b|\bsales ?(?:people|guys|team)\b/.test(q) &&
    !/\b(?:deals?|sales(?! ?(?:people|guys|team|person))|sold|units|cars|vehicles|revenue|gross|leases?|delivered)\b/.test(
      subjectText,
    );
  // "How many of those are still sitting in new status" after leads: "sitting" alone does not make it vehicles.
  // "And F-150s?" after Silverado deals: the deals of that model.
  const sameOfAnother =
    readAs === 'vehicles' &&
    previous !== null &&
    previous.subject === 'sales' &&
    (previous.filters.model !== undefined || previous.filters.make !== undefined) &&
    /^(?:and|what about|how about|now) (?:the )?[a-z0-9 -]+\??$/.test(q) &&
    q.split(' ').length <= 4;
  const stillPrevious =
    readAs === 'vehicles' &&
    previous !== null &&
    previous.subject !== 'vehicles' &&
    // "Toyota only" after leads: the leads, narrowed.
    ((q.split(' ').length <= 3 && /\b(?:only|just)\b/.test(q)) ||
      /\b(?:of those|of these|of them|of em|those|them|'?em|ones)\b|\bin (?:new|contacted|appointment|showed|lost) status\b|\b(?:sitting|still|stuck) (?:at|in) (?:new|contacted|appointment)\b/.test(
        q,
      )) &&
    !vehicleWords &&
    // "Avg days to sell on those" after deals: sold vehicles' days, never a deal's figure.
    !DAYS_TO_SELL.test(q) &&
    !/\b(?:cars?|vehicles?|inventory|units?|stock|on the lot|priced?|prices|mileage|miles)\b/.test(subjectText);
  // "Same question for ford + chevy": the last question again, its subject kept.
  const sameQuestion =
    previous !== null && /\bsame (?:question|q|thing) (?:for|at|about|with)\b|^(?:and )?(?:the )?same for\b/.test(q);
  // "How many of em sold since the 1st" after vehicles marked sold: those vehicles, sold in the period.
  const afterSoldVehicles =
    readAs === 'sales' && previous?.subject === 'vehicles' && previous.filters.status?.includes('sold') === true;
  const soldVehicles = afterSoldVehicles && /\b(?:of (?:those|these|them|em)|those|them|'?em|ones)\b/.test(q);
  // "And how many units have been sold today?" after units sold per the vehicle records: still vehicles.
  const soldUnits =
    afterSoldVehicles &&
    !soldVehicles &&
    /\b(?:units?|cars?|vehicles?)\b/.test(q) &&
    !/\bdeals?\b|\bgross\b|\brevenue\b|\bsalespe/.test(q);
  // "Units by rooftop" after deals: the deals, counted; units in stock are said so.
  const unitsOfDeals =
    readAs === 'vehicles' &&
    previous?.subject === 'sales' &&
    !vehicleWords &&
    /\bunits?\b/.test(subjectText) &&
    !/\b(?:in stock|on the (?:lot|ground)|inventory|stock|sitting|aged|aging|on hand|in[- ]transit|pending|available|arriv|came in|priced?|miles?|mileage|days)\b/.test(
      q,
    );
  const explicitSubject = soldOfLeads
    ? 'leads'
    : soldUnits
      ? 'vehicles'
      : unitsOfDeals
        ? 'sales'
        : stillPrevious || sameOfAnother || sameQuestion || leadsBySalesperson || soldVehicles
          ? null
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
  // Read without source and rooftop names: "OEM Website" is a source, not "website" leads.
  for (const [pattern, said] of CANNOT_FILTER) if (pattern.test(subjectText)) unused.push(said);
  // "Mini deals" with no gross named: which deals are minis is the store's own line.
  if (/\bsmall-gross deals?\b/.test(q) && !/\b(?:under|below|less than|at most|up to)\b/.test(q))
    unused.push('mini deals (name the front gross that makes one, such as "under 1000 front")');
  const measured = measureOf(read, subject) ?? otherFigure(read, subject, previous);
  // The figure's words are judged without the periods the question names ("total front end gross mtd").
  const figureText = withoutPeriods(read, periodsOf(read, now, { years: true }))
    .replace(/\s+/g, ' ')
    .trim();
  const notRead =
    measured && ['average', 'sum', 'max', 'min'].includes(measured.measure)
      ? figureNotRead(figureText, vocabulary)
      : null;
  if (notRead)
    return {
      query: null,
      reason: `"${notRead}" is not a figure I read (I give prices and MSRP, days on the lot, days to sell, mileage, model years, deal prices and gross, and call lengths)`,
    };
  // "Exclude walk-ins": sources left out, not asked for (leads and calls with no source stay).
  const leftOutSources = (() => {
    if (subject !== 'leads' && subject !== 'calls') return [];
    const phrase = SOURCES_LEFT_OUT.exec(read);
    const names = phrase ? sourcesOf(phrase[1]!, vocabulary.sources).names : [];
    if (names.length) read = read.replace(phrase![0], ' ');
    return names;
  })();
  // "Ok forget trucks", "ignore outbound", "not just trucks": what it names is not heard, and leaves the
  // conversation's rows.
  const forget =
    /\b(?:forget|drop|never ?mind|nvm|scratch|ignore|skip|leave off|not just|not only) (?:the |about )?([a-z0-9-]+(?: [a-z0-9-]+)?)/.exec(
      read,
    );
  const forgotten = forget
    ? (Object.keys(filtersOf(forget[1]!, subject, vocabulary, now)) as Array<keyof QueryFilters>)
    : [];
  const heard = filtersOf(forget ? read.replace(forget[0], ' ') : read, subject, vocabulary, now);
  if (leftOutSources.length) heard.exclude_source = leftOutSources;
  // After a question about rooftops, makes that are their names are the rooftops ("same question for ford + chevy").
  if (sameQuestion && previous?.filters.dealer_id && heard.make && !heard.dealer_id) {
    const rooftops = heard.make.flatMap((make) => rooftopsOfMake(make, vocabulary.dealers));
    if (rooftops.length) {
      heard.dealer_id = rooftops.map((dealer) => dealer.id);
      delete heard.make;
    }
  }
  // The one rooftop whose name holds the one make named, if there is one.
  const storeOfMake = heard.make?.length === 1 ? rooftopsOfMake(heard.make[0]!, vocabulary.dealers) : [];
  // "Honda vs toyota north": a make compared with a rooftop is the rooftop it names.
  if (
    /\bvs\.?\b|\bversus\b/.test(q) &&
    heard.dealer_id?.length === 1 &&
    storeOfMake.length === 1 &&
    storeOfMake[0]!.id !== heard.dealer_id[0]
  ) {
    heard.dealer_id = [storeOfMake[0]!.id, ...heard.dealer_id];
    delete heard.make;
  }
  // "Them chevy deals" after the Chevy store's: that store's deals, not Chevrolets (unless vehicles are named).
  // "How many of the honda deals were cash" after the Honda and Toyota stores compared: the Honda store's.
  const [lastRooftop] = previous?.filters.dealer_id?.length === 1 ? previous.filters.dealer_id : [];
  if (
    lastRooftop &&
    subject !== 'vehicles' &&
    !heard.dealer_id &&
    storeOfMake.some((dealer) => dealer.id === lastRooftop)
  )
    delete heard.make;
  else if (
    subject !== 'vehicles' &&
    subject === previous?.subject &&
    !heard.dealer_id &&
    storeOfMake.length === 1 &&
    ((previous.filters.dealer_id?.length ?? 0) > 1 || previous.group_by === 'dealer')
  ) {
    heard.dealer_id = [storeOfMake[0]!.id];
    delete heard.make;
  }
  // "How many leads got assigned to me" after "its casey nguyen - how many deals have i closed": the
  // salesperson the conversation named.
  if (ME.test(q) && !heard.salesperson) {
    const me = [previous, ...earlier].find((query) => query?.filters.salesperson);
    if (me) heard.salesperson = me.filters.salesperson;
  }
  // "Ok back to mine": the one rooftop the conversation was last about, after a look at the others.
  if (MINE.test(q) && !heard.dealer_id) {
    const mine = [previous, ...earlier].find((query) => query?.filters.dealer_id?.length === 1);
    if (mine) heard.dealer_id = mine.filters.dealer_id;
    else unused.push('"my store" (name the rooftop: I do not know which one is yours)');
  }
  // A conversation that opened about one rooftop ("How many leads did Summit Ford Westside get in October?") speaks
  // of it as "we", "our" and "here" ("break our october leads down by source" after a look at the whole group).
  const opening = earlier.at(-1) ?? previous;
  if (
    !heard.dealer_id &&
    opening?.filters.dealer_id?.length === 1 &&
    /\b(?:our|we|us|here|my)\b/.test(q) &&
    !GROUP_WIDE.test(q) &&
    !/\bcompare\b|\beach (?:store|rooftop|location|dealership)\b|\bwhole group\b|\b(?:all|other|every) (?:the )?(?:stores|rooftops|locations|dealerships)\b|\bby (?:store|rooftop|location|dealership|dealer)\b|\bgroup\b/.test(
      q,
    )
  )
    heard.dealer_id = opening.filters.dealer_id;
  // "What % of all our leads since then came from google ads": since the last answer's period began.
  if (!heard.from && !heard.to && /\bsince then\b/.test(q) && previous?.filters.from) {
    heard.from = previous.filters.from;
    heard.to = now.toISOString().slice(0, 10);
  }
  // "And the week before that?": the last answer's period, moved back; everything else stays.
  const before = heard.from || heard.to ? undefined : periodBefore(q, previous?.filters, now);
  if (before && !before.range)
    return {
      query: null,
      reason: `"${before.phrase}" goes back from a period, and ${previous ? 'the last answer had none' : 'no earlier question named one'}`,
    };
  if (before?.range) Object.assign(heard, before.range);
  // "Those 60+ day units" after "sitting over 60 days", "that aged used inventory" after "over 90 days": the set
  // just counted, said again, not a new bound.
  if (
    previous?.filters.days_on_lot_min !== undefined &&
    heard.days_on_lot_min !== undefined &&
    (Math.abs(heard.days_on_lot_min - previous.filters.days_on_lot_min) <= 1 ||
      (!/\d/.test(q) && /\b(?:those|these|that)\b/.test(q)))
  )
    heard.days_on_lot_min = previous.filters.days_on_lot_min;
  // A source named by a nickname that is no one source of the caller's, or a second source, is said back.
  const sourcesNamed = sourcesOf(read, vocabulary.sources);
  unused.push(...sourcesNamed.unresolved);
  // "Facebook vs CarGurus leads": the sources named, side by side. Deals have no source filter to compare.
  const comparedSources =
    sourcesNamed.names.length > 1 && (subject === 'leads' || subject === 'calls') ? sourcesNamed.names : null;
  if (comparedSources) {
    delete heard.source;
    heard.sources = comparedSources;
  } else
    for (const other of sourcesNamed.names.slice(1)) unused.push(`the source ${other} (I count one source at a time)`);
  // Days to sell are over sold vehicles, in the period they sold if one is named.
  const daysToSell =
    subject === 'vehicles' &&
    (measured
      ? measured.field === 'days_to_sell'
      : previous?.subject === 'vehicles' && previous.field === 'days_to_sell');
  const filters: QueryFilters = daysToSell && !heard.status ? { status: ['sold'] } : {};
  // A period of vehicles is when they sold, of sold ones ("how many of em sold since the 1st" after units marked
  // sold), or when they came in, said so ("what came in this week"), or after that.
  const statusAsked = heard.status ?? (previous?.subject === 'vehicles' ? previous.filters.status : undefined);
  const soldPeriod = subject === 'vehicles' && (daysToSell || (statusAsked?.length === 1 && statusAsked[0] === 'sold'));
  if (
    subject === 'vehicles' &&
    !soldPeriod &&
    (heard.from || heard.to) &&
    (ARRIVED.test(q) ||
      (previous?.subject === 'vehicles' && (previous.filters.stocked_from ?? previous.filters.stocked_to)))
  ) {
    if (heard.from) heard.stocked_from = heard.from.slice(0, 10);
    heard.stocked_to = (heard.to ?? now.toISOString()).slice(0, 10);
    delete heard.from;
    delete heard.to;
  }
  for (const key of Object.keys(heard) as Array<keyof QueryFilters>) {
    if (SUPPORTED[subject].includes(key) || (soldPeriod && (key === 'from' || key === 'to')))
      Object.assign(filters, { [key]: heard[key] });
    else {
      const said = heardAs(key, heard);
      if (said) unused.push(said);
    }
  }
  // "Who had the best pvr?" after a ranking of stores: "who" is the stores, not salespeople.
  const groupNamed = groupOf(q, subject);
  const group =
    groupNamed === 'salesperson' &&
    (previous?.group_by === 'dealer' || previous?.group_by === 'source') &&
    previous.subject === subject &&
    !SALESPEOPLE_NAMED.test(q) &&
    !/\bfloor\b|\bboard\b|\bsold\b/.test(q)
      ? previous.group_by
      : groupNamed;
  // "Highest price", "most miles" after a count or list: the same vehicles, in that order.
  const orderOnly =
    previous !== null &&
    subject === previous.subject &&
    !group &&
    // "The 5 tahoes thats been sittin the longest" after tahoes: named again, not changed.
    (Object.keys(heard) as Array<keyof QueryFilters>).every(
      (key) => JSON.stringify(heard[key]) === JSON.stringify(previous.filters[key]),
    ) &&
    (q.split(' ').length <= 4 || REFERS_BACK.test(q)) &&
    (measured?.measure === 'max' || measured?.measure === 'min' || (measured?.measure === 'list' && !!measured.order));
  // A short question naming no subject follows up only when it says something we read ("which ones?", "just the Fords");
  // a rate asked of the same subject with nothing else named ("what's the answer rate?") is over the same rows.
  const groupWide = GROUP_WIDE.test(q);
  const followUp =
    previous !== null &&
    FOLLOWS_UP.some((rule) =>
      rule({
        q,
        words: q.split(' ').length,
        subject,
        explicitSubject,
        previous,
        heard,
        keys: Object.keys(heard) as Array<keyof QueryFilters>,
        measured,
        group,
        groupWide,
        orderOnly,
        soldOfLeads,
        sameQuestion,
      }),
    );
  if (!explicitSubject && !followUp)
    return { query: null, reason: 'it is not about your vehicles, leads, calls or sales' };
  // "What % of calls is that" after "first time callers this month": the last answer's rows as a share of
  // the same rooftops and period (and of what follows "of").
  if (previous && subject === previous.subject && SHARE_OF_LAST.test(q) && !previous.group_by) {
    const of = /\bof (?:all |our |my |the |your )*(.+?) (?:is|are|was|were)\b/.exec(q)?.[1];
    const whole = pickFilters(
      of ? filtersOf(of, subject, vocabulary, now) : {},
      (key) => !PLACE_AND_PERIOD.includes(key) && SUPPORTED[subject].includes(key),
    );
    return {
      followUp: true,
      unused,
      query: {
        subject,
        measure: 'count',
        share: true,
        ...(Object.keys(whole).length ? { whole_filters: whole } : {}),
        filters: previous.filters,
      },
    };
  }
  if (group === 'salesperson' && subject !== 'sales' && subject !== 'leads')
    unused.push('the breakdown by salesperson');
  // One period is answered; any other the question names is said back, never dropped.
  const periods = periodsOf(read, now, { years: subject !== 'vehicles' });
  if (filters.from && periods[0]?.note) unused.push(periods[0].note);
  // "Sedans vs SUVs", "Toyota versus Honda", "cash vs finance vs lease": a breakdown over what is named.
  const versus = /\bvs\.?\b|\bversus\b|\bcompared (?:to|with)\b|\bor\b/.test(q)
    ? (filters.body_style?.length ?? 0) > 1
      ? 'body_style'
      : (filters.make?.length ?? 0) > 1
        ? 'make'
        : (filters.dealer_id?.length ?? 0) > 1
          ? 'dealer'
          : (filters.contract_type?.length ?? 0) > 1
            ? 'contract_type'
            : null
    : null;
  // "New vs used this month" compares the groups, not periods.
  const comparesPeriods =
    /\bvs\.?\b|\bversus\b|\bcompared? (?:to|with)\b/.test(q) &&
    periods.length > 0 &&
    !versus &&
    !comparedSources &&
    (group === null || periods.length > 1);
  // "How many deals last month, and how does that compare with September?": one figure, then the other.
  const compareWith =
    comparesPeriods && periods.length === 2 && group === null && !followUp && measured?.measure !== 'list'
      ? periods[1]
      : undefined;
  if (comparesPeriods) {
    if (!compareWith) unused.push(ONE_PERIOD);
  } else
    for (const other of periods.slice(1))
      // "Last month, i.e. 1 October through 31 October": the same days said twice are one period.
      if (other.range.from !== periods[0]!.range.from || other.range.to !== periods[0]!.range.to)
        unused.push(`the period "${other.phrase}" (I give one period)`);
  // Of leads, calls and deals, a year read as neither a period nor a model year ("deals after 2024") is said back.
  if (subject !== 'vehicles') {
    const placed = [heard.year_min, heard.year_max].filter((year) => year !== undefined);
    const rest = withoutPeriods(read, periods);
    for (const [, year] of rest.matchAll(
      /(?<![$\d,.])\b((?:19|20)\d{2})\b(?!\s*(?:miles|mi\b|k\b|grand|dollars|bucks|seconds|secs|minutes|mins))/g,
    ))
      if (
        !placed.some((at) => Math.abs(at - Number(year)) <= 1) &&
        !(
          heard.year_min !== undefined &&
          heard.year_max !== undefined &&
          Number(year) >= heard.year_min &&
          Number(year) <= heard.year_max
        )
      )
        unused.push(`"${year}" (I could not tell whether it is a period, a model year or an amount)`);
  }
  const byTime =
    /\b(?:by|per|each|every|best|busiest|worst|slowest) (day|week|month|hour|year|time)\b|\b(daily|weekly|monthly|hourly)\b|\b(trend)s?\b/.exec(
      q,
    );
  if (byTime && group !== 'year')
    unused.push(`a breakdown by ${byTime[1] ?? byTime[2] ?? 'period'} (I give the total for the period)`);
  if (subject !== 'leads' && /\btrade[- ]?ins?\b/.test(q)) unused.push('trade-ins');
  if (subject === 'vehicles' || subject === 'sales')
    for (const qualifier of unplacedQualifiers(withoutPeriods(read, periods), vocabulary))
      unused.push(`"${qualifier}" (not something I can filter vehicles by)`);
  if (subject !== 'calls' && heard.duration_min !== undefined) unused.push('the call length');
  if (
    subject === 'calls' &&
    /\b(?:under|below|less than|shorter than|at most)\s+\d+\s*(?:min(?:ute)?s?|sec(?:ond)?s?)\b/.test(q)
  )
    unused.push('a longest call length (I can only count calls of at least a length)');
  if (measured?.measure === 'sum' && subject !== 'vehicles' && subject !== 'sales')
    unused.push(`a dollar total (${SUBJECT_NOUN[subject]} have no dollar amount; I counted them)`);
  // "The 3rd party sites (cars.com, cargurus, autotrader) combined": the sources together, not side by side.
  // "Honda vs chevy who sold more": the rooftops compared, not their salespeople. "By site" after third-party
  // sites is by source.
  const siteIsSource =
    group === 'dealer' &&
    /\bby (?:site|website)s?\b/.test(q) &&
    !!(heard.source_category ?? (previous?.subject === subject ? previous.filters.source_category : undefined));
  const grouping =
    (siteIsSource
      ? 'source'
      : group === 'salesperson' && versus === 'dealer' && !SALESPEOPLE_NAMED.test(q)
        ? versus
        : group) ??
    versus ??
    (comparedSources && !/\b(?:combined|together|altogether|in total|overall|sites)\b/.test(q) ? 'source' : null);
  // "The lead funnel - new, contacted, appt, showed, sold, lost": the statuses named are the breakdown's rows.
  if (grouping === 'status' && (filters.status?.length ?? 0) > 1) delete filters.status;
  // "Inv mix - new/used/CPO": the conditions named are the breakdown's rows.
  if (grouping === 'condition' && CONDITION_MIX.test(q)) delete filters.condition;
  // The buckets named are the breakdown's rows, not a bound.
  if (grouping === 'age') {
    delete filters.days_on_lot_min;
    delete filters.days_on_lot_max;
  }
  // "How does Jordan stack up? rank the whole sales team": everyone ranked, not Jordan alone.
  if (
    grouping === 'salesperson' &&
    /\b(?:whole|entire|full) (?:sales )?(?:team|staff|floor|crew)\b|\b(?:everyone|everybody|all (?:the )?(?:reps|salespeople))\b/.test(
      q,
    )
  )
    delete filters.salesperson;
  const usable = (found: typeof measured) =>
    found?.measure === 'sum' && subject !== 'vehicles' && subject !== 'sales' ? { measure: 'count' as const } : found;

  if (followUp && previous) {
    const sameSubject = subject === previous.subject;
    // A follow-up that changes nothing we read ("and the week before that?") would repeat the last answer.
    if (
      sameSubject &&
      !measured &&
      !grouping &&
      !Object.keys(heard).length &&
      !unused.length &&
      !groupWide &&
      !(Object.keys(ANY_OF) as Array<keyof QueryFilters>).some(
        (key) => key in previous.filters && ANY_OF[key]!.test(q),
      ) &&
      !/\b(?:same|again|those|these|them|'?em|ones)\b/.test(q)
    )
      return { query: null, reason: 'I could not tell what to change from the last answer' };
    // Across subjects, what the new subject cannot use of the last question is said back too.
    // Sold vehicles take a period (when they sold): "avg days to sell on those" after deals in Q3.
    const soldNow =
      subject === 'vehicles' && (measured?.field === 'days_to_sell' || DAYS_TO_SELL.test(q) || /\bsold\b/.test(q));
    const carried = (key: keyof QueryFilters) =>
      SUPPORTED[subject].includes(key) || (soldNow && (key === 'from' || key === 'to'));
    if (!sameSubject)
      for (const key of Object.keys(previous.filters) as Array<keyof QueryFilters>)
        if (!CONTEXT_FILTERS.includes(key) || !carried(key)) {
          const said = heardAs(key, previous.filters);
          if (said && !(key in heard)) unused.push(`${said} (from the last question)`);
        }
    // Across subjects a follow-up keeps what the new subject can use: rooftops, period, source, salesperson.
    // A rate counts its own statuses (sold, answered…): the previous status filter would make it 0 or 100%.
    // After "what % of last month's deals were leases", "and our pvr for the month" is of the deals, not the
    // leases; "list them" is of the leases.
    // The rows a share was of: its place, period and whole.
    const wholeRows = {
      ...pickFilters(previous.filters, (key) => PLACE_AND_PERIOD.includes(key)),
      ...previous.whole_filters,
    };
    const figureOfWhole =
      ((measured !== null && ['average', 'sum', 'rate'].includes(measured.measure)) ||
        // "By store?" alone after "how many of those are CPO": those, by store.
        (grouping !== null &&
          !/^(?:and |ok |now )?(?:(?:number|count|counts|numbers)(?: of)? )?(?:by|per|each) [a-z ]+\??$/.test(q))) &&
      !/\b(?:those|these|them|'?em|ones|they|that|it)\b/.test(q);
    // "15-25k ones over 75k mi" after "what % of that band is over 60 days": the band again, not its part.
    const whole = previous.whole_filters ?? {};
    const heardKeys = Object.keys(heard) as Array<keyof QueryFilters>;
    const restatesWhole =
      heardKeys.some(
        (key) =>
          !PLACE_AND_PERIOD.includes(key) && key in whole && JSON.stringify(heard[key]) === JSON.stringify(whole[key]),
      ) && !heardKeys.some((key) => key in previous.filters && !(key in whole));
    const last = previous.share && (figureOfWhole || restatesWhole) ? wholeRows : previous.filters;
    const { status: _status, ...unrated } = last;
    const context = (filters: QueryFilters) =>
      pickFilters(filters, (key) => CONTEXT_FILTERS.includes(key) && carried(key));
    // "Who had the most deals there last month" after "how many were leases": a ranking that names its rows
    // afresh ("deals", not "those") keeps where and when, not the last answer's narrowing.
    // So does a breakdown of a period's rows named by the period ("break todays down by store" after the new ones).
    // "Break those 30 days of calls down by source": the period's calls, not the last answer's narrowing.
    const backReference = /\b(?:those|these|them|'?em|ones)\b/.test(q.replace(SPAN_ROWS, ''));
    const restated =
      grouping !== null &&
      ((RANKING.test(q) && /\b(?:deals|sales|leads|calls|cars|vehicles|units)\b/.test(q)) ||
        PERIOD_ROWS.test(q) ||
        SPAN_ROWS.test(q) ||
        // "The missed calls per location": rows named afresh, by what narrows them.
        (/\b(?:deals|sales|leads|calls|cars|vehicles|units)\b/.test(q) &&
          Object.keys(heard).length > 0 &&
          (Object.keys(heard) as Array<keyof QueryFilters>).every((key) => NARROWING.includes(key)))) &&
      !backReference;
    // "What % of last week's leads are still new" after last week's from Facebook: all of last week's.
    // "How many has that store marked sold this month" after the new ones in stock there: that store's sold ones.
    // "What % of deals were leases, whole group" after the Honda store's cash deals: of all the period's deals.
    const shareOfPeriodRows =
      !/\b(?:of|among) (?:those|these|them|'?em)\b/.test(q) &&
      SHARE.test(q) &&
      (PERIOD_ROWS.test(q) ||
        // Not "whats that as a % of all leads": that is the part.
        (/(?:%|\bpercent(?:age)?|\bshare|\bproportion|\bpct) of (?:our |all (?:of )?(?:our |the )?)?(?:deals|leads|calls|units|vehicles|cars|sales)\b/.test(
          q,
        ) &&
          !/\b(?:that|it|this|those|these|them|'?em)\b/.test(q)));
    const soldAfterStock =
      !backReference &&
      subject === 'vehicles' &&
      !aboutSoldVehicles(previous) &&
      heard.status?.length === 1 &&
      heard.status[0] === 'sold' &&
      (heard.from !== undefined || heard.to !== undefined);
    const kept = shareOfPeriodRows
      ? pickFilters(last, (key) => PLACE_AND_PERIOD.includes(key))
      : sameSubject && !restated && !soldAfterStock
        ? measured?.measure === 'rate'
          ? unrated
          : last
        : context(last);
    // A breakdown over what the last answer was narrowed to ("which source closes the best" after "and cars.com")
    // is over every value of it.
    const regrouped = grouping ? GROUP_FILTER[grouping] : undefined;
    // "Avg DOL for each store?" after two stores compared: over those two still.
    const regroupedBase =
      regrouped && !(regrouped in heard) && [(kept as QueryFilters)[regrouped]].flat().length <= 1
        ? omitKey(kept, regrouped)
        : kept;
    // "How bout group wide": the same, over every rooftop.
    const widened = groupWide && !heard.dealer_id ? omitKey(regroupedBase, 'dealer_id') : regroupedBase;
    // What the question leaves open of the last answer's rows, unless it names it again: what it forgets
    // ("ok forget trucks", "ignore outbound", "not just trucks"); what it says "any" of, and the model when it
    // names a make alone ("how many toyotas, any condition" after new Tacomas); the status of vehicles in
    // stock ("how many equinoxes in stock there" after days to sell); every range and narrowing of "all"
    // of them ("avg days on lot for all the used there", "now break out all inbound calls").
    const leftOpen = new Set<keyof QueryFilters>([
      ...forgotten,
      // "Avg days to sell on new silverados there" after the ones in stock over 60 days: days on the lot were the
      // stock's, not the sold ones'.
      ...(measured?.field === 'days_to_sell' && !aboutSoldVehicles(previous)
        ? (['days_on_lot_min', 'days_on_lot_max'] as const)
        : []),
      // "Appts by rep" after the unassigned leads: every rep's, not the unassigned ones (none of them has a rep).
      ...(grouping === 'salesperson' && !heard.unassigned ? (['unassigned'] as const) : []),
      // "How many 90+ there" after 60-90 days: a new bound of a range replaces the range.
      ...RANGES.filter((pair) => pair.some((key) => key in heard)).flat(),
      ...(Object.keys(ANY_OF) as Array<keyof QueryFilters>).filter((key) => ANY_OF[key]!.test(q)),
      ...(heard.make && !heard.model ? (['model'] as const) : []),
      ...(subject === 'vehicles' && /\b(?:in stock|(?<!days )on the (?:lot|ground)|in inventory)\b/.test(q)
        ? (['status'] as const)
        : []),
      ...(/\ball (?:of )?(?:the|our) (?!(?:other )?(?:stores?|rooftops?|dealers?|dealerships?|locations?|sites?)\b)|\ball (?:[a-z]+ )?(?:calls|leads|deals)\b|\btotal (?:calls|leads|deals|units|cars|vehicles)\b/.test(
        q,
      )
        ? // "The total asking on all the aged new ones": the age they were narrowed to stays.
          [...VEHICLE_RANGE_FILTERS, ...NARROWING].filter(
            (key) => !(/\baged\b/.test(q) && (key === 'days_on_lot_min' || key === 'days_on_lot_max')),
          )
        : []),
      // "And how many leads did each of them get" after who closed the most: all their leads.
      ...(/\bhow many (?:leads|calls|deals) (?:did|do|does|have|has) (?:each|they|them|em|all|he|she)\b/.test(q)
        ? (['status'] as const)
        : []),
      // "Pull all of Alex Rivera's deals this month" after one deal by its number: the one deal is no longer it.
      ...(OF_IT.test(q) && !/\ball\b|\bdeals\b|\bvehicles\b|\bunits\b|\bcars\b/.test(q) ? [] : RECORD_KEYS),
    ]);
    const base = pickFilters(widened, (key) => !leftOpen.has(key) || key in heard);
    // "Top 3 only" after a ranking: the same ranking, its first three.
    const topN = TOP_N.exec(q);
    if (
      sameSubject &&
      previous.group_by &&
      !grouping &&
      topN &&
      !/\b(?:ones|which|longest|oldest|newest|cheapest|priciest|show|list|deals|sales|units|cars|vehicles|leads|calls|trucks|suvs)\b/.test(
        q,
      ) &&
      (Object.keys(heard) as Array<keyof QueryFilters>).every((key) => PLACE_AND_PERIOD.includes(key))
    )
      return {
        followUp: true,
        unused,
        query: {
          ...previous,
          ranked: true,
          limit: Number(topN[1]),
          ...(/\b(?:bottom|worst)\b/.test(q) ? { order: 'asc' as const } : {}),
          filters: { ...base, ...filters },
        },
      };
    // An order asked of a set listed lists that set in the order ("cheapest", "most miles"), as does one asked
    // of several ("which ones have the lowest miles"); "cheapest" after a count, or "the cheapest one", is the one.
    const ordered =
      sameSubject &&
      !/\bthe\b|\bone\b/.test(q) &&
      (previous.measure === 'list' ||
        /\b(?:ones|them|em|those|these|cars|vehicles|units|trucks|suvs|sedans|first)\b/.test(q)) &&
      subject === 'vehicles' &&
      (previous.measure === 'count' || previous.measure === 'list') &&
      !grouping &&
      (measured?.measure === 'max' ||
        measured?.measure === 'min' ||
        // "Sort those by price".
        (measured?.measure === 'list' && SORTED.test(q)))
        ? {
            measure: 'list' as const,
            field: measured.field,
            order: measured.order ?? (measured.measure === 'max' ? ('desc' as const) : ('asc' as const)),
            // "Cheapest of those": one of them; "cheapest ones of those", "sort those by price": all of them.
            limit:
              measured.limit ??
              (OF_THOSE.test(q) && !/\b(?:ones|cars|vehicles|units|trucks|suvs|sedans|first|sort|order|rank)\b/.test(q)
                ? 1
                : (previous.limit ?? 10)),
          }
        : null;
    // "Who sold the most" after a figure, "which source is sending aurora the most calls": a ranking that
    // names what it counts counts it; "which store did the most" after a total ranks by that total.
    // "Split lease/finance/cash": a mix of the values named is a count of each.
    const namedValues = grouping !== null && [heard[GROUP_FILTER[grouping]!]].flat().length > 1;
    const countsRows =
      /\b(?:sold|sell|deals|units|cars|vehicles|calls|leases|delivered|deliveries|moved|retailed)\b|\bleads\b|\bthe most of (?:them|those|these|em)\b/.test(
        q,
      ) ||
      // "New versus used?" after days to sell by rooftop: the same figure of each; "split lease/finance/cash": counts.
      (namedValues && !/\bvs\.?\b|\bversus\b/.test(q));
    const countedRanking =
      grouping !== null &&
      ((RANKING.test(q) && (countsRows || !['sum', 'average'].includes(previous.measure))) ||
        // "Now break out all inbound calls by source" after an average, "those leads broken down by lead source"
        // after a close rate: the rows, counted.
        (!measured &&
          countsRows &&
          !/\b(?:those|these|them|'?em)\b(?! (?:leads|calls|deals|sales|cars|vehicles|units)\b)/.test(q) &&
          // "Toyota north vs honda downtown on that": the figure asked before, per rooftop.
          !/\b(?:on|of|for|in) that\b/.test(q)) ||
        // "Break em out by source", "breakdown by lead source pls" after a close rate: the rows, counted per source.
        (!measured &&
          previous.measure === 'rate' &&
          /\b(?:break|broke|split|divide)s? (?:those|these|them|'?em)\b(?: (?:down|out|up))?|^(?:and |ok |now )?(?:a )?break ?(?:down|out) by\b/.test(
            q,
          )) ||
        // "Where are those coming from" after a close rate: where the rows came from, how many from each.
        (!measured && grouping === 'source' && /\bwhere\b.*\b(?:come|comes|came|coming) from\b/.test(q)));
    // "Ok anything under 15k w less than 70k miles" after the cheapest one: every one of them, counted and listed.
    const anyOfThem =
      sameSubject &&
      !measured &&
      !grouping &&
      (previous.limit === 1 || previous.measure === 'max' || previous.measure === 'min') &&
      Object.keys(heard).length > 0 &&
      /\bany(?:thing|one|ones)?\b|\bwhat else\b|\bothers?\b/.test(q)
        ? { measure: 'count' as const }
        : null;
    // "Which of those r black" after units sorted by miles names no order: those black ones, in the same order.
    const orderAsked =
      /\b(?:cheapest|priciest|pricie?r|expensive|most|least|highest|lowest|oldest|newest|longest|shortest|sort(?:ed)?|order(?:ed)?|first|last|top|bottom|fewest|biggest|smallest)\b/.test(
        q,
      );
    const listedAgain =
      sameSubject &&
      subject === 'vehicles' &&
      previous.measure === 'list' &&
      measured?.measure === 'list' &&
      !orderAsked &&
      OF_THOSE.test(q)
        ? {
            measure: 'list' as const,
            field: previous.field,
            order: previous.order,
            limit: measured.limit ?? previous.limit,
          }
        : null;
    const measure =
      ordered ??
      anyOfThem ??
      listedAgain ??
      usable(sameFigure(measured, previous, subject, q)) ??
      // "Missed by store" after an answer rate: the missed calls, counted (a rate of them would be 0%).
      (sameSubject && !countedRanking && !(previous.measure === 'rate' && heard.status !== undefined)
        ? { measure: previous.measure, field: previous.field, order: previous.order, limit: previous.limit }
        : { measure: 'count' as const });
    // "How many …?" asks for one count: a breakdown is kept only when the question names one.
    // "Rank em by total gross instead" keeps the breakdown with a new figure; narrowing it to one of its rows
    // ("ok just lakewood") leaves one figure, not a breakdown of one.
    const rowFilter = previous.group_by && GROUP_FILTER[previous.group_by];
    const oneRow = !!rowFilter && [heard[rowFilter]].flat().filter((value) => value !== undefined).length === 1;
    // "What about front gross" after "which store did the most deals": the same breakdown, by that figure.
    const figureAlone =
      !!measured &&
      ['sum', 'average'].includes(measured.measure) &&
      !Object.keys(heard).length &&
      q.split(' ').length <= 8 &&
      /^(?:and|what about|how about|now|ok(?:ay)?|same(?: thing)?(?: but| for)?|then)\b/.test(q);
    // "$ of that in new units only?" after inventory value by store: one figure, of what "that" was.
    const ofThat = /\b(?:of|in|from) that\b/.test(q) && !/\beach\b|\bby\b|\bper\b/.test(q);
    const keepGroup =
      (!measured ||
        measured.measure === previous.measure ||
        figureAlone ||
        // "Close rate for each?" after a breakdown: each of its rows; "same ranking on unit volume", "the same view
        // for Q3": the breakdown again.
        /\b(?:re-?)?rank(?:ed)?\b|\bsort(?:ed)?\b|\b(?:for|of|at|in) each\b|\bsame (?:ranking|breakdown|view|split|list)\b/.test(
          q,
        )) &&
      // "And how many of those are used vehicles?" after stock by store: of each row.
      !(
        measured?.measure === 'count' &&
        /\bhow many\b|\bnumber of\b/.test(q) &&
        !/\beach\b|\bof (?:those|these|them|em)\b/.test(q)
      ) &&
      !oneRow &&
      !ofThat &&
      // "What is the overall average for Toyota North alone" after a breakdown: one figure; "and group wide" after
      // a breakdown by rooftop: the group's one figure.
      !/\boverall\b/.test(q) &&
      !(groupWide && previous.group_by === 'dealer') &&
      // "What % of last wk's calls were first time callers" after calls by channel: of all of them, not per channel.
      // "Whats lease penetration MTD, as a % of deals" after deals per salesperson: one share, in its own period.
      // "What proportion of those leads have we closed" after leads by source: one share of those leads.
      !(
        SHARE.test(q) &&
        (PERIOD_ROWS.test(q) ||
          /\bof all\b/.test(q) ||
          /\bof (?:(?:those|these|the|that) (?:deals|leads|calls|units|vehicles|cars|sales)|those|these|them|'?em)\b/.test(
            q,
          ) ||
          (heard.from !== undefined &&
            /\bof (?:all )?(?:the |our )?(?:deals|leads|calls|units|vehicles|sales)\b/.test(q)))
      );
    // "What % of those are at appointment status": of the last answer's rows; "what about lost" asks it again.
    // "And how many were leases": a part of the last answer's rows, counted with its share of them.
    const partOfLast =
      /^(?:and |so |ok |okay )?how many (?:of (?:those|these|them|em) )?(?:were|are|was|is)\b/.test(q) &&
      Object.keys(heard).length > 0 &&
      Object.keys(heard).every((key) => NARROWING.includes(key as keyof QueryFilters)) &&
      !grouping;
    const asksShare = measured?.measure !== 'rate' && (SHARE.test(q) || partOfLast);
    // "As % of all new on the lot", "% of all L90D leads": the whole is what follows "of all", in the same place and period.
    const ofAll =
      /(?:%|\bpercent(?:age)?|\bshare|\bpct)\s+of\s+all\s+(?:(?:our|the|my)\s+)?(.+?)(?=\?|$|\s(?:that|which|is|are|was|were|who)\b)/.exec(
        q,
      )?.[1];
    const wholeOfBase = ofAll
      ? pickFilters(
          filtersOf(ofAll, subject, vocabulary, now),
          (key) => !PLACE_AND_PERIOD.includes(key) && SUPPORTED[subject].includes(key),
        )
      : pickFilters(base, (key) => !PLACE_AND_PERIOD.includes(key));
    // "And leases, as a percentage of the same total?" after a share: of the same whole.
    // "And what is that percentage at the Toyota store?" after a share of stock: the same share, there.
    const sameWhole =
      sameSubject &&
      previous.share &&
      !ofAll &&
      /\bsame (?:total|whole|base)\b|\bof (?:the|that) total\b|\b(?:that|the same|same) (?:percentage|percent|%|share|proportion|ratio)\b/.test(
        q,
      );
    const share = asksShare
      ? sameWhole
        ? { share: true, ...(previous.whole_filters ? { whole_filters: previous.whole_filters } : {}) }
        : { share: true, ...(Object.keys(wholeOfBase).length ? { whole_filters: wholeOfBase } : {}) }
      : !measured && sameSubject && previous.share && last === previous.filters && !/\btotal\b/.test(q)
        ? { share: true, ...(previous.whole_filters ? { whole_filters: previous.whole_filters } : {}) }
        : {};
    // "How does that compare with last month?": the new period answered, the last answer's given beside it.
    const comparedBack =
      /\bcompare|\bvs\.?\b|\bversus\b|\bstacks? up\b/.test(q) &&
      sameSubject &&
      !grouping &&
      !previous.group_by &&
      measure.measure !== 'list' &&
      heard.from !== undefined &&
      previous.filters.from !== undefined &&
      (heard.from !== previous.filters.from || heard.to !== previous.filters.to)
        ? {
            phrase: 'the last answer',
            range: { from: previous.filters.from, to: previous.filters.to ?? now.toISOString().slice(0, 10) },
          }
        : undefined;
    // "Cheapest of those" after the 5 latest in: another order or extreme of the rows just listed, not of all.
    // "Which of those were cash" after "the last 5 deals at westside": of those five.
    const ofListedVehicles =
      subject === 'vehicles' &&
      OF_THOSE.test(q) &&
      (measure.measure === 'max' ||
        measure.measure === 'min' ||
        (measure.measure === 'list' &&
          orderAsked &&
          (measure.field !== previous.field || measure.order !== previous.order)));
    const ofListedActivity =
      subject !== 'vehicles' &&
      previous.limit !== undefined &&
      !previous.order &&
      /\bwhich of (?:those|these|them|'?em)\b|\b(?:of|among) (?:those|these|them|'?em)\b/.test(q) &&
      (measure.measure === 'list' || measure.measure === 'count') &&
      Object.keys(heard).length > 0;
    const listedRows =
      sameSubject && previous.measure === 'list' && !grouping && (ofListedVehicles || ofListedActivity)
        ? {
            within: previous.within ?? {
              field: subject === 'vehicles' ? (previous.field ?? 'days_on_lot') : 'newest',
              order: previous.order ?? ('desc' as const),
              limit: Math.min(previous.limit ?? 10, 25),
              filters: previous.filters,
            },
          }
        : {};
    // A new status or period replaces the previous one; so does a new rate.
    return {
      followUp: true,
      ...(comparedBack
        ? { compareWith: comparedBack, unused: unused.filter((said) => said !== ONE_PERIOD) }
        : { unused }),
      query: {
        subject,
        // "Who had the most deals": a ranking counts per group, it does not list; after a figure ("just back
        // end", then "which store did the most") it ranks by that figure.
        ...(asksShare
          ? previous.measure === 'sum' && sameSubject && SUMMED.test(q)
            ? { measure: 'sum' as const, field: previous.field }
            : { measure: 'count' as const }
          : grouping && measure.measure === 'list'
            ? sameSubject &&
              !countedRanking &&
              ['sum', 'average'].includes(previous.measure) &&
              !/\b(?:how many|number of|count)\b/.test(q)
              ? { measure: previous.measure, field: previous.field }
              : { measure: 'count' as const }
            : measure),
        ...share,
        ...(grouping
          ? { group_by: grouping, ...(RANKING.test(q) ? { ranked: true, ...topOf(measured, q) } : {}) }
          : keepGroup && sameSubject && previous.group_by && measure.measure !== 'list'
            ? { group_by: previous.group_by, ...(previous.ranked ? { ranked: true } : {}) }
            : // "What about calls" after leads at two stores compared: calls, compared the same way.
              !sameSubject &&
                previous.group_by &&
                SUPPORTED_GROUPS[subject].includes(previous.group_by) &&
                /^(?:and |what about |how about |now |same for )(?:the )?(?:calls|leads|deals|sales)\??$/.test(q)
              ? { group_by: previous.group_by }
              : {}),
        ...listedRows,
        filters: withSources({ ...base, ...filters }, filters),
      },
    };
  }
  // "What proportion of this month's revenue came from the Honda store?": the sum, with its share of the whole; a
  // rooftop the part came from is not the whole's.
  if (
    measured?.measure !== 'rate' &&
    SHARE.test(q) &&
    SUMMED.test(q) &&
    (subject === 'sales' || subject === 'vehicles') &&
    filters.gross_min === undefined &&
    filters.gross_max === undefined
  ) {
    const fromRooftop =
      filters.dealer_id !== undefined &&
      /\b(?:came|come|comes|coming) from\b|\b(?:from|at|by) (?:the |our )?(?:\w+ ){0,3}(?:store|rooftop|location|dealership)\b/.test(
        q,
      );
    return {
      followUp: false,
      unused,
      query: {
        subject,
        measure: 'sum',
        field: subject === 'vehicles' ? 'price' : (fieldOf(q, subject) ?? 'sale_price'),
        share: true,
        ...(fromRooftop ? { whole_of_group: true } : {}),
        filters,
      },
    };
  }
  // "What percentage of inventory is used?": the count, with its share of the whole.
  if (measured?.measure !== 'rate' && SHARE.test(q)) {
    // "What % of our new inventory is white": the whole is new inventory, the part the white of it.
    const of =
      /\bof (?:all |our |my |the |your )*(.+?) (?:is|are|r|were|was|that|which|have|has|went|go|goes|came|come|got)\b/.exec(
        q,
      )?.[1];
    const wholeHeard = of ? filtersOf(of, subject, vocabulary, now) : {};
    const wholeFilters = pickFilters(
      wholeHeard,
      (key) => !PLACE_AND_PERIOD.includes(key) && SUPPORTED[subject].includes(key) && key in filters,
    );
    return {
      followUp: false,
      unused,
      query: {
        subject,
        measure: 'count',
        share: true,
        ...(Object.keys(wholeFilters).length ? { whole_filters: wholeFilters } : {}),
        ...(grouping ? { group_by: grouping } : {}),
        filters,
      },
    };
  }
  if (!measured && !grouping) {
    // "Used SUVs under 30k?", "missed calls yesterday?": a count. "What's the spread on used cars?" asks for
    // something we do not know, and is not counted instead.
    const asked = /\b(?:what(?:'s| is| was| are| were)?|how(?:'s| is| are| does| do)?|why|when)\b/.exec(q);
    if (Object.keys(filters).length && (!asked || /\bany\b|\bdo (?:we|i|you) have\b|\bgot\b/.test(q)))
      return { followUp: false, unused, query: { subject, measure: 'count', filters } };
    // "How we doin on deals this month": how many, said back as the count.
    if (HOW_DOING.test(q)) return { followUp: false, unused, query: { subject, measure: 'count', filters } };
    if (asked) return { query: null, reason: 'I could not tell what it asks me to count, list, average or compare' };
    return { query: null, reason: 'I could not tell what to count, list, average or compare' };
  }
  // "Which rooftop has the most used cars?" is a breakdown: counted per group, not listed.
  const chosen = usable(measured);
  const measure = chosen && !(grouping && chosen.measure === 'list') ? chosen : { measure: 'count' as const };
  // "Top salesperson by commission": a ranking by what is not read is said back, not silently made a count.
  const rankedBy =
    grouping && measure.measure === 'count'
      ? /\b(?:top|best|worst|rank(?:ed|ing)?|leading|who)\b.*?\bby ([a-z][a-z'-]*)/.exec(figureText)?.[1]
      : undefined;
  if (rankedBy && !RANKED_BY_COUNT.test(rankedBy))
    unused.push(`the ranking by "${rankedBy}" (I ranked by how many; I rank by gross or sale price too)`);
  const ranked = grouping && RANKING.test(q) ? { ranked: true, ...topOf(measured, q) } : {};
  // "Which store has the fewest leads?", "worst close rate by salesperson": the low end of the ranking.
  if (grouping && /\b(?:fewest|least|lowest|worst|bottom|slowest)\b/.test(q))
    return {
      followUp: false,
      unused,
      query: { subject, ...measure, order: 'asc', group_by: grouping, ...ranked, filters },
    };
  if (compareWith) return { followUp: false, unused, compareWith, query: { subject, ...measure, filters } };
  return {
    followUp: false,
    unused,
    query: { subject, ...measure, ...(grouping ? { group_by: grouping, ...ranked } : {}), filters },
  };
}
