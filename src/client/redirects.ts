import type { IncomingHttpHeaders } from 'node:http';
import { RedirectError } from '../errors.js';
import type { PreparedRequest } from './request-input.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Redirects that say the resource has moved for good: to itself, an endless loop. */
const PERMANENT = new Set([301, 308]);
/** Headers that must not follow a redirect to another origin. */
const CREDENTIALS = ['authorization', 'proxy-authorization', 'cookie'];
/** Headers describing a body that a method change drops. */
const BODY_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
];

/**
 * The request a redirect response leads to, following fetch's rules: 303
 * (and 301/302 after a POST) becomes a body-less GET, 307/308 replay method
 * and body, credentials are dropped on a change of origin. `undefined` when
 * the response is not a redirect to follow (not 3xx, no `Location`, or the
 * request asked for `redirect: 'manual'`). Throws {@link RedirectError} for
 * `redirect: 'error'`, for a `Location` that is not an http(s) URL, for one
 * with credentials in it (`user:pass@`), and for a permanent redirect (301,
 * 308) of a request to itself — the same request again, which can only be
 * answered the same way: following it would spend every hop of
 * `maxRedirects`, each admitted and paced, on one fetch.
 */
export function nextHop(
  request: PreparedRequest,
  status: number,
  headers: IncomingHttpHeaders,
): PreparedRequest | undefined {
  const location = headers.location;
  if (!REDIRECTS.has(status) || typeof location !== 'string' || request.redirect === 'manual') {
    return undefined;
  }
  if (request.redirect === 'error') {
    throw new RedirectError(request.url.href, `redirected (${status}) with redirect: 'error'`);
  }
  const url = parseUrl(location, request.url);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new RedirectError(
      request.url.href,
      `redirect to an unusable location ${JSON.stringify(location)}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new RedirectError(request.url.href, 'redirect to a URL with credentials in it');
  }
  const headersOut = new Headers(request.headers);
  if (url.origin !== request.url.origin) for (const name of CREDENTIALS) headersOut.delete(name);
  const toGet =
    (status === 303 && request.method !== 'HEAD') ||
    ((status === 301 || status === 302) && request.method === 'POST');
  if (PERMANENT.has(status) && !toGet && url.href === request.url.href) {
    throw new RedirectError(request.url.href, `permanent redirect (${status}) to itself`);
  }
  if (!toGet) return { ...request, url, headers: headersOut };
  for (const name of BODY_HEADERS) headersOut.delete(name);
  return { ...request, url, method: 'GET', headers: headersOut, body: undefined };
}

function parseUrl(text: string, base: URL): URL | null {
  try {
    return new URL(text, base);
  } catch {
    return null;
  }
}
