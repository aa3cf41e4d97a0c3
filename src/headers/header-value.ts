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
 * headers shape at all — it never throws. A plain object or a list of pairs is
 * indexed by lower-case name at its first lookup (parsers look up a dozen
 * names per response), so it is read as it was then.
 */
export function headerValue(
  headers: HeadersInput | null | undefined,
  name: string,
): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const wanted = name.toLowerCase();
  if (isHeadersView(headers)) return (headers as Headers).get(wanted) ?? undefined;
  return (headerIndex(headers) as Map<string, string>).get(wanted);
}

/**
 * The headers as a case-insensitive lookup: a WHATWG `Headers` as it is, a
 * plain object or a list of pairs as a `Map` by lower-case name (built once
 * per object). Parsers that look up many names take this once per response.
 */
export function headerIndex(headers: HeadersInput): Headers | Map<string, string> {
  if (isHeadersView(headers)) return headers as Headers;
  let index = indexes.get(headers);
  if (index === undefined) {
    index = buildIndex(headers);
    indexes.set(headers, index);
  }
  return index;
}

/**
 * {@link headerIndex} without remembering the index for the next call: for a
 * caller that takes the index once per response and keeps it (remembering
 * costs more than building it).
 */
export function freshHeaderIndex(headers: HeadersInput): Headers | Map<string, string> {
  return isHeadersView(headers) ? (headers as Headers) : buildIndex(headers);
}

function isHeadersView(headers: HeadersInput): boolean {
  return (
    typeof (headers as Headers).get === 'function' && typeof (headers as Headers).has === 'function'
  );
}

function buildIndex(headers: HeadersInput): Map<string, string> {
  return Symbol.iterator in headers
    ? indexPairs(headers as Iterable<readonly [string, string]>)
    : indexRecord(headers as Readonly<Record<string, unknown>>);
}

const indexes = new WeakMap<object, Map<string, string>>();

function add(index: Map<string, string>, name: string, value: string): void {
  const key = name.toLowerCase();
  const seen = index.get(key);
  index.set(key, seen === undefined ? value : `${seen}, ${value}`);
}

function indexPairs(pairs: Iterable<readonly [string, string]>): Map<string, string> {
  const index = new Map<string, string>();
  for (const pair of pairs) {
    if (Array.isArray(pair)) add(index, String(pair[0]), String(pair[1]));
  }
  return index;
}

function indexRecord(record: Readonly<Record<string, unknown>>): Map<string, string> {
  const index = new Map<string, string>();
  for (const key of Object.keys(record)) {
    const value = record[key];
    if (typeof value === 'string') add(index, key, value);
    else if (Array.isArray(value)) add(index, key, value.map(String).join(', '));
  }
  return index;
}
