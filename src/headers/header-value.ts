/**
 * Response headers in any of the shapes users hold them: a WHATWG `Headers`,
 * Node's/undici's plain object (values may be arrays), or `[name, value]` pairs.
 */
export type HeadersInput =
  | Headers
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | Iterable<readonly [string, string]>;

/**
 * Reads one header case-insensitively. Repeated headers are joined with `, `
 * as HTTP allows. Returns `undefined` when absent or when the input is not a
 * headers shape at all — it never throws.
 */
export function headerValue(
  headers: HeadersInput | null | undefined,
  name: string,
): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const wanted = name.toLowerCase();
  if (
    typeof (headers as Headers).get === 'function' &&
    typeof (headers as Headers).has === 'function'
  ) {
    return (headers as Headers).get(wanted) ?? undefined;
  }
  if (Symbol.iterator in headers)
    return fromPairs(headers as Iterable<readonly [string, string]>, wanted);
  return fromRecord(headers as Readonly<Record<string, unknown>>, wanted);
}

function fromPairs(pairs: Iterable<readonly [string, string]>, wanted: string): string | undefined {
  const found: string[] = [];
  for (const pair of pairs) {
    if (Array.isArray(pair) && String(pair[0]).toLowerCase() === wanted)
      found.push(String(pair[1]));
  }
  return found.length > 0 ? found.join(', ') : undefined;
}

function fromRecord(record: Readonly<Record<string, unknown>>, wanted: string): string | undefined {
  // Node and undici already lower-case names: look the name up before scanning for other spellings.
  if (Object.hasOwn(record, wanted)) return recordValue(record[wanted]);
  for (const key of Object.keys(record)) {
    if (key.toLowerCase() === wanted) return recordValue(record[key]);
  }
  return undefined;
}

function recordValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(String).join(', ');
  return undefined;
}
