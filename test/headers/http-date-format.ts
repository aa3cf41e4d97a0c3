// Test helper: formats an instant in the three HTTP-date forms of RFC 9110.
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const LONG_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

const pad = (value: number, width = 2): string => String(value).padStart(width, '0');

function parts(ms: number) {
  const d = new Date(ms);
  return {
    day: d.getUTCDate(),
    weekday: d.getUTCDay(),
    month: MONTHS[d.getUTCMonth()] as string,
    year: d.getUTCFullYear(),
    time: `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`,
  };
}

/** `Sun, 06 Nov 1994 08:49:37 GMT` */
export function imfFixdate(ms: number): string {
  const p = parts(ms);
  return `${DAYS[p.weekday]}, ${pad(p.day)} ${p.month} ${pad(p.year, 4)} ${p.time} GMT`;
}

/** `Sunday, 06-Nov-94 08:49:37 GMT` */
export function rfc850Date(ms: number): string {
  const p = parts(ms);
  return `${LONG_DAYS[p.weekday]}, ${pad(p.day)}-${p.month}-${pad(p.year % 100)} ${p.time} GMT`;
}

/** `Sun Nov  6 08:49:37 1994` */
export function asctimeDate(ms: number): string {
  const p = parts(ms);
  return `${DAYS[p.weekday]} ${p.month} ${String(p.day).padStart(2, ' ')} ${p.time} ${pad(p.year, 4)}`;
}
