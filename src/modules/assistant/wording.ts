/**
 * The words dealers use, and the caller's own: shorthand and typos spelled out, makes, models as
 * dealers say them, body styles, colours, amounts, periods, salespeople, and the requests that are
 * not questions about the data. The rules in understand.ts and heard.ts read questions through these.
 */

export interface Vocabulary {
  dealers: Array<{ id: string; name: string; city: string | null; code: string }>;
  makes: string[];
  models: string[];
  bodyStyles: string[];
  sources: string[];
  /** Salespeople as deals and lead assignments spell them. */
  salespeople: string[];
  /** Vehicles' trims ("XLE", "TRD Off-Road"), when the caller's vehicles have any. */
  trims?: string[];
}

export const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
export const word = (text: string) =>
  new RegExp(`(?<![a-z0-9])${escape(text.toLowerCase())}(?:s|es|'s)?(?![a-z0-9])`, 'i');
export const normalize = (text: string) => text.toLowerCase().replace(/[’`]/g, "'").replace(/\s+/g, ' ').trim();

/** Makes a question may name even when the caller stocks none ("how many Porsches?" is 0, not everything). */
export const KNOWN_MAKES = [
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

export const MAKE_ALIASES: Record<string, string> = {
  chevy: 'Chevrolet',
  vw: 'Volkswagen',
  benz: 'Mercedes-Benz',
  mercedes: 'Mercedes-Benz',
};
export const BODY_WORDS: Array<[RegExp, string[]]> = [
  [/\bsuvs?\b|\bcrossovers?\b/, ['SUV']],
  [/\btrucks?\b|\bpickups?\b/, ['Truck', 'Pickup']],
  [/\bsedans?\b/, ['Sedan']],
  [/\bcoupes?\b/, ['Coupe']],
  [/\bminivans?\b|\bvans?\b/, ['Minivan', 'Van']],
  [/\bwagons?\b/, ['Wagon']],
  [/\bhatchbacks?\b/, ['Hatchback']],
  [/\bconvertibles?\b/, ['Convertible']],
];
export const COLORS = [
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

// The unit stands alone: "5 minutes" is not 5 million. "20 grand" and "20k" are thousands.
export const AMOUNT = String.raw`\$?\s*(\d[\d,]*(?:\.\d+)?)\s*(k|grand|thousand|m)?\b`;
export const amount = (digits: string, unit: string | undefined) =>
  Number(digits.replace(/,/g, '')) *
  (unit === 'k' || unit === 'grand' || unit === 'thousand' ? 1000 : unit === 'm' ? 1_000_000 : 1);

export const STRICT_BELOW = String.raw`under|below|less than|cheaper than|lower than|fewer than|<`;
export const AT_MOST = String.raw`at most|no more than|up to|max(?:imum)?|or less`;
export const STRICT_ABOVE = String.raw`over|above|more than|greater than|higher than|pricier than|longer than|older than|beyond|past|>`;
export const AT_LEAST = String.raw`at least|min(?:imum)?|or more`;

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
/** A month by name or as dealers shorten it ("oct", "oct.", "sept"). */
const MONTH = String.raw`(${MONTHS.join('|')}|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?`;
/** Month words that are other words too ("may I", "the APR"): months only after "in", "for"… or with a day or year. */
const AMBIGUOUS_MONTHS = new Set(['may', 'apr']);
const ORDINAL = String.raw`(?:st|nd|rd|th)?`;
/** A day after the month, not an amount or a count ("oct 15", "oct 15, 2025"; not "oct 15k" or "oct 20 deals"). */
const DAY_AFTER = String.raw`(\d{1,2})${ORDINAL}(?!\d|[a-z]|,(?!\s*(?:19|20)\d{2}|\s+[a-z])|\.\d|\s*(?:k|grand|thousand|miles?|mi|days?|weeks?|months?|years?|units?|cars?|vehicles?|deals?|leads?|calls?|%)(?![a-z]))`;
/** A day before the month only as a date ("15th of oct", "15 of oct"): "top 5 oct deals" is no date. */
const DAY_BEFORE = String.raw`(?:\b(\d{1,2})(?:(?:st|nd|rd|th)\s+(?:of\s+)?|\s+of\s+))`;
const YEAR = String.raw`(?:,?\s+((?:19|20)\d{2})(?![\d,])|\s+'(\d{2})\b)`;
/** "October", "oct 15", "15th of oct", "october 2025", "oct '25": groups day-before, month, day-after, year, 'yy. */
const MONTH_DAY = String.raw`${DAY_BEFORE}?\b${MONTH}(?![a-z])(?:\s+${DAY_AFTER})?${YEAR}?`;
const MONTH_GROUPS = 5;
const PERIOD_CUES = String.raw`in|during|for|about|of|from|over|through|thru|until|till|last|this|early|late|mid|end of|start of|beginning of`;

export interface Period {
  /** The words that name it, as the question has them. */
  phrase: string;
  range: { from: string; to: string };
  /** What of the phrase the range cannot say ("last night" is all of yesterday). */
  note?: string;
}

/**
 * Every period a question names, the one its answer uses first: today, yesterday, the last N days,
 * this or last week, month or year, a weekend, a month by name or as dealers shorten it ("in oct",
 * "for october", "oct."), a day of one ("oct 15"), a run of them ("from sept to nov", "since oct"),
 * and, with `years`, a year ("in 2025"; for vehicles a year is a model year). A month alone is its
 * latest occurrence up to today. Later periods the answer cannot use are said back, never dropped.
 */
export function periodsOf(q: string, now = new Date(), options: { years?: boolean } = {}): Period[] {
  const today = startOfUtcDay(now);
  const daysAgo = (days: number) => new Date(today.getTime() - days * 86_400_000);
  const day = (days: number) => ({ from: isoDay(daysAgo(days)), to: isoDay(daysAgo(days)) });
  const weekday = (today.getUTCDay() + 6) % 7; // Monday = 0
  const monthStart = (year: number, month: number) => new Date(Date.UTC(year, month, 1));
  const monthEnd = (year: number, month: number) => new Date(monthStart(year, month + 1).getTime() - 86_400_000);
  const thisYear = today.getUTCFullYear();

  /** A month (and day) named in `groups` from MONTH_DAY, as a range; `before` is a date it may not pass. */
  const dated = (groups: Array<string | undefined>, cue: string | undefined, before?: Date) => {
    const [dayFirst, name, dayAfter, year, shortYear] = groups;
    if (!name) return null;
    const month = MONTHS.findIndex((full) => full.startsWith(name.slice(0, 3)));
    const date = dayFirst ?? dayAfter;
    const explicit = year ? Number(year) : shortYear ? 2000 + Number(shortYear) : undefined;
    if (!date && !explicit && !cue && AMBIGUOUS_MONTHS.has(name)) return null;
    const limit = before ?? today;
    // Without a year: the latest such month (or day) up to today, or up to the end of a run it starts.
    let resolved = explicit ?? limit.getUTCFullYear();
    if (explicit === undefined) {
      const start = new Date(Date.UTC(resolved, month, date ? Number(date) : 1));
      if (start > limit || (cue === 'last' && !before && month === today.getUTCMonth())) resolved -= 1;
    }
    if (!date) return { from: monthStart(resolved, month), to: monthEnd(resolved, month) };
    const at = new Date(Date.UTC(resolved, month, Number(date)));
    if (at.getUTCMonth() !== month) return null;
    return { from: at, to: at };
  };

  type Matcher = [RegExp, (match: RegExpExecArray) => { from: string; to: string; note?: string } | null, string?];
  const matchers: Matcher[] = [
    // "The first two weeks of November", "the last week of oct", "the second half of october": part of a month.
    [
      new RegExp(
        String.raw`\b(?:the\s+)?(?:(first|last|1st)\s+(?:(one|two|three|1|2|3)\s+)?weeks?|(second|2nd)\s+week|(first|second|1st|2nd)\s+half)\s+of\s+(?:the\s+month\s+of\s+)?${MONTH_DAY}`,
        'g',
      ),
      (match) => {
        const named = dated(match.slice(5, 5 + MONTH_GROUPS), 'of');
        if (!named || named.from.getTime() === named.to.getTime()) return null;
        const days = (from: Date, count: number) => new Date(from.getTime() + count * 86_400_000);
        const weeks = { one: 1, two: 2, three: 3, '1': 1, '2': 2, '3': 3 }[match[2] ?? 'one'] ?? 1;
        const [from, to] = match[1]
          ? /^(?:first|1st)$/.test(match[1])
            ? [named.from, days(named.from, weeks * 7 - 1)]
            : [days(named.to, -(weeks * 7 - 1)), named.to]
          : match[3]
            ? [days(named.from, 7), days(named.from, 13)]
            : /^(?:first|1st)$/.test(match[4]!)
              ? [named.from, days(named.from, 14)]
              : [days(named.from, 15), named.to];
        const end = to > named.to ? named.to : to;
        return { from: isoDay(from), to: isoDay(end > today ? today : end) };
      },
    ],
    [/\btoday\b/g, () => day(0)],
    [/\b(?:the )?day before yesterday\b/g, () => day(2)],
    [/\byesterday\b/g, () => day(1)],
    [/\blast night\b/g, () => day(1), 'the time of day (I count whole days)'],
    [/\b(?:tonight|this morning|this afternoon|this evening)\b/g, () => day(0), 'the time of day (I count whole days)'],
    [
      /\b(?:last|past|previous|trailing|rolling)\s+(\d+)\s+(day|week|month)s?\b|\b(?:past|previous)\s+()(week|month)\b/g,
      (match) => {
        const span =
          Number(match[1] || 1) * ((match[2] ?? match[4]) === 'day' ? 1 : (match[2] ?? match[4]) === 'week' ? 7 : 30);
        return { from: isoDay(daysAgo(span - 1)), to: isoDay(today) };
      },
    ],
    [/\bthis week\b/g, () => ({ from: isoDay(daysAgo(weekday)), to: isoDay(today) })],
    // "The same point last month": last month up to today's day of the month.
    [
      /\b(?:the )?same (?:point|time|day|date) (?:last|in the last|of last|the previous|the prior) month\b/g,
      () => {
        const start = monthStart(thisYear, today.getUTCMonth() - 1);
        const end = monthEnd(thisYear, today.getUTCMonth() - 1);
        const sameDay = new Date(start.getTime() + (today.getUTCDate() - 1) * 86_400_000);
        return { from: isoDay(start), to: isoDay(sameDay < end ? sameDay : end) };
      },
    ],
    // "Year to date through last Friday": from the start of the year, month or quarter up to that day.
    [
      /\b(ytd|year to date|mtd|month to date|qtd|quarter to date) (?:through|thru|until|till|up to|to|as of) (?:last |this past )?(mon|tue|wed|thu|fri|sat|sun)(?:day|s|sday|nesday|rsday|r|rs|urday)?\b/g,
      (match) => {
        const named = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].indexOf(match[2]!);
        const end = daysAgo((weekday - named + 7) % 7 || 7);
        const kind = match[1]!.startsWith('y') ? 'year' : match[1]!.startsWith('q') ? 'quarter' : 'month';
        const start =
          kind === 'year'
            ? new Date(Date.UTC(end.getUTCFullYear(), 0, 1))
            : kind === 'month'
              ? monthStart(end.getUTCFullYear(), end.getUTCMonth())
              : monthStart(end.getUTCFullYear(), end.getUTCMonth() - (end.getUTCMonth() % 3));
        return { from: isoDay(start), to: isoDay(end) };
      },
    ],
    // The weekend: the latest Saturday and Sunday, up to today.
    [
      /\b(?:(?:this|last|past|over the) )?weekend\b/g,
      () => {
        const saturday = weekday >= 5 ? weekday - 5 : weekday + 2;
        return { from: isoDay(daysAgo(saturday)), to: isoDay(daysAgo(Math.max(0, saturday - 1))) };
      },
    ],
    [/\blast week\b/g, () => ({ from: isoDay(daysAgo(weekday + 7)), to: isoDay(daysAgo(weekday + 1)) })],
    // "Since monday", "on tues", "last friday": the latest such day (before today, for "last"), or from it to today.
    [
      /\b(since|from|on|last|this past|(?:this|last|past) week on)\s+(mon|tue|wed|thu|fri|sat|sun)(?:day|s|sday|nesday|rsday|r|rs|urday)?\b/g,
      (match) => {
        const named = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].indexOf(match[2]!);
        const back = (weekday - named + 7) % 7 || (match[1] === 'last' || match[1] === 'this past' ? 7 : 0);
        return match[1] === 'since' || match[1] === 'from'
          ? { from: isoDay(daysAgo(back)), to: isoDay(today) }
          : day(back);
      },
    ],
    [
      /\bthis month\b|\bmonth to date\b|\bmtd\b/g,
      () => ({ from: isoDay(monthStart(thisYear, today.getUTCMonth())), to: isoDay(today) }),
    ],
    [
      /\blast month\b/g,
      () => ({
        from: isoDay(monthStart(thisYear, today.getUTCMonth() - 1)),
        to: isoDay(monthEnd(thisYear, today.getUTCMonth() - 1)),
      }),
    ],
    [/\bthis year\b|\bytd\b|\byear to date\b/g, () => ({ from: `${thisYear}-01-01`, to: isoDay(today) })],
    [/\blast year\b/g, () => ({ from: `${thisYear - 1}-01-01`, to: `${thisYear - 1}-12-31` })],
    // Halves of this year: "1H", "h1", "first half" (the second, to date).
    [
      /\b(?:1h|h1|first half)(?: of (?:the |this )?year)?\b/g,
      () => ({ from: `${thisYear}-01-01`, to: isoDay(monthEnd(thisYear, 5) > today ? today : monthEnd(thisYear, 5)) }),
    ],
    [
      /\b(?:2h|h2|second half)(?: of (?:the |this )?year)?\b/g,
      () => ({ from: `${thisYear}-07-01`, to: isoDay(today) }),
    ],
    // Quarters: this one (to date), the last one, or one named ("q3", "q3 2025"), its latest that has begun.
    [
      /\bthis (?:quarter|qtr)\b|\bqtd\b|\bquarter to date\b/g,
      () => ({
        from: isoDay(monthStart(thisYear, today.getUTCMonth() - (today.getUTCMonth() % 3))),
        to: isoDay(today),
      }),
    ],
    [
      /\b(?:last|previous|prior) (?:quarter|qtr)\b/g,
      () => {
        const start = today.getUTCMonth() - (today.getUTCMonth() % 3) - 3;
        return { from: isoDay(monthStart(thisYear, start)), to: isoDay(monthEnd(thisYear, start + 2)) };
      },
    ],
    [
      /\bq([1-4])(?:\s*(?:of\s+)?'?((?:19|20)\d{2}|\d{2}))?\b/g,
      (match) => {
        const first = (Number(match[1]) - 1) * 3;
        const named = match[2] ? (match[2].length === 2 ? 2000 + Number(match[2]) : Number(match[2])) : undefined;
        const year = named ?? (monthStart(thisYear, first) > today ? thisYear - 1 : thisYear);
        const end = monthEnd(year, first + 2);
        return { from: isoDay(monthStart(year, first)), to: isoDay(end > today && year === thisYear ? today : end) };
      },
    ],
    // "From sept to nov", "between oct 1 and oct 15", "sept-nov", "oct 1-15".
    [
      new RegExp(
        String.raw`(?:\b(from|between)\s+)?${MONTH_DAY}\s*(?:-|–|\bto\b|\bthrough\b|\bthru\b|\buntil\b|\btill\b|(?<=between.*)\band\b)\s*(?:${MONTH_DAY}|(\d{1,2})${ORDINAL}\b)`,
        'g',
      ),
      (match) => {
        const cue = match[1];
        const first = match.slice(2, 2 + MONTH_GROUPS);
        const second = match.slice(2 + MONTH_GROUPS, 2 + 2 * MONTH_GROUPS);
        const dayOnly = match[2 + 2 * MONTH_GROUPS];
        const end = dayOnly
          ? dated([undefined, first[1], dayOnly, first[3], first[4]], cue ?? 'from')
          : dated(second, cue ?? 'from');
        if (!end) return null;
        const start = dated(first, cue ?? 'from', end.to);
        if (!start || start.from > end.to) return null;
        return { from: isoDay(start.from), to: isoDay(end.to) };
      },
    ],
    // "Since oct", "since october 15": up to today.
    [
      new RegExp(String.raw`\bsince\s+(?:the\s+)?(?:(?:start|beginning|first) of\s+)?${MONTH_DAY}`, 'g'),
      (match) => {
        const start = dated(match.slice(1, 1 + MONTH_GROUPS), 'since');
        return start ? { from: isoDay(start.from), to: isoDay(today) } : null;
      },
    ],
    // "In oct", "for october", "oct.", "october 2025", "oct 15", "and october?".
    [
      new RegExp(String.raw`(?:\b(${PERIOD_CUES})\s+(?:the\s+)?(?:month of\s+)?)?${MONTH_DAY}`, 'g'),
      (match) => {
        // A month alone as the whole question ("and october?") needs no "in".
        const alone =
          /^(?:(?:and|what about|how about|same for|now|ok|okay)\s+)?$/.test(q.slice(0, match.index)) &&
          /^[\s?.!]*$/.test(q.slice(match.index + match[0].length));
        const cue = match[1] ?? (alone ? 'alone' : undefined);
        const named = dated(match.slice(2, 2 + MONTH_GROUPS), cue);
        if (!named) return null;
        // "Early october": the whole month, and the part of it said back.
        const part = /^(?:early|late|mid|end of|start of|beginning of)$/.test(cue ?? '') && named.from !== named.to;
        return {
          from: isoDay(named.from),
          to: isoDay(named.to),
          ...(part ? { note: `"${cue}" (I give the whole month)` } : {}),
        };
      },
    ],
  ];
  if (options.years)
    matchers.push(
      [
        /\bsince\s+((?:19|20)\d{2})\b(?!\s*(?:\+|or|and|models?|model years?)\b)/g,
        (match) => (Number(match[1]) <= thisYear ? { from: `${match[1]}-01-01`, to: isoDay(today) } : null),
      ],
      // "In 2025", "for 2025", "2025 so far": a year, not the model year of what follows it ("for 2025 tacomas").
      [
        /\b(?:(?:in|during|for)\s+(?:the year\s+|all of\s+)?((?:19|20)\d{2})(?=\s*(?:$|[?.!,;)]|(?:so far|to date|vs|versus|compared|and|or|at|by|from|for|in|on|with|only|total|overall)\b))(?!\s*or (?:newer|older|later|earlier))|((?:19|20)\d{2}) (?:so far|to date|ytd)\b)/g,
        (match) => {
          const year = Number(match[1] ?? match[2]);
          return year <= thisYear
            ? { from: `${year}-01-01`, to: year === thisYear ? isoDay(today) : `${year}-12-31` }
            : null;
        },
      ],
    );

  const found: Array<Period & { start: number; end: number }> = [];
  for (const [pattern, range, note] of matchers)
    for (const match of q.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (found.some((period) => start < period.end && end > period.start)) continue;
      const named = range(match);
      if (!named) continue;
      const { note: part, ...days } = named;
      found.push({ phrase: match[0].trim(), range: days, ...(note || part ? { note: note ?? part } : {}), start, end });
    }
  return found.map(({ start: _start, end: _end, ...period }) => period);
}

/** The question without the periods it names, each taken out where it stands (for what the rest of it says). */
export const withoutPeriods = (q: string, periods: Period[]) =>
  periods.reduce((text, { phrase }) => text.replace(phrase, ' '), q);

/** The period a question's answer uses ("last 30 days", "this month", "in oct"), as ISO days (UTC). */
export function dateRangeOf(
  q: string,
  now = new Date(),
  options: { years?: boolean } = {},
): { from?: string; to?: string } | null {
  return periodsOf(q, now, options)[0]?.range ?? null;
}

const BEFORE =
  /\b(?:the |a )?(day|week|month|year|\d{1,3} days) (?:before|prior|earlier)(?: (?:that|this|it|then))?\b(?! yesterday)/;

/**
 * A period named from the last answer's ("and the week before that?", "the day before", "the month
 * before"): the day, or the 7 days, just before the last period began; the calendar month or year
 * before the one it began in. Undefined when the question names none; a null range when the last
 * answer had no period of days to go back from.
 */
export function periodBefore(
  q: string,
  last: { from?: string; to?: string } | undefined,
  now = new Date(),
): { phrase: string; range: { from: string; to: string } | null } | undefined {
  const named = BEFORE.exec(q);
  if (!named) return undefined;
  const phrase = named[0];
  // "The month prior" with no period before it: the one before today's.
  const from = last?.from ?? (/\bprior\b/.test(phrase) ? isoDay(startOfUtcDay(now)) : undefined);
  if (!from || !/^\d{4}-\d{2}-\d{2}$/.test(from)) return { phrase, range: null };
  const start = new Date(`${from}T00:00:00Z`);
  const daysBefore = (days: number) => isoDay(new Date(start.getTime() - days * 86_400_000));
  const year = start.getUTCFullYear();
  const days = /^(\d{1,3}) days$/.exec(named[1]!)?.[1];
  const range = days
    ? { from: daysBefore(Number(days)), to: daysBefore(1) }
    : named[1] === 'day'
      ? { from: daysBefore(1), to: daysBefore(1) }
      : named[1] === 'week'
        ? { from: daysBefore(7), to: daysBefore(1) }
        : named[1] === 'year'
          ? { from: `${year - 1}-01-01`, to: `${year - 1}-12-31` }
          : {
              from: isoDay(new Date(Date.UTC(year, start.getUTCMonth() - 1, 1))),
              to: isoDay(new Date(Date.UTC(year, start.getUTCMonth(), 0))),
            };
  return { phrase, range };
}

/**
 * Requests that are not questions about the data, declined even when a data word appears in them
 * ("write an email saying the car is ready", "what will used prices be next year?").
 */
export const NOT_DATA: Array<[RegExp, string]> = [
  [
    /\b(?:incentives?|rebates?|lease specials?|manufacturer (?:programs?|money|cash)|(?:factory|oem) (?:programs?|cash|money))\b/,
    "I do not know manufacturers' incentives or rebates; I answer questions about your own data",
  ],
  [
    /\b(?:move|transfer|send|ship|swap|trade|e-?mail|text|forward) (?:those|these|them|'?em|it|that|the \w+|\w+ units?) (?:over )?(?:to|into)\b|(?:^|[.!?;]\s+)(?:(?:ok(?:ay)?|pls|please|plz|kindly|hey|yo|bro|lowkey|ngl|ugh|hmm|well|alright|cool|great|fine|man|dude|and|so|now|then|also|just|go ahead and|go|(?:can|could|would|will) (?:u|you)(?: please| pls)?),? )*(?:move|transfer|ship|swap|reassign|re-assign|assign|hand (?:off|over)|put|place|hold|delete|remove|archive|print|export|order|reorder|cancel|approve|reprice|discount|(?:re-?)?map|set up|e-?mail me|text me|send me (?!the (?:number|count|total|list of))|have (?!(?:we|you|i|they|any|there)\b)(?:[a-z]+ ){1,4}(?:call|text|e-?mail|contact|follow up)\b(?! (?:volume|count|rate|log)s?\b)|wholesale(?= (?:those|these|them|'?em|it|that|the|this|all|every|\d))|auction off|grab (?:the )?recordings?|knock (?:[\w$,.%]+ ){1,3}(?:off|down)\b|push (?:the )?(?:new )?(?:prices?|them|those|it) (?:to|live)\b|stick (?:it|that|them|'?em) (?:out )?(?:front|on the line|up front)|(?:mark|flag|tag)(?! (?:as )?(?:sold|pending|units|cars|vehicles)\b)|update (?:the|that|this|those|these|it|them|his|her|their|our|my)|change (?:the|that|this|those|these|it|them|his|her|their|our|my)|fix (?:the|that|this|those|these|it|them)|adjust|post (?:the|that|this|those|these|it|them)|publish|upload|book|schedule|lock|unlock|write off|close out|make sure|arrange|tell (?!me\b|us\b)(?:the |my |our )?\w+ (?:to|that)\b|let (?!me\b|us\b)(?:the |my |our )?\w+ know|ask (?!you\b)(?:the |my |our )?\w+ to)\b(?! (?:by|of|rate|rates|me (?:the|a|all|how|what|which|who)|us (?:the|a|all|how|what|which|who))\b)|\b(?<!\b(?:did|do|does|we|you|they|i|was|were|been|get|got) )(?:mark|flag) (?!as\b)(?:[\w#'-]+ ){1,4}(?:as )?(?:sold|pending|lost|hot|dead|available|held|on hold)\b|(?<!\b(?:did|do|does|we|they|i|was|were) )(?<!\b(?:did|do|does|have|had) you )\b(?:drop|lower|raise|cut|reduce|bump) (?:the )?(?:price|asking)s? (?:by )?\$?\d[\d,.]*k?\b|(?<!\b(?:did|do|does|we|they|i|was|were) )(?<!\b(?:did|do|does|have|had) you )\b(?:drop|lower|raise|cut|reduce|bump) (?:the |its |their )?(?:(?:asking|internet|sticker|list) )?(?:price|asking)s?(?: (?:of|on))? (?:it|that|this|the|those|these|them)\b|\b(?:have|get) (?:the |my |our |a )?(?:\w+ )?(?:bdc|team|reps?|salespe\w+|guys|manager|desk|someone|somebody|porter|lot (?:guy|attendant)|detail(?:er)?s?) (?:to )?(?:call|text|e-?mail|contact|reach out|follow up|pull|move|bring|wash|detail|clean|gas)\b|\bmark (?:\w+ ){0,2}(?:closed|closed out|done|complete)\b|\bclose out (?:the |this |that )?(?:month|books|october|november|december|\w+ deals?)\b|\barrange for\b|\bto be (?:called|contacted|texted|e-?mailed|followed up)\b|\b(?:schedule|book|set up) (?:an? |the )?(?:appt|appointment|test drive|meeting|call ?back)\b|\bto be (?:transferred|moved|shipped|sent over|relocated|printed|ordered|reassigned)\b|\bget (?:those|these|them|'?em|it|that|the \w+)(?: \d+)? (?:moved|transferred|shipped|sent|relocated)\b|\b(?:tag|flag|mark) (?:everything|all|those|them|'?em|the \w+)\b.*\bfor (?:wholesale|auction|the auction)\b|\bsend (?:that|the|this) list\b|\b(?:order|reorder) (?:me |us )?(?:more |some |\d+ )\b|\bprint (?:me |us )?(?:a |the )?(?:window sticker|sticker|buyers guide)/,
    'I cannot act on your records or for your staff (move, mark, order, print, tell someone); I answer questions about your data',
  ],
  [
    /\breckon (?:we|i) should\b|\bwho should (?:i|we) (?:put|schedule|staff|send|use|hire|pick|have|start)\b|\bwhat should (?:\w+ ){0,3}(?:change|do|fix|improve)\b|\brecs\b|\brecommendations?\b|\b(?:even |still |really )?worth (?:paying for|the money|it|keeping|renewing|the spend)\b|\bshould (?:[a-z]+ ){1,3}(?:cut|drop|raise|lower|order|stock|buy|sell|wholesale|discount|reprice|keep|push)\b/,
    'I do not give advice; I answer questions about your data',
  ],
  [
    /\bpencil (?:me |us )?(?:a |the )?(?:payment|deal|numbers?)\b|\b(?:monthly )?payments? (?:on|for) (?:a|an|the|this|that)\b|\bwhat(?:'s| is| would be) the payment\b|\bamortiz|\b\d+ (?:mos|months) at \d/,
    'I do not work out payments or deals; I answer questions about your data',
  ],
  [
    /\b(?:build|make|create|set up|design|code)\b.*\b(?:dashboards?|tiles?|charts?|graphs?|widgets?|spreadsheets?|pivot(?: table)?s?|models?|queries|query|sql)\b|\bregression\b|\bmachine learning\b|\bwrite (?:the |a |me )?(?:sql|query|code)\b/,
    'I answer questions about your data; I do not build dashboards, models, queries or code',
  ],
  [
    /\bdeserves?\b|\byour call\b|\b(?:your|ur) (?:read|take|opinion|gut)\b|\b(?:a )?(?:better|worse|stronger|weaker|weak|bad|terrible|lousy) (?:closer|salesperson|salesman|saleswoman|rep|seller|sales ?person)\b|\bworth keeping\b|\bpips?\b|\bperformance (?:improvement )?plan\b|\bjust lucky\b|\b(?:comp(?:ensation)?|performance) reviews?\b|\blazy\b|\bslacking\b|\b(?:give|get) (?:\w+ )?a raise\b|\bwho (?:should|do|would) (?:we|i) (?:promote|fire|cut|let go|get rid of|demote)\b|\b(?:can|fire|sack|ax|axe) (?:him|her|them|em)\b|\blet (?:him|her|them) go\b|\bchew (?:\w+ ){0,3}out\b/,
    'I do not judge people; I answer questions about your data',
  ],
  [
    /\btraffic (?:on|near|around|to|heading|going|down|up|into|out of)\b|\b(?:highway|interstate|freeway|commute|road conditions?|roads)\b|\bweather\b/,
    'I do not know the weather or the roads; I answer questions about your own data',
  ],
  [
    /\b(?:write|writing|draft|drafting|compose|reply to|respond to|word)\b.*\b(?:e-?mails?|letters?|messages?|texts?|notes?|replies|reply|posts?|ads?|descriptions?|scripts?|reviews?|announcements?|memos?|flyers?|signs?|captions?|blurbs?|newsletters?|spiffs?|speech(?:es)?|job (?:postings?|ads?|descriptions?|listings?)|postings?)\b|\b(?:write|draft|compose) (?:up |me |us )*(?:an?|the|some)\b|\b(?:send|text|e-?mail) (?:the |a |this |that )?(?:customer|client|buyer|lead)\b|\b(?:shoot|fire off|send|blast) (?:[\w#]+ ){0,6}(?:a |an )?(?:quick )?(?:text|txt|e-?mail|message|msg|note|dm)\b/,
    'writing messages is not a question about your data',
  ],
  // "Text alex rivera congrats on his month": a message to someone, named.
  [
    /^(?:(?:can|could|would|will) (?:you|u) |please |pls |plz |go |and |now |then |ok(?:ay)? |also |just )*(?:text|txt|sms|e-?mail|message|msg|dm)\s+(?!me\b|us\b)(?:[a-z]+ ){1,3}(?:congrats|congratulations|thanks|thank you|a (?:note|message|reminder|heads up)|about|that|to (?:say|tell|let|remind|ask)|and (?:tell|ask|remind|let))\b/,
    'I cannot send texts, emails, messages or calls to anyone; I answer questions about your data',
  ],
  // "Text my sales team about them", "email this to my manager": sending anything to anyone, also as a follow-up.
  [
    /^(?:(?:can|could|would|will) (?:you|u) |please |pls |plz |go |and |now |then |ok(?:ay)? |also |just )*(?:text|txt|sms|e-?mail|message|msg|dm|call|phone|ring|send|forward|notify|ping|remind|alert)\b(?:\s+back)?(?:\s+(?:it|this|that|these|those|them|'?em|the list|the results?|him|her|us|everyone|everybody|every|all|each|both|my|our|the|a|an)\b|\s+[a-z]+ (?:team|manager|managers|staff|reps?|salespeople|guys|boss|gm)\b)/,
    'I cannot send texts, emails, messages or calls to anyone; I answer questions about your data',
  ],
  // "Please email last month's sales summary to my business partner": something sent to someone.
  [
    /^(?:(?:can|could|would|will) (?:you|u) |please |pls |plz |kindly |go ahead and |and |now |then |ok(?:ay)? |also |just |(?:great|thanks|thank you|perfect|cool|awesome|got it)\W*\s)*(?:e-?mail|send|forward|text)\s+(?!me\b|us\b)[^?]{1,80}?\bto (?:my|our|his|her|their|the) (?:[a-z]+ ){0,2}(?:partners?|managers?|gm|boss|team|accountant|owners?|cfo|controller|office|banker|lender|wife|husband)\b/,
    'I cannot send texts, emails, messages or calls to anyone; I answer questions about your data',
  ],
  [
    /\b(?:forecast|predict|prediction|projection|project(?:ed)?\b(?<!\b(?:my|our|the|a|an|this|that|his|her|analytics|summer|research|class|school) project)|do you think|you think (?:we|i|they|it)|think (?:we|i|they|it)(?:'ll| will| can| could| might| gonna)? (?:\w+ ){0,2}(?:beat|hit|make|reach|get to|top)|can we (?:beat|hit|reach|top)|(?:will|'ll) (?:\w+ ){0,4}(?:be|sell|retail|deliver|go|cost|rise|drop|fall|need|get|arrive|come|close|buy|make)|\bballpark\b|(?:going to|gonna) (?:\w+ ){0,3}(?:be|sell|go|rise|drop|close|hit|do|make|deliver|get|land|win|finish|end up|take)|next (?:week|month|year|quarter)(?!'?s? models?)|tomorrow|expect (?:to|next)|(?:do|would) (?:you|u) expect|expect(?:ed)? (?:our|we|us|them|it) |estimate (?:\w+ ){0,3}(?:how many|how much|what)|(?:likely|expected) to (?:sell|close|buy|come|be)|plan (?:staffing|for next))\b/,
    'I report what your data shows, not forecasts',
  ],
  [
    /\bwhat (?:would|will|should|do|did) (?:you|we|i) (?:give|pay|offer) for\b|\bacv (?:on|for|of) (?:a|an|this|that|his|her|their|the customer's)\b|\b(?:fair )?trade (?:number|figure|offer|value)\b|\bon trade\b(?![- ]?ins?\b)|\b(?:apprais(?:e|al)|kbb|kelley|blue book|black book|market value|mmr|(?:bring|fetch|get|worth|go for|sell for) (?:\w+ ){0,3}at (?:the )?auction|auction values?|if we liquidated|liquidation value|what (?:should|do) (?:i|we) bid|bid on|trade[- ]in (?:value|offer|number|figure)|worth (?:on|in|as) (?:a )?trade|what(?:'s|s| is) (?:my|a|an|this|that|his|her|their|the customer's) (?:[\w-]+ ){0,8}worth|\b(?:the|our) (?:group|business|company|dealership|dealer group|stores?|rooftops?) (?:be )?worth\b|\bvaluation\b|\b\d+(?:\.\d+)?x (?:gross|ebitda|earnings|multiple)\b|\bis (?:this|it|that|the group) a (?:buy|good buy|good deal|good investment)\b|how much (?:is|would|could|should|can) (?:i|we|my|a|an|this|that|the customer) (?:[\w-]+ ){0,8}(?:worth|get|sell|pay|offer)|how much (?:should )?(?:we|i|you) (?:should )?(?:give|pay|offer|allow)\b|what (?:would|could|can|will|should) (?:i|we|they|the customer) (?:get|pay|offer|ask) for|what (?:would|will|could|can|should|might) (?:it|that|he|she|they|this|the \w+) (?:bring|fetch|go for|sell for))\b/,
    'I do not value vehicles or businesses; I report what your data holds',
  ],
  [
    /\b(?:should (?:i|we)|word ?tracks?|talk ?tracks?|rebuttals?|objections?|what (?:do|should|can) (?:i|we) say|how (?:do|should|can) (?:i|we) (?:respond|handle|overcome|answer)|advice|advise|recommend|suggest(?:ion)?s?|tips?|strateg(?:y|ies)|ideas?|how (?:do|can|could|should) (?:i|we) (?:improve|increase|boost|raise|get|sell|reduce|lower|fix|handle|close|train|motivate|hire)|best way to|help me (?:sell|close|write|improve)|what(?:'s|s| is) better|which (?:one |of them )?is better|is it (?:smarter|better|wiser|cheaper) to|smarter to|in (?:your|ur) opinion|is (?:[a-z]+ )?the better|the better (?:car|truck|suv|vehicle|one|buy|brand|make|model)|better (?:for|choice|option|buy)|family of)\b/,
    'I do not give advice; I answer questions about your data',
  ],
  // "What's a good pay plan for BDC reps?": a judgement asked for, not a figure of theirs.
  [
    /\bwhat(?:'s|s| is| would be)? (?:a|the) (?:good|best|better|right|fair|smart|ideal)\b(?!.*\b(?:rate|ratio|number|gross|price|turn|percentage)\b)|\bpay ?plans?\b|\bcomp(?:ensation)? plans?\b|\bspiff plans?\b|\bput together (?:a|an|the|some) /,
    'I do not give advice; I answer questions about your data',
  ],
  // "What's the diff between a Tundra SR5 and a Limited?": what vehicles are, not what the data holds.
  [
    /\b(?:diff|difference|differences)\s+(?:between|in)\b(?!.*\b(?:gross|prices?|counts?|leads?|calls?|deals?|sales|units|days|miles|mileage|rates?|revenue|inventory|stock|sold|close|answered)\b)|\b(?:mpg|horsepower|towing capacity|tow rating|torque|specs|specifications|fuel economy|cargo space|safety rating)\b/,
    'I do not know what vehicles are like, only what your data holds about them',
  ],
  [
    /\b(?:good|bad|normal|healthy|decent)\b.*\b(?:rate|ratio|number|gross|price|turn|percentage)\b|\bbenchmarks?\b|\bindustry (?:average|standard)\b/,
    'I do not judge figures against benchmarks; I report your own',
  ],
  [/\b(?:joke|weather|poem|story|song|recipe|news|stock market|translate)\b/, 'it is not about your data'],
  // "Give me a punchy fb marketplace ad": asked to make copy, not to read data.
  [
    /\b(?:give me|make me|make|create|come up with|need|whip up|put together) (?:a |an |some )?(?:[\w-]+ ){0,4}(?:ads?|posts?|captions?|e-?mails?|scripts?|announcements?|flyers?|blurbs?|listing copy)\b(?! (?:spend|budget|cost))/,
    'writing messages is not a question about your data',
  ],
  [
    /\b(?:text|e-?mail|message|call|ping|tell)\s+[a-z]+\s+(?:and|&) tell\b|\btell (?:him|her|them|em|'em|[a-z]+) (?:great|good|nice|congrats|thanks|thank you|well done)\b/,
    'I cannot send texts, emails, messages or calls to anyone; I answer questions about your data',
  ],
  // "How does a money factor convert to an APR", "how do leases work": how things work, not what the data holds.
  [
    /\bhow (?:does|do|would|will) (?:an? |the )?(?:[\w-]+ ){1,3}(?:convert|work|translate)s?\b(?!.*\b(?:our|we|us|my)\b)|\bexplain\b|\bin plain english\b|\bwhat(?:'s|s| is| does) (?:an? )?(?:money factor|residual|holdback|negative equity)\b(?! (?:on|for|at|of) (?:our|my|the)\b)/,
    'I do not explain how things work (finance terms, lease math); I answer questions about your data',
  ],
  // Greetings and small talk ("hey hows ur day going", "thanks!", "who are you"), unless the question names
  // something the data holds ("hey how many leads today").
  [
    /^(?!.*\b(?:leads?|calls?|deals?|sales|sold|sell(?:s|ing)?|inventory|stock|cars?|vehicles?|units?|trucks?|suvs?|lot|customers?|gross|revenue|appointments?|salespe(?:rson|ople))\b)(?:(?:hi|hey|hello|hiya|yo|sup|howdy|greetings|good (?:morning|afternoon|evening|night))\b[\s!.,]*(?:there\b)?[\s!.,]*$|.*\b(?:how(?:'s|s| is| are| r)? (?:you|your|ya|things|life|it going)|how(?:'s|s| is) (?:your|the) (?:day|week|weekend|morning)|(?:what's|whats|wassup|wazzup) up|what'?s up|who are you|are you (?:a )?(?:bot|robot|human|real|ai)|nice to (?:meet|chat)|thanks?(?: you)?|thank you|cheers|have a (?:good|nice|great) (?:day|one|night|weekend)|good (?:bye|night)|bye)\b)/,
    'small talk is not a question about your data',
  ],
  // Sports talk, though a team may share a model's name ("who won the broncos game"): declined unless
  // the question names something the data holds ("how many broncos did we sell").
  [
    /^(?!.*\b(?:leads?|calls?|deals?|sales|sold|sell(?:s|ing)?|inventory|stock|cars?|vehicles?|units?|lot|customers?|gross|revenue|appointments?|salespe(?:rson|ople))\b).*(?:\b(?:games?|playoffs?|super ?bowl|world series|touchdowns?|halftime|kick-?off|quarterback|football|baseball|basketball|hockey|soccer|nfl|nba|mlb|nhl|final score|the score)\b|\bdid (?:the )?[a-z]+s (?:win|lose|beat|play)\b)/,
    'it is not about your data',
  ],
];

/** Shorthand and misspellings dealers type, read as the words the rules know. */
/** A comparison written as an operator, in words: "> 100000" is "over 100000". */
const boundWord = (op: string) => ({ '>': 'over', '>=': 'at least', '<': 'under', '<=': 'at most' })[op]!;

const SHORTHAND: Array<[RegExp, string | ((match: string, ...groups: string[]) => string)]> = [
  // A new hire's asides: examples ("like cars.com, google, etc"), apologies in brackets ("(sold, sorry still
  // learning the words)"), "like nobody answered" for missed, "not the ones that already sold" of what is on the lot.
  [
    /,?\s*(?:like|e\.?g\.?|i\.?e\.?|such as|for example|for instance)\s+[^?!]*?\b(?:etc\.?|and so on|and such)(?=[\s?!.,]|$)/g,
    '',
  ],
  [/\([^()]*\b(?:sorry|i think|i mean|still learning|new here|not sure|mean|means|meaning|stand for)\b[^()]*\)/g, ' '],
  [/\b(?:nobody|no one|noone|no body) (?:answered|picked up)\b/g, 'missed'],
  [
    /,?\s*(?:and )?not (?:the ones |ones |those |any )?(?:that |which )?(?:have |had |were |was |got )?(?:already )?(?:been )?sold(?: ones)?\b(?<=\b(?:on the (?:lot|ground)|in stock|on hand)\b.*)/g,
    '',
  ],
  [/\bcomm?ing\b/g, 'coming'],
  // A data person's notation: "sum(front_gross)", "mileage > 100000", "source is null", "date_in_stock = today".
  [
    /\b(sum|avg|average|count|max|min)\(\s*([a-z_]+)\s*\)/g,
    (_match, fn: string, column: string) =>
      `${{ sum: 'total', avg: 'average', average: 'average', count: 'count of', max: 'highest', min: 'lowest' }[fn]} ${column.replaceAll('_', ' ')}`,
  ],
  [
    /\b(mileage|miles|odometer|odo)\s*(>=|<=|>|<)\s*\$?([\d,.]+k?)/g,
    (_match, _field: string, op: string, amount: string) => `${boundWord(op)} ${amount} miles`,
  ],
  [
    /\b(?:price|sale_price|sale price|asking|internet_price)\s*(>=|<=|>|<)\s*\$?([\d,.]+k?)/g,
    (_match, op: string, amount: string) => `priced ${boundWord(op)} $${amount}`,
  ],
  [
    /\b(?:days_on_lot|days on (?:the )?lot|dol)\s*(>=|<=|>|<)\s*(\d+)/g,
    (_match, op: string, days: string) => `${boundWord(op)} ${days} days on the lot`,
  ],
  [/\b(?:lead )?source(?:_id)?\s*(?:is null|=\s*null|is empty|is blank|is missing)\b/g, 'with no source'],
  [/\bdate_in_stock\s*=\s*today\b/g, 'that came in today'],
  [/\bdate_in_stock\b/g, 'stock-in date'],
  [/\bassignees?\b(?!\s*=)/g, 'salesperson'],
  [/\bthe max (days on (?:the )?lot|miles|mileage|price)\b/g, 'the most $1'],
  [/\b150s\b/g, 'f-150s'],
  [/\bgp\b/g, 'gross'],
  [/\bunts\b/g, 'units'],
  [/\bmil(?:l)?age\b/g, 'mileage'],
  [/\b(\d[\d,.]*k?) (?:mileage|odo|odometer)\b/g, '$1 miles'],
  [/\bleave (new|used|cpo|certified|cash|finance|leases?) out(?: of (?:it|this|that))?\b/g, 'leave out $1'],
  // "Thank you. Could you please provide the same per location?": the courtesy before a question.
  [
    /^(?:(?:thank you|thanks|thx|ty|many thanks|great|perfect|lovely|excellent|wonderful|good (?:morning|afternoon|evening)|hi|hello|hey|hiya)(?: (?:so much|very much|again|there))?[.!,;:]+ +)+(?=[a-z0-9])/g,
    '',
  ],
  [/\b(?:hw|hoe|hwo|homw|hiw) (many|much)\b/g, 'how $1'],
  [/\b(?:hm|hmany|howmany)\b/g, 'how many'],
  [/\bppl\b/g, 'people'],
  [/\b(?:thoes|thos|tose|thse)\b/g, 'those'],
  // "This month vs last": last month.
  [
    /\bthis (month|week|year|quarter) (vs\.?|versus|compared to|compared with|against) last\b(?! (?:month|week|year|quarter)\b)/g,
    'this $1 $2 last $1',
  ],
  [/\b(?:souce|sorce|srouce|soucre|sourse)(s?)\b/g, 'source$1'],
  // "MY24 or newer", "my '22": model years.
  [/\bmy ?'?(\d{2})\b(?= (?:or|and|\+|models?|units?|cars?|vehicles?)|\+|$)/g, '20$1'],
  // "MY27 Toyotas", "MY25s": model years written as one word.
  [/\bmy'?(\d{2})(?:s\b|\b)/g, '20$1'],
  // An OEM's and an Australian's words: "prior month", "RDRs", "enquiries", "utes", "dearest", "the yard".
  // "The same for the prior month" after October: September; "prior month" alone: last month.
  [/\bthe prior[- ](day|month|week|year)\b/g, 'the $1 prior'],
  [/\bprior[- ](month|week|year|quarter)\b/g, 'last $1'],
  [/\bcurrent (month|week|year|quarter)\b/g, 'this $1'],
  // "Kindly advise how many …": a request to be told, not for advice.
  [
    /\b(?:kindly|please|pls|plz) advise(?: (?:me|us))?(?: (?:of|as to))?(?= (?:how|what|which|who|when|where|the (?:number|count|total|figure)))/g,
    'tell me',
  ],
  // "1 July through 30 September": a run of days written day first, month after.
  [
    new RegExp(
      String.raw`\b(\d{1,2})(?:st|nd|rd|th)? ${MONTH}(?![a-z])\s*(-|–|to|through|thru|until|till)\s*(\d{1,2})(?:st|nd|rd|th)? ${MONTH}(?![a-z])`,
      'g',
    ),
    (_match, date: string, month: string, between: string, endDate: string, endMonth: string) =>
      `${month} ${date} ${between} ${endMonth} ${endDate}`,
  ],
  // "Since 1 October": a day before its month after a word that starts or ends a period.
  [
    new RegExp(
      String.raw`\b(since|from|on|after|until|till|through|thru|between|and|to) (\d{1,2})(?:st|nd|rd|th)? ${MONTH}(?![a-z])`,
      'g',
    ),
    (_match, cue: string, date: string, month: string) => `${cue} ${month} ${date}`,
  ],
  [/\brdrs?\b/g, 'deals'],
  // An analyst's windows: "L90", "L30" (the last so many days), "T3M", "TTM" (trailing months).
  [/\bl(\d{1,3})\b(?!\s*(?:k\b|miles|mi\b|%))/g, 'last $1 days'],
  [/\bt(\d{1,2})m\b/g, 'last $1 months'],
  [/\bttm\b/g, 'last 12 months'],
  [/\b(today|yesterday)s\b/g, "$1's"],
  // "Im new here": the one asking is new, not the cars.
  [
    /\b(?:i'?m|i am|im) (?:brand )?new (?:here|to (?:the|this) (?:group|store|company|job|role|team)|in (?:the|this) (?:group|role|job))\b/g,
    '',
  ],
  // "The 90+ bucket", "on the 90+": an aging bucket, over that many days (after 61-90).
  [/\b(?:the )?(\d{2,3})\+ (?:bucket|band|bracket)\b/g, 'over $1 days'],
  [/\bthe (\d{2,3})\+(?= group| units| ones| cars| stuff|\?|$)/g, 'the ones over $1 days'],
  [/\b(last|this) months\b(?= [a-z])(?! ago)/g, "$1 month's"],
  // "Cpo excluded": a value left out, said after it.
  [/\b(cpo|certified|new|used|cash|finance|leases?) (?:excluded|not included|left out|not counted)\b/g, 'excluding $1'],
  // A call tracker's words: "FTCs" (first-time callers), "tracking source", "in + outbound" (every call).
  [/\bftcs?\b/g, 'first time callers'],
  [/\btracking (sources?|numbers?)\b/g, 'source'],
  [/\b(?:in ?\+ ?out ?bound|inbound (?:and|&|\+|or) outbound|in (?:and|&) out(?:bound)?)\b/g, 'all directions'],
  // "Missed or not": every status.
  [/\b(?:whether )?(?:missed|answered|sold|lost|new) or not\b/g, 'any status'],
  // "GPU": gross per unit, a deal's average total gross.
  [/\bgpu\b/g, 'average total gross'],
  // An accountant's word for a deal: "deal transactions", "finance transactions".
  [/\b(?:deal |sales? )?transactions\b/g, 'deals'],
  [/\b(?:deal |sales? )?transaction\b/g, 'deal'],
  [/\benquir(y|ies)\b/g, 'inquir$1'],
  [/\butes?\b/g, 'trucks'],
  [/\bdearest\b/g, 'most expensive'],
  [/\b(?:car )?yard\b/g, 'lot'],
  [/\bdropped (calls?)\b|\b(calls?) (?:we )?dropped\b/g, 'missed $1$2'],
  [/\bwhich (store|rooftop|location|dealership) dropped\b/g, 'which $1 missed'],

  // Spanish words in an English question ("cuantos carros tiene la tienda de honda", "trocas este mes").
  [/\bcu[aá]nt[oa]s\b/g, 'how many'],
  [/\bcu[aá]nto\b/g, 'how much'],
  [/\b(?:la )?tienda de ([a-z]+)\b/g, 'the $1 store'],
  [/\b(?:las |los )?tiendas\b/g, 'stores'],
  [/\b(?:la )?tienda\b/g, 'store'],
  [/\bcarros?\b|\bcoches?\b/g, 'cars'],
  [/\btrocas?\b|\bcamionetas?\b/g, 'trucks'],
  [/\b(?:los )?vendedor(?:es|as)\b/g, 'salespeople'],
  [/\b(?:el |la )?vendedora?\b/g, 'salesperson'],
  [/\beste mes\b/g, 'this month'],
  [/\bel mes pasado\b|\bmes pasado\b/g, 'last month'],
  [/\besta semana\b/g, 'this week'],
  [/\b(?:la )?semana pasada\b/g, 'last week'],
  [/\beste a[nñ]o\b/g, 'this year'],
  [/\bayer\b/g, 'yesterday'],
  [/\bhoy\b/g, 'today'],
  [/\busad[oa]s\b/g, 'used'],
  [/\bnuev[oa]s\b/g, 'new'],
  [/\bllevamos\b|\btenemos\b/g, 'do we have'],
  [/\btiene\b/g, 'has'],
  [/\bexcl\.?(?= )/g, 'excluding'],
  // "Split by salesperson, who leads": leading, not leads.
  [/\bwho(?:'s| is)? leads\b(?=\s*(?:$|[?,.!]|the |on |in |for |now\b))/g, 'who is leading'],
  // "Last months deals": the month's, not a run of months.
  [
    /\b(last|this) (month|week|year|quarter)s'?(?= (?:deals|sales|leads|calls|units|numbers|gross|inventory|volume|total))/g,
    '$1 $2',
  ],
  // "For the quarter 1 July through 30 September": the quarter the dates name, not this one.
  [
    new RegExp(
      String.raw`\b(for|in|during|over) the (?:qtr|quarter|period|month|year)(?:,)?(?= (?:from |of |beginning |starting )?(?:\d{1,2}(?:st|nd|rd|th)? )?${MONTH}(?![a-z]))`,
      'g',
    ),
    '$1',
  ],
  [/\b(?:for|in|during|over) the (?:qtr|quarter)\b/g, 'this quarter'],
  [/\bhow ?(?:bout|abt|bou)\b/g, 'how about'],
  [/\b(?:dyas|dys|dayz|daya)\b/g, 'days'],
  [/\binstead\b/g, ' '],
  [/\bhow (?:mnay|mnany|manu|amny|mny|meny)\b/g, 'how many'],
  [/\b(?:#|no\.) of\b/g, 'number of'],
  [/(^|\s)#\s*(?=[a-z])/g, '$1number of '],
  [/\bw\/o\b/g, 'without'],
  [/\bw\//g, 'with '],
  [/\b(?:u|ya)\b/g, 'you'],
  [/\bur\b/g, 'your'],
  [/\br\b/g, 'are'],
  [/\b(?:yday|yest|ystrday|yesterdy|yesturday|yesteday)\b/g, 'yesterday'],
  [/\b(?:nite|nght)\b/g, 'night'],
  [/\btonite\b/g, 'tonight'],
  // A dropped g: "sittin", "sellin'".
  [
    /\b(sitt|sell|mov|clos|work|gett|runn|pay|com|go|do|tak|look|hav|mak|call|answer|leas|financ|show|sett|putt|wait)in'?(?![a-z'])/g,
    '$1ing',
  ],
  [/\b([a-z]{3,})in'(?![a-z])/g, '$1ing'],
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
  [/\bhow much (?:money )?(?:did|do|have) we (?:make|made)\b/g, 'how much gross did we'],
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
  [/\b(?:thnk|thnks|thnking)\b/g, 'think'],
  // "Cls rate lst 90": the last 90 days (a count of days dealers look back over, not "the last 5" of a list).
  [
    /\b(last|past|prior) (7|14|30|45|60|90|120|180|365)\b(?!\s*(?:days?|weeks?|months?|years?|hours?|leads?|calls?|deals?|units?|cars?|vehicles?|%|percent))/g,
    '$1 $2 days',
  ],
  [/\bsrcs\b/g, 'sources'],
  [/\b(?:gimme|gimmie|gimmee)\b/g, 'give me'],
  [/\bsrc\b/g, 'source'],
  [/\btxt\b/g, 'text'],
  [/\bgr8\b/g, 'great'],
  // "n wht % were cash", "txt taylor n tell em": "n" between words is "and".
  [/(^|\s)n(?=\s)/g, '$1and'],
  [/\bgrp\b/g, 'group'],
  // Typed by ear: "moth", "wich", "lastmonth", "whats are answer rate", "more then", "well deliver", "there name".
  [/\bmoth\b/g, 'month'],
  [/\bsiting\b/g, 'sitting'],
  [/\bmutch\b/g, 'much'],
  [/\bincomm?ing\b/g, 'incoming'],
  [/\brecie?ved\b/g, 'received'],
  [/\bquater\b|\bqaurter\b/g, 'quarter'],
  [/\bcampain\b/g, 'campaign'],
  [/\bcomm?iss?ion\b/g, 'commission'],
  [/\bfor?cast\b/g, 'forecast'],
  [/\bocto?br?\b/g, 'october'],
  [/\bsince the (?:1st|first)\b(?! of)/g, 'this month'],
  [/\bwich\b/g, 'which'],
  [/\b(last|this|next)(month|week|year|quarter)\b/g, '$1 $2'],
  [/\b(what(?:'s|s| is)|how(?:'s|s| is)) are\b/g, '$1 our'],
  [/\b(more|less|fewer|older|newer|cheaper|higher|lower|greater|bigger|longer) then\b/g, '$1 than'],
  [/\bwell (deliver|sell|close|do|hit|make|get|need)\b/g, 'we will $1'],
  [/\bthere (names?|leads|deals|numbers|store)\b/g, 'their $1'],
  [/\bwright\b/g, 'write'],
  // A desk's and a buyer's words: "dead last in units", "17-20 model yr", "third quarter".
  [
    /\bwho(?:'s| is| was)? (?:dead )?last (?:in|on|for) (units|deals|sales|gross|front|back)\b/g,
    'who has sold the fewest $1',
  ],
  // "Mini deals": a desk's small-gross deals, not the make.
  [/\bmini (deals?)\b/g, 'small-gross $1'],
  [/\b(\d{2})-(\d{2}) (?=model (?:yr|year)s?\b|my\b)/g, '20$1-20$2 '],
  [
    /\b(first|1st|second|2nd|third|3rd|fourth|4th) (?:quarter|qtr)\b/g,
    (_match: string, which: string) =>
      `q${'1234'[['first', 'second', 'third', 'fourth'].indexOf(which.replace(/^1st$/, 'first').replace(/^2nd$/, 'second').replace(/^3rd$/, 'third').replace(/^4th$/, 'fourth'))]}`,
  ],
  // An analyst's notation: "n=", ">60 DOL", "L90D", "9/1-10/31", "days-to-sell", "filter to used".
  [/(^|\s)n ?=\s*/g, '$1how many '],
  [/^n (?:and|&|\+) %/g, 'how many and what %'],
  [/(^|\s)>=\s*(?=\d)/g, '$1at least '],
  [/(^|\s)<=\s*(?=\d)/g, '$1at most '],
  [/(^|\s)>\s*(?=\d)/g, '$1over '],
  [/(^|\s)<\s*(?=\d)/g, '$1under '],
  [/\bl(\d{1,3})d\b/g, 'last $1 days'],
  [/\bl(\d{1,2})w\b/g, 'last $1 weeks'],
  [/\bvol\b/g, 'volume'],
  [/\b([a-z]+)-(to|on|in|per)-([a-z]+)\b/g, '$1 $2 $3'],
  [
    /^(?:filter(?:ed)?|restrict(?:ed)?|limit(?:ed)?|narrow(?:ed)?)(?: (?:it|that|this|those|them))?(?: down)? (?:to|on|for) /g,
    'just ',
  ],
  [/\bbreakdwn\b|\bbrkdwn\b|\bbreakdonw\b/g, 'breakdown'],
  [/\bdepts\b/g, 'departments'],
  [/\bsvc\b|\bsrvc\b/g, 'service'],
  [/\bshud\b|\bshld\b/g, 'should'],
  [/\bsecs\b/g, 'seconds'],
  [/\bdt\b/g, 'downtown'],
  [/\blastest\b|\blates\b/g, 'latest'],
  // "Which of those are white? getting a lot of web leads on white ones": the question, then why it is asked.
  [
    /\?\s+(?:(?:getting|trying|building|working|doing|prepping|preparing|putting|fyi|asking because|because|since|im|i'm|we're|we are|need (?:it|this|that) for|for (?:my|a|the|our) (?:report|deck|meeting|boss|gm))\b[^?]*)$/g,
    '?',
  ],
  // "Which used ones went in under a week": sold within seven days of stocking in.
  [/\b(?:went|sold|moved|gone|turned)(?: in)? (?:under|less than|within) (?:a|one) week\b/g, 'sold in under 7 days'],
  [/\b(?:under|less than) (?:a|one) week\b/g, 'under 7 days'],
  [/\btxt\b/g, 'text'],
  [/\b1st (time|timers?)\b/g, 'first $1'],
  // Dropped g's: "askin price", "sittin", "sellin".
  [
    /\b(ask|sitt|sell|mov|clos|gett|com|go|look|work|think|spend|tell|runn|call|answer|pick|send|hold|miss|buy|trad)in\b/g,
    '$1ing',
  ],
  // "Is it quicker for trucks?" after days to sell: the same figure, for trucks.
  [
    /^(?:(?:and|so|but|ok) )?(?:(?:is|was) (?:it|that)|are (?:they|those)|were they )?\s*(?:any )?(?:quicker|faster|slower|longer|shorter|higher|lower|better|worse) (for|at|on|with|in) /g,
    'and $1 ',
  ],
  // "The total asking on those": their asking prices, added up.
  [/\b(total|sum of|average|avg) asking\b(?! prices?\b)/g, '$1 asking price'],
  // "Honda vs toyota store": both stores.
  [/\b([a-z]+) (vs\.?|versus) ([a-z]+) (stores?|rooftops?|dealerships?|locations?)\b/g, '$1 $4 $2 $3 $4'],
  // "Break out back pvr by salesperson": a breakdown, not a Subaru Outback.
  [/\b(break|broke|breaking) out\b/g, '$1 down'],
  // An F&I office's words: "back pvr", "lease pen", "avg AF".
  [/\b(front|back) pvr\b/g, '$1 end pvr'],
  [/\b(lease|finance|cash|gap|vsc|warranty|cpo|certified) pen\b/g, '$1 penetration'],
  [/\baf\b/g, 'amount financed'],
  [/\bpct\b/g, 'percent'],
  [/\bin-stock\b/g, 'in stock'],
  // "(avail + pending + in transit)": every status on the lot, which is what stock is.
  [/\(?\s*\bavail(?:able)?\s*(?:\+|,|and|&)\s*pending\s*(?:\+|,|and|&)\s*in[- ]transit\b\s*\)?/g, ' '],
  // "Used (non-CPO)": used already leaves certified out.
  [/\bused \(?non-?(?:cpo|certified)\)?/g, 'used'],
  [/\bnon-?(?:cpo|certified) (used|pre-?owned)\b/g, '$1'],
  // "What share of those Toyotas were new units vs pre-owned?": the share of the first named.
  [
    /(?<=\b(?:share|percent(?:age)?|%|proportion)\b.*\b(?:were|are|was|is) [a-z-]+(?: units| ones| cars| vehicles| deals| leads)?) (?:vs\.?|versus) [a-z-]+(?: units| ones| cars| vehicles| deals| leads)?(?=\?|$)/g,
    '',
  ],
  [/\blist price\b/g, 'price'],
  [/\breasign\b|\breassing\b/g, 'reassign'],
  // "Under 500 front": that much front gross.
  [
    /\b(under|over|less than|more than|below|above|at least|at most) \$?([\d,.]+k?) (front|back)\b(?! ?(?:end|gross))/g,
    '$1 $$$2 $3 gross',
  ],
  // "How long have the white ones been sitting? days on lot i think its called": an aside about words, not calls.
  [/[,.;]?\s*\b(?:i think |i believe |i guess )?(?:it'?s|that'?s|they'?re|its) called\b/g, ''],
  // "So thats the answer rate. how many missed calls…": the last answer said back, then the question.
  [/^(?:(?:ok(?:ay)?|right|got it|great|thanks)[,.]? )*so (?:that'?s|thats|that is) [^.?!]*[.!]\s+(?=\S)/g, ''],
  [/\bhow many days (does|did|do) it take\b/g, 'how long $1 it take'],
  // "And what percentage of those deals were leases, as opposed to finance or cash?": the part is the first.
  [/,?\s*\b(?:as opposed to|rather than)\s+[^?!.;]*/g, ''],
  // "Break that average down by make": the same figure, broken down.
  [
    /\bbreak (that|this|the|those) (?:average|avg|total|figure|number|rate|percentage|count)s? down\b/g,
    'break $1 down',
  ],
  [/\bdept\b/g, 'department'],
  // An F&I office's shorthand: "tot be mtd", "fe", "l/m", "fin deals", "lse", "amt financed".
  [/\btot\b/g, 'total'],
  [/\bl\/m\b/g, 'last month'],
  [/\bt\/m\b/g, 'this month'],
  [/\bl\/y\b/g, 'last year'],
  [/(?<!\bsanta )\bfe\b/g, 'front end'],
  [/\b(total|average|on|my|his|her|their|our|the|and|what|whats|what's|just|only|of|in|vs\.?) be\b/g, '$1 back end'],
  [/^be\b(?= (?:pvr|mtd|ytd|gross|per|on|for|this|last|by|total|average))/g, 'back end'],
  [/\bbe (pvr|mtd|ytd|per)\b/g, 'back end $1'],
  [/\bfin\b/g, 'finance'],
  [/\blse\b/g, 'lease'],
  [/\bamt\b/g, 'amount'],
  [/\bfinaced\b|\bfinanaced\b|\bfinnanced\b/g, 'financed'],
  // Colours as a lot sheet abbreviates them: "blk?", "slvr".
  [/\bblk\b/g, 'black'],
  [/\b(?:slvr|slv)\b/g, 'silver'],
  [/\bgry\b/g, 'gray'],
  // "Who's up on deals": who is ahead.
  [/\bwho(?:'s| is) up (?:on|in|for)\b/g, 'who is leading on'],
];

/** The question as the rules read it: lower case, plain spaces and quotes, shorthand spelled out. */
export function readable(question: string, vocabulary?: Vocabulary): string {
  const spelledOut = (text: string) =>
    SHORTHAND.reduce(
      (out, [pattern, replacement]) =>
        typeof replacement === 'string' ? out.replace(pattern, replacement) : out.replace(pattern, replacement),
      text,
    );
  const plain = normalize(question);
  let q = spelledOut(withDigits(withDates(plain).replace(/\b([a-z]+) dot (com|net|org)\b/g, '$1.$2')));
  if (vocabulary) q = spelledOut(withNamesJoined(withVowelsBack(q, vocabulary), vocabulary));
  return q.replace(/\s+/g, ' ').trim();
}

const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** Words of British or Australian English: a question written in them writes its dates day first. */
const DAY_FIRST =
  /\benquir|\bcolours?\b|\butes?\b|\bfortnight\b|\bg'?day\b|\breckon\b|\bmate\b|\barvo\b|\bcheers\b|\brighto\b/;

/**
 * Dates written in numbers ("9/1-10/31", "since 1/10") as a month's name and a day: month first, as in the
 * US, unless the question's words are British or Australian ("enquiries since 1/10" is since 1 October).
 */
function withDates(q: string): string {
  const dayFirst = DAY_FIRST.test(q);
  return q.replace(/\b(\d{1,2})\/(\d{1,2})\b(?!\/)/g, (match, first: string, second: string) => {
    const [month, day] = dayFirst ? [Number(second), Number(first)] : [Number(first), Number(second)];
    return month >= 1 && month <= 12 && day >= 1 && day <= 31 ? `${MONTH_NAMES[month - 1]} ${day}` : match;
  });
}

const UNIT_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const TEEN_WORDS = [
  'ten',
  'eleven',
  'twelve',
  'thirteen',
  'fourteen',
  'fifteen',
  'sixteen',
  'seventeen',
  'eighteen',
  'nineteen',
];
const TENS_WORDS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const SPOKEN_NUMBER = new RegExp(
  String.raw`\b(?:(?:a|${[...UNIT_WORDS, ...TEEN_WORDS, ...TENS_WORDS, 'hundred', 'thousand'].join('|')})(?:[\s-]+(?:and[\s-]+)?|$))+`,
  'g',
);

/**
 * Numbers said in words, as a phone's dictation writes them ("sixty days", "a hundred and twenty days old",
 * "under fifty thousand"), in digits. A lone "one" or "five" stays a word ("the oldest one", "the five oldest").
 */
function withDigits(q: string): string {
  return q.replace(SPOKEN_NUMBER, (run) => {
    const words = run.trim().split(/[\s-]+/);
    while (words.at(-1) === 'and') words.pop();
    while (words[0] === 'a' && words[1] !== 'hundred' && words[1] !== 'thousand') words.shift();
    const spoken = run.trim().split(/[\s-]+/).length - words.length;
    if (
      !words.some(
        (word) => TEEN_WORDS.includes(word) || TENS_WORDS.includes(word) || /^(?:hundred|thousand)$/.test(word),
      )
    )
      return run;
    let total = 0;
    let current = 0;
    for (const word of words) {
      if (word === 'and') continue;
      if (word === 'a') current += 1;
      else if (UNIT_WORDS.includes(word)) current += UNIT_WORDS.indexOf(word);
      else if (TEEN_WORDS.includes(word)) current += 10 + TEEN_WORDS.indexOf(word);
      else if (TENS_WORDS.includes(word)) current += 20 + 10 * TENS_WORDS.indexOf(word);
      else if (word === 'hundred') current = (current || 1) * 100;
      else {
        total += (current || 1) * 1000;
        current = 0;
      }
    }
    const lead = spoken
      ? `${run
          .trim()
          .split(/[\s-]+/)
          .slice(0, spoken)
          .join(' ')} `
      : '';
    return `${lead}${total + current}${/\s$/.test(run) ? ' ' : ''}`;
  });
}

/**
 * The caller's source and model names said in pieces, as dictation or a quick thumb writes them ("car gurus",
 * "cr v", "rav fours", "f 150"), as the name.
 */
function withNamesJoined(q: string, vocabulary: Vocabulary): string {
  const names = new Map<string, string>();
  for (const name of [...vocabulary.sources, ...vocabulary.models]) {
    const joined = compactName(name);
    if (joined.length >= 3) names.set(joined, normalize(name));
  }
  const tokens = q.split(' ');
  // "Fours": a digit said in a word, in the digit.
  const compact = (token: string) => {
    const stem = token.replace(/s$/, '');
    return compactName(UNIT_WORDS.includes(stem) ? `${UNIT_WORDS.indexOf(stem)}${token.slice(stem.length)}` : token);
  };
  const out: string[] = [];
  for (let at = 0; at < tokens.length;) {
    let joined: string | null = null;
    for (const size of [3, 2]) {
      const run = tokens.slice(at, at + size);
      // "Car gurus?": the punctuation after the last word stays after the name.
      const after = /[?!,.;:]+$/.exec(run.at(-1) ?? '')?.[0] ?? '';
      const words = after ? [...run.slice(0, -1), run.at(-1)!.slice(0, -after.length)] : run;
      if (words.length < size || words.some((token) => !/^[a-z0-9.-]+$/.test(token))) continue;
      const typed = words.map(compact).join('');
      const name = names.get(typed) ?? (typed.endsWith('s') ? names.get(typed.slice(0, -1)) : undefined);
      if (name) {
        joined = `${name}${names.has(typed) ? '' : 's'}${after}`;
        at += size;
        break;
      }
    }
    if (joined) out.push(joined);
    else out.push(tokens[at++]!);
  }
  return out.join(' ');
}

/** Words the rules read, spelled out; with the caller's own names, what a word typed without its vowels may be. */
const SPELLED_WORDS = `how many much used new ground lot stock inventory day days over under group wide store stores
  rooftop rooftops salesperson salespeople person total gross front back end average oldest newest cheapest
  priciest lowest highest longest leads lead calls call deals deal sales sold missed answered answer month months
  week weeks year today yesterday last this price prices miles mileage trucks truck cars car units unit vehicles
  source sources close rate percent show list give pull top which what who only just about finance lease leases
  cash certified appointment appointments status contacted showed lost between break down split compare each
  every sitting aged aging most least number count white black silver gray red blue whole company month-to-date
  from with without than more less since best worst asking listed listing priced odometer inbound outbound
  contacted voicemail duration length revenue profit share breakdown salesman salesmen customer customers
  expensive fastest slowest quickest closed closing appointment showed wholesale aged incoming received quarter
  campaign commission forecast october november september december january february wednesday thursday
  tuesday saturday sunday friday monday sitting salesperson`.split(/\s+/);
/** Everyday words, never read as another word without its vowels ("the" is not "Tahoe"). */
const EVERYDAY_WORDS = `the and for our are was were you your has had have how who why did does not but all any can
  get got its let may off one out own put see set she his her him too two use via way yet then them they this that
  when where there their these those into onto only some such both been being done like make made need said same
  tell very well will would could should while after again also even ever here keep know look next open part real
  seen still time want let lets per yes no now new old big far few run ran bad had off end ask asked did dont
  cant wont isnt arent whats thats hows whos its out put top bit lot lots day way say says buy bought car cars
  ones one them his hers mine ours yours year ago rep reps tho though ok okay pls plz thx hey hi led`.split(/\s+/);

const VOWELS = new Set(['a', 'e', 'i', 'o', 'u']);
/** Whether `typed` is `word` with two letters next to each other swapped ("clsoe" for "close"). */
function lettersSwapped(typed: string, word: string): boolean {
  if (typed.length !== word.length || typed.length < 5 || typed === word) return false;
  const at = [...typed].findIndex((letter, index) => letter !== word[index]);
  return typed[at] === word[at + 1] && typed[at + 1] === word[at] && typed.slice(at + 2) === word.slice(at + 2);
}

/** Whether `typed` is `word` with one or more of its vowels left out ("grnd" for "ground", "lkwood"). */
function vowelsDropped(typed: string, word: string): boolean {
  if (typed.length >= word.length || typed.length < word.length * 0.6 || typed[0] !== word[0]) return false;
  let at = 0;
  for (const letter of word) {
    if (at < typed.length && typed[at] === letter) at += 1;
    else if (!VOWELS.has(letter)) return false;
  }
  return at === typed.length;
}

/**
 * Words typed without their vowels ("hw mny usd on the grnd", "lkwood only", "top slsprsn"), spelled
 * out where exactly one word the rules or the caller's names know fits; any other word is left alone.
 */
function withVowelsBack(q: string, vocabulary: Vocabulary): string {
  const ruleWords = new Set(SPELLED_WORDS);
  const nameWords = new Set<string>();
  const names = [
    ...vocabulary.dealers.flatMap((dealer) => [dealer.name, dealer.city ?? '']),
    ...vocabulary.makes,
    ...vocabulary.models,
    ...vocabulary.sources,
    ...vocabulary.salespeople,
  ];
  for (const name of names)
    for (const part of normalize(name).split(/[^a-z]+/)) if (part.length > 2) nameWords.add(part);
  const known = new Set([...ruleWords, ...nameWords, ...EVERYDAY_WORDS]);
  // The rules' own words first ("grnd" is "ground", not the caller's "Grand Cherokee"), then the caller's names.
  const only = (typed: string, words: Set<string>) => {
    const fits = [...words].filter((candidate) => vowelsDropped(typed, candidate) || lettersSwapped(typed, candidate));
    return fits.length === 1 ? fits[0]! : fits.length ? null : undefined;
  };
  const spelled = new Map<string, string>();
  // "Expolrer's": a word before an apostrophe-s is read too.
  return q.replace(/(?<![a-z0-9'])[a-z]{3,}(?![a-z0-9]|'(?!s\b))/g, (typed) => {
    if (known.has(typed)) return typed;
    if (!spelled.has(typed)) {
      const rule = only(typed, ruleWords);
      // "Civcs": a name's plural, typed without a vowel.
      const plural = typed.endsWith('s') && typed.length > 4 ? only(typed.slice(0, -1), nameWords) : undefined;
      spelled.set(typed, rule ?? (rule === null ? typed : (only(typed, nameWords) ?? (plural ? `${plural}s` : typed))));
    }
    return spelled.get(typed)!;
  });
}

/** Model names as dealers say them: "F150" and "F-150", "Silverados" for "Silverado 1500". */
export function modelsNamed(q: string, models: string[]): string[] {
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
  for (const [nickname, name] of MODEL_NICKNAMES)
    if (nickname.test(q)) named.push(...models.filter((model) => model.toLowerCase().startsWith(name)));
  return [...new Set(named)];
}
/** Trims that are everyday words, or too short to tell from one: named only beside a model ("camry le", "sport civics"). */
const TRIM_WORDS_TOO_COMMON = new Set(
  'base sport limited premium touring select custom special standard value launch edition plus pro max hybrid'.split(
    ' ',
  ),
);
/**
 * Trims as dealers type them ("xle rav4s", "trd offrd tacomas"): a trim's letters over one to three words, its
 * vowels perhaps left out; a two-letter trim or an everyday word only beside a model. Gives each trim named and the
 * words that named it.
 */
export function trimsNamed(q: string, vocabulary: Vocabulary): { trims: string[]; words: Set<string> } {
  const found = { trims: [] as string[], words: new Set<string>() };
  const trims = (vocabulary.trims ?? []).filter((trim) => compactName(trim).length >= 2);
  if (!trims.length) return found;
  const tokens = q.split(' ').map((token) => token.replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, ''));
  const isModel = (token: string | undefined) =>
    token !== undefined && token !== '' && modelsNamed(token, vocabulary.models).length > 0;
  const matches: Array<{ trim: string; start: number; end: number }> = [];
  for (let start = 0; start < tokens.length; start += 1)
    for (let size = 1; size <= 3 && start + size <= tokens.length; size += 1) {
      const run = tokens.slice(start, start + size);
      const typed = compactName(run.join(''));
      if (!typed || run.some((token) => !token)) continue;
      for (const trim of trims) {
        const whole = compactName(trim);
        // "Rubicons", "xles": a trim's plural.
        const single = typed.endsWith('s') && typed.slice(0, -1) === whole;
        if (typed !== whole && !single && !(whole.length >= 6 && size > 1 && vowelsDropped(typed, whole))) continue;
        const common = whole.length <= 2 || TRIM_WORDS_TOO_COMMON.has(whole);
        if (common && !isModel(tokens[start - 1]) && !isModel(tokens[start + size])) continue;
        matches.push({ trim, start, end: start + size });
        for (const token of run) found.words.add(token);
      }
    }
  // "Xle premium" is the XLE Premium, not the XLE too: a trim named inside a longer one is that one.
  const inside = (a: (typeof matches)[number], b: (typeof matches)[number]) =>
    b.start <= a.start && a.end <= b.end && b.end - b.start > a.end - a.start;
  found.trims = [
    ...new Set(matches.filter((match) => !matches.some((other) => inside(match, other))).map((match) => match.trim)),
  ];
  return found;
}
const compactName = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');

/** What dealers call a model in passing ("tacos", "burbs"): the start of the model's name. */
const MODEL_NICKNAMES: Array<[RegExp, string]> = [
  [/\btacos?\b/, 'tacoma'],
  [/\bburbs?\b/, 'suburban'],
  [/\bstangs?\b/, 'mustang'],
  [/\bvettes?\b/, 'corvette'],
  [/\bsilvys?\b|\bsilvies\b/, 'silverado'],
  [/\bcamer(?:y|ys|ies)\b/, 'camry'],
  [/\bfour ?runners?\b|\bforerunners?\b/, '4runner'],
  [/\bwranglers?\b|\bwrangs?\b/, 'wrangler'],
  [/\bgrand cherokees?\b|\bjgcs?\b/, 'grand cherokee'],
];
const MODEL_WORDS_TOO_COMMON = new Set(['grand', 'santa', 'range', 'land', 'model', 'town', 'sport', 'super', 'great']);

const RUN_EDGES = new Set(['of', 'the', 'and', 'at', 'in', 'on', 'by', 'for']);
/** A phrase as a pattern: its words in a row, whatever spaces or punctuation lie between them. */
export const phrasePattern = (phrase: string, flags = '') =>
  new RegExp(`(?<![a-z0-9])${phrase.split(' ').map(escape).join('[^a-z0-9]+')}(?![a-z0-9])`, flags);

/**
 * Rooftops named by two or more words of their name in a row ("Summit Ford" for Summit Ford Westside),
 * longest first: the words name the rooftop, so a make among them is not a make asked about. A run
 * of words every rooftop shares (the group's own name) names none of them.
 */
export function rooftopPhrases(q: string, dealers: Vocabulary['dealers']): Array<{ phrase: string; ids: string[] }> {
  const tokens = (text: string) =>
    normalize(text)
      .split(/[^a-z0-9]+/)
      .filter(Boolean);
  const runs = new Map<string, Set<string>>();
  for (const dealer of dealers) {
    const words = tokens(dealer.name);
    for (let start = 0; start < words.length; start += 1)
      for (let end = start + 2; end <= words.length; end += 1) {
        if (RUN_EDGES.has(words[start]!) || RUN_EDGES.has(words[end - 1]!)) continue;
        const phrase = words.slice(start, end).join(' ');
        runs.set(phrase, (runs.get(phrase) ?? new Set()).add(dealer.id));
      }
  }
  let rest = ` ${tokens(q).join(' ')} `;
  const found: Array<{ phrase: string; ids: string[] }> = [];
  const longestFirst = [...runs].sort(([a], [b]) => b.split(' ').length - a.split(' ').length || b.length - a.length);
  for (const [phrase, ids] of longestFirst) {
    if ((dealers.length > 1 && ids.size === dealers.length) || !rest.includes(` ${phrase} `)) continue;
    found.push({ phrase, ids: [...ids] });
    rest = rest.split(` ${phrase} `).join(' | ');
  }
  return found;
}

/** Salespeople named: the whole name, or a first name only one of them has. */
export function salespersonNamed(q: string, salespeople: string[]): string | undefined {
  const whole = salespeople.find((person) => normalize(q).includes(normalize(person)));
  if (whole) return whole;
  const firsts = new Map<string, string[]>();
  for (const person of salespeople) {
    const first = normalize(person).split(' ')[0]!;
    if (first.length >= 3) firsts.set(first, [...new Set([...(firsts.get(first) ?? []), person])]);
  }
  for (const [first, people] of firsts)
    if (people.length === 1 && new RegExp(`(?<![a-z0-9])${escape(first)}(?:'?s)?(?![a-z0-9])`).test(q))
      return people[0];
  return undefined;
}

export const NOT_WORKED =
  /\b(?:not|never|haven'?t|hasn'?t|have not|has not|wasn'?t|weren'?t)\s+(?:been\s+|yet\s+|ever\s+)*(?:contacted|worked|touched|called back|responded to)\b|\buncontacted\b|\b(?:nobody|no one|noone)(?:'s| has| have)? (?:yet )?(?:contacted|worked|touched|called)\b/g;
export const NEGATED =
  /\b(?:not|never|haven'?t|hasn'?t|have not|has not|didn'?t|did not|don'?t|doesn'?t|wasn'?t|weren'?t|aren'?t|isn'?t)\s+(?:been\s+|yet\s+|ever\s+|get\s+|got\s+)*(?:sold|closed|bought|converted|showed|shown|show(?:ed)? up|lost|set)\b|\bunsold\b|\bno[- ]shows?\b/g;
/**
 * Days to sell, however it is asked ("days to sell", "turn time", "how long does it take to sell",
 * "how fast do trucks sell", "our turn on used"): a sold vehicle's days from stock-in to sale.
 */
export const DAYS_TO_SELL =
  /\bdays? (?:it takes |it took )?to (?:sell|turn|move)\b|\b(?:time|how long|how many days)(?: (?:does|did|do) it take)? to (?:sell|turn|move)\b|\bhow (?:long|fast|quickly) (?:do|does|did) (?:[\w-]+ ){1,5}(?:take to )?(?:sell|turn|move)\b|\bturn ?times?\b|\b(?:take|took|taking|takes)(?: us| them| you| it)? to (?:sell|turn|move)\b|\b(?:longest|slowest|fastest|quickest) to (?:sell|turn|move)\b|\b(?:sold|sells?|selling) (?:the )?(?:fastest|quickest|slowest)\b|\baverage turn\b|\bturn (?:on|for) |\b(?:days? )?from stock[- ]?in to (?:sale|sold|selling)\b|\bfrom (?:arriving|arrival|landing|coming) (?:in|into|on) (?:stock|inventory|the lot) to (?:being )?(?:sold|sale|selling)\b|\b(?:take|took) to go\b|\btook (?:the )?(?:longest|shortest|least time|most time)\b|\b(?:slowest|fastest|quickest)(?: \d{1,2})? (?:units?|cars?|vehicles?|sellers?|movers?)\b/;

/** Figures dealers ask for that the assistant does not compute: answered with where to find them, never with a count instead. */
export const NOT_MEASURED: Array<[RegExp, string]> = [
  [
    /\bvdps?\b|\b(?:page |site |web(?:site)? )?views\b|\bclicks?\b|\b(?:look(?:ed|ing)?|view(?:ed)?|saw|see|seen|visit(?:ed)?|brows(?:e|ed|ing)|click(?:ed)?) (?:\w+ ){0,4}on (?:our|the) (?:web ?site|site)\b|\bimpressions\b|\b(?:web(?:site)?|site) (?:traffic|visits|visitors|sessions)\b|\bsrps?\b|\bvisitors\b|\b(?:went|go|came|come|got) (?:on|to|onto) (?:our|the) (?:web ?sites?|sites?)\b/,
    'the data holds no website or listing traffic (views, clicks, visits); I read vehicles, leads, calls and deals',
  ],
  [
    /\bfloor ?plan\b|\bflooring\b|\bcurtailments?\b|\bholding costs?\b|\binterest (?:cost|expense|paid)\b/,
    'the data holds no floorplan or holding costs; I read vehicles, their prices and days on the lot',
  ],
  [
    /\brecon(?:ditioning)?\b|\bget ?ready\b|\bin service for\b/,
    'the data holds no reconditioning (what is in recon or what it cost); I read vehicles and their status on the lot',
  ],
  [
    /\bvsc\b|\bservice contracts?\b|\bextended warrant(?:y|ies)\b|\bgap\b|\bf ?& ?i products?\b|\bf and i products?\b|\bproduct penetration\b|\bmaintenance plans?\b/,
    "the data holds no F&I products (service contracts, GAP, warranties); I read deals' front and back gross",
  ],
  [
    /\bcost per (?:lead|sale|deal)\b|\bcpl\b|\bspend(?:ing)?\b|\bspent\b|\broi\b|\breturn on\b|\bad budget\b|\bcost of\b/,
    'I do not read what sources cost (GET /leads/stats/by-source gives cost per lead)',
  ],
  [
    /\bturnover\b|\bturn rate\b|\binventory turns?\b|\bturns (?:a|per) year\b/,
    'I do not compute inventory turnover (I can give the average days to sell)',
  ],
  [/\bmedians?\b/, 'I do not compute medians (I can give averages)'],
  [
    /\bobjectives?\b|\bquotas?\b|\bsales targets?\b|\ballocation\b|\bnational(?:ly)?\b|\bin the (?:region|district|zone|country)\b|\bagainst other dealers\b/,
    "the data holds no objectives, allocation or other dealers' figures; I read your own vehicles, leads, calls and deals",
  ],
  [
    /(?<!\bby )\bcommissions?\b|\bspiffs?\b|\bpayroll\b|\bpay ?plans?\b|\bwages?\b|\bsalar(?:y|ies)\b|\bbonus(?:es)?\b|\bpaid (?:out|the salesmen|the salespeople|the reps)\b/,
    'the data holds no pay (commissions, spiffs, payroll); I read deals, their gross and who sold them',
  ],
  [
    /\bskat(?:e|ed|es|ing)\b/,
    'the data holds no skated deals (who took whose customer); I read deals and who sold them',
  ],
  [
    /\bcarfax\b|\bautocheck\b|\baccidents?\b|\bvehicle history\b|\bhistory reports?\b/,
    'the data holds no vehicle history (accidents, owners); I read vehicles, their prices, mileage and days on the lot',
  ],
  [
    /\bmanheim\b|\badesa\b|\b(?:buy|bought|got|acquired|purchased) (?:\w+ ){0,2}at (?:the )?auction\b|\bwhere (?:we|did we) (?:buy|get|acquire)\b|\bacquisition source\b/,
    'the data holds no acquisition source (where a vehicle was bought); I read vehicles, their prices, mileage and days on the lot',
  ],
  [
    /\bnet (?:profit|income)\b|\bexpenses?\b|\boverhead\b|\bp ?& ?l\b|\bprofit and loss\b|\bbottom line\b|\bebitda\b|\bopex\b|\boperating (?:costs?|margin|income)\b/,
    "the data holds no expenses or net profit; I read deals' sale prices and gross",
  ],
  [
    /\b(?:banks?|lenders?|finance (?:company|companies|source|sources)|captives?)\b.*\b(?:fund|funded|funding|approv|bought|buy|paid)|\b(?:which|what|top|most) (?:banks?|lenders?)\b|\b(?:dealer )?reserve\b|\bchargebacks?\b|\bcharge-?backs?\b|\brate (?:markup|spread)\b|\bbuy rate\b|\bcontracts? in transit\b/,
    "the data holds no lenders, reserve or chargebacks; I read deals' contract type, amount financed and gross",
  ],
  [
    /\btraffic\b.*\bweb ?sites?\b|\bweb ?sites?\b.*\btraffic\b|\bweb sessions?\b|\bsessions? (?:per|by) source\b|\bsite sessions\b/,
    'the data holds no website or listing traffic (views, clicks, visits); I read vehicles, leads, calls and deals',
  ],
  [
    /\brecalls?\b|\bopen campaigns?\b/,
    'the data holds no recalls; I read vehicles, their prices, mileage and days on the lot',
  ],
  [
    /\brepair orders?\b|\bros?\b|\bservice (?:drive|lane|advisors?|writers?|appointments?|revenue|hours|bays?)\b|\bservice customers?\b(?!.*\b(?:units?|cars?|vehicles?|inventory|leads?|calls?|deals?)\b)|^(?!.*\b(?:calls?|callers?|phones?)\b).*\b(?:service|parts) (?:dept|department)\b|\bparts (?:sales|counter|gross)\b|\bcustomer pay\b|\bwarranty (?:work|claims?)\b|\btechs?\b|\btechnicians?\b/,
    'the data holds no service or parts (repair orders, technicians, parts sales); I read vehicles, leads, calls and deals',
  ],
  [
    /\b(?:bdc |call |phone )?agents?\b.*\bcalls?\b|\bcalls?\b.*\b(?:bdc |call |phone )?agents?\b|\bwho (?:made|placed|took|dialed|answered) (?:the )?(?:most )?(?:calls|the phones?)\b/,
    'the data holds no one who made or took a call; I read calls by rooftop, source, status and direction',
  ],
  [
    /\bacquisition cost|\bcost basis\b|\binvoices?\b|\bhow much (?:are|r) we into\b|\bhave (?:into|in) (?:those|them|it|em|these)\b|\bcost[- ]?wise\b|\bwhat (?:we|did we) paid\b|\bwhat we paid\b|\bwhat (?:did|do) (?:we|i|you)(?: actually| really| originally)? pay\b|\bhow much (?:did|do) (?:we|i)(?: actually| really| originally)? pay\b|\bour cost\b|\bbook value\b|\bacv\b/,
    'the data holds no acquisition cost (what a vehicle cost us); I read its asking price',
  ],
  [
    /\bhow many (?:texts|text messages|sms(?: messages)?|e-?mails|messages)\b|\b(?:texts|text messages|sms|e-?mails) (?:did|does|do|have|has|were|was) (?:[a-z]+ ){0,3}(?:send|sent|reply|replied)\b|\b(?:texts|text messages|e-?mails) sent\b/,
    'the data holds no texts or emails sent; I read leads, calls and deals',
  ],
  [
    /\bcsi\b|\bnps\b|\b(?:customer )?satisfaction\b|\bsurveys?\b|\b(?:google |online |customer |dealer ?rater )?reviews?\b|\bstar ratings?\b|\bratings?\b/,
    'the data holds no customer satisfaction (CSI, surveys, reviews); I read vehicles, leads, calls and deals',
  ],
  [
    /\b(?:tow(?:ing)? (?:pkg|package)|(?:options?|equipment|feature) (?:pkg|package)s?|packages?|pkgs?)\b|\bdoes (?:it|that|this|the [a-z0-9 -]+?) (?:have|come with) (?:a |an |the )?(?:sunroof|moonroof|leather|heated seats|nav(?:igation)?|tow|hitch|third row|3rd row)\b/,
    'the data holds no options or packages of a vehicle; I read its year, make, model, trim, colour, mileage and price',
  ],
  [
    /\btitles?\b(?! (?:of|for) )|\btitle work\b|\bstips?\b|\bstipulations?\b|\b(?:un)?funded\b|\bfunding\b|\bwaiting on (?:the )?(?:bank|lender)\b/,
    'the data holds no paperwork or funding (titles, stips, funding from the bank); I read deals with their contract type, amounts and salesperson',
  ],
  [
    /\bopt(?:ed|s)?[- ]?outs?\b|\bopted out\b|\bunsubscrib\w*|\bdo not (?:call|text|contact) list\b|\bdnc\b/,
    'the data holds no contact preferences (opt-outs, do-not-call); I read leads with their source, status and assignee',
  ],
  [
    /\bbedliners?\b|\badd[- ]ons?\b|\baccessor(?:y|ies)\b|\baftermarket\b|\bspray[- ]in\b/,
    "the data holds no add-ons or accessories sold with a deal; I read deals' prices, gross and contract type",
  ],
  [
    /\bctr\b|\bclick[- ]?through\b|\bclicks\b|\bimpressions\b|\bcost per click\b|\bcpc\b/,
    'the data holds no advertising clicks or impressions; I read leads and calls by source',
  ],
  [
    /\b(?:employees|headcount|head count|staff(?:ing)? (?:count|size|levels?)|how many (?:people|staff|employees) (?:do we have|work|are on))\b/,
    'the data holds no staff records (employees, headcount); I read the salespeople named on deals and leads',
  ],
  [
    // Asked about alone ("which of those are 4x4?"); "4x4 trucks under 40k" is answered with the 4x4 said back.
    /\b(?:are|is|were|r|have|has)(?: (?:a|an|got))? (?:4x4s?|4wd|awd|2wd|fwd|rwd|four[- ]wheel[- ]drive|all[- ]wheel[- ]drive)\s*\??$|\bdrive ?trains?\b/,
    'the data holds no drivetrain (4x4, AWD); I read make, model, trim, body style, colour, year, mileage and price',
  ],
  [
    /\b(?:fleet|commercial|business|government) (?:accounts?|customers?|buyers?|callers?|clients?)\b|\bfleet\b.*\bvs\.? retail\b/,
    'the data holds no customer types (fleet, commercial, retail); I read leads, calls and deals by source, rooftop and salesperson',
  ],
  [
    /\btest[- ]?drives?\b|\btest[- ]?(?:driven|drove|driving)\b|\bdemo drives?\b/,
    'the data holds no test drives; I read leads (with their appointment and showed statuses), calls and deals',
  ],
  [
    /\b(?:appts?|appointments?) (?:\w+ ){0,2}(?:booked|set|scheduled|on the books) (?:for|on) (?:this |next |tomorrow|today|(?:mon|tues|wednes|thurs|fri|satur|sun)day)|\b(?:appts?|appointments?) (?:for|on) (?:tomorrow|(?:this |next )?(?:mon|tues|wednes|thurs|fri|satur|sun)day)\b/,
    'the data holds no appointment dates or times; a lead has an appointment status, counted by the day the lead came in',
  ],
  [
    /\bbe-?backs?\b|\bbbs\b|\bbb'?s\b|\bcame back (?:in|to the store)\b|\bsecond visits?\b|\brepeat visits?\b/,
    'the data holds no be-backs or repeat visits; I read leads with their statuses (appointment, showed, sold, lost), calls and deals',
  ],
  [
    /\bwho (?:was|were|is) on the phones?\b|\b(?:talk ?time|calls?|call (?:length|time)|answered|missed)\b(?: \w+){0,3} (?:per|by|for each|of each) (?:agent|rep|person|employee|bdc (?:agent|rep))\b|\bwhich (?:rep|salesperson|agent|person|one of us|employee) (?:was |were )?(?:on the phones?|answered|took|picked up|handled)\b|\bwho (?:answered|took|picked up|handled) (?:the |those |these |them|it)\b|\b(?:which|what) (?:bdc |call |phone )?(?:agent|rep)s? (?:let|missed|answered|took|dropped|picked up)\b/,
    'the data holds no one who took or missed a call; I read calls with their rooftop, source, status and length',
  ],
  [
    /\bivr\b|\bhold times?\b|\btime on hold\b|\b(?:stuck|waiting|waited|wait|sat|sitting|left|kept|put) on hold\b|\bon hold (?:for|before)\b|\basa\b|\bring times?\b|\btranscripts?\b|\bmenu options?\b/,
    'the data holds no call-platform detail (IVR paths, hold or ring times, transcripts); I read calls with their rooftop, source, status, length and recording',
  ],
  [
    /\blost reasons?\b|\breasons? (?:for|why|they|we|it) (?:\w+ ){0,3}(?:lost|losing|lose|were lost|was lost)\b|\bwhy (?:\w+ ){0,4}(?:were|was|got|get) lost\b/,
    'the data holds no reason a lead was lost; I read leads with their statuses, sources and salespeople',
  ],
];

/** Constraints dealers ask for that no filter expresses: said back as not used. */
export const CANNOT_FILTER: Array<[RegExp, string]> = [
  [
    /\binternet\b(?! ?price)|\bonline\b(?! ?price)|\bweb\b(?! ?price)|\bweb ?site\b(?! ?price)/,
    '"internet", "online" or "website" as a group of sources (name one, such as Cars.com)',
  ],
  [/\b(?:e-?mail|text|sms|chat) leads?\b/, 'how leads came in (email, text or chat)'],
  [/\brespon(?:d|ded|se|ses)\b|\bwithin (?:an? |\d+ )(?:hours?|minutes?)\b/, 'response times (not in the data I read)'],
];

export const GENERIC = new Set([
  'the',
  'and',
  'auto',
  'autos',
  'motors',
  'motor',
  'group',
  'cars',
  'store',
  'dealership',
]);
