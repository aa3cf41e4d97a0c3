import { check, number } from '../option-rules.js';

/**
 * Strict parser for the three HTTP-date forms of RFC 9110 §5.6.7. The text is
 * matched against the exact grammar (case-sensitive, as the RFC requires), the
 * fields are assembled with UTC arithmetic, and the result must round-trip:
 * a day-of-week that disagrees with the date, `Feb 30` or `25:00:00` is
 * rejected rather than silently rolled over, which is what `Date.parse` does.
 */

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const LONG_DAYS = [
  'Sunday',
  'Monday',
  'Tuesday',
  'Wednesday',
  'Thursday',
  'Friday',
  'Saturday',
] as const;
const MONTHS = [
  'Jan',
  'Feb',
  'Mar',
  'Apr',
  'May',
  'Jun',
  'Jul',
  'Aug',
  'Sep',
  'Oct',
  'Nov',
  'Dec',
] as const;

const DAY = DAYS.join('|');
const LONG_DAY = LONG_DAYS.join('|');
const MONTH = MONTHS.join('|');
const TIME = '(\\d{2}):(\\d{2}):(\\d{2})';

// Anchored, without nested quantifiers: matching is linear even on hostile input.
// Optional whitespace (SP / HTAB) around the value is allowed, as around any field value.
/** `Sun, 06 Nov 1994 08:49:37 GMT` */
const IMF_FIXDATE = new RegExp(
  `^[ \\t]*(${DAY}), (\\d{2}) (${MONTH}) (\\d{4}) ${TIME} GMT[ \\t]*$`,
);
/** `Sunday, 06-Nov-94 08:49:37 GMT` */
const RFC850_DATE = new RegExp(
  `^[ \\t]*(${LONG_DAY}), (\\d{2})-(${MONTH})-(\\d{2}) ${TIME} GMT[ \\t]*$`,
);
/** `Sun Nov  6 08:49:37 1994` */
const ASCTIME_DATE = new RegExp(
  `^[ \\t]*(${DAY}) (${MONTH}) ( \\d|\\d{2}) ${TIME} (\\d{4})[ \\t]*$`,
);

/** The fields of an HTTP-date before validation; `weekday` is 0 for Sunday. */
interface DateFields {
  weekday: number;
  year: number;
  /** 0 for January. */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/**
 * Parses an HTTP-date (IMF-fixdate, obsolete RFC 850 or asctime form) into
 * epoch milliseconds. Returns `undefined` for anything that is not exactly one
 * of those forms or names an impossible instant; never throws.
 *
 * RFC 850 dates carry a two-digit year. Per RFC 9110 it is resolved against
 * `referenceMs` (a wall-clock epoch ms, normally the current time): a year that
 * would lie more than 50 years after the reference year means the previous
 * century. Without a finite `referenceMs`, RFC 850 dates are not parsed.
 */
export function parseHttpDate(
  value: string | null | undefined,
  referenceMs?: number,
): number | undefined {
  if (typeof value !== 'string') return undefined;
  const fields = matchFields(value, referenceMs);
  return fields === undefined ? undefined : buildInstant(fields);
}

function matchFields(value: string, referenceMs: number | undefined): DateFields | undefined {
  const imf = IMF_FIXDATE.exec(value);
  if (imf) return fields(imf[1], imf[4], imf[3], imf[2], imf.slice(5, 8));
  const asctime = ASCTIME_DATE.exec(value);
  if (asctime) return fields(asctime[1], asctime[7], asctime[2], asctime[3], asctime.slice(4, 7));
  const rfc850 = RFC850_DATE.exec(value);
  if (!rfc850 || referenceMs === undefined || !Number.isFinite(referenceMs)) return undefined;
  const year = resolveTwoDigitYear(Number(rfc850[4]), referenceMs);
  const weekday = LONG_DAYS.indexOf(rfc850[1] as (typeof LONG_DAYS)[number]);
  return fields(DAYS[weekday], String(year), rfc850[3], rfc850[2], rfc850.slice(5, 8));
}

/** Converts matched text to numbers; the regexes guarantee every part is present. */
function fields(
  weekday: string | undefined,
  year: string | undefined,
  month: string | undefined,
  day: string | undefined,
  time: readonly (string | undefined)[],
): DateFields {
  return {
    weekday: DAYS.indexOf(weekday as (typeof DAYS)[number]),
    year: Number(year),
    month: MONTHS.indexOf(month as (typeof MONTHS)[number]),
    day: Number(day),
    hour: Number(time[0]),
    minute: Number(time[1]),
    second: Number(time[2]),
  };
}

/**
 * RFC 9110 §5.6.7: the year with these last two digits that is at most 50
 * years after the reference year (so within [reference − 49, reference + 50]).
 */
function resolveTwoDigitYear(twoDigits: number, referenceMs: number): number {
  const referenceYear = new Date(referenceMs).getUTCFullYear();
  let ahead = (((twoDigits - referenceYear) % 100) + 100) % 100;
  if (ahead > 50) ahead -= 100;
  return referenceYear + ahead;
}

/** Builds the instant with UTC arithmetic and rejects fields that do not round-trip. */
function buildInstant(f: DateFields): number | undefined {
  if (f.hour > 23 || f.minute > 59 || f.second > 59) return undefined;
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, does not map years 0–99 to 1900–1999.
  date.setUTCFullYear(f.year, f.month, f.day);
  date.setUTCHours(f.hour, f.minute, f.second, 0);
  const roundTrips =
    date.getUTCFullYear() === f.year &&
    date.getUTCMonth() === f.month &&
    date.getUTCDate() === f.day &&
    date.getUTCDay() === f.weekday;
  return roundTrips ? date.getTime() : undefined;
}

/** The `date` option of the header parsers: the response's `Date` header (`null` counts as absent). */
export const DATE_OPTION = check(
  'a string (the Date header)',
  (value): value is string | null => value === null || typeof value === 'string',
);

/** The `now` option of the header parsers: wall-clock epoch ms, no default (parsers never read the clock). */
export const NOW_OPTION = number(undefined);
