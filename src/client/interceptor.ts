import type { Dispatcher } from 'undici';
import type { ScopeRegistry } from '../controller/registry.js';
import { InvalidOptionError } from '../errors.js';
import { rejectUnknownOptions } from '../options.js';
import { runControlled } from './controlled-attempt.js';
import { CONTROLLED_KEYS, type ControlledOptions, readControlledOptions } from './options.js';
import type { RequestControl } from './request-input.js';
import type { ResponseTap } from './response-tap.js';

/** An undici interceptor that puts every request under ratewise's control. */
export type RatewiseInterceptor = Dispatcher.DispatcherComposeInterceptor & {
  /** The per-scope controllers. */
  readonly registry: ScopeRegistry;
};

/** undici dispatch options, with ratewise's per-request settings. */
export interface RatewiseDispatchOptions extends Dispatcher.DispatchOptions {
  /** Scope context for context resolvers (`request(url, { ratewise: { context } })`). */
  ratewise?: RequestControl;
  /** The caller's cancellation, as undici's `request` passes it down. */
  signal?: unknown;
}

const OWNER = 'ratewiseInterceptor';

/**
 * ratewise as an undici interceptor, for code that uses undici's own
 * `request`, `stream` or `fetch`: admission per scope, classification, retries
 * with Retry-After, per-scope retry budget and breaker, events — everything
 * `createClient` does except following redirects (compose undici's
 * `interceptors.redirect()` after it so each hop is admitted on its own).
 * Only requests whose body can be sent again (none, a string or bytes) are
 * retried. Build the agent with `connect: timedConnect()` to have DNS,
 * connect and TLS timed in the events.
 *
 * ```ts
 * const agent = new Agent({ connections: 32, connect: timedConnect() }).compose(
 *   ratewiseInterceptor({ maxConcurrency: 32 }),
 * );
 * const { statusCode, body } = await request(url, { dispatcher: agent });
 * ```
 */
export function ratewiseInterceptor(options: ControlledOptions = {}): RatewiseInterceptor {
  if (typeof options !== 'object' || options === null) {
    throw InvalidOptionError.invalid(OWNER, 'options', options, 'an object');
  }
  rejectUnknownOptions(OWNER, options, CONTROLLED_KEYS);
  const settings = readControlledOptions(OWNER, options);
  const once = { ...settings, retry: { ...settings.retry, maxAttempts: 1 } };
  const interceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
    const request = opts as RatewiseDispatchOptions;
    const url = new URL(request.path, request.origin);
    const context = request.ratewise?.context;
    const signal = request.signal instanceof AbortSignal ? request.signal : undefined;
    const attempts = runControlled(replayable(request.body) ? settings : once, {
      url: url.href,
      method: request.method,
      scopes: settings.resolve(context ? { url, context } : { url }),
      ...(signal ? { signal } : {}),
      dispatch: (tap) => dispatch(opts, tap),
    });
    attempts.then(
      (outcome) =>
        outcome.result ? forward(outcome.result, handler) : fail(handler, outcome.error),
      (error: unknown) => fail(handler, error),
    );
    return true;
  };
  return Object.assign(interceptor, { registry: settings.registry });
}

function replayable(body: unknown): boolean {
  return (
    body === undefined || body === null || typeof body === 'string' || body instanceof Uint8Array
  );
}

/** Hands the final attempt's response to the caller's handler, body streaming with backpressure. */
function forward(tap: ResponseTap, handler: Dispatcher.DispatchHandler): void {
  const controller = new ForwardController(tap);
  handler.onRequestStart?.(controller, {});
  if (controller.aborted) {
    handler.onResponseError?.(controller, controller.reason as Error);
    return;
  }
  handler.onResponseStart?.(controller, tap.status, tap.headers, tap.statusText);
  tap.consume({
    data: (chunk) => {
      handler.onResponseData?.(controller, chunk);
      return !controller.paused;
    },
    end: () => handler.onResponseEnd?.(controller, {}),
    error: (error) => handler.onResponseError?.(controller, error as Error),
  });
}

function fail(handler: Dispatcher.DispatchHandler, error: unknown): void {
  const failure = error instanceof Error ? error : new Error(String(error));
  handler.onResponseError?.(new ForwardController(undefined), failure);
}

/** The controller the caller's handler sees: pausing and aborting reach the attempt. */
class ForwardController implements Dispatcher.DispatchController {
  readonly #tap: ResponseTap | undefined;
  #paused = false;
  #reason: Error | null = null;

  constructor(tap: ResponseTap | undefined) {
    this.#tap = tap;
  }

  get aborted(): boolean {
    return this.#reason !== null;
  }

  get paused(): boolean {
    return this.#paused;
  }

  get reason(): Error | null {
    return this.#reason;
  }

  abort(reason: Error): void {
    if (this.#reason !== null) return;
    this.#reason = reason;
    this.#tap?.abort(reason);
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    if (!this.#paused) return;
    this.#paused = false;
    this.#tap?.resume();
  }
}
