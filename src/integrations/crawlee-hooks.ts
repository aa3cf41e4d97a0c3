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
}

/** The hooks and error handler a browser crawler is given (see `RatewiseCrawlee.navigationHooks`). */
export interface NavigationHooks {
  preNavigationHooks: ((
    context: NavigationContext,
    gotoOptions?: { timeout?: number },
  ) => Promise<void>)[];
  postNavigationHooks: ((context: NavigationContext) => Promise<void>)[];
  errorHandler: (context: NavigationContext, error: Error) => void;
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
  };
}
