import { EventEmitter } from 'node:events';
import { buildSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ANSWER_CHANGES, AnswerCache, planOperation } from './answer-cache';

const answer = (size: number) => ({ data: { text: 'x'.repeat(size) } });
/** What approximateBytes counts for answer(size): its JSON, twice (each key adds its length, twice). */
const bytesOf = (size: number) => JSON.stringify(answer(size).data).length * 2;

function cacheOf(maxBytes: number, listening = { now: true }) {
  return new AnswerCache({ maxBytes, listening: () => listening.now });
}

describe('AnswerCache', () => {
  it('keeps an answer read while nothing changed, and forgets it when its group changes', () => {
    const changes = new EventEmitter();
    const cache = cacheOf(1_000_000).follow(changes, ['listening-lost']);
    cache.set('a', answer(10), ['g1'], cache.stamp(['g1']));
    cache.set('b', answer(10), ['g2'], cache.stamp(['g2']));
    expect(cache.get('a')).toEqual(answer(10));
    changes.emit(ANSWER_CHANGES, 'g1 123');
    expect(cache.get('a')).toBeNull();
    expect(cache.get('b')).toEqual(answer(10));
    changes.emit(ANSWER_CHANGES, '* 124');
    expect(cache.get('b')).toBeNull();
    cache.set('c', answer(10), ['g2'], cache.stamp(['g2']));
    changes.emit('listening-lost');
    expect(cache.size).toEqual({ answers: 0, bytes: 0 });
  });

  it('does not keep an answer whose read overlapped a change to one of its groups', () => {
    const cache = cacheOf(1_000_000);
    const stamp = cache.stamp(['g1', 'g2']);
    cache.forgetGroup('g2');
    cache.set('a', answer(10), ['g1', 'g2'], stamp);
    expect(cache.get('a')).toBeNull();
    // A change to an unrelated group does not matter.
    const later = cache.stamp(['g1']);
    cache.forgetGroup('g3');
    cache.set('b', answer(10), ['g1'], later);
    expect(cache.get('b')).not.toBeNull();
    const beforeAll = cache.stamp(['g1']);
    cache.forgetAll();
    cache.set('c', answer(10), ['g1'], beforeAll);
    expect(cache.get('c')).toBeNull();
  });

  it('keeps and serves nothing while no connection listens', () => {
    const listening = { now: true };
    const cache = cacheOf(1_000_000, listening);
    cache.set('a', answer(10), ['g1'], cache.stamp(['g1']));
    listening.now = false;
    expect(cache.get('a')).toBeNull();
    cache.set('b', answer(10), ['g1'], cache.stamp(['g1']));
    listening.now = true;
    expect(cache.get('b')).toBeNull();
  });

  it('keeps from the second asking on, and not again while one is kept', () => {
    const cache = cacheOf(1_000_000);
    expect(cache.worthKeeping('q')).toBe(false);
    expect(cache.worthKeeping('q')).toBe(true);
    cache.set('q', answer(10), ['g'], cache.stamp(['g']));
    expect(cache.worthKeeping('q')).toBe(false);
    // Forgotten with its group: the next asking keeps it again (it was asked twice already).
    cache.forgetGroup('g');
    expect(cache.worthKeeping('q')).toBe(false);
    expect(cache.worthKeeping('q')).toBe(true);
  });

  it('stays within its bytes, least recently used out first, each group within a quarter', () => {
    const cache = cacheOf((bytesOf(100) + 20) * 8);
    for (const key of ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']) {
      const group = `g-${key}`;
      cache.set(key, answer(100), [group], cache.stamp([group]));
    }
    expect(cache.size.answers).toBe(8);
    cache.get('a');
    cache.set('i', answer(100), ['g-i'], cache.stamp(['g-i']));
    expect(cache.size.bytes).toBeLessThanOrEqual((bytesOf(100) + 20) * 8);
    expect(cache.get('b')).toBeNull();
    expect(cache.get('a')).not.toBeNull();

    // One group fills no more than a quarter: its own oldest answers make room, the others stay.
    const shared = cacheOf((bytesOf(100) + 20) * 8);
    for (const key of ['x1', 'x2']) shared.set(key, answer(100), ['other'], shared.stamp(['other']));
    for (let index = 0; index < 5; index += 1)
      shared.set(`busy${index}`, answer(100), ['busy'], shared.stamp(['busy']));
    expect(shared.get('x1')).not.toBeNull();
    expect(shared.get('x2')).not.toBeNull();
    expect(shared.get('busy0')).toBeNull();
    expect(shared.get('busy4')).not.toBeNull();
    expect(shared.size.answers).toBe(4);
    // Larger than a group's share: not kept at all.
    shared.set('huge', answer(300), ['g'], shared.stamp(['g']));
    expect(shared.get('huge')).toBeNull();
  });
});

describe('planOperation', () => {
  const schema = buildSchema(`
    type Query { list(filter: String, other: String): Page, elsewhere: Page }
    type Page { items: [Item!]!, total: Int }
    type Item { id: ID!, secret: String }
  `);
  const allowed = new Set(['Query.list', 'Page.items', 'Page.total', 'Item.id']);
  const plan = (source: string, operationName?: string) =>
    planOperation(schema, parse(source), operationName, {
      allowed,
      wholeTypes: new Set(),
      uncachedArguments: new Set(['Query.list.other']),
    });

  it('allows queries made of allowed fields only, through fragments too', () => {
    expect(plan('{ list { total items { id __typename } } }').cacheable).toBe(true);
    expect(plan('{ list { ...P } } fragment P on Page { items { ... on Item { id } } }').cacheable).toBe(true);
    expect(plan('{ list { items { id secret } } }').cacheable).toBe(false);
    expect(plan('{ list { ...P } } fragment P on Page { items { secret } }').cacheable).toBe(false);
    expect(plan('{ list { total } elsewhere { total } }').cacheable).toBe(false);
    expect(plan('query A { list { total } } query B { elsewhere { total } }', 'A').cacheable).toBe(true);
    expect(plan('query A { list { total } } query B { elsewhere { total } }', 'B').cacheable).toBe(false);
  });

  it('refuses an uncached argument given a value, and names the variables that can give it one', () => {
    expect(plan('{ list(filter: "a") { total } }').cacheable).toBe(true);
    expect(plan('{ list(other: "a") { total } }').cacheable).toBe(false);
    expect(plan('{ list(other: null) { total } }').cacheable).toBe(true);
    expect(plan('query($o: String) { list(other: $o) { total } }')).toEqual({
      cacheable: true,
      uncachedVariables: ['o'],
    });
  });

  it('never for mutations, subscriptions or very large operations', () => {
    const big = `{ list { ${Array.from({ length: 600 }, (_, index) => `a${index}: total`).join(' ')} } }`;
    expect(plan(big).cacheable).toBe(false);
    expect(plan('mutation { list { total } }').cacheable).toBe(false);
  });
});
