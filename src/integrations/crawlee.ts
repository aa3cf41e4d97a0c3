/**
 * ratewise for Crawlee 3: an `httpClient` for HTTP crawlers, a navigation
 * hook pair for browser crawlers, and a preset that stops 429 from retiring
 * sessions.
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
import { isRateSignal } from '../client/retry-policy.js';
import type { ScopeRegistry } from '../controller/registry.js';
import { AttemptControl, type IntegrationOptions } from './attempt-control.js';
import type { ControlledAttempt } from './controlled-attempt.js';
import { type BrowserResponse, settleNavigation } from './navigation.js';
import { streamEnded } from './stream-end.js';

/** Options of {@link ratewiseCrawlee}. */
export interface CrawleeIntegrationOptions extends IntegrationOptions {
  /** The client that sends the requests. @default new GotScrapingHttpClient() */
  httpClient?: BaseHttpClient;
}

/** What a browser crawler's hooks see of the crawling context. */
export interface NavigationContext {
  request: { url: string };
  session?: { id: string } | undefined;
  response?: BrowserResponse | null | undefined;
}

/** ratewise's pieces for a Crawlee crawler, sharing one set of controllers. */
export interface RatewiseCrawlee {
  /** For `HttpCrawler`, `CheerioCrawler`, `JSDOMCrawler`…: `new CheerioCrawler({ httpClient })`. */
  readonly httpClient: BaseHttpClient;
  /**
   * For browser crawlers, spread into the crawler options: a pre-navigation
   * hook that waits for admission (at most half the navigation timeout, then
   * the request fails and Crawlee retries it; the time waited is taken off
   * the navigation's own timeout), a post-navigation hook that reports the
   * main document's response (and fails a 429 or 503 page so Crawlee retries
   * it), and an `errorHandler` that reports a failed
   * navigation before Crawlee retries. Merge with your own hooks if you have some.
   */
  readonly navigationHooks: {
    preNavigationHooks: ((
      context: NavigationContext,
      gotoOptions?: { timeout?: number },
    ) => Promise<void>)[];
    postNavigationHooks: ((context: NavigationContext) => Promise<void>)[];
    errorHandler: (context: NavigationContext, error: Error) => void;
  };
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

/** The Crawlee session a request runs in, as scope context (`byContext('session')`). */
function sessionContext(session: { id: string } | undefined) {
  return session?.id ? { context: { session: session.id } } : {};
}

/**
 * ratewise for Crawlee: every request an HTTP crawler sends, and every
 * navigation of a browser crawler, is admitted by its scopes (by host, or by
 * Crawlee session with `scope: byContext('session')`) and its outcome
 * reported, so 429s and 5xx reach the controller before Crawlee turns them
 * into errors, and retries wait for the scope instead of hammering it.
 *
 * ```ts
 * const ratewise = ratewiseCrawlee({ maxConcurrency: 8 });
 * const crawler = new CheerioCrawler({
 *   httpClient: ratewise.httpClient,
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
  const control = new AttemptControl('ratewiseCrawlee', options, ['httpClient']);
  const inner = options.httpClient ?? new (await import('@crawlee/core')).GotScrapingHttpClient();
  return {
    httpClient: controlledHttpClient(control, inner),
    navigationHooks: navigationHooks(control),
    registry: control.registry,
    close: () => control.close(),
  };
}

function controlledHttpClient(control: AttemptControl, inner: BaseHttpClient): BaseHttpClient {
  const admit = (request: HttpRequest<keyof ResponseTypes>) =>
    control.admit({
      url: request.url,
      ...sessionContext(request.sessionToken as { id: string } | undefined),
      signal: request.signal,
    });
  return {
    async sendRequest<T extends keyof ResponseTypes = 'text'>(
      request: HttpRequest<T>,
    ): Promise<HttpResponse<T>> {
      const attempt = await admit(request);
      try {
        const response = await inner.sendRequest(request);
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
      const attempt = await admit(request);
      try {
        const response = await inner.stream(request, onRedirect);
        holdUntilRead(attempt, response);
        return response;
      } catch (error) {
        attempt.fail(error);
        throw error;
      }
    },
  };
}

/** Reports once the body stream is over (read, destroyed, or failed mid-download). */
function holdUntilRead(attempt: ControlledAttempt, response: StreamingHttpResponse): void {
  const head = { status: response.statusCode, headers: response.headers };
  streamEnded(response.stream as Readable, (error) => {
    if (error === undefined) attempt.respond(head);
    else attempt.fail(error);
  });
}

function navigationHooks(control: AttemptControl): RatewiseCrawlee['navigationHooks'] {
  const attempts = new WeakMap<object, ControlledAttempt>();
  const settle = async (context: NavigationContext, error?: unknown) => {
    const attempt = attempts.get(context.request);
    if (attempt === undefined || attempt.ended) return attempt?.signal;
    attempts.delete(context.request);
    await settleNavigation(attempt, error === undefined ? context.response : undefined, error);
    return attempt.signal;
  };
  return {
    preNavigationHooks: [
      async (context, gotoOptions) => {
        attempts.get(context.request)?.release(); // an earlier try nothing reported
        const navigationMs = gotoOptions?.timeout;
        const waitCap = navigationMs ? navigationMs / 2 : undefined;
        const started = control.clock.now();
        const attempt = await control.admit({
          url: context.request.url,
          ...sessionContext(context.session),
          ...(waitCap === undefined ? {} : { timeoutMs: waitCap }),
        });
        attempts.set(context.request, attempt);
        if (gotoOptions && navigationMs) {
          gotoOptions.timeout = Math.max(1, navigationMs - (control.clock.now() - started));
        }
      },
    ],
    postNavigationHooks: [
      async (context) => {
        const signal = await settle(context);
        // A 429 or 503 page is not content: fail it so Crawlee retries, once the scope allows.
        if (signal && isRateSignal(signal))
          throw new Error(`${signal.reason}: retried when the scope allows`);
      },
    ],
    errorHandler: (context, error) => void settle(context, error),
  };
}

export type { IntegrationOptions } from './attempt-control.js';
export type { BrowserResponse, ResourceTiming } from './navigation.js';
