import { describe, expect, it } from 'vitest';
import type { AssistantQuery } from './query';
import { dateRangeOf, understand, type Vocabulary } from './understand';

const vocabulary: Vocabulary = {
  dealers: [
    { id: 'stn', name: 'Summit Toyota North', city: 'Denver', code: 'STN' },
    { id: 'shd', name: 'Summit Honda Downtown', city: 'Denver', code: 'SHD' },
    { id: 'sfw', name: 'Summit Ford Westside', city: 'Lakewood', code: 'SFW' },
    { id: 'sca', name: 'Summit Chevrolet Aurora', city: 'Aurora', code: 'SCA' },
  ],
  makes: ['Toyota', 'Honda', 'Ford', 'Chevrolet', 'Jeep'],
  models: [
    'Camry',
    'RAV4',
    'Tacoma',
    'Civic',
    'CR-V',
    'F-150',
    'Silverado 1500',
    'Grand Cherokee',
    'Wrangler',
    'Escape',
  ],
  bodyStyles: ['SUV', 'Sedan', 'Truck', 'Coupe', 'Minivan'],
  sources: ['Google Ads', 'Cars.com', 'Facebook'],
  salespeople: ['Sam Lee', 'Alex Rivera', 'Jordan Patel'],
  trims: ['LE', 'XLE', 'SR5', 'TRD Off-Road', 'Limited', 'Sport', 'EX'],
};
const NOW = new Date('2026-11-21T15:00:00Z');
const read = (question: string, previous: AssistantQuery | null = null) =>
  understand(question, vocabulary, previous, NOW).query;
/** A question about what the data does not hold: said so, neither answered nor declined. */
const expectNotInData = (question: string) => {
  const answer = understand(question, vocabulary, null, NOW);
  expect(answer, question).toMatchObject({ query: null });
  expect(answer, question).not.toHaveProperty('declined');
};

describe('reading questions', () => {
  it.each([
    [
      'how many pre-owned suvs do we have under 25,000',
      {
        subject: 'vehicles',
        measure: 'count',
        filters: { condition: ['used'], body_style: ['SUV'], price_max: 24999.99 },
      },
    ],
    ['count of F-150s on the lot', { measure: 'count', filters: { model: ['F-150'] } }],
    [
      'which SUVs have been sitting more than 60 days',
      { measure: 'list', field: 'days_on_lot', filters: { body_style: ['SUV'], days_on_lot_min: 61 } },
    ],
    [
      'what is our cheapest truck at Westside',
      { measure: 'min', field: 'price', filters: { dealer_id: ['sfw'], body_style: ['Truck'] } },
    ],
    ['how many cars do we have at Lakewood', { measure: 'count', filters: { dealer_id: ['sfw'] } }],
    [
      'what is the average mileage on used Hondas',
      { measure: 'average', field: 'mileage', filters: { condition: ['used'], make: ['Honda'] } },
    ],
    ['how many vehicles have more than 100k miles', { filters: { mileage_min: 100001 } }],
    [
      'what are the 3 cheapest Civics',
      { measure: 'list', field: 'price', order: 'asc', limit: 3, filters: { model: ['Civic'] } },
    ],
    ['how many vehicles are older than 2018', { filters: { year_max: 2017 } }],
    ['how many 2021 Toyotas', { filters: { make: ['Toyota'], year_min: 2021, year_max: 2021 } }],
    ['how many Porsches do we have', { filters: { make: ['Porsche'] } }],
    ['how many Tacomas are at the Toyota store', { filters: { model: ['Tacoma'], dealer_id: ['stn'] } }],
    ['new vs used inventory', { measure: 'count', group_by: 'condition', filters: {} }],
    [
      'which rooftop has the most used cars',
      { measure: 'count', group_by: 'dealer', filters: { condition: ['used'] } },
    ],
    [
      'how many leads from Facebook this month',
      { subject: 'leads', measure: 'count', filters: { source: 'Facebook', from: '2026-11-01', to: '2026-11-21' } },
    ],
    [
      'list missed calls today',
      { subject: 'calls', measure: 'list', filters: { status: ['missed'], from: '2026-11-21', to: '2026-11-21' } },
    ],
    ['how many cars did we sell this month', { subject: 'sales', measure: 'count' }],
    [
      'how many appts did we set last week',
      {
        subject: 'leads',
        measure: 'count',
        filters: { status: ['appointment'], from: '2026-11-09', to: '2026-11-15' },
      },
    ],
    [
      'total revenue last month',
      { subject: 'sales', measure: 'sum', field: 'sale_price', filters: { from: '2026-10-01', to: '2026-10-31' } },
    ],
    ['who is the best salesperson', { subject: 'sales', group_by: 'salesperson' }],
    [
      'who sold the most cars last month',
      { subject: 'sales', group_by: 'salesperson', filters: { from: '2026-10-01', to: '2026-10-31' } },
    ],
    [
      'show voicemails from yesterday',
      { subject: 'calls', measure: 'list', filters: { status: ['voicemail'], from: '2026-11-20' } },
    ],
    ['how many certified pre-owned Hondas', { filters: { condition: ['certified'], make: ['Honda'] } }],
    ['what is our oldest Escape', { measure: 'max', field: 'days_on_lot' }],
    ['sedans vs suvs', { measure: 'count', group_by: 'body_style', filters: { body_style: ['SUV', 'Sedan'] } }],
    ['what percentage of inventory is used', { measure: 'count', share: true, filters: { condition: ['used'] } }],
    [
      'do we have any red trucks under 40k',
      { measure: 'count', filters: { body_style: ['Truck'], color: ['red'], price_max: 39999.99 } },
    ],
  ] as const)('%s', (question, expected) => {
    expect(read(question)).toMatchObject(expected);
  });

  it('says when a question is not about the data', () => {
    for (const question of ['what will the weather be tomorrow?', 'tell me a joke', '', 'what about used?'])
      expect(read(question)).toBeNull();
  });

  it('follows up on the previous query, changing only what the question names', () => {
    const chain = (questions: string[]) =>
      questions.reduce<AssistantQuery[]>(
        (queries, question) => [...queries, read(question, queries.at(-1) ?? null)!],
        [],
      );
    const [, fords, cheapest, aurora] = chain([
      'how many used trucks do we have',
      'which ones are Fords?',
      'and the cheapest?',
      'what about at Aurora?',
    ]);
    expect(fords).toMatchObject({
      measure: 'list',
      filters: { condition: ['used'], body_style: ['Truck'], make: ['Ford'] },
    });
    expect(cheapest).toMatchObject({ measure: 'min', field: 'price', filters: { make: ['Ford'] } });
    expect(aurora).toMatchObject({ measure: 'min', filters: { make: ['Ford'], dealer_id: ['sca'] } });
    const [, sedans, byStore] = chain(['average price of SUVs', 'and sedans?', 'by store']);
    expect(sedans).toMatchObject({ measure: 'average', filters: { body_style: ['Sedan'] } });
    expect(byStore).toMatchObject({ measure: 'average', group_by: 'dealer', filters: { body_style: ['Sedan'] } });
    const [, missed, honda] = chain(['how many calls last 7 days', 'how many were missed?', 'at the honda store?']);
    expect(missed).toMatchObject({ subject: 'calls', filters: { status: ['missed'], from: '2026-11-15' } });
    expect(honda).toMatchObject({ subject: 'calls', filters: { status: ['missed'], dealer_id: ['shd'] } });
    // A new subject starts over, keeping only the rooftop.
    const [, leads] = chain(['how many used trucks at Aurora', 'how many leads there this week']);
    expect(leads).toMatchObject({ subject: 'leads', filters: { dealer_id: ['sca'] } });
    expect(leads!.filters.condition).toBeUndefined();
  });

  it('reads date ranges in UTC days', () => {
    // On a Saturday the weekend so far is that day; on Monday it is the two days before.
    expect(dateRangeOf('leads over the weekend', NOW)).toEqual({ from: '2026-11-21', to: '2026-11-21' });
    expect(dateRangeOf('over the weekend', new Date('2026-11-23T09:00:00Z'))).toEqual({
      from: '2026-11-21',
      to: '2026-11-22',
    });
    expect(dateRangeOf('last 30 days', NOW)).toEqual({ from: '2026-10-23', to: '2026-11-21' });
    expect(dateRangeOf('this week', NOW)).toEqual({ from: '2026-11-16', to: '2026-11-21' });
    expect(dateRangeOf('last week', NOW)).toEqual({ from: '2026-11-09', to: '2026-11-15' });
    expect(dateRangeOf('last month', NOW)).toEqual({ from: '2026-10-01', to: '2026-10-31' });
    expect(dateRangeOf('in december', NOW)).toEqual({ from: '2025-12-01', to: '2025-12-31' });
    expect(dateRangeOf('last year', NOW)).toEqual({ from: '2025-01-01', to: '2025-12-31' });
    expect(dateRangeOf('lately', NOW)).toBeNull();
  });

  it('reads a month by name or as dealers shorten it, alone or in a run, as its latest occurrence up to today', () => {
    const october = { from: '2026-10-01', to: '2026-10-31' };
    for (const phrase of ['in oct', 'for october', 'oct.', 'october leads', 'and oct?', 'during the month of oct'])
      expect([phrase, dateRangeOf(phrase, NOW)]).toEqual([phrase, october]);
    expect(dateRangeOf('in dec', NOW)).toEqual({ from: '2025-12-01', to: '2025-12-31' });
    expect(dateRangeOf('last nov', NOW)).toEqual({ from: '2025-11-01', to: '2025-11-30' });
    expect(dateRangeOf("oct '25", NOW)).toEqual({ from: '2025-10-01', to: '2025-10-31' });
    expect(dateRangeOf('on oct 15', NOW)).toEqual({ from: '2026-10-15', to: '2026-10-15' });
    expect(dateRangeOf('the 3rd of sept', NOW)).toEqual({ from: '2026-09-03', to: '2026-09-03' });
    expect(dateRangeOf('oct 1-15', NOW)).toEqual({ from: '2026-10-01', to: '2026-10-15' });
    expect(dateRangeOf('from sept to nov', NOW)).toEqual({ from: '2026-09-01', to: '2026-11-30' });
    expect(dateRangeOf('between nov and feb', NOW)).toEqual({ from: '2025-11-01', to: '2026-02-28' });
    expect(dateRangeOf('since oct', NOW)).toEqual({ from: '2026-10-01', to: '2026-11-21' });
    // "May" and "apr" are months only where a month is meant; "top 5 oct deals" and "oct 20 deals" name no day.
    expect(dateRangeOf('may i see the leads', NOW)).toBeNull();
    expect(dateRangeOf('average apr on deals', NOW)).toBeNull();
    expect(dateRangeOf('leads in may', NOW)).toEqual({ from: '2026-05-01', to: '2026-05-31' });
    expect(dateRangeOf('top 5 oct deals', NOW)).toEqual(october);
    expect(dateRangeOf('oct 20 deals', NOW)).toEqual(october);
    expect(dateRangeOf('decent deals', NOW)).toBeNull();
    // A year is a period where it can only be one.
    expect(dateRangeOf('deals in 2025', NOW, { years: true })).toEqual({ from: '2025-01-01', to: '2025-12-31' });
    expect(dateRangeOf('leads since 2025', NOW, { years: true })).toEqual({ from: '2025-01-01', to: '2026-11-21' });
    expect(dateRangeOf('leads for 2025 tacomas', NOW, { years: true })).toBeNull();
    expect(dateRangeOf('deals in 2025', NOW)).toBeNull();
  });

  it('answers over one period and says back any other the question names', () => {
    const full = (question: string, previous: AssistantQuery | null = null) =>
      understand(question, vocabulary, previous, NOW) as { query: AssistantQuery; unused: string[] };
    expect(full('service leads in oct')).toMatchObject({
      query: { subject: 'leads', filters: { type: ['service'], from: '2026-10-01', to: '2026-10-31' } },
      unused: [],
    });
    expect(full('how many deals did jordan have in oct')).toMatchObject({
      query: { subject: 'sales', filters: { salesperson: 'Jordan Patel', from: '2026-10-01', to: '2026-10-31' } },
      unused: [],
    });
    expect(full('how many leads in oct and nov')).toMatchObject({
      query: { filters: { from: '2026-10-01', to: '2026-10-31' } },
      unused: ['the period "nov" (I give one period)'],
    });
    expect(full('how many leads came in last night')).toMatchObject({
      query: { filters: { from: '2026-11-20', to: '2026-11-20' } },
      unused: ['the time of day (I count whole days)'],
    });
    expect(full('deals in early oct').unused).toEqual(['"early" (I give the whole month)']);
    // Of vehicles, a period is when they came in, said so, or when they sold; any other is said back.
    expect(full('how many trucks came in in oct')).toMatchObject({
      query: { filters: { stocked_from: '2026-10-01', stocked_to: '2026-10-31' } },
      unused: [],
    });
    expect(full('how many trucks in stock in oct').unused).toEqual(['the period 2026-10-01 to 2026-10-31']);
    // A year: a period of deals, the vehicle's model year when the words say so, and said back when neither.
    expect(full('how many deals in 2025').query.filters).toEqual({ from: '2025-01-01', to: '2025-12-31' });
    expect(full('how many 2025 tacomas did we sell').query).toMatchObject({
      subject: 'sales',
      filters: { model: ['Tacoma'], year_min: 2025, year_max: 2025 },
    });
    expect(full('how many leads in 2025 on 2024 models').query.filters).toEqual({
      from: '2025-01-01',
      to: '2025-12-31',
      year_min: 2024,
      year_max: 2024,
    });
    expect(full('how many deals after 2024')).toMatchObject({
      query: { filters: {} },
      unused: ['"2024" (I could not tell whether it is a period, a model year or an amount)'],
    });
    expect(full('how many 2021 toyotas in oct 2025').query.filters).toMatchObject({ year_min: 2021, year_max: 2021 });
  });

  it('keeps every constraint it hears: in the query, or said back as not used', () => {
    const full = (question: string, previous: AssistantQuery | null = null) =>
      understand(question, vocabulary, previous, NOW) as { query: AssistantQuery; unused: string[] };
    expect(full('how many deals did Sam Lee do this month')).toMatchObject({
      query: { subject: 'sales', filters: { salesperson: 'Sam Lee', from: '2026-11-01', to: '2026-11-21' } },
      unused: [],
    });
    expect(full('how many calls did we miss yesterday').query).toMatchObject({
      subject: 'calls',
      filters: { status: ['missed'], from: '2026-11-20', to: '2026-11-20' },
    });
    expect(full('how many calls did Sam take last week')).toMatchObject({
      query: { subject: 'calls', filters: { from: '2026-11-09', to: '2026-11-15' } },
      unused: ['the salesperson Sam Lee'],
    });
    expect(full('how many trucks came in this month').query?.filters).toEqual({
      body_style: ['Truck'],
      stocked_from: '2026-11-01',
      stocked_to: '2026-11-21',
    });
    expect(full('how many calls about Tacomas').unused).toEqual(['the model Tacoma']);
    expect(full('missed calls by day this week').unused).toEqual([
      'a breakdown by day (I give the total for the period)',
    ]);
    // A negation is never read as the status it negates.
    expect(full('how many leads havent been contacted').query).toMatchObject({ filters: { status: ['new'] } });
    expect(full('how many leads not sold last month')).toMatchObject({
      query: { filters: { from: '2026-10-01' } },
      unused: ['"not sold" (I cannot count what is not in a status)'],
    });
    expect(full('how many leads not sold last month').query.filters.status).toBeUndefined();
    expect(full('how many cars have no price')).toMatchObject({
      query: { filters: { missing: ['price'] } },
      unused: [],
    });
    // Two periods compared: the first answered, the second given beside it.
    expect(full('leads this month vs last month')).toMatchObject({
      unused: [],
      compareWith: { phrase: 'last month', range: { from: '2026-10-01', to: '2026-10-31' } },
    });
    expect(full('how many leases this month').query).toMatchObject({
      subject: 'sales',
      filters: { contract_type: ['lease'] },
    });
    expect(full('how many F150s did we sell this year').query).toMatchObject({
      subject: 'sales',
      filters: { model: ['F-150'] },
    });
  });

  it('reads a rooftop named by words of its name in a row as the rooftop, a make among them or not', () => {
    const october = read('# of cars sold at summit ford in october');
    expect(october).toMatchObject({
      subject: 'sales',
      measure: 'count',
      filters: { dealer_id: ['sfw'], from: '2026-10-01', to: '2026-10-31' },
    });
    expect(october!.filters.make).toBeUndefined();
    expect(read('how many ford trucks at summit toyota')).toMatchObject({
      filters: { dealer_id: ['stn'], make: ['Ford'], body_style: ['Truck'] },
    });
    expect(read('how many ford trucks at summit ford')).toMatchObject({
      filters: { dealer_id: ['sfw'], make: ['Ford'] },
    });
    expect(read('how many cars at summit ford westside')).toMatchObject({ filters: { dealer_id: ['sfw'] } });
    expect(read('how many cars at summit ford westside')!.filters.make).toBeUndefined();
    // A make alone is still a make; the group's shared name is no rooftop.
    expect(read('how many fords')).toMatchObject({ filters: { make: ['Ford'] } });
    expect(read('how many fords')!.filters.dealer_id).toBeUndefined();
    expect(read('how many cars do we have at summit')!.filters.dealer_id).toBeUndefined();
  });

  it('reads days to sell as sold vehicles’ days from stock-in to sale, and no figure it does not read as another', () => {
    const daysToSell = { subject: 'vehicles', measure: 'average', field: 'days_to_sell' };
    expect(read('avg days to sell a used car')).toMatchObject({
      ...daysToSell,
      filters: { status: ['sold'], condition: ['used'] },
    });
    for (const question of [
      'how long does it take to sell a used truck',
      'how fast do used trucks sell',
      'days to turn on used trucks',
      "what's our turn time on used trucks",
    ])
      expect(read(question)).toMatchObject({
        ...daysToSell,
        filters: { status: ['sold'], condition: ['used'], body_style: ['Truck'] },
      });
    // Over a period: the vehicles sold in it.
    expect(read('avg turn time on used cars last month')).toMatchObject({
      ...daysToSell,
      filters: { status: ['sold'], from: '2026-10-01', to: '2026-10-31' },
    });
    expect(understand('avg turn time on used cars last month', vocabulary, null, NOW)).toMatchObject({ unused: [] });
    expect(read('and trucks?', read('avg days to sell a used car'))).toMatchObject({
      ...daysToSell,
      filters: { status: ['sold'], condition: ['used'], body_style: ['Truck'] },
    });
    expect(read('which trucks sold the fastest')).toMatchObject({
      measure: 'list',
      field: 'days_to_sell',
      order: 'asc',
    });
    // Days on the lot are still those of the vehicles in stock.
    expect(read('how long do used cars sit on average')).toMatchObject({ field: 'days_on_lot' });
    expect(read('how long do used cars sit on average')!.filters.status).toBeUndefined();
    for (const [question, named] of [
      ['avg curb weight of new suvs', '"curb weight"'],
      ['whats our average apr on finance deals', '"apr"'],
      ['average days supply on used cars', '"days supply"'],
      ['median price of used cars', 'medians'],
      ['what is our inventory turnover', 'turnover'],
    ] as const)
      expect(understand(question, vocabulary, null, NOW)).toMatchObject({
        query: null,
        reason: expect.stringContaining(named),
      });
    // Figures it reads, named as dealers name them, are not turned away.
    for (const question of [
      'avg deal size last month',
      'avg front-end gross on used deals',
      'total $ of deals this month',
      'biggest deal this month',
      'lowest priced used honda',
      'average price of white Tacomas at Aurora',
      'avg call length last month',
    ])
      expect(read(question)).not.toBeNull();
  });

  it('says back a qualifier it cannot place on vehicles, and not the words that say nothing of which vehicles', () => {
    const unused = (question: string) => (understand(question, vocabulary, null, NOW) as { unused: string[] }).unused;
    const note = (words: string) => `"${words}" (not something I can filter vehicles by)`;
    expect(unused('how many good condition trucks')).toEqual([note('good condition')]);
    expect(unused('how many trucks in good shape')).toEqual([note('good shape')]);
    expect(unused('how many 4x4 trucks under 40k')).toEqual([note('4x4')]);
    expect(unused('any awd suvs with a sunroof')).toEqual([note('awd'), note('sunroof')]);
    expect(unused('how many low mileage camrys')).toEqual([note('low mileage')]);
    expect(unused('how many one owner trucks')).toEqual([note('one owner')]);
    expect(read('how many good condition trucks')).toMatchObject({
      measure: 'count',
      filters: { body_style: ['Truck'] },
    });
    for (const question of [
      'how many trucks do we have',
      'how many of our used trucks are on the lot',
      'how many total white trucks do we have in stock',
      'how many available trucks at the north store',
      'how many actual cars do we have right now',
      'how many brand new tacomas',
      'how many certified pre-owned suvs',
      'how many 2020 or newer toyota trucks under $35k',
      'how many ford f-150s at summit ford',
      'how many cars with less than 30k miles',
      'compare inventory across rooftops',
      'find me the cheapest jeep wranglers',
    ])
      expect([question, unused(question)]).toEqual([question, []]);
  });

  it('reads models, typos and shorthand as dealers type them', () => {
    expect(read('any silverados under 40k with less than 30k miles?')).toMatchObject({
      subject: 'vehicles',
      measure: 'count',
      filters: { model: ['Silverado 1500'], price_max: 39999.99, mileage_max: 29999 },
    });
    expect(read('how many F150s')).toMatchObject({ filters: { model: ['F-150'] } });
    expect(read('avg price of a crv')).toMatchObject({ measure: 'average', filters: { model: ['CR-V'] } });
    expect(read('how many grand cherokees')).toMatchObject({ filters: { model: ['Grand Cherokee'] } });
    expect(read('hw many lds lst mo')).toMatchObject({
      subject: 'leads',
      measure: 'count',
      filters: { from: '2026-10-01', to: '2026-10-31' },
    });
    expect(read('how many toyta suvs')).toMatchObject({ filters: { make: ['Toyota'], body_style: ['SUV'] } });
    expect(read('whats been sittin the longest at downtown')).toMatchObject({
      subject: 'vehicles',
      measure: 'max',
      field: 'days_on_lot',
      filters: { dealer_id: ['shd'] },
    });
    // What only vehicles have, or a price with nothing else named, asks about vehicles; "grand" is thousands.
    expect(read('anything red under 20 grand?')).toMatchObject({
      subject: 'vehicles',
      measure: 'count',
      filters: { color: ['red'], price_max: 19999.99 },
    });
    expect(read('anything over 90 days at westside')).toMatchObject({
      subject: 'vehicles',
      filters: { days_on_lot_min: 91, dealer_id: ['sfw'] },
    });
    expect(read('any under 20k', read('how many deals this month'))).toMatchObject({
      subject: 'sales',
      filters: { price_max: 19999.99 },
    });
    expect(read('how many of those r red', read('how many deals this month'))).toMatchObject({ subject: 'sales' });
    expect(understand('are we in the red this month', vocabulary, null, NOW)).toMatchObject({ query: null });
  });

  it('reads rates and rankings', () => {
    expect(read('what % of leads from cars.com closed')).toMatchObject({
      subject: 'leads',
      measure: 'rate',
      field: 'sold',
      filters: { source: 'Cars.com' },
    });
    expect(read("what's our answer rate")).toMatchObject({ subject: 'calls', measure: 'rate', field: 'answered' });
    expect(read('whats our missed call rate this month')).toMatchObject({ measure: 'rate', field: 'missed' });
    expect(read('close rate by salesperson')).toMatchObject({ measure: 'rate', group_by: 'salesperson' });
    expect(read('conversion by store')).toMatchObject({ measure: 'rate', group_by: 'dealer' });
    expect(read('which source brought the most leads')).toMatchObject({ measure: 'count', group_by: 'source' });
    expect(read('which ones have been sitting the longest')).toMatchObject({
      subject: 'vehicles',
      measure: 'list',
      field: 'days_on_lot',
      order: 'desc',
      limit: 10,
    });
  });

  it('declines what is not a question about the data, even with data words in it', () => {
    for (const question of [
      'write me an email to a customer letting them know their car is ready for pickup',
      'what will used car prices be next year?',
      'how much is a 2019 camry worth',
      "what's a 2019 camry with 60k miles worth",
      'what would we get for a 2018 f-150 with 90k miles on it',
      'how much is a used tacoma w/ 40k mi worth at auction',
      'whats a 2019 f150 xlt w 80k miles worth on trade',
      'how many units r we gonna sell in december',
      'how many deals are we going to close this month',
      'should we drop the price on our aged trucks',
      'how can we improve our close rate',
      // Sports talk, though a team shares a model's name.
      'who won the broncos game last nite',
      'did the broncos win',
      'whats the score of the game',
    ])
      expect(understand(question, vocabulary, null, NOW)).toMatchObject({ query: null, declined: true });
    const broncos = { ...vocabulary, models: [...vocabulary.models, 'Bronco'] };
    expect(understand('how many broncos did we sell', broncos, null, NOW).query).toMatchObject({
      subject: 'sales',
      filters: { model: ['Bronco'] },
    });
    expect(understand('who sold the most broncos', broncos, null, NOW).query).toMatchObject({
      group_by: 'salesperson',
    });
    expect(understand('which broncos have been on the lot the longest', broncos, null, NOW).query).toMatchObject({
      subject: 'vehicles',
    });
  });

  it('keeps the subject of a follow-up about leads, calls or deals', () => {
    const chain = (questions: string[]) =>
      questions.reduce<AssistantQuery[]>(
        (queries, question) => [...queries, read(question, queries.at(-1) ?? null)!],
        [],
      );
    const [, fromCars, sold, rate] = chain([
      'how many leads did we get last month',
      'how many of em came from cars.com',
      'how many of those sold',
      'and the close rate',
    ]);
    expect(fromCars).toMatchObject({ subject: 'leads', filters: { source: 'Cars.com', from: '2026-10-01' } });
    expect(sold).toMatchObject({ subject: 'leads', filters: { source: 'Cars.com', status: ['sold'] } });
    expect(rate).toMatchObject({ subject: 'leads', measure: 'rate', filters: { source: 'Cars.com' } });
    expect(rate!.filters.status).toBeUndefined();
    const [, taylor] = chain(['how many deals did Sam Lee do this month', 'what about Jordan']);
    expect(taylor).toMatchObject({ subject: 'sales', filters: { salesperson: 'Jordan Patel', from: '2026-11-01' } });
    // A follow-up that changes nothing we read is not answered as the last question again.
    const missed = read('how many missed calls yesterday');
    expect(understand('and then?', vocabulary, missed, NOW)).toMatchObject({ query: null });
    // One that moves the period keeps the rest: the day, or the 7 days, before the last period began.
    expect(read('and the day before', missed)).toMatchObject({
      subject: 'calls',
      filters: { status: ['missed'], from: '2026-11-19', to: '2026-11-19' },
    });
    const [, weekBefore, dayBefore, monthBefore, october] = chain([
      'how many used deals yesterday',
      'and the week before that?',
      'the day before',
      'and the month before',
      'same for october',
    ]);
    expect(weekBefore).toMatchObject({
      subject: 'sales',
      measure: 'count',
      filters: { condition: ['used'], from: '2026-11-13', to: '2026-11-19' },
    });
    expect(dayBefore).toMatchObject({ filters: { condition: ['used'], from: '2026-11-12', to: '2026-11-12' } });
    expect(monthBefore).toMatchObject({ filters: { condition: ['used'], from: '2026-10-01', to: '2026-10-31' } });
    expect(october).toMatchObject({ filters: { condition: ['used'], from: '2026-10-01', to: '2026-10-31' } });
    expect(read('and september?', october)).toMatchObject({ filters: { from: '2026-09-01', to: '2026-09-30' } });
    // With no period to go back from, it says so rather than answer the last question again.
    expect(understand('and the week before that', vocabulary, read('how many deals'), NOW)).toMatchObject({
      query: null,
      reason: expect.stringContaining('the last answer had none'),
    });
    expect(read('day before yesterday', missed)).toMatchObject({ filters: { status: ['missed'], from: '2026-11-19' } });
    // What the new subject cannot use of the last question is said back.
    expect(understand('and deals', vocabulary, read('how many calls from Facebook this month'), NOW)).toMatchObject({
      query: { subject: 'sales', filters: { from: '2026-11-01' } },
      unused: ['the source Facebook (from the last question)'],
    });
    // "How many" asks for one count: the last answer's breakdown is not kept unless named again.
    const [, appointments] = chain(['leads by source last month', 'how many appts did we set last week']);
    expect(appointments).toMatchObject({
      subject: 'leads',
      measure: 'count',
      filters: { status: ['appointment'], from: '2026-11-09', to: '2026-11-15' },
    });
    expect(appointments!.group_by).toBeUndefined();
    const [, lastWeek, byStore] = chain(['deals by salesperson this month', 'how many last week', 'and by store?']);
    expect(lastWeek).toMatchObject({ subject: 'sales', measure: 'count', filters: { from: '2026-11-09' } });
    expect(lastWeek!.group_by).toBeUndefined();
    expect(byStore).toMatchObject({ group_by: 'dealer', filters: { from: '2026-11-09' } });
    const [, yesterday] = chain(['how many missed calls this week', 'yesterday']);
    expect(yesterday).toMatchObject({ subject: 'calls', filters: { status: ['missed'], from: '2026-11-20' } });
  });
});

describe('runs of model years', () => {
  it('reads a run of model years as dealers write it, and a single year or a run of days as before', () => {
    for (const question of [
      'how many 2019-2021 hondas with under 60k miles',
      'how many 2019 to 2021 hondas',
      'how many hondas between 2019 and 2021',
      "how many '19-'21 hondas",
      'how many 2019-21 hondas',
    ])
      expect(read(question)).toMatchObject({
        subject: 'vehicles',
        filters: { make: ['Honda'], year_min: 2019, year_max: 2021 },
      });
    expect(read('how many 2019-2021 hondas with under 60k miles')?.filters.mileage_max).toBe(59999);
    // Of deals, a run of model years when vehicles follow it.
    expect(read('how many 2019-2021 tacomas did we sell')).toMatchObject({
      subject: 'sales',
      filters: { model: ['Tacoma'], year_min: 2019, year_max: 2021 },
    });
    // Unchanged: one model year, a run of days, a range of prices.
    expect(read('how many 2019 hondas')).toMatchObject({ filters: { year_min: 2019, year_max: 2019 } });
    const days = read('how many deals oct 1-15');
    expect(days).toMatchObject({ subject: 'sales', filters: { from: '2026-10-01', to: '2026-10-15' } });
    expect(days!.filters.year_min).toBeUndefined();
    expect(read('cars between 20k and 30k')).toMatchObject({ filters: { price_min: 20000, price_max: 30000 } });
    expect(read('cars between 2019 and 2021')?.filters.price_min).toBeUndefined();
  });
});

describe('figures as dealers name them', () => {
  it('reads miles, odometer, asking, age and front or back end as the figures they are, with periods taken out first', () => {
    for (const [question, field] of [
      ['avg miles on used trucks', 'mileage'],
      ['avg odometer on used trucks', 'mileage'],
      ['average asking price of used trucks', 'price'],
      ['avg price of cars under 50k miles', 'price'],
      ['average days on used trucks', 'days_on_lot'],
      ['avg age of used suvs', 'days_on_lot'],
    ] as const)
      expect(read(question)).toMatchObject({ subject: 'vehicles', measure: 'average', field });
    expect(read('avg miles on used trucks')).toMatchObject({ filters: { condition: ['used'], body_style: ['Truck'] } });
    for (const [question, field] of [
      ['total front end gross mtd', 'front_gross'],
      ['total front-end gross this month', 'front_gross'],
      ['avg frontend gross this month', 'front_gross'],
      ['total back end gross mtd', 'back_gross'],
    ] as const)
      expect(read(question)).toMatchObject({
        subject: 'sales',
        field,
        filters: { from: '2026-11-01', to: '2026-11-21' },
      });
    expect(read('avg back end gross last wk')).toMatchObject({ field: 'back_gross', filters: { from: '2026-11-09' } });
    // Still unsupported: a figure it does not read.
    for (const question of ['avg curb weight of new suvs mtd', 'average apr on finance deals ytd'])
      expect(understand(question, vocabulary, null, NOW)).toMatchObject({
        query: null,
        reason: expect.stringContaining('is not a figure I read'),
      });
  });
});

describe('sources by the nicknames dealers use', () => {
  const sources = {
    ...vocabulary,
    sources: ['Google Ads', 'Google Organic', 'Cars.com', 'CarGurus', 'Autotrader', 'Facebook'],
  };
  const heard = (question: string) => understand(question, sources, null, NOW);
  it('reads a nickname as the one source of the caller’s it names, and says back one it cannot place', () => {
    expect(heard('how many fb leads ytd')).toMatchObject({
      unused: [],
      query: { subject: 'leads', measure: 'count', filters: { source: 'Facebook', from: '2026-01-01' } },
    });
    expect(heard('how many cg leads last month').query).toMatchObject({ filters: { source: 'CarGurus' } });
    expect(heard('how many at leads this month').query).toMatchObject({ filters: { source: 'Autotrader' } });
    expect(heard('leads from cars this month').query).toMatchObject({ filters: { source: 'Cars.com' } });
    expect(heard('how many calls from fb yesterday').query).toMatchObject({
      subject: 'calls',
      filters: { source: 'Facebook' },
    });
    // "google" with two Google sources, "ig" with no Instagram source: said back, never dropped.
    expect(heard('how many google leads')).toMatchObject({
      unused: [expect.stringContaining('Google Ads or Google Organic')],
      query: { filters: {} },
    });
    expect(heard('how many ig leads')).toMatchObject({ unused: [expect.stringContaining('"ig"')] });
    expect(read('how many google leads')).toMatchObject({ filters: { source: 'Google Ads' } });
    // Unchanged: "cars", "at" as the words they usually are.
    expect(heard('how many cars do we have').query).toMatchObject({ subject: 'vehicles', filters: {} });
    expect(heard('how many leads at the north store').query).toMatchObject({ filters: { dealer_id: ['stn'] } });
    expect(heard('look at leads this week').query!.filters.source).toBeUndefined();
  });
});

describe('small talk', () => {
  it('declines greetings and small talk, but not a question about the data that starts with one', () => {
    for (const question of ['hey hows ur day going', 'hi', 'hello there!', 'thanks', 'who are you', "how's it going"])
      expect(understand(question, vocabulary, null, NOW)).toMatchObject({ query: null, declined: true });
    expect(read('hey how many leads today')).toMatchObject({ subject: 'leads', filters: { from: '2026-11-21' } });
    expect(read('thanks, and how many calls yesterday')).toMatchObject({ subject: 'calls' });
    // A data question it cannot read is still said plainly, not declined.
    expect(understand('how are sales this month', vocabulary, null, NOW)).not.toMatchObject({ declined: true });
  });
});

describe('follow-ups that order, narrow, compare or act', () => {
  const chain = (questions: string[]) =>
    questions.reduce<AssistantQuery[]>(
      (queries, question) => [...queries, read(question, queries.at(-1) ?? null)!],
      [],
    );

  it('lists the same set in the order a follow-up asks for', () => {
    const tacomas = { condition: ['used'], model: ['Tacoma'], price_max: 34999.99 };
    for (const [question, field, order] of [
      ['which ones have the lowest miles', 'mileage', 'asc'],
      ['cheapest', 'price', 'asc'],
      ['newest', 'days_on_lot', 'asc'],
      ['highest price', 'price', 'desc'],
      ['most miles', 'mileage', 'desc'],
    ] as const) {
      const [, ordered] = chain(['list the used tacomas under 35k', question]);
      expect(ordered, question).toMatchObject({ subject: 'vehicles', measure: 'list', field, order, filters: tacomas });
    }
    expect(chain(['how many used tacomas under 35k', 'which ones have the lowest miles'])[1]).toMatchObject({
      measure: 'list',
    });
    // "The cheapest one" is still the one, as is "cheapest" after a count (a sixth set's "civcs under 20", "cheapest").
    expect(chain(['how many used tacomas under 35k', 'whats the cheapest one'])[1]).toMatchObject({ measure: 'min' });
    expect(chain(['how many used tacomas under 35k', 'cheapest'])[1]).toMatchObject({
      measure: 'min',
      filters: tacomas,
    });
  });

  it('reads those leads that turned into deals, closed or bought as the sold ones, keeping every filter', () => {
    const october = { from: '2026-10-01', to: '2026-10-31', source: 'Cars.com' };
    for (const question of [
      'how many of those turned into deals',
      'how many of those closed',
      'how many of them became sales',
      'how many of those bought',
    ]) {
      const [, sold] = chain(['how many leads did we get from cars.com in october', question]);
      expect(sold, question).toEqual({ subject: 'leads', measure: 'count', filters: { ...october, status: ['sold'] } });
    }
    const [, rate] = chain(['how many leads did we get from cars.com in october', 'what % of those bought']);
    expect(rate).toMatchObject({ subject: 'leads', measure: 'rate', field: 'sold', filters: october });
  });

  it('ranks salespeople by the gross named, not by deal count', () => {
    expect(read('whos our top salesperson ytd by gross')).toMatchObject({
      measure: 'sum',
      field: 'total_gross',
      group_by: 'salesperson',
    });
    // A ranking by a figure it does not read is said back, not silently made a count.
    expect(understand('top salesperson by commission this year', vocabulary, null, NOW)).toMatchObject({
      query: { measure: 'count', group_by: 'salesperson' },
      unused: [expect.stringContaining('ranking by "commission"')],
    });
    expect(understand('top salesperson by units this year', vocabulary, null, NOW)).toMatchObject({ unused: [] });
    expect(read('who sold the most back end gross this year')).toMatchObject({
      measure: 'sum',
      field: 'back_gross',
      group_by: 'salesperson',
    });
  });

  it('keeps the period and filters when a follow-up adds a filter', () => {
    // A part of the last answer's rows is counted with its share of them.
    const [, firstTime] = chain(['calls from google ads yesterday', 'how many were first time callers']);
    expect(firstTime).toEqual({
      subject: 'calls',
      measure: 'count',
      share: true,
      whole_filters: { source: 'Google Ads' },
      filters: { from: '2026-11-20', to: '2026-11-20', source: 'Google Ads', first_time: true },
    });
  });

  it('keeps the figure and period of a comparison, swapping the filter', () => {
    for (const question of ['vs cash deals', 'compared to cash deals', 'what about cash deals', 'and cash']) {
      const [, cash] = chain(['avg front gross on finance deals last month', question]);
      expect(cash, question).toEqual({
        subject: 'sales',
        measure: 'average',
        field: 'front_gross',
        filters: { from: '2026-10-01', to: '2026-10-31', contract_type: ['cash'] },
      });
    }
  });

  it("reads a question about one row of a breakdown in the breakdown's period", () => {
    const [, aurora, lastMonth] = chain([
      'leads by store this month',
      'whats the close rate for aurora',
      'and last month?',
    ]);
    expect(aurora).toEqual({
      subject: 'leads',
      measure: 'rate',
      field: 'sold',
      filters: { from: '2026-11-01', to: '2026-11-21', dealer_id: ['sca'] },
    });
    expect(lastMonth?.filters).toEqual({ from: '2026-10-01', to: '2026-10-31', dealer_id: ['sca'] });
    // Naming its own period, it is a question of its own; with no breakdown before it, it is asked over the last
    // question's period too (as any question of the same subject that names none).
    expect(chain(['leads by store this month', 'close rate for aurora last month'])[1]?.filters).toEqual({
      dealer_id: ['sca'],
      from: '2026-10-01',
      to: '2026-10-31',
    });
    expect(chain(['how many leads this month', 'whats the close rate for aurora'])[1]?.filters).toEqual({
      dealer_id: ['sca'],
      from: '2026-11-01',
      to: '2026-11-21',
    });
    expect(chain(['how many leads this month', 'whats the close rate for aurora all time'])[1]?.filters).toEqual({
      dealer_id: ['sca'],
    });
  });

  it('compares the sources named, side by side, for leads and calls', () => {
    for (const question of ['facebook vs cars.com leads this month', 'leads from facebook or cars.com this month'])
      expect(read(question), question).toEqual({
        subject: 'leads',
        measure: 'count',
        group_by: 'source',
        filters: { from: '2026-11-01', to: '2026-11-21', sources: ['Cars.com', 'Facebook'] },
      });
    expect(read('answer rate google ads vs facebook')).toMatchObject({
      subject: 'calls',
      measure: 'rate',
      group_by: 'source',
      filters: { sources: ['Google Ads', 'Facebook'] },
    });
    // A follow-up naming one source narrows to it.
    const [, facebook] = chain(['facebook vs cars.com leads this month', 'just facebook']);
    expect(facebook?.filters).toEqual({ from: '2026-11-01', to: '2026-11-21', source: 'Facebook' });
  });

  it('reads what a fourth set written apart from the rules found it missing', () => {
    // The whole of a share is what follows "of".
    expect(read('what % of our new inventroy is white')).toMatchObject({
      share: true,
      whole_filters: { condition: ['new'] },
      filters: { condition: ['new'], color: ['white'] },
    });
    // "The 5 that's been sitting the longest", after a count: those, in that order.
    const [, five] = chain(['how many camrys at the aurora store', 'show me the 5 thats been sitting the longest']);
    expect(five).toMatchObject({ measure: 'list', field: 'days_on_lot', order: 'desc', limit: 5 });
    expect(five?.filters).toMatchObject({ dealer_id: ['sca'] });
    // A bare breakdown continues the last question's deals and period.
    const [, , bySalesman] = chain(['how many deals we got mtd', 'total front end gross on em', 'units by salesman']);
    expect(bySalesman).toEqual({
      subject: 'sales',
      measure: 'count',
      group_by: 'salesperson',
      filters: { from: '2026-11-01', to: '2026-11-21' },
    });
    // "vm" is voicemail; "did casey close" is sold.
    expect(chain(['answer rate on inbound calls last 30 days', 'how many of em went to vm'])[1]?.filters).toMatchObject(
      {
        status: ['voicemail'],
        direction: 'inbound',
      },
    );
    expect(
      chain(['how many leads r assigned to sam lee', 'how many of those did sam close'])[1]?.filters,
    ).toMatchObject({ salesperson: 'Sam Lee', status: ['sold'] });
    expect(read('pull up the facebook leads from the last 60 days')).toMatchObject({ measure: 'list' });
    expect(read('cash vs finance vs lease deals last 90 days')).toMatchObject({
      group_by: 'contract_type',
      filters: { contract_type: ['lease', 'finance', 'cash'] },
    });
    for (const question of [
      'whats the diff between a tundra sr5 and a limited',
      'whats a good pay plan for bdc reps, hourly or per appt set?',
      'what is the towing capacity of an f150',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    // A difference between figures of theirs is still a question.
    expect(read('whats the difference between new and used gross this month')).not.toBeNull();
  });

  it('reads what a fifth set written apart from the rules found it missing', () => {
    // Quarters: this one to date, the last one, one named (its latest that has begun, or of a year).
    expect(dateRangeOf('deals this qtr', NOW)).toEqual({ from: '2026-10-01', to: '2026-11-21' });
    expect(dateRangeOf('deals qtd', NOW)).toEqual({ from: '2026-10-01', to: '2026-11-21' });
    expect(dateRangeOf('deals last quarter', NOW)).toEqual({ from: '2026-07-01', to: '2026-09-30' });
    expect(dateRangeOf('gross for q3?', NOW)).toEqual({ from: '2026-07-01', to: '2026-09-30' });
    expect(dateRangeOf('gross in q4 2025', NOW)).toEqual({ from: '2025-10-01', to: '2025-12-31' });
    expect(dateRangeOf('gross in q4', NOW)).toEqual({ from: '2026-10-01', to: '2026-11-21' });
    // Narrowing a breakdown to one of its rows gives one figure; "past 2 wks" is a period, not days on a lot.
    const [, , lakewood] = chain([
      'whats our answer rate been the last 7 days',
      'break that out by store',
      'ok just lakewood, past 2 wks',
    ]);
    expect(lakewood).toEqual({
      subject: 'calls',
      measure: 'rate',
      field: 'answered',
      filters: { from: '2026-11-08', to: '2026-11-21', dealer_id: ['sfw'] },
    });
    // PVR is per deal; "rank em by" keeps the breakdown with the new figure.
    expect(chain(['how many used finance deals mtd', 'back end pvr on those?'])[1]).toMatchObject({
      measure: 'average',
      field: 'back_gross',
    });
    const [units, gross] = chain(['top 3 sales ppl by units this qtr', 'rank em by total gross instead']);
    expect(units).toMatchObject({ measure: 'count', group_by: 'salesperson', filters: { from: '2026-10-01' } });
    expect(gross).toMatchObject({ measure: 'sum', field: 'total_gross', group_by: 'salesperson' });
    // A share of the last answer's rows, asked again for another status.
    const [, appointments, lost] = chain([
      'how many service leads have we gotten ytd',
      'what % of those are sitting at appt status',
      'what about lost',
    ]);
    expect(appointments).toMatchObject({
      measure: 'count',
      share: true,
      whole_filters: { type: ['service'] },
      filters: { type: ['service'], status: ['appointment'] },
    });
    expect(lost).toMatchObject({ share: true, whole_filters: { type: ['service'] }, filters: { status: ['lost'] } });
    // F&I products are not in the data: said so, not answered with deals.
    expect(understand('whats our vsc penetration on those', vocabulary, units!, NOW)).toMatchObject({
      query: null,
      reason: expect.stringMatching(/F&I products/),
    });
  });

  it('reads what a sixth set written apart from the rules found it missing', () => {
    // "Between 20 and 30k" is $20,000 to $30,000; "dyas" is days; vehicles break down by trim.
    expect(read('how many 2020-2022 used suvs do we have priced between 20 and 30k')?.filters).toMatchObject({
      price_min: 20000,
      price_max: 30000,
      year_min: 2020,
      year_max: 2022,
    });
    expect(read('how many camrys did we sell in the last 90 dyas')?.filters).toMatchObject({ from: '2026-08-24' });
    expect(chain(['how many new camrys at toyota north', 'break em down by trim'])[1]).toMatchObject({
      group_by: 'trim',
      filters: { condition: ['new'], model: ['Camry'], dealer_id: ['stn'] },
    });
    // A ranking that names its rows afresh keeps where and when, not the last answer's narrowing.
    const [, , ranking] = chain([
      '# of deals honda downtown did last month',
      'how many were leases',
      'who had the most deals there last month',
    ]);
    expect(ranking).toEqual({
      subject: 'sales',
      measure: 'count',
      group_by: 'salesperson',
      ranked: true,
      filters: { dealer_id: ['shd'], from: '2026-10-01', to: '2026-10-31' },
    });
    // A breakdown by source after a question about one source is over every source.
    const [, , bySource] = chain([
      'close rate on cars.com leads?',
      'and facebook',
      'which lead source closes the best',
    ]);
    expect(bySource).toMatchObject({ measure: 'rate', field: 'sold', group_by: 'source', filters: {} });
    for (const question of [
      "how many cars do u think we'll sell in december",
      'give me a word track for when a customer says the payment is too high',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    expect(understand('how many units r stuck in recon rn', vocabulary, null, NOW)).toMatchObject({
      query: null,
      reason: expect.stringMatching(/reconditioning/),
    });
  });

  it('reads what a seventh set written apart from the rules found it missing', () => {
    // A make left out is left out, not asked for; "cheapest first" lists.
    expect(
      read('show me certified units priced over 30k, 2023 or newer, excluding jeeps - cheapest first'),
    ).toMatchObject({
      measure: 'list',
      field: 'price',
      order: 'asc',
      filters: { condition: ['certified'], exclude_make: ['Jeep'], year_min: 2023 },
    });
    expect(read('how many used cars other than fords under 20k')?.filters).toEqual({
      condition: ['used'],
      exclude_make: ['Ford'],
      price_max: 19999.99,
    });
    expect(understand('excluding jeeps how many suvs', vocabulary, null, NOW)).toMatchObject({ unused: [] });
    // "Which 10 … the longest" lists ten; "avg total gross per deal for each salesperson" is read.
    expect(read('which 10 units have been sitting the longest at toyota north')).toMatchObject({
      measure: 'list',
      limit: 10,
      field: 'days_on_lot',
    });
    expect(read('avg total gross per deal for each sales person last 90 days')).toMatchObject({
      measure: 'average',
      field: 'total_gross',
      group_by: 'salesperson',
    });
    expect(understand('how many vdp views have those gotten on the website', vocabulary, null, NOW)).toMatchObject({
      query: null,
      reason: expect.stringMatching(/website or listing traffic/),
    });
  });

  it('reads what a ninth set written apart from the rules found it missing', () => {
    // "Their … over that time" keeps the rooftop and period, with what it adds.
    const [, rate] = chain([
      'how many inbound calls did the aurora store miss in the last 30 days',
      'whats their answer rate on inbound over that time',
    ]);
    expect(rate).toEqual({
      subject: 'calls',
      measure: 'rate',
      field: 'answered',
      filters: { dealer_id: ['sca'], from: '2026-10-23', to: '2026-11-21', direction: 'inbound' },
    });
    // Another figure, the same measure; contract types split out; "last months deals".
    const [, back, split, biggest] = chain([
      'total front end gross last month',
      'and back end?',
      'split last months deals out by cash finance lease',
      'whats the biggest deal we did last month, by total gross',
    ]);
    expect(back).toMatchObject({ measure: 'sum', field: 'back_gross', filters: { from: '2026-10-01' } });
    expect(split).toMatchObject({ group_by: 'contract_type', filters: { from: '2026-10-01', to: '2026-10-31' } });
    expect(biggest).toMatchObject({ measure: 'max', field: 'total_gross' });
    expect(read('which new ones took the longest to sell')).toMatchObject({ measure: 'list', field: 'days_to_sell' });
    // "Still sitting in new status" after leads is those leads, not vehicles.
    const [, fresh, listed] = chain([
      'how many used leads did the toyota store get in the last 60 days',
      'how many of those r still sitting in new status',
      'list em',
    ]);
    expect(fresh).toMatchObject({ subject: 'leads', filters: { type: ['used'], status: ['new'], dealer_id: ['stn'] } });
    expect(listed).toMatchObject({ subject: 'leads', measure: 'list' });
    expect(read('pull the last 10 missed inbound calls at the ford store')).toMatchObject({
      subject: 'calls',
      measure: 'list',
      limit: 10,
    });
  });

  it('reads what a tenth set written apart from the rules found it missing', () => {
    const [, backEnd, byStore, top] = chain([
      'total gross for the whole group ytd',
      'just back end',
      'which store did the most',
      'show me the top 5 back end deals',
    ]);
    expect(backEnd).toMatchObject({ measure: 'sum', field: 'back_gross' });
    expect(byStore).toMatchObject({ measure: 'sum', field: 'back_gross', group_by: 'dealer' });
    expect(top).toMatchObject({ measure: 'list', field: 'back_gross', order: 'desc', limit: 5 });
    expect(
      understand('whats floorplan interest costing us on units over 60 days', vocabulary, null, NOW),
    ).toMatchObject({
      query: null,
      reason: expect.stringMatching(/floorplan/),
    });
  });

  it('reads what an eleventh and a twelfth set written apart from the rules found it missing', () => {
    // PVR is gross per vehicle retailed: deals' average total gross, and a question about deals alone.
    expect(read('pvr mtd?')).toMatchObject({ subject: 'sales', measure: 'average', field: 'total_gross' });
    expect(read('back end pvr this month')).toMatchObject({ subject: 'sales', field: 'back_gross' });
    const [, leases, finance] = chain([
      'pvr mtd?',
      'what % of those were leases',
      'avg back end on just the finance deals',
    ]);
    expect(leases).toMatchObject({ share: true, filters: { contract_type: ['lease'], from: '2026-11-01' } });
    expect(finance).toMatchObject({ field: 'back_gross', filters: { contract_type: ['finance'], from: '2026-11-01' } });
    // "The top guy there by units": salespeople ranked by deals, at that rooftop in that period.
    const [, top] = chain(['whats the pvr at the honda store last mo', 'who was the top guy there by units']);
    expect(top).toMatchObject({
      subject: 'sales',
      measure: 'count',
      group_by: 'salesperson',
      ranked: true,
      filters: { dealer_id: ['shd'], from: '2026-10-01', to: '2026-10-31' },
    });
    expect(read('which source rang the phones the most in the last 30 days')).toMatchObject({
      subject: 'calls',
      group_by: 'source',
    });
    expect(read('lead status breakdown for this month')).toMatchObject({ subject: 'leads', group_by: 'status' });
    expect(read('how many white tacos do we have on the lot')).toMatchObject({
      filters: { color: ['white'], model: ['Tacoma'] },
    });
    const [, cheapest] = chain(['how many used wranglers do we got on the lot', 'cheapest 3?']);
    expect(cheapest).toMatchObject({ measure: 'list', field: 'price', order: 'asc', limit: 3 });
    // Customer satisfaction is not in the data: said so, never another figure.
    expect(understand('hows our csi score trending this yr', vocabulary, null, NOW)).toMatchObject({
      query: null,
      reason: expect.stringMatching(/satisfaction/),
    });
    expect(understand('how does a money factor convert to an apr on a lease', vocabulary, null, NOW)).toMatchObject({
      query: null,
      declined: true,
    });
  });

  it('reads what a thirteenth and a fourteenth set written apart from the rules found it missing', () => {
    // Words typed without their vowels are the words the rules or the caller's names know.
    const [used, days, lakewood, oldest, wide] = chain([
      'hw many usd on the grnd rn',
      'avg dys on lot',
      'lkwood only',
      'oldst 5',
      'how many ovr 90 dys grp wide',
    ]);
    expect(used).toMatchObject({ subject: 'vehicles', measure: 'count', filters: { condition: ['used'] } });
    // A figure asked in a few words, naming nothing else, is of the same rows.
    expect(days).toMatchObject({ measure: 'average', field: 'days_on_lot', filters: { condition: ['used'] } });
    expect(lakewood).toMatchObject({ filters: { condition: ['used'], dealer_id: ['sfw'] } });
    expect(oldest).toMatchObject({ measure: 'list', field: 'days_on_lot', limit: 5 });
    expect(wide).toMatchObject({ measure: 'count', filters: { condition: ['used'], days_on_lot_min: 91 } });
    expect(wide!.filters).not.toHaveProperty('dealer_id');
    // "The" is not "Tahoe" without its vowels, nor any everyday word another.
    expect(read('how many of the trucks are at the north store')).toMatchObject({ filters: { dealer_id: ['stn'] } });
    expect(read('how many of the trucks are at the north store')!.filters).not.toHaveProperty('model');
    expect(read('top slsprsn on totl gross last month')).toMatchObject({
      group_by: 'salesperson',
      field: 'total_gross',
    });
    expect(understand('u thnk we hit 60 ths mo', vocabulary, null, NOW)).toMatchObject({ declined: true });
    expect(understand('explain lease vs finance to a new hire in plain english', vocabulary, null, NOW)).toMatchObject({
      declined: true,
    });
    // "The close rate for each of those sources" keeps the breakdown; "what about front gross" ranks by it.
    const [, , bySource] = chain([
      'how many leads came in over the last 90 days',
      'split that out by source',
      'whats the close rate for each of those sources',
    ]);
    expect(bySource).toMatchObject({ measure: 'rate', group_by: 'source', filters: { from: '2026-08-24' } });
    const [, front] = chain(['which store did the most deals last month', 'what about front gross']);
    expect(front).toMatchObject({ measure: 'sum', field: 'front_gross', group_by: 'dealer', ranked: true });
    // "Which lead source had the most missed ones" after calls: calls missed, by source.
    const [, missed] = chain(['whats our answer rate last 30 days', 'which lead source had the most missed ones']);
    expect(missed).toMatchObject({ subject: 'calls', group_by: 'source', filters: { status: ['missed'] } });
    const [, split, finance] = chain([
      'how many deals did we book last month',
      "how'd that split between cash, finance and lease",
      'avg back end gross on the finance deals?',
    ]);
    expect(split).toMatchObject({ group_by: 'contract_type', filters: { from: '2026-10-01' } });
    expect(finance).toMatchObject({ field: 'back_gross', filters: { contract_type: ['finance'], from: '2026-10-01' } });
    // "Those 60+ day units" after "over 60 days": the same set.
    const [, , those] = chain([
      'how many used on the ground',
      'how many of em been sitting over 60 days',
      'which store is carrying the most of those 60+ day used units',
    ]);
    expect(those).toMatchObject({ group_by: 'dealer', filters: { days_on_lot_min: 61 } });
  });

  it('reads what a fifteenth and a sixteenth set written apart from the rules found it missing', () => {
    // "How does that stack up vs the other stores": the same count across every rooftop; "back to mine" returns.
    const [, others, mine] = chain([
      'how many new units do we have on the ground at toyota north right now',
      'how does that stack up vs the other stores',
      'ok back to mine.. which ones been sitting the longest? just the worst 4',
    ]);
    expect(others).toMatchObject({ measure: 'count', group_by: 'dealer', filters: { condition: ['new'] } });
    expect(others!.filters).not.toHaveProperty('dealer_id');
    const earlier = [others!, read('how many new units do we have on the ground at toyota north right now')!];
    expect(
      understand(
        'ok back to mine.. which ones been sitting the longest? just the worst 4',
        vocabulary,
        others!,
        NOW,
        earlier,
      ).query,
    ).toMatchObject({ measure: 'list', limit: 4, filters: { dealer_id: ['stn'], condition: ['new'] } });
    expect(mine).toMatchObject({ measure: 'list', limit: 4 });
    const [, otherStores] = chain(['how many used units at westside', 'how do the other stores stack up']);
    expect(otherStores).toMatchObject({ measure: 'count', group_by: 'dealer', filters: { condition: ['used'] } });
    expect(otherStores!.filters).not.toHaveProperty('dealer_id');
    // A ranking that names what it counts counts it, in the conversation's period.
    const [, , , bySource] = chain([
      'whats our missed call rate been the last 30 days',
      'just aurora',
      'avg length of the answered ones there, in seconds?',
      'which source is sending aurora the most calls',
    ]);
    expect(bySource).toMatchObject({
      measure: 'count',
      group_by: 'source',
      filters: { dealer_id: ['sca'], from: '2026-10-23' },
    });
    const [, , who] = chain(['how many deals we got this mo', 'pvr', 'who sold the most']);
    expect(who).toMatchObject({ measure: 'count', group_by: 'salesperson', filters: { from: '2026-11-01' } });
    // "And how many were leases": counted with its share of the last answer's rows.
    const [, , leases] = chain([
      'which store did the most deals last mo',
      'how bout total gross by store',
      'and how many were leases across all 4 stores',
    ]);
    expect(leases).toMatchObject({ measure: 'count', share: true, filters: { contract_type: ['lease'] } });
    expect(leases).not.toHaveProperty('group_by');
    // Colours as a breakdown; "avg miles on em" after it is one figure of the same vehicles.
    const [, , colours, miles] = chain([
      'how many tacomas we got on the ground rn',
      'just the used ones',
      'what colors r they',
      'avg miles on em?',
    ]);
    expect(colours).toMatchObject({ group_by: 'color', filters: { model: ['Tacoma'], condition: ['used'] } });
    expect(miles).toMatchObject({ measure: 'average', field: 'mileage', filters: { model: ['Tacoma'] } });
    expect(miles).not.toHaveProperty('group_by');
    const [, , , oldest] = chain([
      'how many tacomas we got on the ground rn',
      'just the used ones',
      'avg miles on em?',
      'which 3 been sittin the longest',
    ]);
    expect(oldest).toMatchObject({ measure: 'list', limit: 3, filters: { model: ['Tacoma'], condition: ['used'] } });
    expect(
      read('for the used units we actually sold in the last 90 days, how many days on average did they take to sell'),
    ).toMatchObject({ measure: 'average', field: 'days_to_sell' });
    expect(read('whats the avg sale price on new vs used this month')).toMatchObject({ group_by: 'condition' });
    const [, share] = chain(['how many first time callers this month', 'what % of calls is that']);
    expect(share).toEqual({
      subject: 'calls',
      measure: 'count',
      share: true,
      filters: { from: '2026-11-01', to: '2026-11-21', first_time: true },
    });
    for (const question of [
      'can u write up a quick spiff announcement for the guys to get those aged units moved this wknd',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ declined: true });
  });

  it('reads what a seventeenth and an eighteenth set written apart from the rules found it missing', () => {
    expect(read('whos leading the floor in units so far this month')).toMatchObject({
      subject: 'sales',
      group_by: 'salesperson',
      ranked: true,
    });
    // A "sales meeting" is not about deals; "pickups" of the new units is a share of them.
    expect(
      read(
        'quick one before the sales meeting - of all the new units we got sitting on the ground right now across all 4 stores, what percent are pickups',
      ),
    ).toMatchObject({
      subject: 'vehicles',
      share: true,
      filters: { condition: ['new'], body_style: ['Truck'] },
    });
    // Conditions left out say nothing of the one asked for.
    expect(
      read(
        'for the last 90 days across all four rooftops, break down our used deals by contract type - cash, finance, lease. used only, dont lump in new or cpo',
      ),
    ).toMatchObject({ subject: 'sales', group_by: 'contract_type', filters: { condition: ['used'] } });
    const [, over] = chain([
      'used units priced under 15k, how many do we have in stock',
      'how many of those got over 100k on the clock',
    ]);
    expect(over).toMatchObject({ filters: { condition: ['used'], price_max: 14999.99, mileage_min: 100001 } });
    // "All the used there" after the aged ones: every used vehicle there.
    const [, , there] = chain([
      'how many used units r on the ground rn',
      '5 oldest at westside over 90 days',
      'avg days on lot for all the used there',
    ]);
    expect(there).toMatchObject({ measure: 'average', filters: { condition: ['used'], dealer_id: ['sfw'] } });
    expect(there!.filters).not.toHaveProperty('days_on_lot_min');
    // "My store" is the rooftop the conversation named; unnamed, it is said back.
    const westside = read('gm at summit ford westside here. how many used units we got in stock')!;
    expect(
      understand('switching gears - how many leads has my store gotten this month', vocabulary, westside, NOW).query,
    ).toMatchObject({ subject: 'leads', filters: { dealer_id: ['sfw'], from: '2026-11-01' } });
    expect(understand('how many leads has my store gotten this month', vocabulary, null, NOW)).toMatchObject({
      unused: [expect.stringMatching(/my store/)],
    });
    expect(chain(['lds lst 30 days?', 'by src'])[1]).toMatchObject({
      group_by: 'source',
      filters: { from: '2026-10-23' },
    });
    expect(read('cls rate by slsprsn lst 90')).toMatchObject({
      measure: 'rate',
      group_by: 'salesperson',
      filters: { from: '2026-08-24' },
    });
    for (const question of [
      'k txt taylor n tell em gr8 job this mo',
      'give me a punchy fb marketplace ad for our used suv inventory',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ declined: true });
    // "The last 5" of a list is not a period.
    expect(read('pull the last 5 leads')).toMatchObject({ measure: 'list', limit: 5 });
  });

  it('reads what a nineteenth and a twentieth set written apart from the rules found it missing', () => {
    // Typos: a letter left out or two swapped, of the reader's own words.
    expect(read('whats the avg askng price on used trucks')).toMatchObject({ measure: 'average', field: 'price' });
    expect(read('clsoe rate by source last 90 days')).toMatchObject({ measure: 'rate', group_by: 'source' });
    // "Now break out all inbound calls from last month by source" after an average of answered ones: counted.
    const [, , , bySource] = chain([
      'missed calls by store last month',
      'just inbound?',
      'avg talk time on the inbound ones that got answered',
      'now break out all inbound calls from last month by source',
    ]);
    expect(bySource).toMatchObject({ measure: 'count', group_by: 'source', filters: { direction: 'inbound' } });
    expect(bySource!.filters).not.toHaveProperty('status');
    // After a share, a new figure is of the whole; "at the honda store?" after a count keeps its narrowing.
    const [, , pvr] = chain([
      'how many deals did we book last month across the whole group',
      'what % of last months deals were leases',
      'and our pvr for the month, group wide',
    ]);
    expect(pvr).toMatchObject({ measure: 'average', field: 'total_gross', filters: { from: '2026-10-01' } });
    expect(pvr!.filters).not.toHaveProperty('contract_type');
    const [, revenue] = chain(['deal count for sept?', 'total revenue (sale price) that month']);
    expect(revenue).toMatchObject({
      measure: 'sum',
      field: 'sale_price',
      filters: { from: '2026-09-01', to: '2026-09-30' },
    });
    expect(read('which of our stores is carrying the most used units?')).toMatchObject({ group_by: 'dealer' });
    const [, front, best] = chain([
      'how many deals did each store do last month? rank em',
      'same thing but total front gross',
      'who had the best pvr?',
    ]);
    expect(front).toMatchObject({ measure: 'sum', field: 'front_gross', group_by: 'dealer' });
    expect(best).toMatchObject({ measure: 'average', field: 'total_gross', group_by: 'dealer' });
    // "Ok forget trucks": the trucks leave the conversation's rows.
    const [, , forgot] = chain([
      'how many used units at westside',
      'how many used trucks do we have there',
      'ok forget trucks. avg days to sell on all the used units westside sold in the last 30 days?',
    ]);
    expect(forgot).toMatchObject({ field: 'days_to_sell', filters: { condition: ['used'], dealer_id: ['sfw'] } });
    expect(forgot!.filters).not.toHaveProperty('body_style');
    expect(
      understand('and how many repair orders did the lakewood service dept open last month', vocabulary, null, NOW),
    ).toMatchObject({
      query: null,
      reason: expect.stringMatching(/service/),
    });
  });

  it('reads what a twenty-first and a twenty-second set written apart from the rules found it missing', () => {
    // "At honda" is the rooftop whose name has the make; "at honda trucks" would be the make.
    expect(read('how many used units we got on the ground at honda rn')).toEqual({
      subject: 'vehicles',
      measure: 'count',
      filters: { dealer_id: ['shd'], condition: ['used'] },
    });
    expect(read('ok for the quarter, which source sent us the most leads')).toMatchObject({
      group_by: 'source',
      filters: { from: '2026-10-01' },
    });
    expect(read('how many of last weeks leads are still sitting in new status')).toMatchObject({
      filters: { status: ['new'], from: '2026-11-09', to: '2026-11-15' },
    });
    expect(understand('think we can beat that number this month?', vocabulary, null, NOW)).toMatchObject({
      declined: true,
    });
    // "Split lease/finance/cash" after a total is the deal mix; "whos on top of the board" ranks salespeople.
    const [, , split, board, taylor] = chain([
      'wheres the board at, how many deals mtd',
      'total gross on those?',
      'split lease/finance/cash',
      'whos on top of the board',
      'n taylors pvr?',
    ]);
    expect(split).toMatchObject({ measure: 'count', group_by: 'contract_type', filters: { from: '2026-11-01' } });
    expect(board).toMatchObject({ group_by: 'salesperson', ranked: true, filters: { from: '2026-11-01' } });
    expect(taylor).toMatchObject({ measure: 'average', field: 'total_gross' });
    // "Across all the stores" is the whole group, not a breakdown.
    expect(read('how many vehicles do we have in stock across all the stores right now?')).not.toHaveProperty(
      'group_by',
    );
    const [, , aged] = chain([
      'how many of the used ones have been sitting more than 90 days?',
      'which store is carrying the most of those?',
      'what is the average mileage on that aged used inventory?',
    ]);
    expect(aged).toMatchObject({ measure: 'average', field: 'mileage', filters: { days_on_lot_min: 91 } });
    const [, bySource] = chain([
      'what was our lead close rate over the last 90 days, group-wide?',
      'how does that look broken out by lead source?',
    ]);
    expect(bySource).toMatchObject({ measure: 'rate', group_by: 'source', filters: { from: '2026-08-24' } });
    expect(read('what source drove the most phone calls last 30 days')).toMatchObject({
      subject: 'calls',
      group_by: 'source',
    });
  });

  it('reads what a twenty-third and a twenty-fourth set written apart from the rules found it missing', () => {
    const [, , , , tacomas, oldest] = chain([
      'break down whats on the ground at aurora by body style',
      'how many of those r silverados',
      'new only',
      'avg asking price on em?',
      'same thing for tacomas',
      'gimme the 5 tacomas thats been sittin the longest',
    ]);
    expect(tacomas).toMatchObject({
      measure: 'average',
      field: 'price',
      filters: { model: ['Tacoma'], condition: ['new'] },
    });
    // Named again, not changed: the same rows, listed.
    expect(oldest).toMatchObject({
      measure: 'list',
      limit: 5,
      filters: { dealer_id: ['sca'], condition: ['new'], model: ['Tacoma'] },
    });
    // A model alone after days to sell asks it of that model; "in stock there" is in stock, not sold.
    const [turn, wrangler, inStock] = chain([
      'avg days to turn a tacoma at aurora?',
      'wrangler?',
      'how many wranglers do we have in stock there rn',
    ]);
    expect(turn).toMatchObject({ field: 'days_to_sell' });
    expect(wrangler).toMatchObject({ field: 'days_to_sell', filters: { model: ['Wrangler'], dealer_id: ['sca'] } });
    expect(inStock).toMatchObject({ measure: 'count', filters: { model: ['Wrangler'], dealer_id: ['sca'] } });
    expect(inStock!.filters).not.toHaveProperty('status');
    expect(chain(['lead count by rooftop last 30 days', 'close rate for each?'])[1]).toMatchObject({
      measure: 'rate',
      group_by: 'dealer',
    });
    expect(
      chain(['total front gross last mo', 'and back end?', 'total gross split by cash / finance / lease'])[2],
    ).toMatchObject({
      measure: 'sum',
      field: 'total_gross',
      group_by: 'contract_type',
      filters: { from: '2026-10-01' },
    });
    expect(understand('any of those got open recalls?', vocabulary, null, NOW)).toMatchObject({
      reason: expect.stringMatching(/recalls/),
    });
    // "Ignore outbound", "not just trucks": left out of what is heard and of the conversation's rows.
    expect(
      read('for aurora, inbound calls only (ignore outbound), last 30 days - whats our answer rate looking like'),
    ).toMatchObject({
      measure: 'rate',
      filters: { dealer_id: ['sca'], direction: 'inbound' },
    });
    // "Me" is the salesperson the conversation named.
    const [, assigned] = chain([
      'its sam lee - how many deals have i closed so far this month',
      'how many leads got assigned to me in the last 90 days',
    ]);
    expect(assigned).toMatchObject({ subject: 'leads', filters: { salesperson: 'Sam Lee', from: '2026-08-24' } });
    // Several sources "combined" are one set; "same question for ford + chevy" asks it of those rooftops.
    const [combined, same] = chain([
      'for the toyota and honda stores combined, used car leads from cars.com and facebook since aug 1st - what % did we close?',
      'same question for ford + chevy',
    ]);
    expect(combined).toMatchObject({
      measure: 'rate',
      filters: { dealer_id: ['stn', 'shd'], sources: ['Cars.com', 'Facebook'] },
    });
    expect(combined).not.toHaveProperty('group_by');
    expect(same).toMatchObject({ subject: 'leads', measure: 'rate', filters: { dealer_id: ['sfw', 'sca'] } });
    expect(
      read(
        'at the ford store over the last 90 days, used only (not cpo), financed deals only, no cash or lease - what was the avg front end gross',
      ),
    ).toMatchObject({ filters: { dealer_id: ['sfw'], condition: ['used'], contract_type: ['finance'] } });
    // Conditions and kinds of deal are left out in the same words.
    expect(read('deals this month, dont lump in cash or lease')).toMatchObject({
      filters: { contract_type: ['finance'] },
    });
    expect(read('used deals this month excluding cash/finance')).toMatchObject({
      filters: { condition: ['used'], contract_type: ['lease'] },
    });
    expect(read('cars in stock, not any new/cpo')).toMatchObject({ filters: { condition: ['used'] } });
    expect(read('which of the 4 stores did the most used finance deals')).toMatchObject({ group_by: 'dealer' });
  });

  it('reads what a twenty-fifth and a twenty-sixth set written apart from the rules found it missing', () => {
    expect(read('how many units on the ground at westside priced 20-30k')).toMatchObject({
      filters: { dealer_id: ['sfw'], price_min: 20000, price_max: 30000 },
    });
    expect(read('how many units between 2019-2021 in stock')!.filters).not.toHaveProperty('price_min');
    // Calls and leads are a rooftop's: a make that names one rooftop is the rooftop.
    const [, honda] = chain(['missed calls last 30 days', 'answer rate honda']);
    expect(honda).toMatchObject({
      subject: 'calls',
      measure: 'rate',
      filters: { dealer_id: ['shd'], from: '2026-10-23' },
    });
    const [, toyota, appts] = chain(['leads still sittin in new status?', 'toyota only', 'appts there?']);
    expect(toyota).toMatchObject({ subject: 'leads', filters: { dealer_id: ['stn'], status: ['new'] } });
    expect(toyota!.filters).not.toHaveProperty('make');
    expect(appts).toMatchObject({ subject: 'leads', filters: { dealer_id: ['stn'], status: ['appointment'] } });
    const [, , , leases] = chain([
      'whats our contract mix ytd, cash vs finance vs lease',
      'what % of those deals were leases',
      'total back gross on the lease deals?',
      'who wrote the most leases',
    ]);
    expect(leases).toMatchObject({ measure: 'count', group_by: 'salesperson', filters: { contract_type: ['lease'] } });
    expect(chain(['total front gross last month', 'and back?'])[1]).toMatchObject({
      measure: 'sum',
      field: 'back_gross',
    });
    // "How many toyotas, any condition" after new Tacomas: every Toyota.
    const [, , anyCondition] = chain([
      'how many new tacomas we got on the ground at toyota north',
      'avg asking price on em?',
      'ok forget new. how many toyotas, any condition, does each store have in stock rn?',
    ]);
    expect(anyCondition).toMatchObject({ measure: 'count', group_by: 'dealer', filters: { make: ['Toyota'] } });
    expect(anyCondition!.filters).not.toHaveProperty('model');
    expect(anyCondition!.filters).not.toHaveProperty('condition');
    const [, , each] = chain([
      'whats total gross for the whole group month to date',
      'split by store',
      'and how many deals is that at each',
    ]);
    expect(each).toMatchObject({ measure: 'count', group_by: 'dealer', filters: { from: '2026-11-01' } });
    // After "how many of em r silver", the silver ones are listed; a ranking after a share is of the whole.
    const [, , oldest] = chain([
      'how many 2027 model yr units do we hav in stock',
      'how many of em r silver',
      'gimme the 5 thats been sittin the longest',
    ]);
    expect(oldest).toMatchObject({ measure: 'list', limit: 5, filters: { year_min: 2027, color: ['silver'] } });
  });

  it('reads what a twenty-seventh and a twenty-eighth set written apart from the rules found it missing', () => {
    // A bare bound is in the last answer's unit; a breakdown named alone is of the rows talked about.
    const [, ninety, trucks] = chain(['how many used units we got over 60 days', '90+?', 'just trucks']);
    expect(ninety).toMatchObject({ subject: 'vehicles', filters: { condition: ['used'], days_on_lot_min: 90 } });
    expect(trucks).toMatchObject({ filters: { days_on_lot_min: 90, body_style: ['Truck'] } });
    const [, , colours] = chain(['how many rav4s on the ground at toyota north', 'new only', 'colors?']);
    expect(colours).toMatchObject({
      group_by: 'color',
      filters: { dealer_id: ['stn'], model: ['RAV4'], condition: ['new'] },
    });
    expect(read('used inv by model yr')).toMatchObject({ group_by: 'year', filters: { condition: ['used'] } });
    const [, byGuy, top] = chain(['units sold mtd?', 'by guy', 'whos top on total gross front n back']);
    expect(byGuy).toMatchObject({ subject: 'sales', group_by: 'salesperson' });
    expect(top).toMatchObject({ measure: 'sum', field: 'total_gross', group_by: 'salesperson', ranked: true });
    expect(read('avg talk time on answered calls last 30 days in minutes')).toMatchObject({
      field: 'duration_minutes',
    });
    expect(read('last 5 cargurus leads')).toMatchObject({ subject: 'leads', measure: 'list', limit: 5 });
    expect(read('ytd units honda downtown vs toyota north')).toMatchObject({
      subject: 'sales',
      group_by: 'dealer',
      filters: { dealer_id: ['stn', 'shd'], from: '2026-01-01' },
    });
    // "All sources together" opens the source the last answer had; a ranking with no subject is of its rows.
    const [, , , together] = chain([
      'leads last 90 days by source',
      'ok just cars.com',
      'whats the close rate on those',
      'ok now all sources together',
    ]);
    expect(together).toMatchObject({ measure: 'rate', filters: { from: '2026-08-24' } });
    expect(together!.filters).not.toHaveProperty('source');
    const [, store, inbound] = chain([
      'how many calls did we miss last week?',
      'which store missed the most over the last 30 days',
      'just inbound',
    ]);
    expect(store).toMatchObject({ subject: 'calls', group_by: 'dealer', filters: { status: ['missed'] } });
    expect(inbound).toMatchObject({ group_by: 'dealer', filters: { status: ['missed'], direction: 'inbound' } });
    const [, , assigned] = chain([
      'how many leads are sitting in appt status rn?',
      'which of those came in from facebook',
      'who are they assigned to',
    ]);
    expect(assigned).toMatchObject({
      group_by: 'salesperson',
      filters: { status: ['appointment'], source: 'Facebook' },
    });
    expect(
      understand('how many text messages did the bdc send to leads last week', vocabulary, null, NOW),
    ).toMatchObject({
      query: null,
    });
  });

  it('reads what a twenty-ninth and a thirtieth set written apart from the rules found it missing', () => {
    const [, , perDeal, delivered] = chain([
      'How many deals did we close last month across the group, and how does that compare with September?',
      'What did those deals gross in total, front and back combined?',
      'And what does that work out to per deal?',
      'Which of the stores delivered the most of them?',
    ]);
    // "Per deal" after a total is the same figure, averaged; "delivered the most" counts deals.
    expect(perDeal).toMatchObject({ measure: 'average', field: 'total_gross', filters: { from: '2026-10-01' } });
    const [, workedOut] = chain(['deals last month', 'what does that work out to per deal in total gross']);
    expect(workedOut).toMatchObject({ measure: 'average', field: 'total_gross', filters: { from: '2026-10-01' } });
    expect(delivered).toMatchObject({ measure: 'count', group_by: 'dealer', ranked: true });
    expect(
      read(
        'How much money do we have sitting on our lots right now? I mean the total asking price of everything in stock.',
      ),
    ).toMatchObject({ measure: 'sum', field: 'price' });
    // After a share of the aged units, "the aged units" broken down are all of them; "the five oldest" lists five.
    const [, , , byStore, oldest] = chain([
      'how many units in stock',
      'How many of those units have been on the ground for more than 90 days?',
      'What percentage of those aged units are used cars?',
      'Please break the aged units down by store.',
      'Show me the five oldest ones at the Ford store.',
    ]);
    expect(byStore).toEqual({
      subject: 'vehicles',
      measure: 'count',
      group_by: 'dealer',
      filters: { days_on_lot_min: 91 },
    });
    expect(oldest).toMatchObject({ measure: 'list', limit: 5, filters: { days_on_lot_min: 91, dealer_id: ['sfw'] } });
    expect(read('Which marketing sources drove the most phone calls over the last 30 days?')).toMatchObject({
      subject: 'calls',
      group_by: 'source',
      ranked: true,
    });
    // "Ok diff question" does not follow up; "top 3 sources only" keeps three.
    const [, fresh, top] = chain([
      'leads in new status',
      'ok diff question how many leads this month by source',
      'top 3 sources only',
    ]);
    expect(fresh).toEqual({
      subject: 'leads',
      measure: 'count',
      group_by: 'source',
      filters: { from: '2026-11-01', to: '2026-11-21' },
    });
    expect(top).toMatchObject({ group_by: 'source', ranked: true, limit: 3 });
    expect(read('honda vs chevy who sold more cars this month')).toMatchObject({
      subject: 'sales',
      group_by: 'dealer',
      filters: { dealer_id: ['shd', 'sca'] },
    });
    for (const question of [
      'What do you expect our total unit sales to be for December?',
      'whats better for a family of five the pilot or the odyssey',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    expect(understand('which bdc agent made the most outbound calls this wk', vocabulary, null, NOW)).toMatchObject({
      query: null,
    });
    // "How does that compare with last month?": last month answered, the last answer's period beside it.
    const thisMonth = read('What is our answer rate on phone calls so far this month?');
    expect(understand('How does that compare with last month?', vocabulary, thisMonth, NOW)).toMatchObject({
      unused: [],
      compareWith: { range: { from: '2026-11-01', to: '2026-11-21' } },
      query: { measure: 'rate', filters: { from: '2026-10-01', to: '2026-10-31' } },
    });
  });

  it('reads what a thirty-second set written apart from the rules found it missing', () => {
    // Sources left out keep the leads with no source; sources named after them are the ones asked for.
    const [, walkIns, only] = chain([
      'leads by source for the last 90 days',
      'exclude facebook',
      'ok only cars.com and google ads',
    ]);
    expect(walkIns).toMatchObject({ group_by: 'source', filters: { exclude_source: ['Facebook'] } });
    expect(walkIns!.filters).not.toHaveProperty('source');
    expect(only!.filters).toEqual({ from: '2026-08-24', to: '2026-11-21', sources: ['Google Ads', 'Cars.com'] });
    const [, , calls] = chain([
      'leads from cars.com last 90 days',
      'close rate on those',
      'flip it to calls - answer rate on cars.com calls same period',
    ]);
    expect(calls).toMatchObject({
      subject: 'calls',
      measure: 'rate',
      filters: { from: '2026-08-24', source: 'Cars.com' },
    });
    // A funnel is a breakdown by status; the statuses it names are its rows.
    expect(read('give me the lead funnel for this month - new, contacted, appt, showed, sold, lost')).toEqual({
      subject: 'leads',
      measure: 'count',
      group_by: 'status',
      filters: { from: '2026-11-01', to: '2026-11-21' },
    });
    const [, top] = chain(['Which source is driving the most phone calls over the last 60 days?', 'top 3 only']);
    expect(top).toMatchObject({ subject: 'calls', group_by: 'source', ranked: true, limit: 3 });
    const [, each] = chain([
      'who closed the most leads in the last 90 days',
      'and how many leads did each of them get',
    ]);
    expect(each).toMatchObject({ group_by: 'salesperson' });
    expect(each!.filters).not.toHaveProperty('status');
    expect(read('avg talk time in seconds on answered sales dept calls, last 30 days')).toMatchObject({
      subject: 'calls',
      filters: { department: 'sales' },
    });
    expect(read('calls to service last week')).toMatchObject({ filters: { department: 'service' } });
  });

  it('reads what a thirty-first set written apart from the rules found it missing', () => {
    const [, , , half] = chain(['total gross Q3, front + back', 'by store', 'just finance deals', 'same thing for 1H']);
    expect(half).toMatchObject({
      measure: 'sum',
      field: 'total_gross',
      group_by: 'dealer',
      filters: { from: '2026-01-01', to: '2026-06-30', contract_type: ['finance'] },
    });
    const [, tied] = chain(['# units aged over 90 days', '$ tied up in them at list?']);
    expect(tied).toMatchObject({ measure: 'sum', field: 'price', filters: { days_on_lot_min: 91 } });
    // A status named after a rate counts those rows; "same 30 days" follows up.
    const [, missed, , talk] = chain([
      'answer rate last 30',
      'missed by store',
      'inbound only',
      'avg talk time on answered inbound calls, same 30 days, in seconds',
    ]);
    expect(missed).toMatchObject({ measure: 'count', group_by: 'dealer', filters: { status: ['missed'] } });
    expect(talk).toMatchObject({ measure: 'average', filters: { from: '2026-10-23', direction: 'inbound' } });
    const [, excl, leads] = chain([
      'units MTD by contract type',
      'excl leases, whats total front gross',
      'split by salesperson, who leads',
    ]);
    expect(excl).toMatchObject({
      measure: 'sum',
      field: 'front_gross',
      filters: { contract_type: ['cash', 'finance'] },
    });
    expect(leads).toMatchObject({
      subject: 'sales',
      measure: 'sum',
      field: 'front_gross',
      group_by: 'salesperson',
      filters: { contract_type: ['cash', 'finance'] },
    });
    expect(read('ASP on new units sold oct 1-15')).toMatchObject({
      subject: 'sales',
      measure: 'average',
      field: 'sale_price',
      filters: { condition: ['new'], from: '2026-10-01', to: '2026-10-15' },
    });
    expect(read('lead count by souce for last month')).toMatchObject({ group_by: 'source' });
    expect(read('how many black suvs MY24 or newer on the ground at the honda store')).toMatchObject({
      filters: { year_min: 2024, dealer_id: ['shd'] },
    });
    // A bound next to a gross bounds the gross, never the sale price.
    expect(read('deals oct 1-15 w/ over 4k total gross')!.filters).toEqual({
      from: '2026-10-01',
      to: '2026-10-15',
      gross_min: 4000.01,
      gross_field: 'total_gross',
    });
    expect(understand('deals with back end under $500 this month', vocabulary, null, NOW)).toMatchObject({
      unused: [],
      query: { filters: { gross_max: 499.99, gross_field: 'back_gross' } },
    });
    expect(read('deals where front gross is over 3k')!.filters).toEqual({
      gross_min: 3000.01,
      gross_field: 'front_gross',
    });
  });

  it('reads what a thirty-third and a thirty-fourth set written apart from the rules found it missing', () => {
    // Pivots between subjects keep the place and period; "how many did each salesperson get" stays with leads.
    const [, each, calls, missed, deals] = chain([
      'how many leads did westside get this mnth',
      'how many did each salesperson get',
      'ok and calls there?',
      'how many of em were missed',
      'now deals',
    ]);
    expect(each).toMatchObject({ subject: 'leads', group_by: 'salesperson', filters: { dealer_id: ['sfw'] } });
    expect(calls).toMatchObject({ subject: 'calls', filters: { dealer_id: ['sfw'], from: '2026-11-01' } });
    expect(missed).toMatchObject({ subject: 'calls', filters: { status: ['missed'] } });
    expect(deals).toMatchObject({ subject: 'sales', filters: { dealer_id: ['sfw'], from: '2026-11-01' } });
    expect(read('which salesperson has the highest avg front this month?')).toMatchObject({
      measure: 'average',
      field: 'front_gross',
      group_by: 'salesperson',
    });
    // "Top 3", "bottom 2": rankings of so many, also as a follow-up in another period.
    const [top, bottom] = chain(['top 3 reps by units mtd', 'who were the bottom 2 last month']);
    expect(top).toMatchObject({ group_by: 'salesperson', ranked: true, limit: 3 });
    expect(bottom).toMatchObject({ limit: 2, order: 'asc', filters: { from: '2026-10-01', to: '2026-10-31' } });
    expect(read('bottom 2 stores by close rate this month')).toMatchObject({ measure: 'rate', order: 'asc', limit: 2 });
    expect(read('most common colour on used stock?')).toMatchObject({ group_by: 'color' });
    expect(understand('units sold this month vs last', vocabulary, null, NOW)).toMatchObject({
      compareWith: { range: { from: '2026-10-01', to: '2026-10-31' } },
    });
    expect(read('show me the used cars that have been sitting on the lot the longest')).toMatchObject({
      measure: 'list',
      limit: 10,
    });
    expect(read('what % of all our calls did somebody actually pick up this month')).toMatchObject({
      measure: 'rate',
      field: 'answered',
    });
    expect(read('where are our leads coming from? last 90 days')).toMatchObject({ group_by: 'source' });
    const [, soldOfThose] = chain(['leads last 90 days', 'ok which source actually sold the most cars out of those']);
    expect(soldOfThose).toMatchObject({ subject: 'leads', group_by: 'source', filters: { status: ['sold'] } });
    // A kind of source: "3rd party sites"; "by site" after it is by source.
    const [share, bySite] = chain(['share of leads from 3rd party sites this month?', 'break that down by site']);
    expect(share).toMatchObject({ share: true, filters: { source_category: ['third_party_listing'] } });
    expect(bySite).toMatchObject({ group_by: 'source', filters: { source_category: ['third_party_listing'] } });
    expect(
      understand('is it smarter to floorplan used inventory or pay cash for it?', vocabulary, null, NOW),
    ).toMatchObject({
      declined: true,
    });
    expect(
      understand(
        'how much are we into our used cars on average vs what we are asking? like our acquisition cost',
        vocabulary,
        null,
        NOW,
      ),
    ).toMatchObject({ query: null });
  });

  it('reads what a thirty-fifth set written apart from the rules found it missing', () => {
    const [stores, used] = chain([
      'Could you tell me how many vehicles we currently have in stock at each of our four locations?',
      'And how many of those are used vehicles?',
    ]);
    expect(stores).toMatchObject({ group_by: 'dealer' });
    // "How many of those" after a breakdown is of each of its rows.
    expect(used).toMatchObject({ group_by: 'dealer', filters: { condition: ['used'] } });
    expect(read('Which lead source brought in the most phone calls last month?')).toMatchObject({
      subject: 'calls',
      group_by: 'source',
    });
    expect(
      read('For the vehicles we sold in the last 90 days, what was the average number of days from stock-in to sale?'),
    ).toMatchObject({ subject: 'vehicles', measure: 'average', field: 'days_to_sell' });
    expect(
      understand(
        'In your opinion, which is the better brand to stock more of, Toyota or Honda?',
        vocabulary,
        null,
        NOW,
      ),
    ).toMatchObject({ declined: true });
  });

  it('reads what a thirty-sixth set written apart from the rules found it missing', () => {
    // A desk manager's one-handed texts: a model's plural without a vowel, a price said in thousands, a colour abbreviated.
    const [civics, newer, black, cheapest] = chain(['civcs under 20', '2020+ only', 'blk?', 'cheapest']);
    expect(civics).toMatchObject({ measure: 'count', filters: { model: ['Civic'], price_max: 19999.99 } });
    expect(newer).toMatchObject({ filters: { model: ['Civic'], year_min: 2020 } });
    expect(black).toMatchObject({ filters: { color: ['black'], year_min: 2020 } });
    expect(cheapest).toMatchObject({ measure: 'min', field: 'price', filters: { color: ['black'] } });
    // "Under 20" is money only for a car's price, and only as an upper bound.
    expect(read('suvs under 30 days')).toMatchObject({ filters: { days_on_lot_max: 29 } });
    expect(read('suvs under 30 days')!.filters.price_max).toBeUndefined();
    // "Over 90" alone, of a lot, is an aging bucket in days.
    expect(read('how many trucks over 90')).toMatchObject({ filters: { days_on_lot_min: 91 } });
    expect(read('how many trucks over 90')!.filters.price_min).toBeUndefined();
    // "Oldest units": several, the longest on the lot first.
    const [oldest, suvs] = chain(['oldest units on the ground', 'just suvs']);
    expect(oldest).toMatchObject({ measure: 'list', field: 'days_on_lot', order: 'desc', limit: 10 });
    expect(suvs).toMatchObject({ measure: 'list', filters: { body_style: ['SUV'] } });
    expect(read("who's up on deals this month")).toMatchObject({ subject: 'sales', group_by: 'salesperson' });
    const [front, lastMonth, leases] = chain(['total front mtd', 'last month?', 'leases only']);
    expect(front).toMatchObject({
      subject: 'sales',
      measure: 'sum',
      field: 'front_gross',
      filters: { from: '2026-11-01' },
    });
    expect(lastMonth).toMatchObject({ measure: 'sum', field: 'front_gross', filters: { from: '2026-10-01' } });
    expect(leases).toMatchObject({ measure: 'sum', filters: { contract_type: ['lease'] } });
    // Leads assigned to no one: a filter, not a breakdown by salesperson.
    const [, nobody, shown] = chain(['leads today?', 'any w no salesperson', 'show em']);
    expect(nobody).toEqual({
      subject: 'leads',
      measure: 'count',
      filters: { from: '2026-11-21', to: '2026-11-21', unassigned: true },
    });
    expect(shown).toMatchObject({ measure: 'list', filters: { unassigned: true } });
    // Trims as typed, a two-letter or everyday one only beside a model.
    const [tacomas, used] = chain(['trd offrd tacomas?', 'used only']);
    expect(tacomas).toMatchObject({ filters: { model: ['Tacoma'], trim: ['TRD Off-Road'] } });
    expect(used).toMatchObject({ filters: { trim: ['TRD Off-Road'], condition: ['used'] } });
    expect(read('how many le camrys')).toMatchObject({ filters: { trim: ['LE'] } });
    expect(read('how many cars with a sport package')?.filters.trim).toBeUndefined();
    for (const question of [
      'text both of em saying we got their request and someone will call shortly',
      'camry or accord, which is honestly the better car',
    ])
      expect(understand(question, vocabulary, nobody!, NOW), question).toMatchObject({ declined: true });
  });

  it('reads what a thirty-seventh and a thirty-eighth set written apart from the rules found it missing', () => {
    // An F&I director's shorthand: "tot be mtd", "l/m", "be pvr", "fin deals only", "lse", "amt financed".
    const [backEnd, lastMonth] = chain(['tot be mtd?', 'l/m?']);
    expect(backEnd).toMatchObject({
      subject: 'sales',
      measure: 'sum',
      field: 'back_gross',
      filters: { from: '2026-11-01' },
    });
    expect(lastMonth).toMatchObject({
      measure: 'sum',
      field: 'back_gross',
      filters: { from: '2026-10-01', to: '2026-10-31' },
    });
    const [, finance] = chain(['be pvr l/m', 'fin deals only']);
    expect(finance).toMatchObject({
      measure: 'average',
      field: 'back_gross',
      filters: { from: '2026-10-01', contract_type: ['finance'] },
    });
    expect(read('biggest fe deal this qtr')).toMatchObject({ measure: 'max', field: 'front_gross' });
    expect(read('avg amt finaced on fin deals ytd')).toMatchObject({
      measure: 'average',
      field: 'amount_financed',
      filters: { contract_type: ['finance'] },
    });
    expect(read('which store did the most lse l/m')).toMatchObject({ filters: { contract_type: ['lease'] } });
    for (const question of ['which bank funded the most deals l/m', 'chargebacks l/m?']) expectNotInData(question);
    // A partner new to cars: customers by where they came from are leads; "ended up buying" is sold.
    const [sources, bought, , lastMonthSources] = chain([
      'Where are most of our customers coming from these days? Which source brought us the most customers in the last 90 days?',
      'Of the customers who came to us from Cars.com in that period, how many ended up buying a car, and what share is that?',
      'How much traffic did our websites get over the same period?',
      'Could you show me the same breakdown of customers by source, but for last month only?',
    ]);
    expect(sources).toMatchObject({ subject: 'leads', group_by: 'source', ranked: true });
    expect(bought).toMatchObject({ subject: 'leads', measure: 'rate', field: 'sold', filters: { source: 'Cars.com' } });
    expect(lastMonthSources).toMatchObject({ subject: 'leads', group_by: 'source', filters: { from: '2026-10-01' } });
    const [, used] = chain([
      'On average, how many days did the vehicles we sold take to go, from arriving in stock to being sold?',
      'And for the used ones only?',
    ]);
    expect(used).toMatchObject({ measure: 'average', field: 'days_to_sell', filters: { condition: ['used'] } });
    for (const question of [
      'Could you estimate roughly how many cars we are likely to sell in December, so I can plan staffing?',
      'Would you mind writing a short job posting for a receptionist who can help answer the phones at our stores?',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ declined: true });
  });

  it('reads what a thirty-ninth and a fortieth set written apart from the rules found it missing', () => {
    // Dictated: numbers in words, names in pieces, "cars dot com".
    const [rav4s, , aged] = chain([
      'um how many rav fours do we have on the ground right now',
      'okay now just the toyota store',
      'how many of those have been sitting more than sixty days',
    ]);
    expect(rav4s).toMatchObject({ filters: { model: ['RAV4'] } });
    expect(aged).toMatchObject({ filters: { model: ['RAV4'], dealer_id: ['stn'], days_on_lot_min: 61 } });
    expect(read('how many new chevy silverados we got under fifty thousand')).toMatchObject({
      filters: { model: ['Silverado 1500'], price_max: 49999.99 },
    });
    expect(read('which store has the most units over a hundred and twenty days old')).toMatchObject({
      filters: { days_on_lot_min: 121 },
    });
    const [, cargurus] = chain(['whats the close rate on cars dot com leads this year', 'okay and face book']);
    expect(cargurus).toMatchObject({ subject: 'leads', measure: 'rate', filters: { source: 'Facebook' } });
    for (const question of [
      'hows traffic on i twenty five heading down to lakewood right now',
      'what incentives is toyota running on tundras this month',
      'build me a dashboard tile that tracks this daily',
      'build a regression model predicting days to sell from price + mileage',
      'rank the reps by who deserves a raise, your call',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ declined: true });
    // An analyst's notation.
    const [, suvs, oldest] = chain(['n= used units in stock, 2019-2022 MY', 'filter to SUV', '5 oldest by DOL']);
    expect(suvs).toMatchObject({ filters: { condition: ['used'], year_min: 2019, body_style: ['SUV'] } });
    expect(oldest).toMatchObject({ measure: 'list', limit: 5, filters: { body_style: ['SUV'], year_max: 2022 } });
    const [, , sales, all] = chain([
      'inbound answer rate MTD?',
      'missed, group by store',
      'filter to sales dept',
      'back to all depts - mean talk time on the answered ones, in sec',
    ]);
    expect(sales).toMatchObject({ subject: 'calls', filters: { department: 'sales', status: ['missed'] } });
    expect(all).toMatchObject({ subject: 'calls', measure: 'average', field: 'duration' });
    expect(all!.filters.department).toBeUndefined();
    const [, attributed, , everyLead] = chain([
      'lead vol L90D, breakdown by source',
      'exclude unattributed',
      'close rate for cars.com, same window',
      'n and % of all L90D leads (incl unattributed) that came from cars.com',
    ]);
    expect(attributed).toMatchObject({ group_by: 'source', filters: { from: '2026-08-24', attributed: true } });
    expect(everyLead).toMatchObject({ share: true, filters: { source: 'Cars.com', from: '2026-08-24' } });
    expect(everyLead!.filters.attributed).toBeUndefined();
    expect(everyLead).not.toHaveProperty('whole_filters');
    expect(read('mean front gross QTD, all reps')).not.toHaveProperty('group_by');
    expect(read("who's sold the most deals over the last 90 days? all salespeople")).toMatchObject({
      group_by: 'salesperson',
    });
    const [, share] = chain([
      'new units >60 DOL, breakdown by make',
      'how many is that total, and as % of all new on the lot',
    ]);
    expect(share).toMatchObject({
      share: true,
      whole_filters: { condition: ['new'] },
      filters: { days_on_lot_min: 61 },
    });
    expect(read('deals 9/1-10/31, breakdown by store')).toMatchObject({
      filters: { from: '2026-09-01', to: '2026-10-31' },
    });
    expect(read('mean days-to-sell, used units sold L90D')).toMatchObject({ field: 'days_to_sell' });
    // A row of the last list by its place; the one vehicle at an end, for another of its figures.
    const [, third, second] = chain(['list the used units oldest first', 'the third one, how many miles on it', '#2']);
    expect(third).toMatchObject({ measure: 'list', limit: 1, offset: 2, filters: { condition: ['used'] } });
    expect(second).toMatchObject({ measure: 'list', limit: 1, offset: 1 });
    // After a count of vehicles, answered with them listed longest on the lot first, too.
    const [, , counted] = chain([
      'how many used suvs under 30k',
      'how many of those are white?',
      'the third one, how many miles on it',
    ]);
    expect(counted).toMatchObject({
      measure: 'list',
      field: 'days_on_lot',
      order: 'desc',
      limit: 1,
      offset: 2,
      filters: { color: ['white'] },
    });
    expect(counted).not.toHaveProperty('share');
    // And after a count of leads, calls or deals, answered with the newest listed.
    const [, secondLead] = chain(['how many leads from cars.com this week', 'the second one, who is it assigned to']);
    expect(secondLead).toMatchObject({ subject: 'leads', measure: 'list', limit: 1, offset: 1 });
    expect(secondLead).not.toHaveProperty('field');
    expect(read('first time callers this week')).toMatchObject({ subject: 'calls', filters: { first_time: true } });
    const [, priced] = chain(['how many new silverados under 50k', 'whats the oldest one priced at']);
    expect(priced).toMatchObject({ measure: 'list', field: 'days_on_lot', order: 'desc', limit: 1 });
    expect(read('whats the highest price on the lot')).toMatchObject({ measure: 'max', field: 'price' });
    expect(read('count distinct models in new invntory')).toMatchObject({
      measure: 'count',
      group_by: 'model',
      distinct: true,
      filters: { condition: ['new'] },
    });
  });

  it('reads what a forty-first set written apart from the rules found it missing', () => {
    // A marketing coordinator's casual texts: "newest stuff", "just the red ones", "3rd party site", "cpo … rn".
    const [newest, red] = chain(['whats the newest stuff that just hit the lot', 'ok just the red ones']);
    expect(newest).toMatchObject({
      subject: 'vehicles',
      measure: 'list',
      field: 'days_on_lot',
      order: 'asc',
      limit: 10,
    });
    expect(red).toMatchObject({ measure: 'list', order: 'asc', filters: { color: ['red'] } });
    expect(read('ngl which 3rd party site actually got us the most sold leads this yr')).toMatchObject({
      subject: 'leads',
      group_by: 'source',
      ranked: true,
      filters: { source_category: ['third_party_listing'], status: ['sold'] },
    });
    expect(read('cheapest cpo we got rn?')).toMatchObject({
      subject: 'vehicles',
      measure: 'min',
      filters: { condition: ['certified'] },
    });
  });

  it('reads what a forty-second, a forty-third and a forty-fourth set written apart from the rules found it missing', () => {
    // A veteran GSM: "units on the board", "dead last in units", mini deals with a front bound.
    const [board, lastMonth] = chain(['HOW MANY UNITS WE PUT ON THE BOARD THIS MONTH', 'AND LAST MONTH']);
    expect(board).toMatchObject({ subject: 'sales', measure: 'count', filters: { from: '2026-11-01' } });
    expect(lastMonth).toMatchObject({ subject: 'sales', filters: { from: '2026-10-01' } });
    expect(read('WHO IS DEAD LAST IN UNITS THIS MONTH')).toMatchObject({
      subject: 'sales',
      group_by: 'salesperson',
      order: 'asc',
    });
    // "His" after a ranking is the salesperson the answer named at its end (the engine keeps it as the leader).
    const last = { ...read('WHO IS DEAD LAST IN UNITS THIS MONTH')!, leader: 'Jordan Patel' };
    const his = read('WHATS HIS FRONT END', last);
    expect(his).toMatchObject({
      subject: 'sales',
      measure: 'sum',
      field: 'front_gross',
      filters: { salesperson: 'Jordan Patel', from: '2026-11-01' },
    });
    expect(read('and last month?', his)).toMatchObject({
      filters: { salesperson: 'Jordan Patel', from: '2026-10-01' },
    });
    expect(understand('shoot him a text and tell him great job', vocabulary, last, NOW)).toMatchObject({
      declined: true,
    });
    const worst = { ...read('which store missed the most calls last week')!, leader: 'Summit Chevrolet Aurora' };
    expect(read('whats the answer rate at that store', worst)).toMatchObject({
      measure: 'rate',
      filters: { dealer_id: ['sca'] },
    });
    const [minis, most] = chain(['HOW MANY MINI DEALS LAST MONTH.. ANYTHING UNDER 1000 FRONT', 'WHO HAD THE MOST']);
    expect(minis).toMatchObject({ filters: { gross_max: 999.99, gross_field: 'front_gross' } });
    expect(minis!.filters.make).toBeUndefined();
    expect(most).toMatchObject({ group_by: 'salesperson', filters: { gross_max: 999.99 } });
    expect(understand('how many mini deals last month', vocabulary, null, NOW)).toMatchObject({
      unused: [expect.stringContaining('mini deals')],
    });
    for (const question of [
      'do i can him or what',
      'pencil me a payment on a 35k tacoma, 72 mos at 6.9',
      'HOW MANY UNITS ARE WE GONNA DELIVER IN DECEMBER',
      'What would our used inventory fetch at auction if we liquidated it today?',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ declined: true });
    for (const question of [
      'what did we pay out in spiffs last month',
      'HOW MANY DEALS GOT SKATED THIS MONTH',
      'how many of our used units got an accident on the carfax',
      'how many of the used units on the lot did we buy at manheim vs adesa',
      "What is the group's net profit for the year to date, after all operating expenses?",
    ])
      expectNotInData(question);
    // An owner's board review: a share of a total, a rooftop's share of the group's, "the same total".
    const [, honda] = chain([
      "What was the group's total sales revenue this month?",
      "What proportion of this month's revenue came from Summit Honda Downtown?",
    ]);
    expect(honda).toMatchObject({
      subject: 'sales',
      measure: 'sum',
      field: 'sale_price',
      share: true,
      whole_of_group: true,
      filters: { dealer_id: ['shd'] },
    });
    const [, usedValue] = chain([
      'What is the total value of our current inventory at asking price?',
      'What proportion of that value is in used vehicles?',
    ]);
    expect(usedValue).toMatchObject({ measure: 'sum', field: 'price', share: true, filters: { condition: ['used'] } });
    expect(read('what percent of deals last month had over 4k total gross')).toMatchObject({
      measure: 'count',
      share: true,
    });
    const [, leases] = chain([
      'How many deals has the group closed year to date, and what proportion of them were cash deals?',
      'And leases, as a percentage of the same total?',
    ]);
    expect(leases).toMatchObject({ share: true, filters: { contract_type: ['lease'] } });
    expect(leases).not.toHaveProperty('whole_filters');
    const [, group] = chain([
      'What was the answer rate on calls to Summit Ford Westside last month?',
      'How does that compare with the group as a whole?',
    ]);
    expect(group).toMatchObject({ measure: 'rate', filters: { from: '2026-10-01' } });
    expect(group!.filters.dealer_id).toBeUndefined();
    expect(read('Which salesperson closed the most deals in the third quarter?')).toMatchObject({
      filters: { from: '2026-07-01', to: '2026-09-30' },
    });
    expect(
      read('How many leads received in the last 30 days have not yet been assigned to a salesperson?'),
    ).toMatchObject({
      filters: { unassigned: true },
    });
    // A used-car buyer: "100k+ on the clock", "17-20 model yr", "retail", "moved", "bring".
    expect(read('how many units on the ground w 100k+ on the clock')).toMatchObject({
      filters: { mileage_min: 100000 },
    });
    expect(read('how many 17-20 model yr units we sitting on')).toMatchObject({
      filters: { year_min: 2017, year_max: 2020 },
    });
    const [, , moved] = chain([
      'how many used hondas did we retail last 90 days',
      'avg front?',
      'which model moved the most',
    ]);
    expect(moved).toMatchObject({ subject: 'sales', measure: 'count', group_by: 'model' });
    expect(read("what'd the last 3 used tahoes bring")).toMatchObject({ subject: 'sales', measure: 'list', limit: 3 });
    expect(read('who retailed the most used cars last 90')).toMatchObject({
      subject: 'sales',
      group_by: 'salesperson',
    });
    const [, sitting] = chain([
      'used f150s 2018 and newer under 80k mi, how many we got',
      'how long they been sittin on avg',
    ]);
    expect(sitting).toMatchObject({
      measure: 'average',
      field: 'days_on_lot',
      filters: { model: ['F-150'], year_min: 2018 },
    });
  });

  it('reads what a forty-fifth and a forty-sixth set written apart from the rules found it missing', () => {
    // An OEM district manager: "model mix", "MY27", "prior month", "same for Honda", a figure kept on "and back gross".
    const [, mix, , honda] = chain([
      'How many new Toyota units in stock?',
      'Model mix, please.',
      'How many are aged over 90 days?',
      'Same for Honda.',
    ]);
    expect(mix).toMatchObject({ group_by: 'model', filters: { make: ['Toyota'] } });
    expect(honda).toMatchObject({ filters: { make: ['Honda'], condition: ['new'], days_on_lot_min: 91 } });
    expect(read('How many MY27 Toyotas do they have in stock?')).toMatchObject({
      filters: { year_min: 2027, year_max: 2027 },
    });
    const [, prior] = chain(['How many new Ford retail sales MTD?', 'And prior month?']);
    expect(prior).toMatchObject({
      subject: 'sales',
      filters: { make: ['Ford'], from: '2026-10-01', to: '2026-10-31' },
    });
    const [, , back] = chain([
      'Average front gross per new Chevrolet deal QTD?',
      'Same for Ford.',
      'And back gross on the Ford deals?',
    ]);
    expect(back).toMatchObject({ measure: 'average', field: 'back_gross', filters: { make: ['Ford'] } });
    for (const question of [
      'What was their Ford sales objective for prior month?',
      'Where does the Chevy store rank nationally on front gross?',
    ])
      expectNotInData(question);
    for (const question of ['Should the store cut price on them?', 'Should Summit Chevrolet Aurora order more Tahoes?'])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ declined: true });
    // An Australian: "enquiries", dates day first, "utes", "dearest … on the yard", "who's sold the most".
    const [since, cargurus] = chain([
      "g'day, how many enquiries have come in since 1/10?",
      'righto, how many of them were from face book?',
    ]);
    expect(since).toMatchObject({ subject: 'leads', filters: { from: '2026-10-01' } });
    expect(cargurus).toMatchObject({ subject: 'leads', filters: { source: 'Facebook', from: '2026-10-01' } });
    expect(read('deals 9/1-10/31')).toMatchObject({ filters: { from: '2026-09-01', to: '2026-10-31' } });
    expect(read('how many utes we got in stock at the moment?')).toMatchObject({ filters: { body_style: ['Truck'] } });
    expect(read('whats the dearest car on the yard?')).toMatchObject({ measure: 'max', field: 'price' });
    expect(read("show me the 3 newest enquiries nobody's contacted yet")).toMatchObject({
      subject: 'leads',
      limit: 3,
      filters: { status: ['new'] },
    });
    const [, , most] = chain([
      'how many deals have we done this month mate',
      'total front end gross on those?',
      "who's sold the most?",
    ]);
    expect(most).toMatchObject({ group_by: 'salesperson', ranked: true });
    expect(read('which make have we done the most deals on since sep 1?')).toMatchObject({
      subject: 'sales',
      group_by: 'make',
    });
    expect(
      understand('reckon we should drop the price on the grand cherokees? be honest mate', vocabulary, null, NOW),
    ).toMatchObject({
      declined: true,
    });
  });

  it('reads what a forty-seventh and a forty-eighth set written apart from the rules found it missing', () => {
    // Typed by ear, and an inventory manager's plain questions.
    const [tahoes, aged] = chain([
      'howmany new wranglers we got in invetory rn',
      'how many of them been siting more then 100 days',
    ]);
    expect(tahoes).toMatchObject({ filters: { condition: ['new'], model: ['Wrangler'] } });
    expect(aged).toMatchObject({ filters: { model: ['Wrangler'], days_on_lot_min: 101 } });
    expect(read('howmany incomming calls did we miss this moth')).toMatchObject({
      subject: 'calls',
      filters: { direction: 'inbound', status: ['missed'], from: '2026-11-01' },
    });
    expect(read('whats are answer rate on incomming overall this moth')).toMatchObject({ measure: 'rate' });
    expect(read('howmany new car deals did we do lastmonth')).toMatchObject({ filters: { from: '2026-10-01' } });
    expect(understand('write me a email blast to get rid of the aged tahos', vocabulary, null, NOW)).toMatchObject({
      declined: true,
    });
    expect(understand('ok forcast how many new well deliver this moth', vocabulary, null, NOW)).toMatchObject({
      declined: true,
    });
    expect(understand('ok move those over to aurora', vocabulary, null, NOW)).toMatchObject({ declined: true });
    expect(understand('print me a window sticker for it', vocabulary, null, NOW)).toMatchObject({ declined: true });
    // "Please" is no lease: words one letter from a rule's word are not read as it.
    expect(read('Please break that down by location.', read('how many deals last month'))).not.toHaveProperty(
      'filters.contract_type',
    );
    const [, , longest] = chain([
      'aurora pending count?',
      'how many of those r used',
      'which one has been sitting the longest',
    ]);
    expect(longest).toMatchObject({
      measure: 'max',
      filters: { dealer_id: ['sca'], status: ['pending'], condition: ['used'] },
    });
    expect(read('how many units r marked sold in the system')).toMatchObject({
      subject: 'vehicles',
      filters: { status: ['sold'] },
    });
    expect(read('last 5 in stock units at toyota north')).toMatchObject({ measure: 'list', limit: 5, order: 'asc' });
    expect(read('how many xles in stock')).toMatchObject({ filters: { trim: ['XLE'] } });
    expect(read('how many are camerys')).toMatchObject({ filters: { model: ['Camry'] } });
    expect(read("how many wrangelr's in stock")).toMatchObject({ filters: { model: ['Wrangler'] } });
    expectNotInData('whats are invoice on those 3');
    for (const question of [
      'what would you give for a 2019 camery with 80k miles on trade',
      "put together a spiff plan for the salesmen to move silverado's this moth",
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ declined: true });
    // "Trade ins" are a subject of their own, not a valuation.
    expect(understand("what's the avg mileage on trade ins", vocabulary, null, NOW)).not.toMatchObject({
      declined: true,
    });
  });

  it('widens a follow-up to the whole group when asked', () => {
    for (const question of ['how bout group wide', 'and company wide?', 'same for the whole group']) {
      const [, wide] = chain(['how many over 90 days at the aurora store', question]);
      expect(wide, question).toEqual({ subject: 'vehicles', measure: 'count', filters: { days_on_lot_min: 91 } });
    }
  });

  it('asks a ranking to rank, and a breakdown to list', () => {
    expect(read('which lead source brought in the most leads in sept')).toMatchObject({
      group_by: 'source',
      ranked: true,
    });
    expect(read('who sold the most deals this month')).toMatchObject({ group_by: 'salesperson', ranked: true });
    expect(read('leads by source this month')).not.toHaveProperty('ranked');
    const [, october] = chain(['which source brought the most leads last month', 'and october?']);
    expect(october).toMatchObject({ group_by: 'source', ranked: true });
  });

  it('declines sending anything to anyone, also as a follow-up', () => {
    const trucks = read('list the 5 cheapest trucks we have');
    for (const question of [
      'text my sales team about them',
      'email them to my manager',
      'can you send this to the team',
      'message everyone',
    ])
      expect(understand(question, vocabulary, trucks, NOW), question).toMatchObject({ query: null, declined: true });
    // Questions about calls are not requests to call.
    expect(read('calls by source this month')).toMatchObject({ subject: 'calls' });
  });

  it('reads vehicles sold or stocked in a period, without a value, and another order of the rows just listed', () => {
    // The forty-eighth set: a period of vehicles is when they sold (of sold ones) or came in (said so).
    const [, sinceFirst, byStore] = chain([
      'how many units r marked sold in the system',
      'how many of em sold since the 1st',
      'break that down by store',
    ]);
    expect(sinceFirst).toMatchObject({ filters: { status: ['sold'], from: '2026-11-01', to: '2026-11-21' } });
    expect(byStore).toMatchObject({ group_by: 'dealer', filters: { status: ['sold'], from: '2026-11-01' } });
    const [arrivals, total, used, most] = chain([
      'what came in this week thats still on the lot',
      'how many total',
      'just used',
      'which store got the most',
    ]);
    const thisWeek = { stocked_from: '2026-11-16', stocked_to: '2026-11-21' };
    expect(arrivals).toMatchObject({ measure: 'list', field: 'days_on_lot', order: 'asc', filters: thisWeek });
    expect(total).toMatchObject({ measure: 'count', filters: thisWeek });
    expect(used).toMatchObject({ measure: 'count', filters: { ...thisWeek, condition: ['used'] } });
    expect(most).toMatchObject({ group_by: 'dealer', filters: { ...thisWeek, condition: ['used'] } });
    // "What about last week" after arrivals: arrivals again.
    expect(read('what about last week', arrivals)).toMatchObject({
      filters: { stocked_from: '2026-11-09', stocked_to: '2026-11-15' },
    });
    expect(read('what arrived at westside since monday')).toMatchObject({
      measure: 'list',
      filters: { dealer_id: ['sfw'], stocked_from: '2026-11-16' },
    });
    // Any other period of vehicles is said back, never silently kept or dropped.
    expect(understand('and how many are still on the lot', vocabulary, sinceFirst!, NOW)).toMatchObject({
      query: { filters: {} },
      unused: [expect.stringMatching(/^the period 2026-11-01 to 2026-11-21 \(a period of vehicles is when/)],
    });
    expect(read('how many units on the lot have no internet price')).toMatchObject({
      filters: { missing: ['internet_price'] },
    });
    expect(read('any units without photos at aurora')).toMatchObject({ filters: { missing: ['photos'] } });
    expect(understand('how many internet leads today', vocabulary, null, NOW)).toMatchObject({
      unused: [expect.stringMatching(/^"internet"/)],
    });
    // "Cheapest of those" after the last 5 in: the cheapest of those 5; "sort those by price": the 5, by price.
    const latest = read('last 5 in stock units at toyota north');
    const within = { field: 'days_on_lot', order: 'asc', limit: 5 };
    expect(read('cheapest of those', latest)).toMatchObject({ measure: 'list', field: 'price', limit: 1, within });
    expect(read('sort those by price', latest)).toMatchObject({ field: 'price', order: 'asc', limit: 5, within });
    expect(read('the cheapest one of those', latest)).toMatchObject({ measure: 'min', within });
    // An order asked of the set, not of the rows shown, stays over the set.
    expect(read('cheapest ones', read('show me used tacomas'))).not.toHaveProperty('within');
    expect(read('how many leads on tuesday')).toMatchObject({ filters: { from: '2026-11-17', to: '2026-11-17' } });
    expect(read('calls since wed')).toMatchObject({ filters: { from: '2026-11-18', to: '2026-11-21' } });
  });

  it('reads what a forty-ninth to a fifty-second set written apart from the rules found it missing', () => {
    // A BDC agent's texts: "break todays down" is all of today's, "his" is the salesperson just asked about.
    const [, , todays] = chain(['leads today how many', 'how many of em still new', 'break todays down by store pls']);
    expect(todays).toMatchObject({ group_by: 'dealer', filters: { from: '2026-11-21' } });
    expect(todays!.filters).not.toHaveProperty('status');
    const [, his] = chain(['how many deals did sam do last month', 'whats his total front gross for last month']);
    expect(his).toMatchObject({ measure: 'sum', field: 'front_gross', filters: { salesperson: 'Sam Lee' } });
    const lowest = chain([
      'how many white tacomas on the lot',
      'which ones r at the toyota store',
      'lowest miles one?',
    ]);
    expect(lowest[2]).toMatchObject({ measure: 'min', field: 'mileage', filters: { dealer_id: ['stn'] } });
    for (const question of [
      'ok can u shoot the new ones a text for me',
      'can u put a hold on that one for him til sat',
      'honestly is jordan just lazy or what lol',
      'move all of sams lost leads over to morgan pls',
      'Transfer the 5 oldest Silverados from Aurora to Westside',
      'Print the aged inventory report for the ops meeting',
      "What's ACV on a 2019 Tacoma TRD Off-Road w/ 62k miles?",
      "between the two of them who's the stronger closer? need your read for comp review",
      'Thank you. Please arrange for the least expensive one to be transferred to Toyota North this week.',
      'be honest is he a better closer than sam or just lucky',
      'please advise on pricing for the aged tahoes',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    // Data questions that look like those stay questions.
    expect(read('book value of used')).toBeNull();
    expect(read('mark sold units by store')).not.toBeNull();
    // A group controller's report words.
    expect(read('Inventory $ at asking price - all units in stock, group total')).toMatchObject({
      measure: 'sum',
      field: 'price',
    });
    expect(read('Used invnetory incl. CPO: avg days on lot')).toMatchObject({
      filters: { condition: ['used', 'certified'] },
    });
    expect(read('certified pre-owned suvs')).toMatchObject({ filters: { condition: ['certified'] } });
    const [, byStore, newOnly] = chain(['inventory $ group total', 'by store pls', '$ of that in new units only?']);
    expect(byStore).toMatchObject({ group_by: 'dealer' });
    expect(newOnly).not.toHaveProperty('group_by');
    // An executive assistant's courtesy and report words.
    const [, perLocation] = chain([
      'Good morning. Could you please tell me how many vehicles we have in stock?',
      'Thank you. Could you please provide the same figure per location?',
    ]);
    expect(perLocation).toMatchObject({ measure: 'count', group_by: 'dealer' });
    const [, prior] = chain([
      'how many deals for the month of October?',
      'I would also need the same for the prior month.',
    ]);
    expect(prior).toMatchObject({ filters: { from: '2026-09-01', to: '2026-09-30' } });
    expect(read('deals for the prior month')).toMatchObject({ filters: { from: '2026-10-01', to: '2026-10-31' } });
    expect(read('How many deals has the Aurora location recorded since 1 October?')).toMatchObject({
      filters: { from: '2026-10-01', to: '2026-11-21' },
    });
    expect(read('lease share of deals for the current quarter')).toMatchObject({ filters: { from: '2026-10-01' } });
    expect(read('Kindly advise how many leads have come in over the last 7 days.')).toMatchObject({
      subject: 'leads',
      measure: 'count',
    });
    const [, , missed, priorWeek] = chain([
      'what was the call answer rate last week?',
      'How many calls were missed during the same period?',
      'Please show the missed calls per location.',
      'I would need the same breakdown for the prior week as well, please.',
    ]);
    expect(missed).toMatchObject({ group_by: 'dealer', filters: { status: ['missed'], from: '2026-11-09' } });
    expect(priorWeek).toMatchObject({ group_by: 'dealer', filters: { status: ['missed'], from: '2026-11-02' } });
    const [, , bySource] = chain([
      'leads mtd',
      'close rate on those leads?',
      'those leads broken down by lead source?',
    ]);
    expect(bySource).toMatchObject({ measure: 'count', group_by: 'source' });
    // Spanish words in an English question.
    expect(read('cuantos deals llevamos este mes?')).toMatchObject({ subject: 'sales', measure: 'count' });
    expect(read('cuantos carros tiene la tienda de honda over 90 days on the lot')).toMatchObject({
      filters: { dealer_id: ['shd'], days_on_lot_min: 91 },
    });
    expect(read('how many trocas we got on the lot rn')).toMatchObject({ filters: { body_style: ['Truck'] } });
    const [, , usedByStore] = chain([
      'how many trucks on the lot',
      'how many of those r used',
      'ok break it down by store',
    ]);
    expect(usedByStore).toMatchObject({ group_by: 'dealer', filters: { condition: ['used'] } });
    expectNotInData('cuantos test drives did the vendedores do ayer');
  });

  it('reads what a fifty-third and a fifty-fourth set written apart from the rules found it missing', () => {
    // A used-car manager's fragments: conditions left out or let in, a band of days, a new bound replacing a band.
    expect(read('non cpo used 60-90 days on the ground how many')).toMatchObject({
      filters: { condition: ['used'], days_on_lot_min: 60, days_on_lot_max: 90 },
    });
    expect(read('used deals last month not countng cpo')).toMatchObject({ filters: { condition: ['used'] } });
    expect(read('pre owned suvs 20-25k in stock, cpo incl')).toMatchObject({
      filters: { condition: ['used', 'certified'], price_min: 20000, price_max: 25000 },
    });
    expect(read('last 5 pre-owned deals out of westside, cpo too')).toMatchObject({
      subject: 'sales',
      filters: { condition: ['used', 'certified'] },
    });
    expect(read('certified pre owned suvs')).toMatchObject({ filters: { condition: ['certified'] } });
    const [, , ninety] = chain(['used 60-90 days on the ground', 'now just the honda store', 'how many 90+ there']);
    expect(ninety).toMatchObject({ filters: { dealer_id: ['shd'], days_on_lot_min: 90 } });
    expect(ninety!.filters).not.toHaveProperty('days_on_lot_max');
    expect(understand('how many used units will we retail in dec, ballpark', vocabulary, null, NOW)).toMatchObject({
      declined: true,
    });
    // A marketing partner's words: units after deals are deals, "total calls" all of them, a share of all.
    const [, , units] = chain([
      'how many deals closed last month',
      'avg front-end gross on those?',
      'units by rooftop',
    ]);
    expect(units).toMatchObject({ subject: 'sales', group_by: 'dealer', filters: { from: '2026-10-01' } });
    const [, firstTime, total] = chain([
      'call volume by channel for last week?',
      "ok. what % of last wk's calls were first time callers",
      'and total calls this week so far, for the WoW',
    ]);
    expect(firstTime).toMatchObject({ share: true, filters: { first_time: true } });
    expect(firstTime).not.toHaveProperty('group_by');
    expect(total).toMatchObject({ measure: 'count', filters: { from: '2026-11-16' } });
    expect(total).not.toHaveProperty('share');
    expect(total!.filters).not.toHaveProperty('first_time');
    const [, ofAll] = chain(['FB lead count since 9/1?', 'what share of total lead volume is that, same window']);
    expect(ofAll).toMatchObject({ share: true, filters: { source: 'Facebook' } });
    expect(ofAll).not.toHaveProperty('whole_filters');
    const [, , featured] = chain([
      'how many trucks at westside in stock rn?',
      'how many of those r used (not counting CPO)',
      "which used one's been sitting on the lot the longest?",
    ]);
    expect(featured).toMatchObject({ measure: 'max', filters: { dealer_id: ['sfw'], body_style: ['Truck'] } });
    expect(understand('honestly is Sam just a weak closer?', vocabulary, null, NOW)).toMatchObject({ declined: true });
  });

  it('reads what a fifty-fifth and a fifty-sixth set written apart from the rules found it missing', () => {
    // An owner's texts: how we are doing is the count; another period of the same rows.
    const [doing, lastMonth, byStore] = chain([
      'how we doin on deals this month',
      'what did we do all of last month',
      'break this month out by store',
    ]);
    expect(doing).toMatchObject({ subject: 'sales', measure: 'count', filters: { from: '2026-11-01' } });
    expect(lastMonth).toMatchObject({ subject: 'sales', measure: 'count', filters: { from: '2026-10-01' } });
    expect(byStore).toMatchObject({ subject: 'sales', group_by: 'dealer', filters: { from: '2026-11-01' } });
    expect(read('where r our leads comming from ytd')).toMatchObject({ group_by: 'source' });
    // A new hire's asides: examples, apologies in brackets, "like nobody answered", what is on the lot.
    expect(
      read(
        'how many cars at the toyota dealership on the north side? the ones on the lot, not the ones that already sold',
      ),
    ).toMatchObject({ subject: 'vehicles', filters: { dealer_id: ['stn'] } });
    expect(read('can you split last months leads up by where they came from? like cars.com, google, etc')).toEqual({
      subject: 'leads',
      measure: 'count',
      group_by: 'source',
      filters: { from: '2026-10-01', to: '2026-10-31' },
    });
    const [, missed] = chain(['how many calls last week', 'how many of those were missed calls? like nobody answered']);
    expect(missed).toMatchObject({ filters: { status: ['missed'] } });
    const [, closed, sam] = chain([
      'how many leads has alex gotten in the last 90 days',
      'how many of his did he close? (sold, sorry still learning the words)',
      'and sam? how many leads did he get in that time',
    ]);
    expect(closed).toMatchObject({ subject: 'leads', filters: { salesperson: 'Alex Rivera', status: ['sold'] } });
    expect(sam).toMatchObject({ subject: 'leads', filters: { salesperson: 'Sam Lee', from: '2026-08-24' } });
    expect(sam!.filters).not.toHaveProperty('status');
    expect(read('since sept 1 how many deals were cash deals? (customer paid cash, no loan or lease)')).toMatchObject({
      filters: { contract_type: ['cash'] },
    });
    expectNotInData('how many people went on our website yesterday? visitors not leads');
  });

  it('reads what a fifty-seventh and a fifty-eighth set written apart from the rules found it missing', () => {
    // A CFO's report language.
    expect(read('What was gross profit per retail unit for October, front and back combined?')).toMatchObject({
      measure: 'average',
      field: 'total_gross',
      filters: { from: '2026-10-01', to: '2026-10-31' },
    });
    const [, units, byStore] = chain([
      'What is our aged inventory exposure in dollars, the total asking price of all units on the lot over 90 days?',
      'How many units does that represent?',
      'Split those units by store, please.',
    ]);
    expect(units).toMatchObject({ measure: 'count', filters: { days_on_lot_min: 91 } });
    expect(byStore).toMatchObject({ group_by: 'dealer', filters: { days_on_lot_min: 91 } });
    expect(read('How does that compare with the same point last month?', read('deals month to date'))).toMatchObject({
      filters: { from: '2026-10-01', to: '2026-10-21' },
    });
    const [, , window] = chain([
      'Rank the sales staff by retail units sold year to date through last Friday.',
      "What was Alex's total gross over that same period?",
      'Show me his five most recent deals within that window.',
    ]);
    expect(window).toMatchObject({
      measure: 'list',
      limit: 5,
      filters: { from: '2026-01-01', to: '2026-11-20', salesperson: 'Alex Rivera' },
    });
    // A salesperson with a customer waiting: a trim inside a longer one, a figure of the one car just named.
    const [, cheapest, miles] = chain([
      'any rav4 xle under 40k at north',
      'cheapest of those',
      'whats the miles on it',
    ]);
    expect(cheapest).toMatchObject({ measure: 'list', field: 'price', limit: 1 });
    expect(miles).toMatchObject({ ...cheapest, asked: 'mileage' });
    const [, , anything] = chain([
      'cheapest used civic we got',
      'hows the miles on that one',
      'ok anything under 15k w less than 70k miles',
    ]);
    expect(anything).toMatchObject({ measure: 'count', filters: { model: ['Civic'], mileage_max: 69999 } });
    const [, , under] = chain(['new f150s at westside', 'any white ones', 'which of those are under 45k']);
    expect(under).toMatchObject({ measure: 'list', filters: { color: ['white'], price_max: 44999.99 } });
    expect(under).not.toHaveProperty('limit', 1);
    expectNotInData('does the black tahoe at aurora have the max tow pkg');
  });

  it('reads what a fifty-ninth and a sixtieth set written apart from the rules found it missing', () => {
    // A data person's notation.
    expect(read('sum(front_gross) for deals sold last month, all stores')).toMatchObject({
      measure: 'sum',
      field: 'front_gross',
    });
    expect(read('count in stock where body_style = suv and mileage > 100000')).toMatchObject({
      filters: { body_style: ['SUV'], mileage_min: 100001 },
    });
    expect(read('leads where source is null - total count')).toMatchObject({ filters: { attributed: false } });
    expect(read('leads excluding unattributed this month')).toMatchObject({ filters: { attributed: true } });
    expect(read('lead count by assignee, ytd')).toMatchObject({ group_by: 'salesperson' });
    expect(read('latest 10 leads where assignee = Sam Lee')).toMatchObject({ filters: { salesperson: 'Sam Lee' } });
    const [, , pendingOldest] = chain([
      'count vehicles where status = pending',
      'group that by dealer',
      'which one has the max days on lot',
    ]);
    expect(pendingOldest).toMatchObject({ measure: 'max', field: 'days_on_lot', filters: { status: ['pending'] } });
    const [, ofAll] = chain([
      'leads where source is null, last 30 days, by dealer',
      'whats that as a % of all leads in the same 30 days',
    ]);
    expect(ofAll).toMatchObject({ share: true });
    expect(ofAll).not.toHaveProperty('group_by');
    // A rooftop's GM: a conversation opened about one rooftop calls it "we", "our" and "here".
    const [opened, closeRate, group] = chain([
      'How many leads did Summit Ford Westside get in October?',
      'whats our close rate on those',
      "how's that stack up vs the group overall for oct? all 4 stores combined",
    ]);
    expect(group!.filters).not.toHaveProperty('dealer_id');
    const ours = understand('break our october leads down by source for me', vocabulary, group!, NOW, [
      closeRate!,
      opened!,
    ]).query;
    expect(ours).toMatchObject({ group_by: 'source', filters: { dealer_id: ['sfw'] } });
    const [, , compared] = chain([
      'how many toyotas at westside',
      'and at north',
      'how many toyotas does each store have? want to see how we compare',
    ]);
    expect(compared!.filters).not.toHaveProperty('dealer_id');
    const [, , googleShare] = chain([
      'how many cars.com leads has westside gotten since july 1st',
      'and cargurus?',
      'what % of all our leads since then came from google ads',
    ]);
    expect(googleShare).toMatchObject({ share: true, filters: { source: 'Google Ads', from: '2026-07-01' } });
    const [, cash] = chain(['show me the last 5 deals at westside', 'which of those were cash']);
    expect(cash).toMatchObject({
      subject: 'sales',
      within: { field: 'newest', limit: 5, filters: { dealer_id: ['sfw'] } },
      filters: { contract_type: ['cash'] },
    });
  });

  it('reads what a sixty-first and a sixty-second set written apart from the rules found it missing', () => {
    for (const question of [
      'get those 5 moved over to the Aurora lot this wk',
      'be honest - is Morgan worth keeping or do we put them on a PIP?',
      'cool go ahead and tag everything over 90 days for wholesale and send that list over to the UCM',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    expect(read('top 3 reps by front GP last month')).toMatchObject({
      measure: 'sum',
      field: 'front_gross',
      group_by: 'salesperson',
      limit: 3,
    });
    expect(read('how many used units on the lot under 50k milage? no cpo')).toMatchObject({
      filters: { condition: ['used'], mileage_max: 49999 },
    });
    expect(read('avg days to sell on used unts, leave CPO out of it')).toMatchObject({
      field: 'days_to_sell',
      filters: { condition: ['used'] },
    });
    const [, byStore] = chain(['avg days to sell on used units', 'split the avg out by store']);
    expect(byStore).toMatchObject({ measure: 'average', field: 'days_to_sell', group_by: 'dealer' });
    const [, share] = chain([
      'how many deals did the honda store do last mo',
      'what share of group units was the honda store last mo?',
    ]);
    expect(share).toMatchObject({ share: true, whole_of_group: true, filters: { dealer_id: ['shd'] } });
  });

  it('reads what the sixty-first to sixty-fourth sets written apart from the rules found it missing', () => {
    // Set 61: a ranking of models by their average days to sell; each sold one listed with its days; how many rows a figure was over.
    expect(read('which used model took the longest to sell on avg?')).toMatchObject({
      measure: 'average',
      field: 'days_to_sell',
      order: 'desc',
      group_by: 'model',
      ranked: true,
      filters: { condition: ['used'], status: ['sold'] },
    });
    expect(read('pull up the used camrys we sold and how long each one took to go')).toMatchObject({
      measure: 'list',
      field: 'days_to_sell',
      order: 'desc',
      filters: { condition: ['used'], model: ['Camry'], status: ['sold'] },
    });
    const [, howMany, byStore] = chain([
      'avergae sale price on used deals the last 90 days? not CPO',
      'how many deals is that',
      'split the avg out by store',
    ]);
    expect(howMany).toMatchObject({ measure: 'count', filters: { condition: ['used'], from: '2026-08-24' } });
    expect(byStore).toMatchObject({ measure: 'average', field: 'sale_price', group_by: 'dealer' });
    const [, sources] = chain([
      'close rate on used leads since aug 1st',
      'where are those comin from, break it down by source',
    ]);
    expect(sources).toMatchObject({ measure: 'count', group_by: 'source', filters: { type: ['used'] } });
    // Set 62: the other end of a ranking; the one deal with the most of a figure.
    const [, bottom] = chain(['Top 3 salespeople by units YTD', 'bottom 3?']);
    expect(bottom).toMatchObject({ group_by: 'salesperson', ranked: true, limit: 3, order: 'asc' });
    const [, , most] = chain([
      "pull last wk's deals, all stores",
      'how many of those were cash deals',
      'which one had the most front end gross?',
    ]);
    expect(most).toMatchObject({ measure: 'max', field: 'front_gross', filters: { from: '2026-11-09' } });
    // Set 63: "which 3 sources", "same but", "took the longest" of sold ones in the last question's period.
    const [, , three] = chain([
      'how many leads we get this month so far',
      'whats teh close rate close rate on those',
      'which 3 sources sent the most',
    ]);
    expect(three).toMatchObject({ measure: 'count', group_by: 'source', ranked: true, limit: 3 });
    const [, , longest] = chain([
      'avg days to sell on units we sold in q3',
      'same but trucks only',
      'which truck took the longest',
    ]);
    expect(longest).toMatchObject({
      measure: 'max',
      field: 'days_to_sell',
      filters: { body_style: ['Truck'], from: '2026-07-01', to: '2026-09-30' },
    });
    expect(
      understand('same but trucks only', vocabulary, chain(['avg days to sell on units sold in q3'])[0]!, NOW),
    ).toMatchObject({ unused: [] });
    // Set 64: an auditor's periods, transactions, vehicle records, a status of new, sources incl. none, a period kept.
    expect(
      read(
        'For the quarter 1 July through 30 September, please confirm the total number of deal transactions recorded across all rooftops.',
      ),
    ).toMatchObject({
      subject: 'sales',
      measure: 'count',
      filters: { from: '2026-07-01', to: '2026-09-30' },
    });
    expect(
      understand(
        'Total number of calls logged last month, i.e. 1 October through 31 October, please.',
        vocabulary,
        null,
        NOW,
      ),
    ).toMatchObject({ unused: [], query: { filters: { from: '2026-10-01', to: '2026-10-31' } } });
    expect(read('Year to date, how many transactions has each rooftop recorded?')).toMatchObject({
      subject: 'sales',
      group_by: 'dealer',
    });
    const [units, today] = chain([
      'How many units were sold for the period 1 October through 31 October, per the vehicle records?',
      'And how many units have been sold today?',
    ]);
    expect(units).toMatchObject({ subject: 'vehicles', filters: { status: ['sold'], from: '2026-10-01' } });
    expect(today).toMatchObject({ subject: 'vehicles', filters: { status: ['sold'], from: '2026-11-21' } });
    expect(read('Of the units over 90 days, which one carries the highest asking price?')).toMatchObject({
      measure: 'max',
      field: 'price',
    });
    const [, stillNew, regardless] = chain([
      'How many leads were received last week, Monday through Sunday?',
      'Which of those are still showing a status of new? Please list them.',
      'And how many leads have come in so far this week, regardless of status?',
    ]);
    expect(stillNew).toMatchObject({ measure: 'list', filters: { status: ['new'] } });
    expect(regardless?.filters).not.toHaveProperty('status');
    expect(
      read('I need the number of October leads by source, including any leads with no source recorded.')?.filters,
    ).not.toHaveProperty('attributed');
    expect(read('and leads with no source?')).toMatchObject({ filters: { attributed: false } });
    const [, duration] = chain([
      'Total number of calls logged last month',
      'What was the average duration of the answered calls, in seconds?',
    ]);
    expect(duration).toMatchObject({ field: 'duration', filters: { status: ['answered'], from: '2026-10-01' } });
    // Not kept: a period asked over all time, or vehicles in stock after sold ones.
    expect(chain(['leads last month', 'how many leads have we had all time'])[1]?.filters).not.toHaveProperty('from');
    expect(chain(['units sold last month', 'how many units in stock'])[1]?.filters).not.toHaveProperty('from');
    for (const question of [
      'ok mark that one sold',
      'Please mark stock number U14345T as sold effective today.',
      'have the bdc call back every missed one from last week',
      'Please arrange for the missed October callers to be called back and let me know the outcome.',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    expect(read('how many did we mark as sold')).not.toBeNull();
    // Declined even when it points at a row of the last list.
    const [oldest] = chain(['gimme the 5 oldest']);
    expect(understand('what should i drop the first one to so it moves', vocabulary, oldest!, NOW)).toMatchObject({
      query: null,
      declined: true,
    });
    expectNotInData('how many of the cars.com ups were BBs');
  });

  it('reads what the sixty-fifth and sixty-sixth sets written apart from the rules found it missing', () => {
    // One record by what the DMS calls it, a figure of it, and the salesperson of the one deal shown.
    const [deal, financed] = chain(['pull deal D100199', 'amt financed on it?']);
    expect(deal).toMatchObject({ subject: 'sales', measure: 'list', limit: 1, filters: { deal_number: 'D100199' } });
    expect(financed).toMatchObject({ measure: 'sum', field: 'amount_financed', filters: { deal_number: 'D100199' } });
    expect(
      read("pull all of that salesperson's deals for this month", { ...deal!, leader: 'Alex Rivera' }),
    ).toMatchObject({ measure: 'list', filters: { salesperson: 'Alex Rivera', from: '2026-11-01' } });
    expect(
      read("pull all of that salesperson's deals for this month", { ...deal!, leader: 'Alex Rivera' })?.filters,
    ).not.toHaveProperty('deal_number');
    expect(read('whats the price on stock # U14345T')).toMatchObject({
      subject: 'vehicles',
      measure: 'list',
      limit: 1,
      asked: 'price',
      filters: { stock_number: 'U14345T' },
    });
    expect(read('tell me about vin 1hgc4tuj8lt734220')).toMatchObject({
      subject: 'vehicles',
      filters: { vin: '1HGC4TUJ8LT734220' },
    });
    // Not a deal number: a model year, an amount, a count.
    for (const question of ['biggest deal 2025', 'any deal 30k or more', 'deal 5 of the month'])
      expect(read(question)?.filters ?? {}, question).not.toHaveProperty('deal_number');
    // "Amount financed" is a figure, not finance deals; its total is a sum.
    const [, , total, cash] = chain([
      'deals posted yesterday',
      'same for last wk',
      'total amt financed on them',
      'what % of those were cash deals',
    ]);
    expect(total).toMatchObject({ measure: 'sum', field: 'amount_financed', filters: { from: '2026-11-09' } });
    expect(total?.filters).not.toHaveProperty('contract_type');
    expect(cash).toMatchObject({ share: true, filters: { contract_type: ['cash'], from: '2026-11-09' } });
    // Days to sell after deals: sold vehicles, in the deals' period.
    const [, days, priciest] = chain([
      'how many vehicles did we sell in q3',
      'avg days to sell on those?',
      'highest priced one of that bunch',
    ]);
    expect(days).toMatchObject({
      subject: 'vehicles',
      field: 'days_to_sell',
      filters: { status: ['sold'], from: '2026-07-01', to: '2026-09-30' },
    });
    expect(priciest).toMatchObject({
      measure: 'max',
      field: 'price',
      filters: { status: ['sold'], from: '2026-07-01' },
    });
    // "Brought in the most" after leads ranks their sources; it is no deal.
    const [, sources] = chain(['how many leads we get this month so far', 'which source brought in the most']);
    expect(sources).toMatchObject({ subject: 'leads', group_by: 'source', ranked: true });
    expect(
      chain(['avg days to sell on units sold in oct', 'how many vehicles have we sold so far this week'])[1],
    ).toMatchObject({
      subject: 'vehicles',
      filters: { status: ['sold'], from: '2026-11-16' },
    });
    for (const question of [
      'can u get someone to call back everybody we missed fr',
      'ngl is autotrader even worth paying for or nah',
      'ok go ahead and mark october closed out',
      'have the porter pull those 5 up to the front line',
      'call back the missed ones from westside',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    // Asked to act on the records or for someone on the staff, however it opens.
    for (const question of [
      'lowkey just mark the oldest one as sold so it stops making us look bad lol',
      'tell the bdc to call everyone back',
      'let the gm know we are behind',
      'ask jordan to follow up',
      'update the price on the tahoe',
      'flag those for wholesale',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    for (const question of ['update on leads today?', 'tell me how many leads', 'mark sold units by store'])
      expect(read(question), question).not.toBeNull();
    for (const question of [
      'what did we pay at auction for the used tahoes we got rn',
      'which october deals are still missing titles?',
      'how many finance deals still have stips outstanding',
      'which of them are still waiting on funding from the bank',
    ])
      expectNotInData(question);
  });

  it('reads what the sixty-seventh and sixty-eighth sets written apart from the rules found it missing', () => {
    // An analyst's shorthand: L90, L30, T3M, TTM, GPU, inventory mix, "converts best".
    const [total, gpu, byStore, rep] = chain([
      'total gross L90, front + back combined?',
      'GPU on that?',
      'break it out by store',
      'which rep runs the best GPU',
    ]);
    expect(total).toMatchObject({ measure: 'sum', field: 'total_gross', filters: { from: '2026-08-24' } });
    expect(gpu).toMatchObject({ measure: 'average', field: 'total_gross', filters: { from: '2026-08-24' } });
    expect(byStore).toMatchObject({ measure: 'average', field: 'total_gross', group_by: 'dealer' });
    expect(rep).toMatchObject({ measure: 'average', group_by: 'salesperson', ranked: true });
    expect(read('inbound call answer rate L30?')).toMatchObject({
      measure: 'rate',
      filters: { from: '2026-10-23', direction: 'inbound' },
    });
    expect(read('leads T3M')).toMatchObject({ filters: { from: '2026-08-24' } });
    expect(read('deals TTM')?.filters.from).toBeDefined();
    expect(read('leads over l30 miles')).not.toBeNull();
    expect(read('inv mix rn - new/used/CPO?')).toMatchObject({ group_by: 'condition', filters: {} });
    expect(chain(['lead-to-sale conv YTD, all sources?', 'which source converts best'])[1]).toMatchObject({
      measure: 'rate',
      group_by: 'source',
      ranked: true,
    });
    expect(read('todays leads by status')).toMatchObject({ group_by: 'status', filters: { from: '2026-11-21' } });
    const [, , , lease] = chain([
      'units sold last wk?',
      'units per salesperosn?',
      'same thing this week so far',
      'whats lease penetration MTD, as a % of deals',
    ]);
    expect(lease).toMatchObject({ share: true, filters: { contract_type: ['lease'], from: '2026-11-01' } });
    expect(lease).not.toHaveProperty('group_by');
    for (const question of [
      'ok so who do we cut post close?',
      'wholesale those 5 at auction this wk',
      "what's the group worth at 5x gross, roughly?",
      'text alex rivera congrats on his month',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    for (const question of [
      'and EBITDA margin for Aurora that month?',
      'do we have the lost reason on those? like went with another dealer vs price too high',
    ])
      expectNotInData(question);
  });

  it('reads what the sixty-ninth and seventieth sets written apart from the rules found it missing', () => {
    // A service-drive manager: calls missed or not, service customers as context, shares of a named whole.
    expect(
      chain([
        'inbound service calls last week',
        'ok and total inbound service calls so far this week, missed or not?',
      ])[1]?.filters,
    ).not.toHaveProperty('status');
    expect(
      read(
        'looking for cheap stuff to offer service customers - how many regular used units (not CPO) under $20k do we have on the ground?',
      ),
    ).toMatchObject({ subject: 'vehicles', filters: { condition: ['used'], price_max: 19999.99 } });
    expect(read('what share of our inbound calls in October went to the service dept?')).toMatchObject({
      share: true,
      whole_filters: { direction: 'inbound' },
      filters: { department: 'service' },
    });
    expect(read('how many used or CPO units that came in today are sitting on the lot right now?')).toMatchObject({
      filters: { condition: ['used', 'certified'], stocked_from: '2026-11-21' },
    });
    const [, team, types] = chain([
      'jordan patel deals last month',
      'how does he stack up? rank the whole sales team by deals last month',
      "and last month's deals by type - finance, lease, cash?",
    ]);
    expect(team).toMatchObject({ group_by: 'salesperson', filters: { from: '2026-10-01' } });
    expect(team?.filters).not.toHaveProperty('salesperson');
    expect(types).toMatchObject({ group_by: 'contract_type' });
    expect(chain(['service leads ytd', 'which source is closing the trade-in ones best?'])[1]).toMatchObject({
      measure: 'rate',
      group_by: 'source',
      filters: { type: ['trade_in'] },
    });
    // A non-native speaker: "arrive today", "which make sell fastest", "how many is finance, cash and lease".
    expect(chain(['new cars in stock', 'how many of those new car arrive today? all store together'])[1]).toMatchObject(
      {
        filters: { condition: ['new'], stocked_from: '2026-11-21' },
      },
    );
    expect(read('which make sell fastest?')).toMatchObject({
      measure: 'average',
      field: 'days_to_sell',
      order: 'asc',
      group_by: 'make',
    });
    expect(read('deal this year, how many is finance, cash and lease?')).toMatchObject({ group_by: 'contract_type' });
    for (const question of [
      'ok please drop price of the first one 1000$ so it go faster',
      'can you text Jordan Patel and tell him to call the new ones back before lunch',
      'grab the recordings from the missed ones and email them to my service advisors pls',
      'customer have 2019 camry 80k mile, how much we should give him for trade in?',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    expectNotInData('how many people look these 3 on our website?');
    expect(read('how many leads came in on our website')).not.toBeNull();
  });

  it('reads what the seventy-first and seventy-second sets written apart from the rules found it missing', () => {
    // A rooftop's make after a question about that rooftop is the rooftop; "led the floor"; "im new here".
    const [, , gross, most] = chain([
      'how many deals did the ford store put on paper last month',
      'same for the chevy store',
      'and whats the total front end gross on them chevy deals',
      'which salesman wrote the most of em',
    ]);
    expect(gross).toMatchObject({ measure: 'sum', field: 'front_gross', filters: { dealer_id: ['sca'] } });
    expect(gross?.filters).not.toHaveProperty('make');
    expect(most).toMatchObject({ group_by: 'salesperson', filters: { dealer_id: ['sca'] } });
    expect(most?.filters).not.toHaveProperty('make');
    expect(chain(['chevy store deals last month', 'how many chevy trucks in stock there'])[1]).toMatchObject({
      subject: 'vehicles',
      filters: { make: ['Chevrolet'] },
    });
    expect(chain(['deals in q3', 'who led the floor in units that quarter'])[1]).toMatchObject({
      subject: 'sales',
      group_by: 'salesperson',
      filters: { from: '2026-07-01' },
    });
    expect(
      read(
        'ok im new here, give me the lay of the land. how many units do we have in stock across the whole group right now?',
      )?.filters,
    ).toEqual({});
    for (const question of [
      'chevy store looks heavy. go ahead and transfer 10 of their new units over to ford westside',
      'shoot the #1 guy a quick text saying great job this year',
      'knock 2 grand off the oldest one of em and stick it out front by the road so it MOVES',
      'fella wants to trade in a 2019 tacoma got about 80 thousand miles on it what would it bring',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    expectNotInData('which rep was on the phones when those came in');
  });

  it('reads what the seventy-third and seventy-fourth sets written apart from the rules found it missing', () => {
    // A contest's words: the #1 of a ranking, the deal type split, a share of a period's rows named afresh.
    const top = { ...chain(['which source is feeding us the most leads this month?'])[0]!, leader: 'Cars.com' };
    expect(read('whats the close rate on the #1 from that list, year to date', top)).toMatchObject({
      measure: 'rate',
      filters: { source: 'Cars.com', from: '2026-01-01' },
    });
    expect(chain(['deals this month', 'gimme the full deal type split then'])[1]).toMatchObject({
      group_by: 'contract_type',
      filters: { from: '2026-11-01' },
    });
    const [, share] = chain([
      'how many of last weeks leads came off facebook',
      "what % of last week's leads are still sitting in new status, nobody's touched em",
    ]);
    expect(share).toMatchObject({ share: true, filters: { status: ['new'], from: '2026-11-09' } });
    expect(share?.filters).not.toHaveProperty('source');
    // Sold ones at a store after its new ones in stock: the store's sold ones, not only new.
    const [, , sold] = chain([
      'how many units on the lot at Ford Westside rn?',
      'avg days on lot for just the new ones there?',
      'how many has that store marked sold in the system this month',
    ]);
    expect(sold).toMatchObject({ filters: { dealer_id: ['sfw'], status: ['sold'], from: '2026-11-01' } });
    expect(sold?.filters).not.toHaveProperty('condition');
    for (const question of [
      "ugh ok reassign all of Sam's open leads to Morgan",
      "who's gonna win the month at this pace? call it",
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    for (const question of [
      'ok now gimme talk time per agent for that same stretch',
      'how many appts are booked for this saturday?',
    ])
      expectNotInData(question);
  });

  it('reads what the seventy-fifth and seventy-sixth sets written apart from the rules found it missing', () => {
    // Aging buckets, of days on the lot and of days to sell; bands of days asked bare; "90+ bucket" after them.
    const [buckets, byStore] = chain([
      'used aging on the ground - 0-30 / 31-60 / 61-90 / 90+ bucket counts? straight used, no CPO',
      '90+ bucket by store',
    ]);
    expect(buckets).toMatchObject({ measure: 'count', group_by: 'age', filters: { condition: ['used'] } });
    expect(buckets?.filters).not.toHaveProperty('days_on_lot_min');
    expect(byStore).toMatchObject({ group_by: 'dealer', filters: { days_on_lot_min: 91 } });
    expect(
      chain([
        'per the vehicle records how many used units got marked sold last month',
        'break those out by days to sell 0-30/31-60/61-90/90+',
      ])[1],
    ).toMatchObject({ measure: 'count', group_by: 'age', filters: { status: ['sold'], from: '2026-10-01' } });
    expect(
      chain(['how many deals last month', 'break those out by days to sell 0-30/31-60/61-90/90+'])[1],
    ).toMatchObject({ measure: 'count', group_by: 'age', filters: { status: ['sold'], from: '2026-10-01' } });
    const [, band] = chain(['avg asking price on used units 0-30 days (non cpo)', '31-60?']);
    expect(band).toMatchObject({ measure: 'average', filters: { days_on_lot_min: 31, days_on_lot_max: 60 } });
    expect(read('how many used deals did we do last month, cpo excluded')).toMatchObject({
      filters: { condition: ['used'] },
    });
    // A COO's periods: "the 30 days before that", and "by store?" after a share is of the part.
    const [rate, before] = chain(['call answer rate last 30 days', 'How are we trending vs the 30 days before that?']);
    expect(before).toMatchObject({ measure: 'rate', filters: { from: '2026-09-23', to: '2026-10-22' } });
    expect(rate?.filters.from).toBe('2026-10-23');
    expect(
      chain(['How many units in inventory across the group right now?', 'how many of those are CPO?', 'by store?'])[2],
    ).toMatchObject({ group_by: 'dealer', filters: { condition: ['certified'] } });
    expect(
      understand("What's a fair trade-in number on a 2021 Tacoma TRD w/ 40k miles?", vocabulary, null, NOW),
    ).toMatchObject({ query: null, declined: true });
    expect(read('wholesale candidates - used units over 90 days w/ 100k+ miles, list em')).toMatchObject({
      measure: 'list',
      filters: { days_on_lot_min: 91, mileage_min: 100000 },
    });
  });

  it('reads what the seventy-seventh and seventy-eighth sets written apart from the rules found it missing', () => {
    // A call tracker: FTCs, tracking sources, departments, every direction; platform detail not in the data.
    const [ftc, bySource] = chain(['FTC count for this month?', 'by tracking source pls']);
    expect(ftc).toMatchObject({ subject: 'calls', filters: { first_time: true, from: '2026-11-01' } });
    expect(bySource).toMatchObject({ group_by: 'source', filters: { first_time: true } });
    const [depts, , service] = chain([
      'calls by dept this month (sales/service/parts)',
      'avg talk time on the answered sales calls, in seconds',
      'service?',
    ]);
    expect(depts).toMatchObject({ subject: 'calls', group_by: 'department' });
    expect(service).toMatchObject({ field: 'duration', filters: { department: 'service', status: ['answered'] } });
    expect(read('total call count yesterday across all 4 stores? in + outbound')?.filters).not.toHaveProperty(
      'direction',
    );
    expect(chain(['leads last month', 'which source closed best'])[1]).toMatchObject({
      measure: 'rate',
      group_by: 'source',
    });
    // A data-quality lead: no source, nobody assigned, deals with no salesperson, the slowest sellers.
    expect(read('leads this month w no source')).toMatchObject({ filters: { attributed: false } });
    expect(chain(['leads this month w no source', 'last months unsourced ones by store pls'])[1]).toMatchObject({
      group_by: 'dealer',
      filters: { attributed: false, from: '2026-10-01' },
    });
    expect(read('leads w/ nobody asigned, total count?')).toMatchObject({ filters: { unassigned: true } });
    const unsold = read('any deals in september w no salesperson on them?');
    expect(unsold).toMatchObject({ subject: 'sales', measure: 'count', filters: { unassigned: true } });
    expect(unsold).not.toHaveProperty('group_by');
    expect(chain(['avg days to sell units marked sold in the system in q3', 'slowest 3 units'])[1]).toMatchObject({
      measure: 'list',
      field: 'days_to_sell',
      order: 'desc',
      limit: 3,
    });
    for (const question of [
      'just map all of them to walk-in so the report looks clean',
      'have sam lee call every one of them today',
      'email me the recording links for them so i can QA',
      'what should the bottom store change to fix it? give me 3 recs for their BDC',
      'set up a new tracking number for the Facebook campaign at the chevy store',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    for (const question of [
      'what IVR path did most of those parts callers take? like which menu option',
      'how many callers mentioned a trade-in on the call this month? from the transcripts',
    ])
      expectNotInData(question);
    for (const question of ['have we sold any tahoes this week', 'send me the list of missed calls'])
      expect(read(question), question).not.toBeNull();
  });

  it('reads what the seventy-ninth to eighty-second sets written apart from the rules found it missing', () => {
    // A recon manager: the service department after missed calls, a callback asked for.
    expect(chain(['missed calls last 30 days', 'how many of the missed ones were svc dept'])[1]).toMatchObject({
      subject: 'calls',
      filters: { status: ['missed'], department: 'service' },
    });
    // A co-owner's long sentences: "as opposed to", "that percentage" somewhere else, "break that average down",
    // a share of those leads after a breakdown, the period's calls named by their span, "overall" after a breakdown.
    expect(
      chain(['deals last month', 'And what percentage of those deals were leases, as opposed to finance or cash?'])[1],
    ).toMatchObject({ share: true, filters: { contract_type: ['lease'] } });
    const suvs = chain([
      'what percentage of our current stock is made up of SUVs?',
      'And what is that percentage at the Toyota store up north?',
    ])[1];
    expect(suvs).toMatchObject({ share: true, filters: { body_style: ['SUV'], dealer_id: ['stn'] } });
    expect(suvs).not.toHaveProperty('whole_filters');
    const closed = chain([
      'leads last 90 days by source',
      'And what proportion of those leads have we actually closed?',
    ])[1];
    expect(closed).toMatchObject({ share: true, filters: { status: ['sold'] } });
    expect(closed).not.toHaveProperty('group_by');
    const bySource = chain([
      'How many calls did Aurora miss in the last 30 days?',
      'Turning back to the whole group, could you please break those 30 days of calls down by source?',
    ])[1];
    expect(bySource).toMatchObject({ group_by: 'source', filters: { from: '2026-10-23' } });
    expect(bySource?.filters).not.toHaveProperty('status');
    expect(bySource?.filters).not.toHaveProperty('dealer_id');
    const [, byMake, overall] = chain([
      'average days to sell for vehicles sold over the last 90 days',
      'And could you break that average down by make, please?',
      'What is the overall average days to sell for the Toyota North rooftop alone over that same period?',
    ]);
    expect(byMake).toMatchObject({ field: 'days_to_sell', group_by: 'make' });
    expect(overall).toMatchObject({ measure: 'average', field: 'days_to_sell', filters: { dealer_id: ['stn'] } });
    expect(overall).not.toHaveProperty('group_by');
    // A sales trainer: who is writing the most, front gross said bare.
    expect(
      chain(['what % of our deals ytd were leases', 'toyota north?', 'whos writing the most leases there'])[2],
    ).toMatchObject({ group_by: 'salesperson', filters: { dealer_id: ['stn'], contract_type: ['lease'] } });
    expect(chain(['deals by Sam Lee last 30 days', 'how many of those had under 500 front'])[1]).toMatchObject({
      filters: { salesperson: 'Sam Lee', gross_max: 499.99, gross_field: 'front_gross' },
    });
    // A weekend manager: asides about words, the last answer said back, days it takes to sell "on average".
    expect(
      chain([
        'white cars at westside',
        'how long have the white ones been sitting there on average? days on lot i think its called',
      ])[1],
    ).toMatchObject({ subject: 'vehicles', measure: 'average', field: 'days_on_lot' });
    expect(
      chain(['calls last 30 days', 'so thats the answer rate. how many missed calls did each store have'])[1],
    ).toMatchObject({ measure: 'count', group_by: 'dealer', filters: { status: ['missed'] } });
    expect(
      read('on average how many days does it take us to sell a car at the chevy store? last 90 days'),
    ).toMatchObject({ field: 'days_to_sell', filters: { dealer_id: ['sca'] } });
    for (const question of [
      'call back every missed one from yesterday',
      'Thank you. Please reduce the asking price on the oldest of those by $1,000 and update it on the website.',
      "Please email last month's sales summary to my business partner before the end of the day.",
      'who shud i put on the floor saturday',
      'reasign her open leads to sam lee',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
  });

  it('reads what the eighty-third and eighty-fourth sets written apart from the rules found it missing', () => {
    // An IT contractor's keywords: the rooftop and period kept for the next keywords, secs, pct, trade value.
    expect(chain(['missed calls chevy aurora last 30 days', 'avg talk time secs answered calls'])[1]).toMatchObject({
      measure: 'average',
      field: 'duration',
      filters: { dealer_id: ['sca'], status: ['answered'], from: '2026-10-23' },
    });
    expect(
      chain(['missed calls chevy aurora last 30 days', 'answered calls across all stores'])[1]?.filters,
    ).not.toHaveProperty('dealer_id');
    expect(read('pct first time callers last 30 days')).toMatchObject({ share: true, filters: { first_time: true } });
    // An intern's analytics words: a project (not a forecast), statuses spelled out, call volume, attribution
    // sources, sales consultants, "new units vs pre-owned", "list price", "the white units" after the white ones.
    expect(
      read(
        'Hi! for my summer analytics project on inventory mix — how many total units do we currently have on the ground across the whole group (avail + pending + in transit)?',
      ),
    ).toMatchObject({ subject: 'vehicles', measure: 'count', filters: {} });
    const [, volume, attribution] = chain([
      'What was our call answer rate over the last 30 days? trying to quantify the leakage at the top of the phone funnel',
      'can u break the call volume down by rooftop for the same window',
      'For the chevy store, which attribution sources drove the most call volume?',
    ]);
    expect(volume).toMatchObject({ measure: 'count', group_by: 'dealer' });
    expect(attribution).toMatchObject({ measure: 'count', group_by: 'source', filters: { dealer_id: ['sca'] } });
    expect(read('What was our call answer rate over the last 30 days? the top of the phone funnel')).not.toHaveProperty(
      'group_by',
    );
    expect(read('How many deals did we close last month? building a unit throughput baseline')).toMatchObject({
      measure: 'count',
    });
    expect(chain(['deals last month', 'rank the sales consultants by unit volume for that period'])[1]).toMatchObject({
      group_by: 'salesperson',
    });
    expect(
      chain([
        'sold toyotas last 90 days from the vehicle records',
        'and what share of those Toyotas were new units vs pre-owned?',
      ])[1],
    ).toMatchObject({ share: true, filters: { condition: ['new'] } });
    expect(read("What's the average list price across used (non-CPO) units currently in stock?")).toMatchObject({
      measure: 'average',
      field: 'price',
      filters: { condition: ['used'] },
    });
    expect(
      chain([
        'pull the 10 oldest in-stock units at Summit Honda Downtown',
        'which of those are white (exterior color)?',
        'whats the avg asking price on the white units?',
      ])[2],
    ).toMatchObject({ measure: 'average', field: 'price', filters: { dealer_id: ['shd'], color: ['white'] } });
    for (const question of [
      '2020 civic ex 45k miles trade value',
      'drop price 500 on all of those',
      'what do you project our days to sell will look like next quarter?',
    ])
      expect(understand(question, vocabulary, null, NOW), question).toMatchObject({ query: null, declined: true });
    expectNotInData('and on average how long were people stuck on hold before somebody picked up?');
  });

  it('reads what the eighty-fifth to ninetieth sets written apart from the rules found it missing', () => {
    // A principal dictating: someone over there to call back.
    expect(
      understand('ok have somebody over there call back every one of the missed ones today', vocabulary, null, NOW),
    ).toMatchObject({ query: null, declined: true });
    // An F&I director: back pvr, lease pen, AF, MSRP (a column: read now), who sends the most back gross,
    // "his deals" after his figure (those deals), "break out" (not an Outback).
    const outback = { ...vocabulary, models: [...vocabulary.models, 'Outback'] };
    const pvr = understand(
      'break out back pvr by salesperson',
      outback,
      read('total back-end gross last 30 days'),
      NOW,
    );
    expect(pvr.query).toMatchObject({ measure: 'average', field: 'back_gross', group_by: 'salesperson' });
    expect(pvr.query?.filters).not.toHaveProperty('model');
    expect(chain(['deal count by contract type last 90 days', 'lease pen?'])[1]).toMatchObject({
      share: true,
      filters: { contract_type: ['lease'] },
    });
    const [, , af, his] = chain([
      'whos sending the most back gross to the box last 90 days',
      'finance deals only',
      "alex rivera's avg AF on those",
      'pull up his deals',
    ]);
    expect(af).toMatchObject({ field: 'amount_financed', filters: { salesperson: 'Alex Rivera' } });
    expect(his).toMatchObject({ measure: 'list', filters: { salesperson: 'Alex Rivera', contract_type: ['finance'] } });
    expect(chain(['how many new units on the ground at the toyota store', 'avg msrp on those'])[1]).toMatchObject({
      measure: 'average',
      field: 'msrp',
      filters: { dealer_id: ['stn'], condition: ['new'] },
    });
    expect(read('what is the highest msrp in stock')).toMatchObject({ measure: 'max', field: 'msrp' });
    // A gruff GM: "honda vs toyota store" (both stores), "the honda deals" then (the store's), "% of deals" afresh.
    const [, stores, cash, leases] = chain([
      'deals by store last 90',
      'honda vs toyota store',
      'how many of the honda deals were cash',
      'what % of deals were leases, whole group',
    ]);
    expect(stores).toMatchObject({ subject: 'sales', group_by: 'dealer', filters: { dealer_id: ['stn', 'shd'] } });
    expect(cash).toMatchObject({ filters: { dealer_id: ['shd'], contract_type: ['cash'], from: '2026-08-24' } });
    expect(cash?.filters).not.toHaveProperty('make');
    expect(leases).toMatchObject({ share: true, filters: { contract_type: ['lease'] } });
    expect(leases).not.toHaveProperty('whole_filters');
    // An analyst comparing: rows broken out after a rate (counted), the figure "on that" per rooftop, "for each?",
    // "group wide" after rooftops compared, "which of those have been sitting longest" (several), test driven.
    expect(chain(['leads last month', 'close rate on those', 'break em out by source'])[2]).toMatchObject({
      measure: 'count',
      group_by: 'source',
    });
    const [, onThat, groupWide] = chain([
      'avg days to sell last month',
      'toyota north vs honda downtown on that',
      'and group wide for this month so far?',
    ]);
    expect(onThat).toMatchObject({ measure: 'average', field: 'days_to_sell', group_by: 'dealer' });
    expect(groupWide).toMatchObject({ measure: 'average', field: 'days_to_sell', filters: { from: '2026-11-01' } });
    expect(groupWide).not.toHaveProperty('group_by');
    expect(chain(['units on the ground chevy aurora vs ford westside?', 'avg DOL for each?'])[1]).toMatchObject({
      measure: 'average',
      group_by: 'dealer',
      filters: { dealer_id: ['sfw', 'sca'] },
    });
    expect(chain(['trucks at aurora', 'which of those have been sitting longest'])[1]).toMatchObject({
      measure: 'list',
      limit: 10,
    });
    expectNotInData('how many of those were test driven before they sold');
    // A fleet manager: 4x4 asked alone, fleet accounts, "10 units sitting the longest".
    expectNotInData('which of those are 4x4?');
    expectNotInData('how many of the missed calls were fleet/commercial accounts vs retail?');
    expect(read('10 units sitting the longest at the chevy store')).toMatchObject({ measure: 'list', limit: 10 });
    // A principal's yes/no questions: nobody's been assigned, the total asking on all the aged new ones.
    expect(read("r there any leads from the last 30 days nobody's been assigned to?")).toMatchObject({
      filters: { unassigned: true },
    });
    expect(
      chain([
        'do we have anything on the lot over 120 days?',
        'any of those new units',
        'whats the total asking on all the aged new ones',
      ])[2],
    ).toMatchObject({ measure: 'sum', field: 'price', filters: { days_on_lot_min: 121, condition: ['new'] } });
  });

  it('reads what the ninety-first to hundredth sets written apart from the rules found it missing', () => {
    // A new owner: asides asking what a word means, requests said politely, cost and staff not in the data,
    // "is it quicker for trucks?" after days to sell.
    expect(
      chain([
        'how many vehicles in stock',
        'how does that split between new, used and certified? (what does certified mean exactly, is it just a nicer used car?)',
      ])[1],
    ).toMatchObject({ group_by: 'condition' });
    expect(
      understand('Could you drop the price on the oldest one by $500 please?', vocabulary, null, NOW),
    ).toMatchObject({ query: null, declined: true });
    expectNotInData('what did we actually pay for those honda SUVs? i mean our cost, not the sticker price');
    expectNotInData('how many employees do we have at westside?');
    expect(chain(['avg days to sell', 'is it quicker for trucks?'])[1]).toMatchObject({
      measure: 'average',
      field: 'days_to_sell',
      filters: { body_style: ['Truck'] },
    });
    // A merchandiser: the internet price as a figure, "which of those r black" after a list sorted by miles.
    expect(chain(['how many f-150s on the ground', 'avg internet price on those?'])[1]).toMatchObject({
      field: 'internet_price',
      filters: { model: ['F-150'] },
    });
    expect(read('units with no internet price')).toMatchObject({ filters: { missing: ['internet_price'] } });
    const black = chain([
      'used (non-cpo) units on the lot under 30k miles, sort lowest miles first',
      'which of those r black',
    ])[1];
    expect(black).toMatchObject({ measure: 'list', field: 'mileage', order: 'asc', filters: { color: ['black'] } });
    expect(black).not.toHaveProperty('within');
    // A Texan: dropped g's, "add up to", a model of deals, add-ons, stores compared on a figure, a bare breakdown.
    expect(
      chain([
        '10 oldest units at westside',
        'how many over 90 days',
        'what do all them over 90 add up to in askin price',
      ])[2],
    ).toMatchObject({ measure: 'sum', field: 'price', filters: { days_on_lot_min: 91 } });
    expect(chain(['how many Silverados did yall sell the last 90 days', 'and F-150s?'])[1]).toMatchObject({
      subject: 'sales',
      filters: { model: ['F-150'], from: '2026-08-24' },
    });
    expectNotInData('how many of them F-150 buyers went for the spray-in bedliner add on');
    expect(
      chain(['avg days to sell trucks last 90 days', 'toyota store vs the chevy store on days to sell'])[1],
    ).toMatchObject({ field: 'days_to_sell', group_by: 'dealer', filters: { body_style: ['Truck'] } });
    expect(
      chain(['what percent of stock is trucks', 'break the honda store down by body style for me'])[1],
    ).toMatchObject({ group_by: 'body_style', filters: { dealer_id: ['shd'] } });
    // A marketing analyst: parts of months, "who" after a contract-type split, CTR, "what about calls".
    expect(read('whats our call answer rate for the first two weeks of November?')?.filters).toMatchObject({
      from: '2026-11-01',
      to: '2026-11-14',
    });
    expect(read('leads in the last week of october')?.filters).toMatchObject({ from: '2026-10-25', to: '2026-10-31' });
    expect(
      chain(['# of deals in Q3', 'split by contract type', 'who had the most lease deals in Q3'])[2],
    ).toMatchObject({
      group_by: 'salesperson',
    });
    expectNotInData("what's the CTR on our google ads for that same stretch");
    expect(understand('knock $1,000 off the oldest one', vocabulary, null, NOW)).toMatchObject({
      query: null,
      declined: true,
    });
    expect(chain(['Honda vs Toyota store - leads last month', 'what about calls'])[1]).toMatchObject({
      subject: 'calls',
      group_by: 'dealer',
      filters: { dealer_id: ['stn', 'shd'] },
    });
    // A BDC director: "honda dt", "1st time", blasting a text, agents, opt-outs, appointments by rep.
    expect(chain(['leads last 30 days still in new status', 'and honda dt?'])[1]).toMatchObject({
      subject: 'leads',
      filters: { dealer_id: ['shd'], status: ['new'] },
    });
    expect(read('how many of the missed were 1st time callers')).toMatchObject({ filters: { first_time: true } });
    expect(understand('ok blast those a txt to get em in for an appt', vocabulary, null, NOW)).toMatchObject({
      declined: true,
    });
    expectNotInData('which bdc agent let the most ring out');
    expectNotInData('how many leads opted out of texting this yr');
    expect(chain(['unassigned leads last month', 'appts by rep'])[1]?.filters).not.toHaveProperty('unassigned');
    // A CEO: trailing windows, the same ranking on another figure or period, total units in stock.
    expect(read('Call answer rate across the group, trailing 90 days.')?.filters).toMatchObject({ from: '2026-08-24' });
    const [, , units, q3] = chain([
      'Total gross QTD',
      'Rank the rooftops on total gross QTD.',
      'Same ranking on unit volume.',
      'Now the same view for Q3.',
    ]);
    expect(units).toMatchObject({ measure: 'count', group_by: 'dealer' });
    expect(q3).toMatchObject({ measure: 'count', group_by: 'dealer', filters: { from: '2026-07-01' } });
    expect(read('Total units in stock across the group?')).toMatchObject({ subject: 'vehicles', measure: 'count' });
    // A used-car manager and a pre-owned director: a make against a rooftop, price pushes declined, the same
    // breakdown ranked, sold in under a week, the band again after a share of it, the department kept.
    expect(
      chain([
        'avg days to sell used units at westside last 90 days',
        'and at the honda store',
        'honda vs toyota north',
      ])[2],
    ).toMatchObject({ group_by: 'dealer', filters: { dealer_id: ['shd', 'stn'] } });
    expect(
      understand('knock those down 5% and push the new prices to the website', vocabulary, null, NOW),
    ).toMatchObject({ declined: true });
    expect(chain(['used inventory by make', 'which make has the most sitting over 90'])[1]).toMatchObject({
      group_by: 'make',
      filters: { condition: ['used'], days_on_lot_min: 91 },
    });
    expect(
      chain(['avg days to sell used units sold last 30', 'which used ones went in under a week'])[1],
    ).toMatchObject({ subject: 'vehicles', filters: { status: ['sold'], days_on_lot_max: 6 } });
    const band = chain([
      'chevy store used stock 15-25k',
      'what % of that band is over 60 days',
      '15-25k ones over 75k mi - count',
    ])[2];
    expect(band).toMatchObject({ filters: { price_min: 15000, mileage_min: 75001 } });
    expect(band?.filters).not.toHaveProperty('days_on_lot_min');
    expect(chain(['sales dept calls last 30 - answer rate', 'missed calls by store'])[1]).toMatchObject({
      group_by: 'dealer',
      filters: { department: 'sales', status: ['missed'] },
    });
    // A store's GM and an internet director: "lastest", one share of those after a breakdown, a remark after the
    // question.
    expect(read('show me the lastest 5 leads')).toMatchObject({ measure: 'list', limit: 5 });
    expect(
      chain(['front gross by salesman at honda last 90 days', 'what % of those were leases'])[1],
    ).not.toHaveProperty('group_by');
    expect(
      chain(['how many F-150s on the ground', 'which of those are white? getting a lot of web leads on white ones'])[1],
    ).toMatchObject({ subject: 'vehicles', filters: { model: ['F-150'], color: ['white'] } });
  });

  it('reads what the hundred-and-first and hundred-and-second sets written apart from the rules found it missing', () => {
    // A controller: a request after thanks, a breakdown after a close rate (the rows counted).
    expect(understand('Great - email that breakdown to our CFO by EOD', vocabulary, null, NOW)).toMatchObject({
      declined: true,
    });
    expect(chain(['leads last 90 days', 'close rate', 'breakdown by lead source pls'])[2]).toMatchObject({
      measure: 'count',
      group_by: 'source',
    });
    expect(chain(['leads last 90 days', 'close rate', 'by source?'])[2]).toMatchObject({ measure: 'rate' });
    // An owner texting: "% of the lot", "# by store" after that share (the part, per store).
    const [, lot, byStore] = chain(['how many units over 90 days', 'what % of the lot is that', '# by store']);
    expect(lot).toMatchObject({ subject: 'vehicles', share: true, filters: { days_on_lot_min: 91 } });
    expect(byStore).toMatchObject({ group_by: 'dealer', filters: { days_on_lot_min: 91 } });
  });

  it('reads the longest question allowed in a bounded time, however its words repeat', () => {
    // Every vehicle noun walks back over the words before it: each word is looked up once, not once per
    // noun (2,000 characters of "good condition trucks" took 400 ms, holding every other request).
    for (const unit of [
      'good condition trucks ',
      'trucks with ',
      'oct 1-15 ',
      'between oct 1 and ',
      '2019-2021 ',
      // Numbers and names said in pieces, trims typed short, an analyst's notation.
      'a hundred and twenty ',
      'rav fours car gurus ',
      'trd offrd le camrys ',
      'n= >60 L90D 9/1-10/31 ',
      // Spanish words, courtesy, bands of days, arrivals, conditions let in, sorting the rows shown.
      'cuantos carros la tienda de honda este mes ',
      'thank you. good morning. ',
      'non cpo used 60-90 days cpo incl ',
      'what came in since monday no internet price ',
      'sort those by price of those ',
      // Day-first runs of dates, a period kept, statuses of new.
      '1 july through 30 september ',
      'regardless of status of new including any with no source ',
      // Record numbers and VINs.
      'deal #d100199 stock # u14345t 1hgc4tuj8lt734220 ',
      // An analyst's windows and mixes, imperatives.
      'l90 gpu t3m new/used/cpo tell the bdc to ',
      'missed or not used or cpo arrive today finance, cash and lease ',
      'im new here. go ahead and knock 2 grand off ',
      '0-30 / 31-60 / 61-90 / 90+ bucket the 90+ cpo excluded ',
      'ftcs by tracking source in + outbound w no source nobody asigned ',
      // Asides and restatements, spans of days, bare front gross.
      'so thats the answer rate. its called under 500 front those 30 days of calls as opposed to ',
      // Keywords and an intern's words.
      'avg talk time secs pct (avail + pending + in transit) attribution sources new units vs pre-owned ',
      // F&I shorthand, stores compared, fleets and drivetrains.
      'back pvr lease pen af msrp honda vs toyota store break out which of those are 4x4 nobodys been assigned ',
      // Parts of months, dropped g's, remarks after a question, bands and weeks.
      'first two weeks of november askin sittin? getting a lot of web leads 15-25k ones went in under a week ',
      // A share of the first named in a comparison: the lookbehind walks back to "share".
      'what share were new units vs pre-owned ',
    ]) {
      const question = unit.repeat(Math.ceil(2000 / unit.length)).slice(0, 2000);
      // The fastest of three runs: a busy machine stalls a run, not the work it does.
      const runs = [0, 1, 2].map(() => {
        const started = performance.now();
        understand(question, vocabulary, null, NOW);
        return performance.now() - started;
      });
      expect(Math.min(...runs), unit).toBeLessThan(200);
    }
  });
});
