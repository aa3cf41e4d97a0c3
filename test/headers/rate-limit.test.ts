import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { parseRateLimit, rateLimitQuota } from '../../src/headers/rate-limit.js';
import { imfFixdate } from './http-date-format.js';

const NOW = Date.UTC(2024, 4, 1, 12, 0, 0);
const DATE = imfFixdate(NOW);

describe('parseRateLimit: IETF RateLimit fields (current draft)', () => {
  it('reads remaining/reset from RateLimit and quota/window from the policy it names', () => {
    const quota = parseRateLimit({
      RateLimit: '"default";r=50;t=30',
      'RateLimit-Policy': '"default";q=100;w=60',
    });
    expect(quota).toEqual({
      source: 'ietf',
      name: 'default',
      limit: 100,
      remaining: 50,
      resetMs: 30_000,
      windowMs: 60_000,
    });
  });

  it('picks the policy the RateLimit field names among several', () => {
    const quota = parseRateLimit({
      ratelimit: '"daily";r=5;t=3600',
      'ratelimit-policy': '"burst";q=100;w=60, "daily";q=1000;w=86400',
    });
    expect(quota).toMatchObject({ name: 'daily', limit: 1000, windowMs: 86_400_000, remaining: 5 });
  });

  it('reports the listed quota with the fewest remaining requests', () => {
    const quota = parseRateLimit({
      ratelimit: '"burst";r=40;t=10, "daily";r=5;t=3600',
      'ratelimit-policy': '"burst";q=100;w=60, "daily";q=1000;w=86400',
    });
    expect(quota).toMatchObject({ name: 'daily', remaining: 5, resetMs: 3_600_000 });
  });

  it('without a RateLimit field, reports the policy with the lowest quota per second', () => {
    const quota = parseRateLimit({
      'ratelimit-policy': '"burst";q=100;w=60, "daily";q=1000;w=86400',
    });
    expect(quota).toEqual({ source: 'ietf', name: 'daily', limit: 1000, windowMs: 86_400_000 });
  });

  it('accepts token policy names', () => {
    const quota = parseRateLimit({
      ratelimit: 'default;r=1;t=2',
      'ratelimit-policy': 'default;q=3',
    });
    expect(quota).toEqual({
      source: 'ietf',
      name: 'default',
      limit: 3,
      remaining: 1,
      resetMs: 2000,
    });
  });

  it('does not borrow the limit of another policy when the named one is missing', () => {
    const quota = parseRateLimit({
      ratelimit: '"hourly";r=7;t=60',
      'ratelimit-policy': '"burst";q=100;w=60',
    });
    expect(quota).toEqual({ source: 'ietf', name: 'hourly', remaining: 7, resetMs: 60_000 });
  });

  it('ignores quotas counted in other units than requests', () => {
    const quota = parseRateLimit({
      ratelimit: '"bytes";r=3;t=1, "reqs";r=5;t=1',
      'ratelimit-policy': '"bytes";q=1000000;qu="content-bytes";w=60, "reqs";q=10;w=1',
    });
    expect(quota).toMatchObject({ name: 'reqs', limit: 10, remaining: 5, windowMs: 1000 });
  });

  it('reads the intermediate dictionary form with integer policies', () => {
    const quota = parseRateLimit({
      RateLimit: 'limit=100, remaining=50, reset=30',
      'RateLimit-Policy': '10;w=1, 100;w=60',
    });
    expect(quota).toEqual({
      source: 'ietf',
      limit: 100,
      remaining: 50,
      resetMs: 30_000,
      windowMs: 60_000,
    });
  });
});

describe('parseRateLimit: older IETF drafts', () => {
  it('reads RateLimit-Limit/-Remaining/-Reset and the window from RateLimit-Policy', () => {
    const quota = parseRateLimit({
      'RateLimit-Limit': '100',
      'RateLimit-Remaining': '50',
      'RateLimit-Reset': '30',
      'RateLimit-Policy': '100;w=60',
    });
    expect(quota).toEqual({
      source: 'ietf-draft',
      limit: 100,
      remaining: 50,
      resetMs: 30_000,
      windowMs: 60_000,
    });
  });

  it('reads a policy suffix on the limit field', () => {
    const quota = parseRateLimit({ 'RateLimit-Limit': '10, 10;w=1, 50;w=60' });
    expect(quota).toEqual({ source: 'ietf-draft', limit: 10, windowMs: 1000 });
  });
});

describe('parseRateLimit: X-RateLimit-* and X-Rate-Limit-*', () => {
  it("reads GitHub's headers, measuring the epoch reset from the Date header", () => {
    const resetEpoch = NOW / 1000 + 1800;
    const quota = parseRateLimit({
      date: DATE,
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(resetEpoch),
      'x-ratelimit-used': '1',
      'x-ratelimit-resource': 'core',
    });
    expect(quota).toEqual({
      source: 'x-ratelimit',
      limit: 5000,
      remaining: 4999,
      resetMs: 1_800_000,
      used: 1,
      name: 'core',
    });
  });

  it('prefers the Date header over a skewed now, then the date option over the header', () => {
    const headers = { date: DATE, 'x-ratelimit-reset': String(NOW / 1000 + 60) };
    expect(parseRateLimit(headers, { now: NOW + 3_600_000 })?.resetMs).toBe(60_000);
    const earlier = imfFixdate(NOW - 60_000);
    expect(parseRateLimit(headers, { date: earlier })?.resetMs).toBe(120_000);
  });

  it('tells delta seconds, epoch seconds and epoch milliseconds apart by magnitude', () => {
    const reset = (value: string) =>
      parseRateLimit({ 'x-ratelimit-reset': value }, { now: NOW })?.resetMs;
    expect(reset('60')).toBe(60_000);
    expect(reset('1.5')).toBe(1500);
    expect(reset('86399')).toBe(86_399_000); // below 1e9: delta seconds
    expect(reset('999999999')).toBe(86_400_000); // ~31 years: capped at a day
    expect(reset(String(NOW / 1000 + 90))).toBe(90_000); // epoch seconds
    expect(reset(String(NOW + 2500))).toBe(2500); // epoch milliseconds (>= 1e12)
    expect(reset(String(NOW / 1000 - 90))).toBe(0); // past epoch: 0, never negative
  });

  it('leaves an epoch reset out when there is no reference time, keeping the rest', () => {
    const quota = parseRateLimit({
      'x-ratelimit-remaining': '3',
      'x-ratelimit-reset': '1714567890',
    });
    expect(quota).toEqual({ source: 'x-ratelimit', remaining: 3 });
  });

  it('reads the X-Rate-Limit-* spelling and a window on the limit field', () => {
    const quota = parseRateLimit({
      'X-Rate-Limit-Limit': '100, 100;w=60',
      'X-Rate-Limit-Remaining': '9',
    });
    expect(quota).toEqual({ source: 'x-rate-limit', limit: 100, remaining: 9, windowMs: 60_000 });
  });

  it('ignores malformed fields one by one', () => {
    const quota = parseRateLimit({
      'x-ratelimit-limit': 'lots',
      'x-ratelimit-remaining': '7',
      'x-ratelimit-reset': '-5',
      'x-ratelimit-used': '1.5',
    });
    expect(quota).toEqual({ source: 'x-ratelimit', remaining: 7 });
  });
});

describe('parseRateLimit: precedence and shapes', () => {
  it('prefers the IETF fields, then older drafts, then X-RateLimit, then X-Rate-Limit', () => {
    const all = {
      ratelimit: '"d";r=1;t=1',
      'ratelimit-remaining': '2',
      'x-ratelimit-remaining': '3',
      'x-rate-limit-remaining': '4',
    };
    expect(parseRateLimit(all)?.source).toBe('ietf');
    const { ratelimit: _a, ...draft } = all;
    expect(parseRateLimit(draft)?.source).toBe('ietf-draft');
    const { 'ratelimit-remaining': _b, ...x } = draft;
    expect(parseRateLimit(x)?.remaining).toBe(3);
    const { 'x-ratelimit-remaining': _c, ...dashed } = x;
    expect(parseRateLimit(dashed)).toEqual({ source: 'x-rate-limit', remaining: 4 });
  });

  it('falls through a family that yields nothing usable', () => {
    const quota = parseRateLimit({ ratelimit: 'nonsense', 'x-ratelimit-remaining': '3' });
    expect(quota).toEqual({ source: 'x-ratelimit', remaining: 3 });
  });

  it('returns undefined when nothing usable is present', () => {
    expect(parseRateLimit({})).toBeUndefined();
    expect(parseRateLimit({ 'content-type': 'text/html' })).toBeUndefined();
    expect(parseRateLimit({ 'x-ratelimit-resource': 'core' })).toBeUndefined();
    expect(parseRateLimit(null)).toBeUndefined();
  });

  it('accepts Headers, records with arrays and [name, value] pairs', () => {
    const expected = { source: 'x-ratelimit', limit: 60, remaining: 59 };
    const pairs: [string, string][] = [
      ['X-RateLimit-Limit', '60'],
      ['X-RateLimit-Remaining', '59'],
    ];
    expect(parseRateLimit(new Headers(pairs))).toEqual(expected);
    expect(parseRateLimit(pairs)).toEqual(expected);
    expect(parseRateLimit({ 'x-ratelimit-limit': ['60'], 'x-ratelimit-remaining': '59' })).toEqual(
      expected,
    );
  });

  it('validates options', () => {
    expect(() => parseRateLimit({}, { now: Number.NaN })).toThrow(InvalidOptionError);
    expect(() => parseRateLimit({}, { date: 5 as never })).toThrow(/`date`/);
    expect(() => parseRateLimit({}, { clock: 1 } as never)).toThrow(/unknown option `clock`/);
  });
});

describe('parseRateLimit: hostile input', () => {
  const NAMES = [
    'ratelimit',
    'ratelimit-policy',
    'ratelimit-limit',
    'ratelimit-remaining',
    'ratelimit-reset',
    'x-ratelimit-limit',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'x-ratelimit-used',
    'x-ratelimit-resource',
    'x-rate-limit-limit',
    'x-rate-limit-remaining',
    'x-rate-limit-reset',
    'date',
  ];
  const value = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary', maxLength: 100 }),
    fc.stringMatching(/^[0-9]{1,400}$/),
    fc.string({ unit: fc.constantFrom(...'"\\;=, \t?0123456789.-qrtwlimreset') }),
  );

  it('never throws, and every number it reports is finite and non-negative', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...NAMES), value),
        fc.option(fc.integer()),
        (headers, now) => {
          const quota = parseRateLimit(headers, now === null ? {} : { now });
          if (quota === undefined) return;
          for (const key of ['limit', 'remaining', 'resetMs', 'windowMs', 'used'] as const) {
            const field = quota[key];
            if (field !== undefined) expect(Number.isFinite(field) && field >= 0).toBe(true);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('the unchecked form reads a non-finite clock as no clock: an epoch reset is not NaN', () => {
    const headers = {
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1796000000',
    };
    const quota = rateLimitQuota(headers, Number.NaN);
    expect(quota?.remaining).toBe(0);
    expect(Number.isNaN(quota?.resetMs)).toBe(false);
  });
});
