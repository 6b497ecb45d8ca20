import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../src/auth/passwords';
import { resolveAndLink, seedActivity } from '../src/seed/activity';
import { seedDealerGroup } from '../src/seed/demo';
import { startTestApp, type TestApp } from './helpers/app';
import { seedGroup, type SeededGroup } from './helpers/seed';
import { createKey } from './helpers/keys';

/** The built-in assistant (AI assistant section of docs/operations.md) over a demo dealer group: the question fixture, follow-ups, conversations, tenancy. */

interface Expectation {
  count?: string;
  share?: string;
  value?: string;
  groups?: string;
  vins?: string;
  vins_among?: string;
  records?: string;
  records_among?: string;
  /** SQL giving `part` and `whole`: the answer's rate is part ÷ whole in percent. */
  rate?: string;
  unanswerable?: boolean;
  /** Declined as not a question about the data ("I can't help with that: …"). */
  declined?: boolean;
  /** A pattern the answer's text must match as well (case-insensitive): what it restates or says it did not use. */
  says?: string;
  /** A pattern the answer's text must not match (case-insensitive): a note or breakdown it must not give. */
  says_not?: string;
}
type Fixture = { questions: Array<{ q: string; conversation?: string; expect: Expectation }> };
const fixture = (name: string) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, 'fixtures', name), 'utf8')) as Fixture;
const FIXTURE = fixture('assistant-questions.json');
const DEALER_FIXTURE = fixture('assistant-dealer-questions.json');
// Written apart from the reader's rules, each by someone who had not read them (the first before the
// fixes it prompted, the second before the fixes that followed the first).
const UNSEEN_FIXTURES = [
  { name: 'unseen', fixture: fixture('assistant-unseen-questions.json'), size: 45, declined: 8, unanswerable: 5 },
  { name: 'unseen-2', fixture: fixture('assistant-unseen-2-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-3', fixture: fixture('assistant-unseen-3-questions.json'), size: 32, declined: 5, unanswerable: 3 },
  { name: 'unseen-4', fixture: fixture('assistant-unseen-4-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-5', fixture: fixture('assistant-unseen-5-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-6', fixture: fixture('assistant-unseen-6-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-7', fixture: fixture('assistant-unseen-7-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-8', fixture: fixture('assistant-unseen-8-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-9', fixture: fixture('assistant-unseen-9-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-10', fixture: fixture('assistant-unseen-10-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-11', fixture: fixture('assistant-unseen-11-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-12', fixture: fixture('assistant-unseen-12-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-13', fixture: fixture('assistant-unseen-13-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-14', fixture: fixture('assistant-unseen-14-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-15', fixture: fixture('assistant-unseen-15-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-16', fixture: fixture('assistant-unseen-16-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-17', fixture: fixture('assistant-unseen-17-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-18', fixture: fixture('assistant-unseen-18-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-19', fixture: fixture('assistant-unseen-19-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-20', fixture: fixture('assistant-unseen-20-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-21', fixture: fixture('assistant-unseen-21-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-22', fixture: fixture('assistant-unseen-22-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-23', fixture: fixture('assistant-unseen-23-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-24', fixture: fixture('assistant-unseen-24-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-25', fixture: fixture('assistant-unseen-25-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-26', fixture: fixture('assistant-unseen-26-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-27', fixture: fixture('assistant-unseen-27-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-28', fixture: fixture('assistant-unseen-28-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-29', fixture: fixture('assistant-unseen-29-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-30', fixture: fixture('assistant-unseen-30-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-31', fixture: fixture('assistant-unseen-31-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-32', fixture: fixture('assistant-unseen-32-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-33', fixture: fixture('assistant-unseen-33-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-34', fixture: fixture('assistant-unseen-34-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-35', fixture: fixture('assistant-unseen-35-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-36', fixture: fixture('assistant-unseen-36-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-37', fixture: fixture('assistant-unseen-37-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-38', fixture: fixture('assistant-unseen-38-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-39', fixture: fixture('assistant-unseen-39-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-40', fixture: fixture('assistant-unseen-40-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-41', fixture: fixture('assistant-unseen-41-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-42', fixture: fixture('assistant-unseen-42-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-43', fixture: fixture('assistant-unseen-43-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-44', fixture: fixture('assistant-unseen-44-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-45', fixture: fixture('assistant-unseen-45-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-46', fixture: fixture('assistant-unseen-46-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-47', fixture: fixture('assistant-unseen-47-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-48', fixture: fixture('assistant-unseen-48-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-49', fixture: fixture('assistant-unseen-49-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-50', fixture: fixture('assistant-unseen-50-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-51', fixture: fixture('assistant-unseen-51-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-52', fixture: fixture('assistant-unseen-52-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-53', fixture: fixture('assistant-unseen-53-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-54', fixture: fixture('assistant-unseen-54-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-55', fixture: fixture('assistant-unseen-55-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-56', fixture: fixture('assistant-unseen-56-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-57', fixture: fixture('assistant-unseen-57-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-58', fixture: fixture('assistant-unseen-58-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-59', fixture: fixture('assistant-unseen-59-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-60', fixture: fixture('assistant-unseen-60-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-61', fixture: fixture('assistant-unseen-61-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-62', fixture: fixture('assistant-unseen-62-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-63', fixture: fixture('assistant-unseen-63-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-64', fixture: fixture('assistant-unseen-64-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-65', fixture: fixture('assistant-unseen-65-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-66', fixture: fixture('assistant-unseen-66-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-67', fixture: fixture('assistant-unseen-67-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-68', fixture: fixture('assistant-unseen-68-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-69', fixture: fixture('assistant-unseen-69-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-70', fixture: fixture('assistant-unseen-70-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-71', fixture: fixture('assistant-unseen-71-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-72', fixture: fixture('assistant-unseen-72-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-73', fixture: fixture('assistant-unseen-73-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-74', fixture: fixture('assistant-unseen-74-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-75', fixture: fixture('assistant-unseen-75-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-76', fixture: fixture('assistant-unseen-76-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-77', fixture: fixture('assistant-unseen-77-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-78', fixture: fixture('assistant-unseen-78-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-79', fixture: fixture('assistant-unseen-79-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-80', fixture: fixture('assistant-unseen-80-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-81', fixture: fixture('assistant-unseen-81-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-82', fixture: fixture('assistant-unseen-82-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-83', fixture: fixture('assistant-unseen-83-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-84', fixture: fixture('assistant-unseen-84-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-85', fixture: fixture('assistant-unseen-85-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-86', fixture: fixture('assistant-unseen-86-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-87', fixture: fixture('assistant-unseen-87-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-88', fixture: fixture('assistant-unseen-88-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-89', fixture: fixture('assistant-unseen-89-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-90', fixture: fixture('assistant-unseen-90-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-91', fixture: fixture('assistant-unseen-91-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-92', fixture: fixture('assistant-unseen-92-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-93', fixture: fixture('assistant-unseen-93-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-94', fixture: fixture('assistant-unseen-94-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-95', fixture: fixture('assistant-unseen-95-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-96', fixture: fixture('assistant-unseen-96-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-97', fixture: fixture('assistant-unseen-97-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-98', fixture: fixture('assistant-unseen-98-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  { name: 'unseen-99', fixture: fixture('assistant-unseen-99-questions.json'), size: 40, declined: 8, unanswerable: 4 },
  {
    name: 'unseen-100',
    fixture: fixture('assistant-unseen-100-questions.json'),
    size: 40,
    declined: 8,
    unanswerable: 4,
  },
  {
    name: 'unseen-101',
    fixture: fixture('assistant-unseen-101-questions.json'),
    size: 40,
    declined: 8,
    unanswerable: 4,
  },
  {
    name: 'unseen-102',
    fixture: fixture('assistant-unseen-102-questions.json'),
    size: 40,
    declined: 8,
    unanswerable: 4,
  },
];

const PASSWORD = 'assistant-test-password';

export async function demoGroupWithAnalyst(app: TestApp, slug: string) {
  const groupId = await seedDealerGroup(app.database.pool, {
    name: 'Summit Auto Group',
    slug,
    vehicles: 1500,
    seed: 11,
  });
  await seedActivity(app.database.pool, { dealerGroupId: groupId, calls: 900, leads: 700, sales: 250, seed: 5 });
  await resolveAndLink(app.database.prisma, groupId);
  const email = `analyst@${slug}.example`;
  await app.database.prisma.user.create({
    data: {
      email,
      name: 'Ana Lyst',
      role: 'analyst',
      passwordHash: await hashPassword(PASSWORD),
      dealerGroups: { create: [{ dealerGroupId: groupId }] },
    },
  });
  const login = await app.client.post('/auth/login', { email, password: PASSWORD });
  return { groupId, token: login.body.token as string };
}

/** Expands the fixture's macros into SQL with the caller's groups as $1. */
function expandSql(sql: string, now = new Date()): string {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const iso = (date: Date) => date.toISOString().slice(0, 10);
  // A month named without a year: this year's, or last year's when it has not begun yet.
  const namedMonth = (month: number, end: boolean) => {
    const year = month > today.getUTCMonth() ? today.getUTCFullYear() - 1 : today.getUTCFullYear();
    return iso(new Date(Date.UTC(year, month + (end ? 1 : 0), end ? 0 : 1)));
  };
  return (
    sql
      .replaceAll('{g}', '= ANY($1::uuid[])')
      .replaceAll('{lot}', "v.status IN ('available','pending','in_transit')")
      .replaceAll('{dol}', "((COALESCE(v.sold_at, now()) AT TIME ZONE 'UTC')::date - v.date_in_stock)")
      .replaceAll('{today}', iso(today))
      .replace(/\{ago:(\d+)\}/g, (_match, days) => iso(new Date(today.getTime() - Number(days) * 86_400_000)))
      .replaceAll('{month_start}', iso(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 1))))
      .replaceAll('{last_month_start}', iso(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - 1, 1))))
      .replaceAll('{last_month_end}', iso(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), 0))))
      .replaceAll('{year_start}', `${today.getUTCFullYear()}-01-01`)
      .replaceAll('{week_start}', iso(new Date(today.getTime() - ((today.getUTCDay() + 6) % 7) * 86_400_000)))
      .replaceAll(
        '{last_week_start}',
        iso(new Date(today.getTime() - (((today.getUTCDay() + 6) % 7) + 7) * 86_400_000)),
      )
      .replaceAll('{last_week_end}', iso(new Date(today.getTime() - (((today.getUTCDay() + 6) % 7) + 1) * 86_400_000)))
      .replaceAll('{last_year_start}', `${today.getUTCFullYear() - 1}-01-01`)
      .replaceAll('{last_year_end}', `${today.getUTCFullYear() - 1}-12-31`)
      .replaceAll('{sold}', "(l.sale_id IS NOT NULL OR l.status = 'sold')")
      .replace(/\{month_(start|end):(\d{1,2})\}/g, (_match, end, number) =>
        namedMonth(Number(number) - 1, end === 'end'),
      )
      .replaceAll(
        '{quarter_start}',
        iso(new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() - (today.getUTCMonth() % 3), 1))),
      )
      // A quarter named without a year ("q3"): its latest that has begun.
      .replace(/\{q_(start|end):([1-4])\}/g, (_match, end, number) => {
        const first = (Number(number) - 1) * 3;
        const year = first > today.getUTCMonth() ? today.getUTCFullYear() - 1 : today.getUTCFullYear();
        return iso(new Date(Date.UTC(year, end === 'end' ? first + 3 : first, end === 'end' ? 0 : 1)));
      })
      .replaceAll('{days_to_sell}', "((v.sold_at AT TIME ZONE 'UTC')::date - v.date_in_stock)")
  );
}

/** The unit of an expected figure's last decimal place (0.1 for 58.2); whole numbers count to the cent. */
function precisionOf(value: string | number): number {
  const decimals = String(value).split('.')[1]?.length;
  return decimals ? 10 ** -decimals : 0.01;
}

/** An expected average or total: written with decimals, to the last of them; rounded to a whole number (418 seconds), to 1. */
const valuePrecision = (value: string | number) => (/^-?\d+$/.test(String(value)) ? 1 : precisionOf(value));

type Figures = Array<{ label: string; value: string }>;
/** A rate said as a share: the part first, its share of the whole, and the whole. */
const givesShare = (figures: Figures, part: number, whole: number, percent: number | null) =>
  Number(figures[0]?.value) === part &&
  String(percent ?? 'none') === figures.find((entry) => entry.label === 'share (%)')?.value &&
  figures.slice(1).some((entry) => entry.label !== 'share (%)' && Number(entry.value) === whole);
/** A share said as a rate: the whole first and the part's rate of it. */
const givesRate = (figures: Figures, whole: number, percent: number) =>
  Number(figures[0]?.value) === whole && Number(figures.find((entry) => entry.label === 'rate (%)')?.value) === percent;

interface Answer {
  content: string;
  answered: boolean;
  citations: { vins: string[]; record_ids: string[]; figures: Array<{ label: string; value: string }> } | null;
}

describe('the assistant without a provider', () => {
  let app: TestApp;
  let demo: { groupId: string; token: string };
  let other: SeededGroup;
  let otherToken: string;

  beforeAll(async () => {
    // The fixtures ask about two thousand questions: more than one caller may ask in ten minutes.
    app = await startTestApp({
      SYNC_SCHEDULER: 'false',
      FIELD_RATE_LIMITS: 'assistant-messages=5000/10m',
    });
    demo = await demoGroupWithAnalyst(app, 'assistant-demo');
    other = await seedGroup(app.database.prisma, {
      users: { admin: 'admin', analyst: 'analyst', viewer: 'viewer' },
      vehicles: Array.from({ length: 7 }, (_, index) => ({ price: `${20_000 + index * 1000}.00` })),
    });
    otherToken = await other.login(app.client, 'analyst');
  }, 120_000);
  afterAll(() => app?.stop());

  const sql = async <T>(text: string, groups = [demo.groupId]) =>
    (await app.database.pool.query(expandSql(text), [groups])).rows as T[];

  async function judge(answer: Answer, expectation: Expectation): Promise<string | null> {
    const problem = await judgeFigures(answer, expectation);
    if (problem) return problem;
    if (expectation.says && !new RegExp(expectation.says, 'i').test(answer.content))
      return `the text does not say /${expectation.says}/: ${answer.content.slice(0, 200)}`;
    if (expectation.says_not && new RegExp(expectation.says_not, 'i').test(answer.content))
      return `the text says /${expectation.says_not}/: ${answer.content.slice(0, 200)}`;
    return null;
  }

  async function judgeFigures(answer: Answer, expectation: Expectation): Promise<string | null> {
    if (expectation.declined)
      return !answer.answered && answer.content.startsWith("I can't help with that")
        ? null
        : `did not decline: "${answer.content.slice(0, 100)}"`;
    if (expectation.unanswerable)
      return answer.answered ? `answered "${answer.content.slice(0, 80)}" instead of saying it cannot` : null;
    if (!answer.answered || !answer.citations) return `did not answer: ${answer.content.slice(0, 120)}`;
    const figures = answer.citations.figures;
    if (expectation.rate) {
      const [row] = await sql<{ part: string; whole: string }>(expectation.rate);
      const whole = Number(row!.whole);
      const percent = whole ? Math.round((Number(row!.part) / whole) * 1000) / 10 : null;
      const got = figures.find((entry) => entry.label === 'rate (%)');
      if (
        (String(percent ?? 'none') !== got?.value || Number(figures[0]?.value) !== whole) &&
        !givesShare(figures, Number(row!.part), whole, percent)
      )
        return `rate ${got?.value}% of ${figures[0]?.value}, expected ${percent}% of ${whole}`;
      return percent === null || answer.content.includes(`${percent.toLocaleString('en-US')}%`)
        ? null
        : `the text does not say ${percent}%`;
    }
    if (expectation.count) {
      const [row] = await sql<{ n: string }>(expectation.count);
      const expected = Number(row!.n);
      if (Number(figures[0]?.value) !== expected) return `count ${figures[0]?.value}, expected ${expected}`;
      if (
        !answer.content.includes(expected.toLocaleString('en-US')) &&
        !(expected === 0 && /\bno\b/.test(answer.content))
      )
        return `the text does not say ${expected}`;
      return null;
    }
    if (expectation.share) {
      const [row] = await sql<{ part: string; whole: string }>(expectation.share);
      const percent = Math.round((Number(row!.part) / Number(row!.whole)) * 1000) / 10;
      const got = figures.find((entry) => entry.label === 'share (%)');
      if (
        (Number(figures[0]?.value) !== Number(row!.part) || Number(got?.value) !== percent) &&
        !givesRate(figures, Number(row!.whole), percent)
      )
        return `share ${got?.value}% of count ${figures[0]?.value}, expected ${percent}% of ${row!.part}`;
      return answer.content.includes(`${percent.toLocaleString('en-US')}%`)
        ? null
        : `the text does not say ${percent}%`;
    }
    if (expectation.value) {
      const [row] = await sql<{ value: number | string | null }>(expectation.value);
      // "Who's top on total gross": a ranking gives the figure of its first row.
      const figure = figures.find((entry) => /^(average|sum) /.test(entry.label)) ?? figures[1];
      // A figure written to one decimal (38.4 days) matches the figures that round to it.
      const expected = Number(row!.value);
      if (
        !figure ||
        row!.value === null ||
        Math.abs(Number(figure.value) - expected) >
          Math.max(0.01 * Math.max(1, Math.abs(expected) / 100), valuePrecision(row!.value) / 2)
      )
        return `figure ${figure?.value}, expected ${row!.value}`;
      return null;
    }
    if (expectation.groups) {
      const rows = await sql<{ label: string; n: string | number }>(expectation.groups);
      // Labels compare without case: a salesperson is one person however the DMS spells the name.
      const got = new Map(figures.slice(1).map((entry) => [entry.label.toLowerCase(), Number(entry.value)]));
      for (const row of rows) row.label = String(row.label).toLowerCase();
      if (got.size !== rows.length) return `${got.size} groups, expected ${rows.length}: ${[...got.keys()].join(', ')}`;
      // A figure's label names its group and then the figure ("alex rivera total gross"): either matches the group.
      const valueOf = (label: string) => got.get(label) ?? [...got].find(([key]) => key.startsWith(`${label} `))?.[1];
      // Expected figures written to one decimal (58.2 days; 61 among them is 61.0) match the figures that round to
      // them; rounded to whole numbers (34 days, $17,665), to 1, as a value's are. Counts are whole either way.
      const precision = Math.max(...rows.map((row) => valuePrecision(row.n)));
      const wrong = rows.find(
        (row) => Math.abs((valueOf(row.label) ?? Number.NaN) - Number(row.n)) > Math.max(0.01, precision / 2),
      );
      return wrong ? `group ${wrong.label}: ${valueOf(wrong.label)}, expected ${wrong.n}` : null;
    }
    if (expectation.vins || expectation.vins_among) {
      const expected = (await sql<{ vin: string }>((expectation.vins ?? expectation.vins_among)!)).map(
        (row) => row.vin,
      );
      const vins = answer.citations.vins;
      if (expectation.vins)
        return JSON.stringify(vins) === JSON.stringify(expected)
          ? null
          : `cited ${vins.join(',')}, expected ${expected.join(',')}`;
      return vins.length && vins.every((vin) => expected.includes(vin))
        ? null
        : `cited ${vins.join(',')}, expected among ${expected.slice(0, 5).join(',')}`;
    }
    if (!expectation.records && !expectation.records_among) return null;
    const expected = (await sql<{ id: string }>((expectation.records ?? expectation.records_among)!)).map(
      (row) => row.id,
    );
    const ids = answer.citations.record_ids;
    if (expectation.records)
      return JSON.stringify(ids) === JSON.stringify(expected)
        ? null
        : `cited ${ids.length} records, expected ${expected.length} in order`;
    return ids.length && ids.every((id) => expected.includes(id)) ? null : 'cited records outside the expected ones';
  }

  /** Asks a fixture's questions (those sharing a conversation in one), and says which answers were wrong. */
  async function ask(questions: Fixture['questions']): Promise<string[]> {
    const conversations = new Map<string, string>();
    const failures: string[] = [];
    for (const entry of questions) {
      let conversationId = entry.conversation ? conversations.get(entry.conversation) : undefined;
      if (!conversationId) {
        const started = await app.client.post('/assistant/conversations', {}, demo.token);
        expect(started.status, JSON.stringify(started.body)).toBe(201);
        conversationId = started.body.id as string;
        if (entry.conversation) conversations.set(entry.conversation, conversationId);
      }
      const response = await app.client.post(
        `/assistant/conversations/${conversationId}/messages`,
        { content: entry.q },
        demo.token,
      );
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body.answer).toMatchObject({ role: 'assistant', engine: 'built_in' });
      const problem = await judge(response.body.answer, entry.expect);
      if (problem) failures.push(`"${entry.q}": ${problem}`);
    }
    return failures;
  }

  it(`answers at least 90% of the ${FIXTURE.questions.length}-question fixture correctly, with follow-ups in their conversations`, async () => {
    expect(FIXTURE.questions.length).toBeGreaterThanOrEqual(40);
    const failures = await ask(FIXTURE.questions);
    const correct = FIXTURE.questions.length - failures.length;
    console.log(
      `assistant fixture: ${correct}/${FIXTURE.questions.length} correct${failures.length ? `\n  ${failures.join('\n  ')}` : ''}`,
    );
    expect(correct / FIXTURE.questions.length).toBeGreaterThanOrEqual(0.9);
  }, 120_000);

  it(`answers at least 95% of the ${DEALER_FIXTURE.questions.length} questions typed as dealers type them, declining what is not about the data`, async () => {
    const { questions } = DEALER_FIXTURE;
    expect(questions.length).toBeGreaterThanOrEqual(120);
    expect(questions.filter((entry) => entry.expect.declined).length).toBeGreaterThanOrEqual(20);
    const failures = await ask(questions);
    const correct = questions.length - failures.length;
    console.log(
      `dealer fixture: ${correct}/${questions.length} correct (${Math.round((correct / questions.length) * 1000) / 10}%)${failures.length ? `\n  ${failures.join('\n  ')}` : ''}`,
    );
    expect(correct / questions.length).toBeGreaterThanOrEqual(0.95);
  }, 240_000);

  it.each(UNSEEN_FIXTURES)(
    'answers at least 95% of the $name fixture, written apart from its rules, declining what is not about the data and saying what the data does not hold',
    async ({ name, fixture: { questions }, size, declined, unanswerable }) => {
      expect(questions.length).toBeGreaterThanOrEqual(size);
      expect(questions.filter((entry) => entry.expect.declined).length).toBeGreaterThanOrEqual(declined);
      expect(questions.filter((entry) => entry.expect.unanswerable).length).toBeGreaterThanOrEqual(unanswerable);
      const failures = await ask(questions);
      const correct = questions.length - failures.length;
      console.log(
        `${name} fixture: ${correct}/${questions.length} correct (${Math.round((correct / questions.length) * 1000) / 10}%)${failures.length ? `\n  ${failures.join('\n  ')}` : ''}`,
      );
      expect(correct / questions.length).toBeGreaterThanOrEqual(0.95);
    },
    240_000,
  );

  it('compares two periods named in one question: the first answered, the second beside it', async () => {
    const started = await app.client.post('/assistant/conversations', {}, demo.token);
    const response = await app.client.post(
      `/assistant/conversations/${started.body.id}/messages`,
      { content: 'How many deals did we close last month, and how does that compare with September?' },
      demo.token,
    );
    expect(response.status).toBe(201);
    const { content, citations } = response.body.answer as Answer;
    const [last] = await sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM sales s WHERE s.dealer_group_id {g} AND (s.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{last_month_start}' AND '{last_month_end}'",
    );
    const [september] = await sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM sales s WHERE s.dealer_group_id {g} AND (s.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{month_start:9}' AND '{month_end:9}'",
    );
    expect(Number(citations!.figures[0]!.value)).toBe(last!.n);
    expect(Number(citations!.figures.find((entry) => entry.label.startsWith('compared: '))?.value)).toBe(september!.n);
    expect(content).toContain(`Compared with September: You have ${september!.n.toLocaleString('en-US')} deals`);
    expect(content).not.toMatch(/Not used/);
  });

  it('finds one vehicle by its stock number or VIN whatever its status, and one deal by its number', async () => {
    const [sold] = await sql<{ vin: string; stock_number: string; price: string }>(
      "SELECT v.vin, v.stock_number, v.price::text AS price FROM vehicles v WHERE v.dealer_group_id {g} AND v.status = 'sold' AND v.stock_number IS NOT NULL AND v.price IS NOT NULL ORDER BY v.id LIMIT 1",
    );
    const [deal] = await sql<{ id: string; deal_number: string; salesperson: string }>(
      'SELECT s.id, s.deal_number, s.salesperson FROM sales s WHERE s.dealer_group_id {g} AND s.salesperson IS NOT NULL ORDER BY s.id LIMIT 1',
    );
    expect(
      await ask([
        {
          q: `whats the price on stock # ${sold!.stock_number.toLowerCase()}`,
          expect: {
            vins: `SELECT v.vin FROM vehicles v WHERE v.dealer_group_id {g} AND v.vin = '${sold!.vin}'`,
            says: `stock number ${sold!.stock_number}`,
          },
        },
        {
          q: `tell me about vin ${sold!.vin}`,
          expect: { vins: `SELECT v.vin FROM vehicles v WHERE v.dealer_group_id {g} AND v.vin = '${sold!.vin}'` },
        },
        {
          q: `pull deal ${deal!.deal_number}`,
          conversation: 'deal',
          expect: {
            records: `SELECT s.id FROM sales s WHERE s.dealer_group_id {g} AND s.id = '${deal!.id}'`,
            says: `^Deal ${deal!.deal_number}:`,
          },
        },
        {
          q: "pull all of that salesperson's deals",
          conversation: 'deal',
          expect: {
            records: `SELECT s.id FROM sales s WHERE s.dealer_group_id {g} AND s.salesperson = '${deal!.salesperson.replaceAll("'", "''")}' ORDER BY s.sold_at DESC, s.id DESC LIMIT 10`,
          },
        },
      ]),
    ).toEqual([]);
  });

  it('bounds the gross, not the sale price, when a bound stands next to a gross', async () => {
    const deals = (bound: string) =>
      `SELECT count(*)::int AS n FROM sales s WHERE s.dealer_group_id {g} AND ${bound} AND (s.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{last_month_start}' AND '{last_month_end}'`;
    expect(
      await ask([
        {
          q: 'how many deals last month with over 4k total gross',
          expect: { count: deals('s.front_gross + COALESCE(s.back_gross, 0) > 4000') },
        },
        {
          q: 'how many deals last month where back end was under $500',
          expect: { count: deals('s.back_gross < 500') },
        },
      ]),
    ).toEqual([]);
  });

  // Issue 16's verbatim questions, each answered as asked (they were answered as different questions).
  it.each<[string, Fixture['questions']]>([
    [
      'a salesperson named in a question about deals',
      [
        {
          q: 'how many deals did Sam Lee do this month',
          expect: {
            count:
              "SELECT count(*) AS n FROM sales d WHERE d.dealer_group_id {g} AND lower(d.salesperson) = 'sam lee' AND (d.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{month_start}' AND '{today}'",
            says: 'deals by Sam Lee',
          },
        },
      ],
    ],
    [
      'calls missed yesterday',
      [
        {
          q: 'how many calls did we miss yesterday',
          expect: {
            count:
              "SELECT count(*) AS n FROM calls c WHERE c.dealer_group_id {g} AND c.status = 'missed' AND (c.started_at AT TIME ZONE 'UTC')::date = '{ago:1}'",
            says: 'missed calls? on',
          },
        },
      ],
    ],
    [
      'a follow-up about leads that names a source called Cars.com',
      [
        {
          conversation: 'leads',
          q: 'how many leads did we get last month',
          expect: {
            count:
              "SELECT count(*) AS n FROM leads l WHERE l.dealer_group_id {g} AND (l.received_at AT TIME ZONE 'UTC')::date BETWEEN '{last_month_start}' AND '{last_month_end}'",
          },
        },
        {
          conversation: 'leads',
          q: 'how many of em came from cars.com',
          expect: {
            count:
              "SELECT count(*) AS n FROM leads l JOIN sources s ON s.id = l.source_id WHERE l.dealer_group_id {g} AND s.name = 'Cars.com' AND (l.received_at AT TIME ZONE 'UTC')::date BETWEEN '{last_month_start}' AND '{last_month_end}'",
            says: 'leads from Cars.com',
          },
        },
      ],
    ],
    [
      'a close rate, not a share of all leads',
      [
        {
          q: 'what % of leads from cars.com closed',
          expect: {
            rate: "SELECT count(*) FILTER (WHERE {sold}) AS part, count(*) AS whole FROM leads l JOIN sources s ON s.id = l.source_id WHERE l.dealer_group_id {g} AND s.name = 'Cars.com'",
            says: 'close rate of leads from Cars.com',
          },
        },
      ],
    ],
    [
      'requests that are not about the data, though they name cars and prices',
      [
        {
          q: 'write me an email to a customer letting them know their car is ready for pickup',
          expect: { declined: true },
        },
        { q: 'what will used car prices be next year?', expect: { declined: true } },
      ],
    ],
    [
      'a model as dealers say it, with a price and a mileage',
      [
        {
          q: 'any silverados under 40k with less than 30k miles?',
          expect: {
            count:
              "SELECT count(*) AS n FROM vehicles v WHERE v.dealer_group_id {g} AND {lot} AND v.model ILIKE 'silverado%' AND v.price < 40000 AND v.mileage < 30000",
            says: 'Silverado 1500',
          },
        },
      ],
    ],
    [
      'leases, answer rate and close rate, and a period alone as a follow-up',
      [
        {
          q: 'how many leases this month',
          expect: {
            count:
              "SELECT count(*) AS n FROM sales d WHERE d.dealer_group_id {g} AND d.contract_type = 'lease' AND (d.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{month_start}' AND '{today}'",
          },
        },
        {
          q: "what's our answer rate",
          expect: {
            rate: "SELECT count(*) FILTER (WHERE c.status = 'answered') AS part, count(*) AS whole FROM calls c WHERE c.dealer_group_id {g}",
          },
        },
        {
          q: 'close rate by source',
          expect: {
            groups:
              "SELECT COALESCE(s.name, 'unattributed') AS label, round(count(*) FILTER (WHERE {sold}) * 100.0 / count(*), 1)::float8 AS n FROM leads l LEFT JOIN sources s ON s.id = l.source_id WHERE l.dealer_group_id {g} GROUP BY 1",
          },
        },
        { conversation: 'missed', q: 'how many missed calls in the last 7 days', expect: { says: 'missed calls?' } },
        {
          conversation: 'missed',
          q: 'yesterday',
          expect: {
            count:
              "SELECT count(*) AS n FROM calls c WHERE c.dealer_group_id {g} AND c.status = 'missed' AND (c.started_at AT TIME ZONE 'UTC')::date = '{ago:1}'",
          },
        },
      ],
    ],
    [
      'a ranking of sources, and which ones have been sitting longest',
      [
        {
          // Leads with no source lump many sources together: counted beside the ranking, not ranked first.
          q: 'Which source brought the most leads',
          expect: {
            groups:
              'SELECT s.name AS label, count(*) AS n FROM leads l JOIN sources s ON s.id = l.source_id WHERE l.dealer_group_id {g} GROUP BY 1',
            says: 'Most: [\\s\\S]*\\d+ leads with no source are not ranked',
          },
        },
        {
          q: 'which ones have been sitting the longest',
          expect: {
            vins: 'SELECT v.vin FROM vehicles v WHERE v.dealer_group_id {g} AND {lot} ORDER BY {dol} DESC, v.id DESC LIMIT 10',
          },
        },
      ],
    ],
    [
      'a salesperson named in a question about calls, said back as not used',
      [
        {
          q: 'how many calls did Sam Lee take last week',
          expect: {
            count:
              "SELECT count(*) AS n FROM calls c WHERE c.dealer_group_id {g} AND (c.started_at AT TIME ZONE 'UTC')::date BETWEEN '{last_week_start}' AND '{last_week_end}'",
            says: 'Not used: the salesperson Sam Lee',
          },
        },
      ],
    ],
    [
      'days to sell, as days from stock-in to sale, never a sale price',
      [
        {
          q: 'avg days to sell a used car',
          expect: {
            value:
              "SELECT avg({days_to_sell})::float8 AS value FROM vehicles v WHERE v.dealer_group_id {g} AND v.status = 'sold' AND v.condition = 'used'",
            says: 'average days to sell \\(from stock-in to sale\\) of sold used vehicles is [\\d.]+ days',
            says_not: 'sale price',
          },
        },
        {
          q: 'how long does it take to sell a used truck',
          expect: {
            value:
              "SELECT avg({days_to_sell})::float8 AS value FROM vehicles v WHERE v.dealer_group_id {g} AND v.status = 'sold' AND v.condition = 'used' AND v.body_style = 'Truck'",
            says: 'days to sell',
          },
        },
        {
          q: 'avg turn time on used cars last month',
          expect: {
            value:
              "SELECT avg({days_to_sell})::float8 AS value FROM vehicles v WHERE v.dealer_group_id {g} AND v.status = 'sold' AND v.condition = 'used' AND (v.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{last_month_start}' AND '{last_month_end}'",
            says: 'days to sell \\(from stock-in to sale\\) of used vehicles sold 1–\\d{2} \\w+ \\d{4} is',
            says_not: 'Not used',
          },
        },
        // A measure the data does not hold is said plainly, never answered with another one; MSRP is held.
        { q: 'avg curb weight of new suvs', expect: { unanswerable: true, says: 'curb weight' } },
        {
          q: 'avg msrp of new suvs',
          expect: {
            value:
              "SELECT avg(v.msrp)::float8 AS value FROM vehicles v WHERE v.dealer_group_id {g} AND {lot} AND v.condition = 'new' AND v.body_style = 'SUV'",
          },
        },
        { q: 'whats our average apr on finance deals', expect: { unanswerable: true, says: 'apr' } },
      ],
    ],
    [
      'a rooftop whose name holds a make, read as the rooftop and not the make',
      [
        {
          q: '# of cars sold at summit ford in october',
          expect: {
            count:
              "SELECT count(*) AS n FROM sales d WHERE d.dealer_group_id {g} AND d.dealer_id = (SELECT id FROM dealers WHERE dealer_group_id {g} AND name = 'Summit Ford Westside') AND (d.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{month_start:10}' AND '{month_end:10}'",
            says: '^You have (?:no|[\\d,]+) deals? at Summit Ford Westside, 1–31 October \\d{4}\\.',
          },
        },
        {
          q: 'how many ford trucks at summit toyota',
          expect: {
            count:
              "SELECT count(*) AS n FROM vehicles v WHERE v.dealer_group_id {g} AND {lot} AND v.make = 'Ford' AND v.body_style = 'Truck' AND v.dealer_id = (SELECT id FROM dealers WHERE dealer_group_id {g} AND name = 'Summit Toyota North')",
          },
        },
        {
          q: 'how many ford trucks at summit ford',
          expect: {
            count:
              "SELECT count(*) AS n FROM vehicles v WHERE v.dealer_group_id {g} AND {lot} AND v.make = 'Ford' AND v.body_style = 'Truck' AND v.dealer_id = (SELECT id FROM dealers WHERE dealer_group_id {g} AND name = 'Summit Ford Westside')",
            says: 'Ford trucks at Summit Ford Westside',
          },
        },
      ],
    ],
    [
      'appointments counted as one figure, even after a breakdown',
      [
        {
          q: 'how many appts did we set last week',
          expect: {
            count:
              "SELECT count(*) AS n FROM leads l WHERE l.dealer_group_id {g} AND l.status = 'appointment' AND (l.received_at AT TIME ZONE 'UTC')::date BETWEEN '{last_week_start}' AND '{last_week_end}'",
            says: '^You have (?:no|[\\d,]+) appointment leads?,',
          },
        },
        { conversation: 'appointments', q: 'leads by source last month', expect: { says: 'by source' } },
        {
          conversation: 'appointments',
          q: 'how many appts did we set last week',
          expect: {
            count:
              "SELECT count(*) AS n FROM leads l WHERE l.dealer_group_id {g} AND l.status = 'appointment' AND (l.received_at AT TIME ZONE 'UTC')::date BETWEEN '{last_week_start}' AND '{last_week_end}'",
            says: '^You have (?:no|[\\d,]+) appointment leads?,',
            says_not: 'by source',
          },
        },
      ],
    ],
    [
      'a follow-up that moves the period, keeping the subject and filters',
      [
        {
          conversation: 'period',
          q: 'how many deals yesterday',
          expect: {
            count:
              "SELECT count(*) AS n FROM sales d WHERE d.dealer_group_id {g} AND (d.sold_at AT TIME ZONE 'UTC')::date = '{ago:1}'",
          },
        },
        {
          // The 7 days before the last answer's period.
          conversation: 'period',
          q: 'and the week before that?',
          expect: {
            count:
              "SELECT count(*) AS n FROM sales d WHERE d.dealer_group_id {g} AND (d.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{ago:8}' AND '{ago:2}'",
            says: '^You have (?:no|[\\d,]+) deals?,? (?:\\d|from)',
          },
        },
        {
          conversation: 'period',
          q: 'the day before',
          expect: {
            count:
              "SELECT count(*) AS n FROM sales d WHERE d.dealer_group_id {g} AND (d.sold_at AT TIME ZONE 'UTC')::date = '{ago:9}'",
            says: 'deals? on \\d+ \\w+ \\d{4}',
          },
        },
        {
          conversation: 'period',
          q: 'what about last month',
          expect: {
            count:
              "SELECT count(*) AS n FROM sales d WHERE d.dealer_group_id {g} AND (d.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{last_month_start}' AND '{last_month_end}'",
          },
        },
        {
          conversation: 'period',
          q: 'same for october',
          expect: {
            count:
              "SELECT count(*) AS n FROM sales d WHERE d.dealer_group_id {g} AND (d.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{month_start:10}' AND '{month_end:10}'",
            says: 'October',
          },
        },
        {
          conversation: 'used-period',
          q: 'how many used deals last week',
          expect: {
            count:
              "SELECT count(*) AS n FROM sales d WHERE d.dealer_group_id {g} AND d.vehicle_condition = 'used' AND (d.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{last_week_start}' AND '{last_week_end}'",
          },
        },
        {
          conversation: 'used-period',
          q: 'and the week before that',
          expect: {
            count:
              "SELECT count(*) AS n FROM sales d WHERE d.dealer_group_id {g} AND d.vehicle_condition = 'used' AND (d.sold_at AT TIME ZONE 'UTC')::date BETWEEN ('{last_week_start}'::date - 7) AND ('{last_week_start}'::date - 1)",
            says: 'used deals?,? (?:\\d|from)',
          },
        },
      ],
    ],
    [
      'a qualifier it cannot place in a vehicle question, said back and not dropped',
      [
        {
          q: 'how many good condition trucks',
          expect: {
            count:
              "SELECT count(*) AS n FROM vehicles v WHERE v.dealer_group_id {g} AND {lot} AND v.body_style = 'Truck'",
            says: 'Not used: "good condition"',
          },
        },
        {
          q: 'how many trucks in good shape',
          expect: {
            count:
              "SELECT count(*) AS n FROM vehicles v WHERE v.dealer_group_id {g} AND {lot} AND v.body_style = 'Truck'",
            says: 'Not used: "good shape"',
          },
        },
        {
          q: 'how many 4x4 trucks under 40k',
          expect: {
            count:
              "SELECT count(*) AS n FROM vehicles v WHERE v.dealer_group_id {g} AND {lot} AND v.body_style = 'Truck' AND v.price < 40000",
            says: 'Not used: "4x4"',
          },
        },
        // Words that say nothing more are not flagged.
        ...[
          'how many trucks do we have',
          'how many of our used trucks are on the lot',
          'how many total white trucks do we have in stock',
          'how many available trucks at the north store',
          'how many actual cars do we have right now',
        ].map((q) => ({ q, expect: { says: '^You have', says_not: 'Not used' } })),
      ],
    ],
    [
      'a follow-up that asks for an order, listing the same vehicles in it',
      [
        {
          conversation: 'order',
          q: 'how many used tacomas under 35k',
          expect: {
            count:
              "SELECT count(*) AS n FROM vehicles v WHERE v.dealer_group_id {g} AND {lot} AND v.condition = 'used' AND v.model = 'Tacoma' AND v.price < 35000",
          },
        },
        {
          conversation: 'order',
          q: 'which ones have the lowest miles',
          expect: {
            vins: "SELECT v.vin FROM vehicles v WHERE v.dealer_group_id {g} AND {lot} AND v.condition = 'used' AND v.model = 'Tacoma' AND v.price < 35000 AND v.mileage IS NOT NULL ORDER BY v.mileage, v.id LIMIT 10",
          },
        },
        {
          conversation: 'order',
          q: 'cheapest',
          expect: {
            vins: "SELECT v.vin FROM vehicles v WHERE v.dealer_group_id {g} AND {lot} AND v.condition = 'used' AND v.model = 'Tacoma' AND v.price < 35000 ORDER BY v.price, v.id LIMIT 10",
          },
        },
        {
          conversation: 'order',
          q: 'most miles',
          expect: {
            vins_among:
              "SELECT v.vin FROM vehicles v WHERE v.dealer_group_id {g} AND {lot} AND v.condition = 'used' AND v.model = 'Tacoma' AND v.price < 35000",
          },
        },
      ],
    ],
    [
      'those leads that turned into deals, keeping the source and period',
      [
        {
          conversation: 'sold-leads',
          q: 'how many leads did we get from cargurus in october',
          expect: {
            count:
              "SELECT count(*) AS n FROM leads l JOIN sources s ON s.id = l.source_id WHERE l.dealer_group_id {g} AND s.name = 'CarGurus' AND (l.received_at AT TIME ZONE 'UTC')::date BETWEEN '{month_start:10}' AND '{month_end:10}'",
          },
        },
        {
          conversation: 'sold-leads',
          q: 'how many of those turned into deals',
          expect: {
            count:
              "SELECT count(*) AS n FROM leads l JOIN sources s ON s.id = l.source_id WHERE l.dealer_group_id {g} AND s.name = 'CarGurus' AND {sold} AND (l.received_at AT TIME ZONE 'UTC')::date BETWEEN '{month_start:10}' AND '{month_end:10}'",
            says: 'CarGurus',
            says_not: 'Not used',
          },
        },
      ],
    ],
    [
      'salespeople ranked by gross, not by deal count',
      [
        {
          q: 'whos our top salesperson ytd by gross',
          expect: {
            groups:
              "SELECT lower(d.salesperson) || ' total gross' AS label, sum(d.front_gross + d.back_gross)::float8 AS n FROM sales d WHERE d.dealer_group_id {g} AND (d.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{year_start}' AND '{today}' GROUP BY lower(d.salesperson)",
          },
        },
      ],
    ],
    [
      'a follow-up that adds a filter, keeping the period',
      [
        { conversation: 'first-time', q: 'calls from google yesterday', expect: { says: '^You have' } },
        {
          conversation: 'first-time',
          q: 'how many were first time callers',
          expect: {
            count:
              "SELECT count(*) AS n FROM calls c WHERE c.dealer_group_id {g} AND c.first_time_caller AND (c.started_at AT TIME ZONE 'UTC')::date = '{ago:1}'",
          },
        },
      ],
    ],
    [
      'a comparison that swaps the filter, keeping the figure and period',
      [
        {
          conversation: 'versus',
          q: 'avg front gross on finance deals last month',
          expect: {
            value:
              "SELECT avg(d.front_gross)::float8 AS value FROM sales d WHERE d.dealer_group_id {g} AND d.contract_type = 'finance' AND (d.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{last_month_start}' AND '{last_month_end}'",
          },
        },
        {
          conversation: 'versus',
          q: 'vs cash deals',
          expect: {
            value:
              "SELECT avg(d.front_gross)::float8 AS value FROM sales d WHERE d.dealer_group_id {g} AND d.contract_type = 'cash' AND (d.sold_at AT TIME ZONE 'UTC')::date BETWEEN '{last_month_start}' AND '{last_month_end}'",
          },
        },
      ],
    ],
    [
      'a request to message people, declined also as a follow-up',
      [
        { conversation: 'text', q: 'list the 5 cheapest trucks we have', expect: { says: 'Truck' } },
        { conversation: 'text', q: 'text my sales team about them', expect: { declined: true } },
      ],
    ],
  ])('answers %s as asked (issue 16)', async (_name, questions) => {
    // Any expectation with only `says` checks the text; the fixture's judge needs an answer.
    expect(await ask(questions)).toEqual([]);
  });

  it('keeps context for follow-ups and says plainly when it cannot answer', async () => {
    const started = await app.client.post(
      '/assistant/conversations',
      { message: 'How many used SUVs under $30k do we have?' },
      demo.token,
    );
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ title: 'How many used SUVs under $30k do we have?', message_count: 2 });
    const [question, first] = started.body.messages;
    expect(question).toMatchObject({ role: 'user', content: 'How many used SUVs under $30k do we have?' });
    expect(first.content).toMatch(/^You have [\d,]+ used SUVs under \$30,000 in stock\./);
    const followUp = await app.client.post(
      `/assistant/conversations/${started.body.id}/messages`,
      { content: 'and how many of those are white?' },
      demo.token,
    );
    expect(followUp.body.answer.query).toMatchObject({
      subject: 'vehicles',
      measure: 'count',
      filters: { condition: ['used'], body_style: ['SUV'], color: ['white'], price_max: 29999.99 },
    });
    expect(followUp.body.answer.content).toMatch(/used white SUVs under \$30,000/);
    const unknown = await app.client.post(
      `/assistant/conversations/${started.body.id}/messages`,
      { content: 'What will the weather be tomorrow?' },
      demo.token,
    );
    expect(unknown.body.answer).toMatchObject({
      answered: false,
      content: expect.stringMatching(/^I can't (?:answer|help with) that/),
    });
    const empty = await app.client.post(
      `/assistant/conversations/${started.body.id}/messages`,
      { content: '   ' },
      demo.token,
    );
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toMatch(/content/);
  });

  it('lists and reads back the caller’s own conversations only', async () => {
    const mine = await app.client.post('/assistant/conversations', { title: 'Aging review' }, demo.token);
    const list = await app.client.get('/assistant/conversations?limit=100', demo.token);
    expect(list.status).toBe(200);
    expect(list.body.conversations.map((conversation: { id: string }) => conversation.id)).toContain(mine.body.id);
    expect(list.body.pagination.total).toBeGreaterThanOrEqual(2);
    const read = await app.client.get(`/assistant/conversations/${mine.body.id}`, demo.token);
    expect(read.body).toMatchObject({ id: mine.body.id, title: 'Aging review', messages: [] });
    // Another user (another tenant, and a colleague alike) sees none of it.
    expect((await app.client.get(`/assistant/conversations/${mine.body.id}`, otherToken)).status).toBe(404);
    expect(
      (
        await app.client.post(
          `/assistant/conversations/${mine.body.id}/messages`,
          { content: 'How many vehicles?' },
          otherToken,
        )
      ).status,
    ).toBe(404);
    expect(
      (await app.client.get('/assistant/conversations', otherToken)).body.conversations.map(
        (conversation: { id: string }) => conversation.id,
      ),
    ).not.toContain(mine.body.id);
    expect((await app.client.get('/assistant/conversations/not-an-id', demo.token)).status).toBe(404);
  });

  it('answers each tenant from its own data', async () => {
    const question = 'How many vehicles do we have in stock?';
    const theirs = await app.client.post('/assistant/conversations', { message: question }, otherToken);
    const [own] = await sql<{ n: string }>(
      'SELECT count(*) AS n FROM vehicles v WHERE v.dealer_group_id {g} AND {lot}',
      [other.groupId],
    );
    const answer = theirs.body.messages[1];
    expect(answer.citations.figures[0].value).toBe(String(Number(own!.n)));
    const demoVins = new Set(
      (await sql<{ vin: string }>('SELECT v.vin FROM vehicles v WHERE v.dealer_group_id {g}')).map((row) => row.vin),
    );
    expect(answer.citations.vins.length).toBeGreaterThan(0);
    expect(answer.citations.vins.filter((vin: string) => demoVins.has(vin))).toEqual([]);
    expect(answer.content).not.toMatch(/Summit/);
  });

  it('needs the assistant:use scope, and answers only what the caller’s scopes let it read', async () => {
    const viewer = await other.login(app.client, 'viewer');
    const denied = await app.client.post('/assistant/conversations', {}, viewer);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toMatch(/assistant:use/);
    const { key } = await createKey(app.client, await other.login(app.client, 'admin'), {
      scopes: ['assistant:use', 'inventory:read'],
    });
    const conversation = await app.client.post('/assistant/conversations', {}, key);
    expect(conversation.status).toBe(201);
    const vehicles = await app.client.post(
      `/assistant/conversations/${conversation.body.id}/messages`,
      { content: 'How many vehicles do we have in stock?' },
      key,
    );
    expect(vehicles.body.answer).toMatchObject({
      answered: true,
      content:
        'You have 7 vehicles in stock.\nThey are:' +
        vehicles.body.answer.content.slice('You have 7 vehicles in stock.\nThey are:'.length),
    });
    const leads = await app.client.post(
      `/assistant/conversations/${conversation.body.id}/messages`,
      { content: 'How many leads did we get in the last 30 days?' },
      key,
    );
    expect(leads.body.answer).toMatchObject({ answered: false, content: expect.stringContaining('scope leads:read') });
    // The key's conversations are its own; the admin who made it does not see them.
    expect(
      (await app.client.get(`/assistant/conversations/${conversation.body.id}`, await other.login(app.client, 'admin')))
        .status,
    ).toBe(404);
  });
});
