import { Agent, type Dispatcher } from 'undici';
import type { ScopeRegistry } from '../controller/registry.js';
import { FetchFailedError, RedirectError } from '../errors.js';
import { redactUrl } from '../util/redact.js';
import type { AttemptOutcome } from './attempts.js';
import { type ClientOptions, type ClientSettings, readClientOptions } from './client-options.js';
import { timedConnect } from './connection-timings.js';
import { runControlled } from './controlled-attempt.js';
import { closedInFlight, LiveAttempts } from './live-attempts.js';
import { nextHop } from './redirects.js';
import {
  flatHeaders,
  type PreparedRequest,
  prepareRequest,
  type RatewiseRequestInit,
} from './request-input.js';
import { attachInfo, TapInfo } from './response-info.js';
import type { ResponseTap } from './response-tap.js';
import { attemptCap } from './retry-policy.js';
import { toWebResponse } from './web-response.js';

/** A fetch-compatible HTTP client whose every request is rate-controlled. */
export interface RatewiseClient {
  /**
   * `fetch`, under control: the request waits for admission by its scopes,
   * retryable failures are retried (honouring Retry-After), redirects are
   * followed hop by hop, and a standard `Response` comes back — also for
   * 4xx/5xx after the retries, as with fetch. Rejects with a
   * `FetchFailedError` (a `TypeError`, like fetch) when the last attempt got
   * no response, with `RetryAfterTooLongError` when the server asks for a
   * longer wait than allowed, with `ResponseTooLargeError` or `RedirectError`,
   * and with the abort reason when `init.signal` aborts.
   *
   * The outcome reaches the controllers when the body has been downloaded.
   * Past 64 KiB the download waits for you to read, so read or cancel every
   * body: until then the request holds its scope's slot and its connection.
   */
  fetch(input: string | URL | Request, init?: RatewiseRequestInit): Promise<Response>;
  /** The per-scope controllers (limits, rates, breakers). */
  readonly registry: ScopeRegistry;
  /**
   * Shuts the client down: its controllers' timers stop; requests waiting for
   * admission or a retry, requests in flight and bodies still being read fail
   * with a `RatewiseError` of code `ERR_RATEWISE_CLOSED`, as does any later
   * `fetch`; its connections close (not a `dispatcher` you passed in).
   * Resolves once the `events` sink has written what it received: its `flush()`
   * is awaited when it has one (a {@link jsonlSink}), and it is left open —
   * close a sink you created once nothing else writes to it. Calling it again
   * returns the same promise.
   */
  close(): Promise<void>;
}

/**
 * Creates a rate-controlled, fetch-compatible client on undici.
 *
 * ```ts
 * const client = createClient({ maxConcurrency: 16, events: jsonlSink('events.jsonl') });
 * const response = await client.fetch('https://api.example.com/items?page=1');
 * const items = await response.json();
 * await client.close();
 * ```
 */
export function createClient(options: ClientOptions = {}): RatewiseClient {
  const settings = readClientOptions(options);
  const owned = settings.dispatcher === undefined;
  const dispatcher = settings.dispatcher ?? createAgent(settings);
  const live = new LiveAttempts();
  let closed: Promise<void> | undefined;
  const shutDown = async () => {
    const closing = settings.registry.close(); // no controller timer keeps the process alive
    live.abortAll(closedInFlight());
    await closing;
    if (owned) await dispatcher.close();
    await flushEvents(options.events);
  };
  return {
    registry: settings.registry,
    fetch: async (input, init) =>
      fetchControlled(
        settings,
        dispatcher,
        withoutCredentials(await prepareRequest(input, init)),
        live,
      ),
    close: () => {
      closed ??= shutDown();
      return closed;
    },
  };
}

/**
 * fetch refuses a URL with credentials in it (`https://user:pass@host/`), with
 * a `TypeError`; so does ratewise (rather than send it without them). The
 * message shows the URL with the credentials hidden.
 */
function withoutCredentials(request: PreparedRequest): PreparedRequest {
  const { url } = request;
  if (url.username === '' && url.password === '') return request;
  throw new TypeError(
    `Request cannot be constructed from a URL that includes credentials: ${redactUrl(url)} (send them in an Authorization header)`,
  );
}

/** Waits for an events sink that buffers (has `flush()`) to write what it holds. */
async function flushEvents(sink: ClientOptions['events']): Promise<void> {
  const flush = (sink as { flush?: unknown } | undefined)?.flush;
  if (typeof flush === 'function') await flush.call(sink);
}

function createAgent(settings: ClientSettings): Agent {
  return new Agent({
    connections: settings.connections,
    pipelining: 1,
    connect: timedConnect({ timeout: finiteOrZero(settings.connectTimeoutMs) }, settings.clock),
  });
}

async function fetchControlled(
  settings: ClientSettings,
  dispatcher: Dispatcher,
  first: PreparedRequest,
  live: LiveAttempts,
): Promise<Response> {
  let request = first;
  for (let redirects = 0; ; redirects++) {
    const scopes = settings.resolve({ url: request.url, ...contextOf(request) });
    const outcome = await runControlled(settings, {
      url: request.url.href,
      method: request.method,
      scopes,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.admitSignal ? { admitSignal: request.admitSignal } : {}),
      dispatch: (tap) => {
        live.track(tap);
        dispatcher.dispatch(dispatchOptions(settings, request), tap);
      },
    });
    const tap = outcome.result;
    if (tap === undefined) throw fetchFailure(settings, request.url.href, outcome);
    const next = await followOrDiscard(tap, request, redirects, settings.maxRedirects);
    if (next) {
      request = next;
      continue;
    }
    const response = toWebResponse(tap, request.url.href, redirects > 0, settings.maxBodyBytes);
    const scopeList = typeof scopes === 'string' ? [scopes] : scopes;
    attachInfo(response, new TapInfo(request.url.href, outcome, redirects, scopeList, tap));
    return response;
  }
}

/** The next hop of a redirect (after draining this one), or `undefined` to return this response. */
async function followOrDiscard(
  tap: ResponseTap,
  request: PreparedRequest,
  redirects: number,
  maxRedirects: number,
): Promise<PreparedRequest | undefined> {
  let next: PreparedRequest | undefined;
  try {
    next = nextHop(request, tap.status, tap.headers);
    if (next && redirects >= maxRedirects) {
      throw new RedirectError(
        request.url.href,
        `more than maxRedirects (${maxRedirects}) redirects`,
      );
    }
  } catch (error) {
    await tap.discard();
    throw error;
  }
  if (next) await tap.discard();
  return next;
}

/**
 * What a fetch whose last attempt got no response rejects with. The attempt
 * loop itself rethrows aborts and ratewise's own refusals, so what is left
 * here is a failure the server caused (refused, reset, timed out).
 */
function fetchFailure(
  settings: ClientSettings,
  url: string,
  outcome: AttemptOutcome<ResponseTap>,
): FetchFailedError {
  const cap = attemptCap(outcome.signal, settings.retry);
  const tried = {
    attempts: outcome.attempts,
    elapsedMs: settings.clock.now() - outcome.firstSentAt,
    capOption: outcome.attempts >= cap.attempts ? cap.option : undefined,
  };
  return new FetchFailedError(url, tried, outcome.signal, outcome.error);
}

function contextOf(request: PreparedRequest) {
  return request.context ? { context: request.context } : {};
}

function dispatchOptions(
  settings: ClientSettings,
  request: PreparedRequest,
): Dispatcher.DispatchOptions {
  return {
    origin: request.url.origin,
    path: `${request.url.pathname}${request.url.search}`,
    method: request.method as Dispatcher.HttpMethod,
    headers: flatHeaders(request.headers),
    body: request.body ?? null,
    headersTimeout: finiteOrZero(settings.headersTimeoutMs),
    bodyTimeout: finiteOrZero(settings.bodyTimeoutMs),
  };
}

/** undici reads 0 as "no timeout". */
function finiteOrZero(ms: number): number {
  return Number.isFinite(ms) ? ms : 0;
}
