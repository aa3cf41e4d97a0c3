/** ratewise's settings for one request, passed as `init.ratewise`. */
export interface RequestControl {
  /**
   * What context scope resolvers read — proxy session, egress IP, account or
   * API key: `{ session: 'proxy-7' }` with `scope: byContext('session')`.
   */
  context?: Readonly<Record<string, string | undefined>>;
  /**
   * Aborting it gives up the request while it waits for admission (or for a
   * retry), but lets an attempt already sent finish: a crawl's deadline.
   * The fetch then rejects with the signal's reason.
   */
  admitSignal?: AbortSignal;
}

/** `fetch`'s `RequestInit`, plus ratewise's per-request settings. */
export interface RatewiseRequestInit extends RequestInit {
  /** Scope context for this request. */
  ratewise?: RequestControl;
}

/** A request normalised for sending, retrying and redirecting. */
export interface PreparedRequest {
  url: URL;
  method: string;
  headers: Headers;
  /** Buffered, so retries and 307/308 redirects can send it again. */
  body: Buffer | undefined;
  signal: AbortSignal | undefined;
  redirect: 'follow' | 'manual' | 'error';
  context: Readonly<Record<string, string | undefined>> | undefined;
  admitSignal: AbortSignal | undefined;
}

const NORMALISED_METHODS = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

/**
 * Reads `fetch(input, init)` arguments the way `fetch` does (a `Request`
 * input, `init` overriding it). A body of any kind fetch accepts — string,
 * bytes, `URLSearchParams`, `FormData`, `Blob`, a stream — is read into memory
 * with the content type fetch would give it, so it can be replayed.
 * Throws a `TypeError`, like fetch, for a URL that is not http(s).
 */
export async function prepareRequest(
  input: string | URL | Request,
  init: RatewiseRequestInit = {},
): Promise<PreparedRequest> {
  const context = init.ratewise?.context;
  const admitSignal = init.ratewise?.admitSignal;
  if (isForeignRequest(input)) input = nativeRequest(input);
  if (input instanceof Request || (init.body !== undefined && init.body !== null)) {
    const { ratewise: _ignored, ...standard } = init;
    const request = new Request(input, standard);
    const bytes = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    return {
      url: httpUrl(request.url),
      method: request.method,
      headers: new Headers(request.headers),
      body: bytes,
      signal: init.signal ?? (input instanceof Request ? input.signal : undefined) ?? undefined,
      redirect: request.redirect,
      context,
      admitSignal,
    };
  }
  const method = init.method ?? 'GET';
  return {
    url: httpUrl(input),
    method: NORMALISED_METHODS.has(method.toUpperCase()) ? method.toUpperCase() : method,
    headers: new Headers(init.headers),
    body: undefined,
    signal: init.signal ?? undefined,
    redirect: init.redirect ?? 'follow',
    context,
    admitSignal,
  };
}

/**
 * Whether `input` is a WHATWG `Request` of another realm or copy of undici
 * (ky under a test runner, undici's own `Request`): `instanceof` fails for it,
 * and undici's fetch would read it as the string "[object Request]".
 */
function isForeignRequest(input: unknown): input is Request {
  if (typeof input !== 'object' || input === null || input instanceof Request) return false;
  if (input instanceof URL) return false;
  const candidate = input as Partial<Record<keyof Request, unknown>>;
  return (
    typeof candidate.url === 'string' &&
    typeof candidate.method === 'string' &&
    typeof candidate.headers === 'object' &&
    typeof candidate.arrayBuffer === 'function'
  );
}

/** A foreign `Request` rebuilt as this realm's: url, method, headers, body (streamed), signal, redirect. */
function nativeRequest(foreign: Request): Request {
  const init: RequestInit & { duplex?: 'half' } = {
    method: foreign.method,
    headers: [...foreign.headers],
    redirect: foreign.redirect,
  };
  if (foreign.body !== null && foreign.body !== undefined) {
    init.body = foreign.body;
    init.duplex = 'half';
  }
  if (foreign.signal instanceof AbortSignal) init.signal = foreign.signal;
  return new Request(foreign.url, init);
}

function httpUrl(input: string | URL): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch (error) {
    throw new TypeError(`invalid URL: ${String(input)}`, { cause: error });
  }
  if (!isHttpUrl(url)) {
    throw new TypeError(
      `unsupported URL scheme ${url.protocol} in ${url.href} (http and https only)`,
    );
  }
  return url;
}

/** Whether `input` is an absolute http(s) URL, the only kind ratewise sends. */
export function isHttpUrl(input: string | URL): boolean {
  if (typeof input === 'string' && !URL.canParse(input)) return false;
  const { protocol } = typeof input === 'string' ? new URL(input) : input;
  return protocol === 'http:' || protocol === 'https:';
}

/** Headers as undici's flat `[name, value, …]` list. */
export function flatHeaders(headers: Headers): string[] {
  const flat: string[] = [];
  for (const [name, value] of headers) flat.push(name, value);
  return flat;
}
