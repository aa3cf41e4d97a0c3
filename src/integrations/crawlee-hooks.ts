import { isRateSignal } from '../client/retry-policy.js';
import type { AttemptControl } from './attempt-control.js';
import type { ControlledAttempt } from './controlled-attempt.js';
import { admitWithin, type RetryRequestErrorClass, sessionContext } from './crawlee-admission.js';
import { type BrowserResponse, proxyFailure, settleNavigation } from './navigation.js';

/** What a browser crawler's hooks see of the crawling context. */
export interface NavigationContext {
  request: { url: string };
  session?: { id: string } | undefined;
  response?: BrowserResponse | null | undefined;
  /** The crawler's page (Playwright, Puppeteer): it is closed once the request is over. */
  page?: { once(event: 'close', listener: () => void): unknown };
}

/** The hooks and error handlers a browser crawler is given (see `RatewiseCrawlee.navigationHooks`). */
export interface NavigationHooks {
  preNavigationHooks: ((
    context: NavigationContext,
    gotoOptions?: { timeout?: number },
  ) => Promise<void>)[];
  postNavigationHooks: ((context: NavigationContext) => Promise<void>)[];
  /** Reports a failed navigation Crawlee retries. */
  errorHandler: (context: NavigationContext, error: Error) => void;
  /** Reports a failed navigation Crawlee gives up on (no retry left, or not retryable). */
  failedRequestHandler: (context: NavigationContext, error: Error) => void;
}

/** Builds the navigation hooks of a browser crawler on `control`. */
export function navigationHooks(
  control: AttemptControl,
  retryError: RetryRequestErrorClass,
): NavigationHooks {
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
        const { attempt, leftMs } = await admitWithin(
          control,
          { url: context.request.url, ...sessionContext(context.session) },
          gotoOptions?.timeout,
          retryError,
        );
        attempts.set(context.request, attempt);
        // However the request ends — even with the handlers above replaced by the user's —
        // its page is closed, and an attempt nothing reported by then is released.
        context.page?.once('close', () => {
          if (attempts.get(context.request) === attempt) attempts.delete(context.request);
          attempt.release();
        });
        if (gotoOptions && leftMs !== undefined) gotoOptions.timeout = leftMs;
      },
    ],
    postNavigationHooks: [
      async (context) => {
        const signal = await settle(context);
        // A 429 or 503 page is not content, nor a proxy's page for a failed connection: fail
        // it so Crawlee retries, once the scope allows.
        const failed = proxyFailure(context.response);
        if (failed) throw failed;
        if (signal && isRateSignal(signal))
          throw new Error(`${signal.reason}: retried when the scope allows`);
      },
    ],
    errorHandler: (context, error) => void settle(context, error),
    failedRequestHandler: (context, error) => void settle(context, error),
  };
}
