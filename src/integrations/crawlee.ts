/**
 * ratewise for Crawlee 3: an `httpClient` and pool options for HTTP
 * crawlers, a navigation hook pair for browser crawlers, and a preset that
 * stops 429 from retiring sessions.
 *
 * @packageDocumentation
 */
import type { Readable } from 'node:stream';
import type {
  BaseHttpClient,
  HttpRequest,
  HttpResponse,
  RedirectHandler,
  ResponseTypes,
  StreamingHttpResponse,
} from '@crawlee/core';
import { DEFAULT_MAX_CONCURRENCY } from '../controller/defaults.js';
import type { ScopeRegistry } from '../controller/registry.js';
import { check, hasMethods } from '../option-rules.js';
import { AttemptControl, type IntegrationOptions } from './attempt-control.js';
import type { ControlledAttempt } from './controlled-attempt.js';
import { admitWithin, type RetryRequestErrorClass, sessionContext } from './crawlee-admission.js';
import { type NavigationHooks, navigationHooks } from './crawlee-hooks.js';
import { streamEnded } from './stream-end.js';

/** Options of {@link ratewiseCrawlee}. */
export interface CrawleeIntegrationOptions extends IntegrationOptions {
  /** The client that sends the requests. @default new GotScrapingHttpClient() */
  httpClient?: BaseHttpClient;
}

/** Crawler options that fix the size of Crawlee's autoscaled pool. */
export interface PoolOptions {
  minConcurrency: number;
  maxConcurrency: number;
  /** Where the pool starts (HttpCrawler's own default is 10, whatever `minConcurrency`). */
  autoscaledPoolOptions: { desiredConcurrency: number };
}

/** ratewise's pieces for a Crawlee crawler, sharing one set of controllers. */
export interface RatewiseCrawlee {
  /**
   * For `HttpCrawler`, `CheerioCrawler`, `JSDOMCrawler`…: `new CheerioCrawler({ httpClient })`.
   * Each request waits for admission at most half the navigation timeout
   * (`navigationTimeoutSecs`, whose clock runs while it waits) and is sent
   * with the rest of it; a request that waited longer fails and Crawlee
   * retries it, without using up a retry when only the queue held it back.
   */
  readonly httpClient: BaseHttpClient;
  /**
   * For HTTP crawlers, spread into the crawler options: a pool of as many
   * tasks as ratewise lets one scope have in flight (`maxConcurrency`), kept
   * whatever the machine's load. Crawlee's autoscaled pool (10 tasks to start
   * with in an HTTP crawler) grows by 5 % per 10 s while the machine is idle
   * and shrinks towards one task while the machine's CPU (other processes
   * count) or its event loop is busy, so on its own it starves the controller
   * (measured: 7–48 % of a server's capacity on a busy machine, 85 % on a
   * less busy one, see BENCHMARKS.md); a task waiting for admission
   * costs neither CPU nor a socket. Crawling many hosts at once, set larger
   * `minConcurrency`, `maxConcurrency` and `desiredConcurrency` after the
   * spread.
   */
  readonly poolOptions: PoolOptions;
  /**
   * For browser crawlers, spread into the crawler options: a pre-navigation
   * hook that waits for admission (at most half the navigation timeout, then
   * the request fails and Crawlee retries it, as with `httpClient`; the time
   * waited is taken off the navigation's own timeout), a post-navigation hook that reports the
   * main document's response (and fails a 429 or 503 page so Crawlee retries
   * it), and an `errorHandler` and a `failedRequestHandler` that report a
   * failed navigation (retried, or given up on). Merge with your own hooks and
   * handlers if you have some (call these from yours to keep the outcome);
   * either way an attempt nothing reported is released when its page closes.
   */
  readonly navigationHooks: NavigationHooks;
  /** The per-scope controllers. */
  readonly registry: ScopeRegistry;
  /** Stops the controllers' timers; requests waiting for admission reject. */
  close(): Promise<void>;
}

/**
 * Crawler options that stop a 429 from retiring the session (Crawlee's
 * default `blockedStatusCodes` are 401, 403 and 429): ratewise has already
 * paused the scope, and the retry waits for admission. For any crawler.
 */
export const keepSessionsOn429: { sessionPoolOptions: { blockedStatusCodes: number[] } } = {
  sessionPoolOptions: { blockedStatusCodes: [401, 403] },
};

/**
 * For HTTP crawlers, with {@link keepSessionsOn429}: a 429 becomes a
 * retryable error instead of a page handed to your `requestHandler`. (Browser
 * crawlers need nothing: the post-navigation hook fails a 429 or 503 itself.)
 */
export const retryHttp429: { additionalHttpErrorStatusCodes: number[] } = {
  additionalHttpErrorStatusCodes: [429],
};

/**
 * ratewise for Crawlee: every request an HTTP crawler sends, and every
 * navigation of a browser crawler, is admitted by its scopes (by host, or by
 * Crawlee session with `scope: byContext('session')`) and its outcome
 * reported, so 429s and 5xx reach the controller before Crawlee turns them
 * into errors, and retries wait for the scope instead of hammering it.
 *
 * ```ts
 * const ratewise = await ratewiseCrawlee({ maxConcurrency: 8 });
 * const crawler = new CheerioCrawler({
 *   httpClient: ratewise.httpClient,
 *   ...ratewise.poolOptions,
 *   ...keepSessionsOn429,
 *   ...retryHttp429,
 *   requestHandler,
 * });
 * await crawler.run(urls);
 * await ratewise.close();
 * ```
 */
export async function ratewiseCrawlee(
  options: CrawleeIntegrationOptions = {},
): Promise<RatewiseCrawlee> {
  const control = new AttemptControl('ratewiseCrawlee', options, {
    httpClient: check(
      'a Crawlee BaseHttpClient such as new GotScrapingHttpClient()',
      hasMethods<BaseHttpClient>('sendRequest', 'stream'),
    ),
  });
  const crawlee = await import('@crawlee/core');
  const inner = options.httpClient ?? new crawlee.GotScrapingHttpClient();
  return {
    httpClient: controlledHttpClient(control, inner, crawlee.RetryRequestError),
    navigationHooks: navigationHooks(control, crawlee.RetryRequestError),
    poolOptions: poolOf(options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY),
    registry: control.registry,
    close: () => control.close(),
  };
}

function poolOf(tasks: number): PoolOptions {
  return {
    minConcurrency: tasks,
    maxConcurrency: tasks,
    autoscaledPoolOptions: { desiredConcurrency: tasks },
  };
}

function controlledHttpClient(
  control: AttemptControl,
  inner: BaseHttpClient,
  retryError: RetryRequestErrorClass,
): BaseHttpClient {
  /** Admits `request`; returns the attempt and the request with the time waited taken off its timeout. */
  const admit = async <T extends HttpRequest<keyof ResponseTypes>>(request: T) => {
    const target = {
      url: request.url,
      ...sessionContext(request.sessionToken as { id: string } | undefined),
      signal: request.signal,
    };
    const timeout = request.timeout && 'request' in request.timeout ? request.timeout : undefined;
    const { attempt, leftMs } = await admitWithin(control, target, timeout?.request, retryError);
    const sent = leftMs === undefined ? request : { ...request, timeout: { request: leftMs } };
    return { attempt, sent };
  };
  return {
    async sendRequest<T extends keyof ResponseTypes = 'text'>(
      request: HttpRequest<T>,
    ): Promise<HttpResponse<T>> {
      const { attempt, sent } = await admit(request);
      try {
        const response = await inner.sendRequest(sent);
        attempt.respond({ status: response.statusCode, headers: response.headers });
        return response;
      } catch (error) {
        attempt.fail(error);
        throw error;
      }
    },
    async stream(
      request: HttpRequest,
      onRedirect?: RedirectHandler,
    ): Promise<StreamingHttpResponse> {
      const { attempt, sent } = await admit(request);
      try {
        const response = await inner.stream(sent, onRedirect);
        holdUntilRead(attempt, response);
        return response;
      } catch (error) {
        attempt.fail(error);
        throw error;
      }
    },
  };
}

/**
 * Reports a refusal as soon as its head is known (its body says nothing the
 * controller needs); any other response once the body stream is over (read,
 * destroyed, or failed mid-download), the slot busy until then.
 */
function holdUntilRead(attempt: ControlledAttempt, response: StreamingHttpResponse): void {
  const head = { status: response.statusCode, headers: response.headers };
  if (attempt.respondIfRefused(head)) return;
  streamEnded(response.stream as Readable, (error) => {
    if (error === undefined) attempt.respond(head);
    else attempt.fail(error);
  });
}

export type { IntegrationOptions } from './attempt-control.js';
export type { NavigationContext, NavigationHooks } from './crawlee-hooks.js';
export type { BrowserResponse, ResourceTiming } from './navigation.js';
