/** What a redacted secret is replaced with. */
const HIDDEN = '***';

/**
 * Words that make a query parameter's value a secret, matched against the
 * words of its name (`access_token`, `X-Amz-Signature`, `apiKey` and
 * `session_id` qualify; `monkey` and `passage` do not).
 */
const SECRET_WORDS = new Set([
  'token',
  'secret',
  'password',
  'passwd',
  'pwd',
  'pass',
  'apikey',
  'key',
  'auth',
  'authorization',
  'signature',
  'sig',
  'session',
  'sessionid',
  'sid',
  'credential',
  'credentials',
  'jwt',
  'cookie',
]);

/** An http(s) URL inside free text; trailing punctuation is left out below. */
const URL_IN_TEXT = /\bhttps?:\/\/[^\s"'<>`]+/gi;
const TRAILING = /[.,:;!?)\]}]+$/;

/**
 * `url` fit to print: its userinfo (`user:pass@`) and the values of
 * secret-looking query parameters replaced with `***`, everything else left
 * exactly as it was written. Text that is not a URL comes back unchanged.
 *
 * ```ts
 * redactUrl('https://me:hunter2@api.example.com/items?page=2&token=abc');
 * // 'https://***@api.example.com/items?page=2&token=***'
 * ```
 */
export function redactUrl(url: string | URL): string {
  const text = String(url);
  const scheme = /^https?:\/\//i.exec(text);
  if (scheme === null) return text;
  const rest = text.slice(scheme[0].length);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const tail = authorityEnd === -1 ? '' : rest.slice(authorityEnd);
  const at = authority.lastIndexOf('@');
  const host = at === -1 ? authority : `${HIDDEN}@${authority.slice(at + 1)}`;
  return `${scheme[0]}${host}${redactQuery(tail)}`;
}

/**
 * Path, query and fragment with the values of secret-looking parameters
 * hidden — in the query, and in the fragment too (where OAuth puts an
 * `access_token`).
 */
function redactQuery(tail: string): string {
  const hash = tail.indexOf('#');
  const beforeHash = hash === -1 ? tail : tail.slice(0, hash);
  const fragment = hash === -1 ? '' : `#${redactPairs(tail.slice(hash + 1))}`;
  const question = beforeHash.indexOf('?');
  if (question === -1) return beforeHash + fragment;
  return `${beforeHash.slice(0, question + 1)}${redactPairs(beforeHash.slice(question + 1))}${fragment}`;
}

/** `a=1&token=2` with the values of secret-looking names hidden. */
function redactPairs(pairs: string): string {
  return pairs
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1 || !isSecretName(pair.slice(0, equals))) return pair;
      return `${pair.slice(0, equals)}=${HIDDEN}`;
    })
    .join('&');
}

function isSecretName(raw: string): boolean {
  let name: string;
  try {
    name = decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    name = raw;
  }
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => SECRET_WORDS.has(word));
}

/** `text` with every http(s) URL in it passed through {@link redactUrl}: for error messages and logs. */
export function redactSecrets(text: string): string {
  return text.replace(URL_IN_TEXT, (match) => {
    const punctuation = TRAILING.exec(match)?.[0] ?? '';
    return redactUrl(match.slice(0, match.length - punctuation.length)) + punctuation;
  });
}
