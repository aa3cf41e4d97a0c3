import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { parseRetryAfter, retryAfterDelay } from '../../src/headers/retry-after.js';
import { asctimeDate, imfFixdate, rfc850Date } from './http-date-format.js';

const DAY_MS = 86_400_000;
const SERVER = Date.UTC(2024, 2, 10, 12, 0, 0);
const SERVER_DATE = imfFixdate(SERVER);

describe('parseRetryAfter: delta-seconds', () => {
  it('reads digits as seconds, with optional whitespace around', () => {
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter(' 120 ')).toBe(120_000);
    expect(parseRetryAfter('\t7')).toBe(7000);
    expect(parseRetryAfter('007')).toBe(7000);
  });

  it('returns 0 for "0": a pause, however short, is not "no hint"', () => {
    expect(parseRetryAfter('0')).toBe(0);
  });

  it.each(['1.5', '-3', '+3', '1e3', '0x10', '12 3', '', ' ', '٣', 'soon', '12s'])(
    'rejects %j',
    (value) => {
      expect(parseRetryAfter(value, { now: SERVER })).toBeUndefined();
    },
  );

  it('returns undefined for absent values', () => {
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  it('clamps long and absurd values to maxMs instead of dropping them', () => {
    expect(parseRetryAfter('86400')).toBe(DAY_MS);
    expect(parseRetryAfter('86401')).toBe(DAY_MS);
    expect(parseRetryAfter('9007199254740993')).toBe(DAY_MS);
    expect(parseRetryAfter('9'.repeat(400))).toBe(DAY_MS);
    expect(parseRetryAfter('3600', { maxMs: 60_000 })).toBe(60_000);
    expect(parseRetryAfter('5', { maxMs: 0 })).toBe(0);
  });
});

describe('parseRetryAfter: HTTP-date', () => {
  it('measures from the response Date, so local clock skew does not matter', () => {
    const retry = imfFixdate(SERVER + 90_000);
    const skewedNow = SERVER + 3_600_000; // local clock an hour fast
    expect(parseRetryAfter(retry, { date: SERVER_DATE, now: skewedNow })).toBe(90_000);
    expect(parseRetryAfter(retry, { date: SERVER_DATE })).toBe(90_000);
  });

  it('falls back to now when the Date header is missing or unparseable', () => {
    const retry = imfFixdate(SERVER + 30_000);
    expect(parseRetryAfter(retry, { now: SERVER })).toBe(30_000);
    expect(parseRetryAfter(retry, { now: SERVER, date: 'yesterday' })).toBe(30_000);
    expect(parseRetryAfter(retry, { now: SERVER, date: null })).toBe(30_000);
  });

  it('returns undefined for a date with neither Date header nor now: it never reads the clock', () => {
    expect(parseRetryAfter(imfFixdate(SERVER + 30_000))).toBeUndefined();
    expect(parseRetryAfter(imfFixdate(SERVER + 30_000), { date: 'garbage' })).toBeUndefined();
  });

  it('returns 0 for dates in the past and clamps far futures to maxMs', () => {
    expect(parseRetryAfter(imfFixdate(SERVER - 5000), { date: SERVER_DATE })).toBe(0);
    expect(parseRetryAfter(imfFixdate(SERVER + 2 * DAY_MS), { date: SERVER_DATE })).toBe(DAY_MS);
  });

  it('accepts the obsolete forms, resolving RFC 850 years against the server date', () => {
    const at = SERVER + 45_000;
    expect(parseRetryAfter(rfc850Date(at), { date: SERVER_DATE })).toBe(45_000);
    expect(parseRetryAfter(asctimeDate(at), { date: SERVER_DATE })).toBe(45_000);
    expect(parseRetryAfter(rfc850Date(at), { now: SERVER })).toBe(45_000);
  });

  it('rejects dates that do not round-trip', () => {
    expect(parseRetryAfter('Mon, 10 Mar 2024 12:00:30 GMT', { now: SERVER })).toBeUndefined();
    expect(parseRetryAfter('Sun, 10 Mar 2024 12:00:30 GMT', { now: SERVER })).toBe(30_000);
  });

  it('returns the exact difference for any server date and delay, in each form', () => {
    const seconds = fc.integer({
      min: Date.parse('1000-01-01T00:00:00Z') / 1000,
      max: Date.parse('9000-01-01T00:00:00Z') / 1000,
    });
    const delaySeconds = fc.integer({ min: -1_200_000_000, max: 1_200_000_000 }); // ±38 years
    const maxMs = 2e12;
    fc.assert(
      fc.property(seconds, delaySeconds, (serverSeconds, delay) => {
        const server = serverSeconds * 1000;
        const retry = server + delay * 1000;
        const expected = Math.max(0, delay * 1000);
        const options = { date: imfFixdate(server), maxMs };
        expect(parseRetryAfter(imfFixdate(retry), options)).toBe(expected);
        expect(parseRetryAfter(asctimeDate(retry), options)).toBe(expected);
        expect(parseRetryAfter(rfc850Date(retry), options)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('parseRetryAfter: hostile input', () => {
  const options = { date: SERVER_DATE, now: SERVER, maxMs: 3_600_000 };
  const inRange = (result: number | undefined): boolean =>
    result === undefined || (Number.isFinite(result) && result >= 0 && result <= options.maxMs);

  it('never throws and stays in [0, maxMs] for arbitrary strings and unicode', () => {
    const value = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.stringMatching(/^[0-9]{1,2000}$/),
      fc.string({ unit: fc.constantFrom(...'0123456789 .-+eE\t,:GMTSunNov') }),
    );
    fc.assert(
      fc.property(value, fc.option(fc.string()), (text, date) => {
        expect(inRange(parseRetryAfter(text, { ...options, date }))).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it('never throws on one-character mutations of valid dates', () => {
    const mutated = fc
      .tuple(fc.integer({ min: 0, max: 4e12 }), fc.nat(), fc.string({ maxLength: 1 }))
      .map(([ms, at, char]) => {
        const text = [imfFixdate, rfc850Date, asctimeDate][at % 3]?.(ms) ?? '';
        const i = at % (text.length + 1);
        return text.slice(0, i) + char + text.slice(i + 1);
      });
    fc.assert(
      fc.property(mutated, (text) => {
        expect(inRange(parseRetryAfter(text, options))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('parseRetryAfter: options', () => {
  it.each([
    [{ maxMs: -1 }, 'maxMs'],
    [{ maxMs: Number.POSITIVE_INFINITY }, 'maxMs'],
    [{ maxMs: '60' }, 'maxMs'],
    [{ now: Number.NaN }, 'now'],
    [{ date: 12 }, 'date'],
    [{ maxMS: 10 }, 'maxMS'],
  ])('rejects %j naming the option', (bad, option) => {
    const call = (): unknown => parseRetryAfter('1', bad as never);
    expect(call).toThrow(InvalidOptionError);
    expect(call).toThrow(new RegExp(`parseRetryAfter: .*\`${option}\``));
  });

  it('the unchecked form reads a non-finite clock as no clock, never answering NaN', () => {
    const date = 'Wed, 21 Oct 2026 07:28:00 GMT';
    expect(retryAfterDelay(date, Number.NaN, undefined)).toBeUndefined();
    expect(retryAfterDelay(date, Number.POSITIVE_INFINITY, undefined)).toBeUndefined();
    expect(retryAfterDelay('30', Number.NaN, undefined)).toBe(30_000);
  });
});
