/**
 * ratewise for got: a `got.extend()` preset whose hooks admit every attempt
 * (retries and redirect hops included) and report each outcome once.
 *
 * @packageDocumentation
 */
import type { Readable } from 'node:stream';
import type { ExtendOptions, HandlerFunction, RequestError, RetryObject } from 'got';
import type { ScopeRegistry } from '../controller/registry.js';
import type { Signal } from '../signal.js';
import { AttemptControl, type IntegrationOptions } from './attempt-control.js';
import type { ControlledAttempt } from './controlled-attempt.js';
import { streamEnded } from './stream-end.js';

/** The attempt in flight for one got call, shared by every copy of its `context`. */
interface Holder {
  attempt?: ControlledAttempt;
}

const HOLDER = Symbol('ratewise.got');

type Context = Record<string | symbol, unknown>;

/** ratewise's preset for got, and the controllers behind it. */
export interface RatewiseGot {
  /** Pass to `got.extend()`. */
  readonly options: ExtendOptions;
  /** The per-scope controllers. */
  readonly registry: ScopeRegistry;
  /** Stops the controllers' timers; requests waiting for admission reject. */
  close(): Promise<void>;
}

/**
 * A got preset: `beforeRequest` admits each attempt and redirect hop (before
 * got's timeouts start); `afterResponse`, `beforeRedirect`, `beforeRetry` and
 * `beforeError` report it, whichever comes first; got still decides whether
 * to retry, but `retry.calculateDelay` answers at once after a 429 or 503
 * (the next admission waits, honouring Retry-After for the whole scope) and
 * with ratewise's backoff after other failures. Scope context goes in
 * `context: { ratewise: { session: 'proxy-7' } }`.
 *
 * ```ts
 * const ratewise = ratewiseGot({ maxConcurrency: 16 });
 * const client = got.extend(ratewise.options);
 * const body = await client('https://api.example.com/items').json();
 * ```
 */
export function ratewiseGot(options: IntegrationOptions = {}): RatewiseGot {
  const control = new AttemptControl('ratewiseGot', options);
  const settle = (
    context: Context | undefined,
    outcome: RequestError | undefined,
  ): Signal | undefined => {
    const attempt = holderOf(context)?.attempt;
    if (attempt === undefined) return undefined;
    if (outcome === undefined) return attempt.signal;
    return settleError(attempt, outcome);
  };
  const handler: HandlerFunction = (gotOptions, next) => {
    const holder: Holder = {};
    gotOptions.context = { ...gotOptions.context, [HOLDER]: holder };
    const result = next(gotOptions);
    const finish = () => holder.attempt?.release();
    if (gotOptions.isStream) {
      const stream = result as unknown as Readable & { response?: StreamHead };
      // A refusal is reported at its head; any other response once its body is over.
      stream.once('response', (response: StreamHead) =>
        holder.attempt?.respondIfRefused(head(response)),
      );
      streamEnded(stream, (error) => {
        const response = stream.response;
        if (error !== undefined) holder.attempt?.fail(error);
        else if (response) holder.attempt?.respond(head(response));
        finish();
      });
    } else (result as Promise<unknown>).then(finish, finish);
    return result;
  };
  const gotOptions: ExtendOptions = {
    handlers: [handler],
    hooks: {
      beforeRequest: [
        async (request) => {
          const holder = holderOf(request.context);
          holder?.attempt?.release(); // a previous attempt nothing reported
          const attempt = await control.admit({
            url: request.url ?? '',
            ...scopeContext(request.context),
            signal: request.signal as AbortSignal | undefined,
          });
          if (holder) holder.attempt = attempt;
          else attempt.release();
        },
      ],
      afterResponse: [
        (response) => {
          const attempt = holderOf(response.request.options.context)?.attempt;
          const body = typeof response.body === 'string' ? response.body.slice(0, 4096) : undefined;
          attempt?.respond({
            status: response.statusCode,
            headers: response.headers,
            ...(body === undefined ? {} : { body }),
          });
          return response;
        },
      ],
      beforeRedirect: [
        (updated, response) => {
          holderOf(updated.context)?.attempt?.respond({
            status: response.statusCode,
            headers: response.headers,
          });
        },
      ],
      beforeRetry: [(error) => void settle(error.options?.context, error)],
      beforeError: [
        (error) => {
          settle(error.options?.context, error);
          return error;
        },
      ],
    },
    retry: {
      calculateDelay: ({ attemptCount, computedValue, error }: RetryObject) => {
        if (computedValue === 0) return 0; // got's own rules say no retry
        const signal = settle(error.options?.context, error);
        // got retries only after a delay above 0: 1 ms is "now".
        return Math.max(1, control.retryDelayMs(signal, attemptCount));
      },
    },
  };
  return { options: gotOptions, registry: control.registry, close: () => control.close() };
}

/** A got stream's response head. */
interface StreamHead {
  statusCode: number;
  headers: object;
}

function head(response: StreamHead) {
  return { status: response.statusCode, headers: response.headers as Record<string, string> };
}

function holderOf(context: Context | undefined): Holder | undefined {
  return context?.[HOLDER] as Holder | undefined;
}

function scopeContext(context: Context | undefined) {
  const scope = context?.ratewise as Record<string, string | undefined> | undefined;
  return scope ? { context: scope } : {};
}

function settleError(attempt: ControlledAttempt, error: RequestError): Signal | undefined {
  const { response } = error;
  if (response) return attempt.respond({ status: response.statusCode, headers: response.headers });
  if (error.options?.signal && (error.options.signal as AbortSignal).aborted) {
    attempt.release();
    return undefined;
  }
  return attempt.fail(error);
}

export type { IntegrationOptions } from './attempt-control.js';
