import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../src/headers/http-date.js';
import { asctimeDate, imfFixdate, rfc850Date } from './http-date-format.js';

const NOV_6_1994 = Date.UTC(1994, 10, 6, 8, 49, 37);
const IN_2025 = Date.UTC(2025, 5, 1);

describe('parseHttpDate', () => {
  it('parses the three RFC 9110 forms of the same instant', () => {
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(NOV_6_1994);
    expect(parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(NOV_6_1994);
    expect(parseHttpDate('Sun Nov 06 08:49:37 1994')).toBe(NOV_6_1994);
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', IN_2025)).toBe(NOV_6_1994);
  });

  it('allows optional whitespace around the value, nothing else', () => {
    expect(parseHttpDate(' \tSun, 06 Nov 1994 08:49:37 GMT \t')).toBe(NOV_6_1994);
    expect(parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT x')).toBeUndefined();
    expect(parseHttpDate('Sun,  06 Nov 1994 08:49:37 GMT')).toBeUndefined();
    expect(parseHttpDate('\nSun, 06 Nov 1994 08:49:37 GMT')).toBeUndefined();
  });

  it.each([
    ['wrong day of week', 'Mon, 06 Nov 1994 08:49:37 GMT'],
    ['Feb 30', 'Wed, 30 Feb 1994 08:49:37 GMT'],
    ['Feb 29 in a common year (1900)', 'Thu, 29 Feb 1900 00:00:00 GMT'],
    ['day 00', 'Mon, 00 Nov 1994 08:49:37 GMT'],
    ['day 32', 'Thu, 32 Dec 1994 08:49:37 GMT'],
    ['hour 24', 'Sun, 06 Nov 1994 24:00:00 GMT'],
    ['minute 60', 'Sun, 06 Nov 1994 08:60:37 GMT'],
    ['leap second', 'Sun, 06 Nov 1994 08:49:60 GMT'],
    ['lower-case day name', 'sun, 06 Nov 1994 08:49:37 GMT'],
    ['upper-case month', 'Sun, 06 NOV 1994 08:49:37 GMT'],
    ['UTC instead of GMT', 'Sun, 06 Nov 1994 08:49:37 UTC'],
    ['no zone', 'Sun, 06 Nov 1994 08:49:37'],
    ['numeric offset', 'Sun, 06 Nov 1994 08:49:37 +0000'],
    ['one-digit day in IMF-fixdate', 'Sun, 6 Nov 1994 08:49:37 GMT'],
    ['two-digit year in IMF-fixdate', 'Sun, 06 Nov 94 08:49:37 GMT'],
    ['short day name in RFC 850', 'Sun, 06-Nov-94 08:49:37 GMT'],
    ['single space before a one-digit asctime day', 'Sun Nov 6 08:49:37 1994'],
    ['ISO 8601', '1994-11-06T08:49:37Z'],
    ['Date.parse-friendly garbage', 'Nov 6 1994'],
    ['non-ASCII digits', 'Sun, ٠٦ Nov 1994 08:49:37 GMT'],
  ])('rejects %s', (_why, text) => {
    expect(parseHttpDate(text, IN_2025)).toBeUndefined();
  });

  it('accepts Feb 29 in leap years, including 2000', () => {
    expect(parseHttpDate('Tue, 29 Feb 2000 00:00:00 GMT')).toBe(Date.UTC(2000, 1, 29));
    expect(parseHttpDate('Thu, 29 Feb 2024 12:00:00 GMT')).toBe(Date.UTC(2024, 1, 29, 12));
  });

  it('keeps years below 100 as written (no 19xx mapping)', () => {
    const year50 = new Date(0);
    year50.setUTCFullYear(50, 0, 1);
    expect(parseHttpDate(imfFixdate(year50.getTime()))).toBe(year50.getTime());
  });

  it('resolves RFC 850 two-digit years per RFC 9110: more than 50 years ahead means the previous century', () => {
    const year = (text: string): number | undefined => {
      const ms = parseHttpDate(text, IN_2025);
      return ms === undefined ? undefined : new Date(ms).getUTCFullYear();
    };
    expect(year('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(1994);
    expect(year('Tuesday, 01-Jan-75 00:00:00 GMT')).toBe(2075); // exactly 50 ahead: kept
    expect(year('Thursday, 01-Jan-76 00:00:00 GMT')).toBe(1976); // 51 ahead: previous century
    expect(year('Monday, 01-Jan-24 00:00:00 GMT')).toBe(2024);
    expect(year('Saturday, 01-Jan-00 00:00:00 GMT')).toBe(2000);
  });

  it('does not guess RFC 850 years without a reference time', () => {
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBeUndefined();
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', Number.NaN)).toBeUndefined();
  });

  it('round-trips every instant in years 0001–9999 through each form', () => {
    const instant = fc
      .integer({
        min: Date.parse('0001-01-01T00:00:00Z') / 1000,
        max: Date.UTC(9999, 11, 31) / 1000,
      })
      .map((s) => s * 1000);
    fc.assert(
      fc.property(instant, (ms) => {
        expect(parseHttpDate(imfFixdate(ms))).toBe(ms);
        expect(parseHttpDate(asctimeDate(ms))).toBe(ms);
        expect(parseHttpDate(rfc850Date(ms), ms)).toBe(ms);
      }),
      { numRuns: 2000 },
    );
  });

  it('never throws and returns only finite instants for arbitrary input', () => {
    const text = fc.oneof(
      fc.string(),
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.constantFrom(...'SunMoTeWdhFrSa, 0123456789:-GMTNovFebJ \t') }),
    );
    fc.assert(
      fc.property(text, fc.option(fc.double()), (value, reference) => {
        const result = parseHttpDate(value, reference ?? undefined);
        expect(result === undefined || Number.isFinite(result)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });
});
