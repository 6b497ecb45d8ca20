import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { alreadyHas, entityTag, parseIfNoneMatch } from './conditional-get';

/** Every character an entity tag may hold (RFC 9110 etagc), commas included: lists cannot be split on commas. */
const etagChar = fc.oneof(
  fc.constantFrom('!', ',', '#', '~', 'W', '/', '*', '\u0080', '\u00ff'),
  fc.integer({ min: 0x23, max: 0x7e }).map((code) => String.fromCharCode(code)),
);
const opaqueTag = fc.array(etagChar, { maxLength: 12 }).map((chars) => `"${chars.join('')}"`);
const space = fc.constantFrom('', ' ', '\t', '  ');

describe('If-None-Match', () => {
  it('reads any list of tags, weak or strong, with spaces and empty elements, as its opaque tags in order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ tag: opaqueTag, weak: fc.boolean(), before: space, after: space, empty: fc.nat(2) }), {
          minLength: 1,
          maxLength: 6,
        }),
        (members) => {
          const header = members
            .map(
              ({ tag, weak, before, after, empty }) =>
                `${', '.repeat(empty)}${before}${weak ? 'W/' : ''}${tag}${after}`,
            )
            .join(',');
          expect(parseIfNoneMatch(header)).toEqual({ any: false, opaqueTags: members.map(({ tag }) => tag) });
        },
      ),
    );
  });

  it('answers any header at all with tags or a reason, never an exception, and tags are always quoted', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.array(fc.oneof(opaqueTag, fc.string())).map(String)),
        (header) => {
          const parsed = parseIfNoneMatch(header);
          if ('problem' in parsed) expect(parsed.problem).toEqual(expect.any(String));
          else if (!parsed.any) for (const tag of parsed.opaqueTags) expect(tag).toMatch(/^"[^"]*"$/);
        },
      ),
    );
  });

  it('compares weakly: W/ on either side aside, the opaque tags must be equal', () => {
    fc.assert(
      fc.property(opaqueTag, opaqueTag, fc.boolean(), fc.boolean(), (mine, theirs, weakMine, weakTheirs) => {
        const parsed = parseIfNoneMatch(`${weakTheirs ? 'W/' : ''}${theirs}`);
        if ('problem' in parsed) throw new Error(parsed.problem);
        expect(alreadyHas(parsed, `${weakMine ? 'W/' : ''}${mine}`)).toBe(mine === theirs);
      }),
    );
    expect(alreadyHas({ any: true }, '"anything"')).toBe(true);
  });

  it('refuses "*" inside a list, unquoted tags, lower-case w/ and tags run together', () => {
    for (const header of ['*, "a"', '"a", *', 'abc', 'w/"a"', '"a" "b"', '"a', '', ' , ', '"a"b'])
      expect(parseIfNoneMatch(header), header).toHaveProperty('problem');
    expect(parseIfNoneMatch(' * ')).toEqual({ any: true });
  });
});

describe('entityTag', () => {
  it('is the same for the same bytes and differs for different bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.uint8Array({ maxLength: 64 }), (a, b) => {
        expect(entityTag(a) === entityTag(b)).toBe(Buffer.from(a).equals(Buffer.from(b)));
        expect(entityTag(a)).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
      }),
    );
  });
});
