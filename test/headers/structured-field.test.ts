import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSfDictionary, parseSfList, sfName } from '../../src/headers/structured-field.js';

const params = (text: string) => parseSfList(text)?.map((item) => Object.fromEntries(item.params));

describe('parseSfList', () => {
  it('parses items with parameters', () => {
    const list = parseSfList('"burst";q=100;w=60, "daily";q=1000;w=86400');
    expect(list?.map((item) => item.value)).toEqual(['burst', 'daily']);
    expect(params('"burst";q=100;w=60, "daily";q=1000;w=86400')).toEqual([
      { q: 100, w: 60 },
      { q: 1000, w: 86400 },
    ]);
  });

  it('parses every bare item type of the subset', () => {
    const list = parseSfList('42, -7, 1.5, "a \\"b\\" \\\\c", tok/en:x, ?1, ?0');
    expect(list?.map((item) => item.value)).toEqual([
      42,
      -7,
      1.5,
      'a "b" \\c',
      { token: 'tok/en:x' },
      true,
      false,
    ]);
  });

  it('treats a parameter without value as true and allows spaces after ";"', () => {
    expect(params('1; a; b=2')).toEqual([{ a: true, b: 2 }]);
  });

  it('accepts OWS around commas and spaces around the field; an empty field is an empty list', () => {
    expect(parseSfList('  1 ,\t2  ')?.map((item) => item.value)).toEqual([1, 2]);
    expect(parseSfList('')).toEqual([]);
    expect(parseSfList('   ')).toEqual([]);
  });

  it.each([
    ['trailing comma', '1,'],
    ['leading comma', ',1'],
    ['two commas', '1,,2'],
    ['inner list', '(1 2)'],
    ['byte sequence', ':aGk=:'],
    ['16-digit integer', '1234567890123456'],
    ['13-digit decimal', '1234567890123.5'],
    ['4 fraction digits', '1.2345'],
    ['decimal without fraction', '1.'],
    ['lone minus', '-'],
    ['bad escape', '"a\\n"'],
    ['unterminated string', '"abc'],
    ['non-ASCII in string', '"é"'],
    ['upper-case key', '1;Q=2'],
    ['garbage after item', '1 2'],
    ['tab before field', '\t1'],
    ['bad boolean', '?2'],
  ])('fails on %s', (_why, text) => {
    expect(parseSfList(text)).toBeUndefined();
  });
});

describe('parseSfDictionary', () => {
  it('parses members, bare keys as true', () => {
    const dict = parseSfDictionary('limit=100, remaining=50, reset=30, flag;x=1');
    expect([...(dict?.entries() ?? [])].map(([key, item]) => [key, item.value])).toEqual([
      ['limit', 100],
      ['remaining', 50],
      ['reset', 30],
      ['flag', true],
    ]);
    expect(dict?.get('flag')?.params.get('x')).toBe(1);
  });

  it('fails on non-dictionary text', () => {
    expect(parseSfDictionary('"default";r=5')).toBeUndefined();
    expect(parseSfDictionary('limit=')).toBeUndefined();
  });
});

describe('sfName', () => {
  it('returns the text of strings and tokens only', () => {
    expect(sfName('a')).toBe('a');
    expect(sfName({ token: 'b' })).toBe('b');
    expect(sfName(1)).toBeUndefined();
    expect(sfName(true)).toBeUndefined();
    expect(sfName(undefined)).toBeUndefined();
  });
});

describe('structured fields: hostile input', () => {
  it('never throws on arbitrary text', () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom(...'"\\;=, \t?01.-abqrtw*:/()') }),
    );
    fc.assert(
      fc.property(text, (value) => {
        parseSfList(value);
        parseSfDictionary(value);
      }),
      { numRuns: 5000 },
    );
  });

  it('parses long fields (a quadratic parser would run into the test timeout here)', () => {
    const long = Array.from({ length: 20_000 }, (_, i) => `"p${i}";q=${i};w=60`).join(', ');
    expect(parseSfList(long)).toHaveLength(20_000);
    expect(parseSfList(`${'a'.repeat(200_000)} x`)).toBeUndefined();
  });
});
