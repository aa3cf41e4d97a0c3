import type { Dispatcher } from 'undici';
import type { ScopeRegistry } from '../controller/registry.js';
import { runControlled } from './controlled-attempt.js';
import { ForwardController, fail, forward } from './forward-response.js';
import { type InterceptorOptions, readControlledOptions } from './options.js';
import type { RequestControl } from './request-input.js';

/** An undici interceptor that puts every request under ratewise's control. */
export type RatewiseInterceptor = Dispatcher.DispatcherComposeInterceptor & {
  /** The per-scope controllers. */
  readonly registry: ScopeRegistry;
};

/** undici dispatch options, with ratewise's per-request settings. */
export interface RatewiseDispatchOptions extends Dispatcher.DispatchOptions {
  /** Scope context for context resolvers (`request(url, { ratewise: { context } })`). */
  ratewise?: RequestControl;
}

const OWNER = 'ratewiseInterceptor';

/**
 * ratewise as an undici interceptor, for code that uses undici's own
 * `request`, `stream` or `fetch`: admission per scope, classification, retries
 * with Retry-After, per-scope retry budget and breaker, events — everything
 * `createClient` does except following redirects (undici's `fetch` follows
 * them itself, hop by hop through the interceptor; with `request`, compose
 * undici's `interceptors.redirect()` after it so each hop is admitted on its
 * own). Cancelling — an `AbortSignal` given to `request` or `fetch` — works
 * at every stage: waiting for admission, between retries, and while the body
 * streams. Only requests whose body can be sent again (none, a string or
 * bytes) are retried. Build the agent with `connect: timedConnect()` to have
 * DNS, connect and TLS timed in the events.
 *
 * ```ts
 * const agent = new Agent({ connections: 32, connect: timedConnect() }).compose(
 *   ratewiseInterceptor({ maxConcurrency: 32 }),
 * );
 * const { statusCode, body } = await request(url, { dispatcher: agent });
 * const response = await fetch(url, { dispatcher: agent }); // undici's fetch
 * ```
 */
export function ratewiseInterceptor(options: InterceptorOptions = {}): RatewiseInterceptor {
  const settings = readControlledOptions(OWNER, options);
  const once = { ...settings, retry: { ...settings.retry, maxAttempts: 1 } };
  const interceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
    const request = opts as RatewiseDispatchOptions;
    // The handler gets its controller first: aborting it cancels the attempt loop wherever it is.
    const controller = new ForwardController();
    handler.onRequestStart?.(controller, {});
    if (controller.aborted) {
      handler.onResponseError?.(controller, controller.reason as Error);
      return true;
    }
    const url = dispatchUrl(request.origin, request.path);
    const context = request.ratewise?.context;
    const attempts = runControlled(replayable(request.body) ? settings : once, {
      url: url.href,
      method: request.method,
      scopes: settings.resolve(context ? { url, context } : { url }),
      signal: controller.cancellation,
      dispatch: (tap) => dispatch(opts, tap),
    });
    attempts.then(
      (outcome) =>
        outcome.result
          ? forward(outcome.result, controller, handler, settings.maxBodyBytes)
          : fail(controller, handler, outcome.error),
      (error: unknown) => fail(controller, handler, error),
    );
    return true;
  };
  return Object.assign(interceptor, { registry: settings.registry });
}

/**
 * The URL a dispatch goes to: its origin and its path joined as text. (Resolving
 * the path against the origin would read a path that starts with `//` as
 * protocol-relative, scoping the request under a host it is not sent to.)
 */
function dispatchUrl(origin: string | URL | undefined, path: string): URL {
  if (origin === undefined || path[0] !== '/') return new URL(path, origin);
  const base = typeof origin === 'string' ? origin : origin.origin;
  return new URL((base.endsWith('/') ? base.slice(0, -1) : base) + path);
}

function replayable(body: unknown): boolean {
  return (
    body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array
  );
}
