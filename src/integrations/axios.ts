/**
 * ratewise for axios: an adapter wrapper, so every attempt axios sends —
 * axios-retry's re-issues included — waits for admission by its scopes and
 * reports its outcome.
 *
 * @packageDocumentation
 */
import type { Readable } from 'node:stream';
import type {
  AxiosAdapter,
  AxiosRequestConfig,
  AxiosResponse,
  InternalAxiosRequestConfig,
} from 'axios';
import type { RequestControl } from '../client/request-input.js';
import type { ScopeRegistry } from '../controller/registry.js';
import { check } from '../option-rules.js';
import { AttemptControl, type IntegrationOptions } from './attempt-control.js';
import type { ControlledAttempt } from './controlled-attempt.js';
import { streamEnded } from './stream-end.js';

/** An adapter, or the name of a built-in one (`'http'`, `'fetch'`, `'xhr'`). */
export type AxiosAdapterConfig = AxiosAdapter | string;

/** The parts of the `axios` default export the adapter uses. */
export interface AxiosStatic {
  getAdapter(
    adapters: AxiosAdapterConfig | AxiosAdapterConfig[] | undefined,
    config?: AxiosRequestConfig,
  ): AxiosAdapter;
  getUri(config?: AxiosRequestConfig): string;
  isCancel(value: unknown): boolean;
  defaults: { adapter?: AxiosAdapterConfig | AxiosAdapterConfig[] | undefined };
}

/** Options of {@link ratewiseAdapter}. */
export interface AxiosIntegrationOptions extends IntegrationOptions {
  /** The adapter that sends the request. @default axios.defaults.adapter */
  adapter?: AxiosAdapterConfig | AxiosAdapterConfig[];
}

/** An axios adapter under ratewise's control. */
export interface RatewiseAxiosAdapter extends AxiosAdapter {
  /** The per-scope controllers. */
  readonly registry: ScopeRegistry;
  /**
   * axios-retry's `retryDelay`: 0 after a 429 or 503 (the next admission
   * waits, Retry-After included), ratewise's backoff after other failures.
   */
  retryDelay(retryCount: number, error: unknown): number;
  /** Stops the controllers' timers; requests waiting for admission reject. */
  close(): Promise<void>;
}

/** axios's request config with ratewise's per-request settings (`ratewise: { context }`). */
export interface RatewiseAxiosConfig extends InternalAxiosRequestConfig {
  ratewise?: Pick<RequestControl, 'context'>;
}

const OWNER = 'ratewiseAdapter';

/**
 * Wraps axios's adapter so each attempt is admitted by its scopes first and
 * its outcome — status and headers on success and on `error.response`, or
 * the network error — reaches the controllers exactly once. axios follows
 * redirects inside its adapter, so a redirect chain is one attempt under the
 * first URL's scope. A `responseType: 'stream'` response holds its slot until
 * the stream ends or is destroyed.
 *
 * ```ts
 * const adapter = ratewiseAdapter(axios, { maxConcurrency: 16 });
 * const api = axios.create({ adapter });
 * axiosRetry(api, { retries: 5, retryDelay: adapter.retryDelay });
 * ```
 */
export function ratewiseAdapter(
  axios: AxiosStatic,
  options: AxiosIntegrationOptions = {},
): RatewiseAxiosAdapter {
  const control = new AttemptControl(OWNER, options, {
    adapter: check(
      'an axios adapter: a function, a name or a list of them',
      (value): value is AxiosAdapterConfig | AxiosAdapterConfig[] =>
        ['function', 'string'].includes(typeof value) || Array.isArray(value),
    ),
  });
  const inner = options.adapter ?? axios.defaults.adapter;
  const signals = new WeakMap<object, ReturnType<ControlledAttempt['fail']>>();
  const adapter = async (config: RatewiseAxiosConfig): Promise<AxiosResponse> => {
    const context = config.ratewise?.context;
    const attempt = await control.admit({
      url: axios.getUri(config),
      ...(context ? { context } : {}),
      signal: config.signal as AbortSignal | undefined,
    });
    try {
      const response = await axios.getAdapter(inner, config)(config);
      settleResponse(attempt, response);
      return response;
    } catch (error) {
      const signal = settleError(axios, attempt, error, config);
      if (typeof error === 'object' && error !== null) signals.set(error, signal);
      throw error;
    }
  };
  return Object.assign(adapter, {
    registry: control.registry,
    retryDelay: (retryCount: number, error: unknown) =>
      control.retryDelayMs(
        typeof error === 'object' && error !== null ? signals.get(error) : undefined,
        retryCount,
      ),
    close: () => control.close(),
  });
}

function settleResponse(attempt: ControlledAttempt, response: AxiosResponse): void {
  const head = { status: response.status, headers: plainHeaders(response.headers) };
  const data = response.data as Partial<Readable> | undefined;
  if (response.config.responseType === 'stream' && typeof data?.once === 'function') {
    // A refusal (let through by `validateStatus`) is reported at its head, anything else once read.
    if (attempt.respondIfRefused(head)) return;
    streamEnded(data as Readable, (error) => {
      if (error === undefined) attempt.respond(head);
      else attempt.fail(error);
    });
    return;
  }
  attempt.respond(head);
}

function settleError(
  axios: AxiosStatic,
  attempt: ControlledAttempt,
  error: unknown,
  config: InternalAxiosRequestConfig,
) {
  const failure = error as { code?: unknown; message?: unknown; response?: AxiosResponse };
  if (axios.isCancel(error) || (config.signal as AbortSignal | undefined)?.aborted) {
    attempt.release();
    return undefined;
  }
  if (failure.response) {
    return attempt.respond({
      status: failure.response.status,
      headers: plainHeaders(failure.response.headers),
    });
  }
  // axios reports its own timeout as ECONNABORTED, which elsewhere means a reset.
  if (failure.code === 'ECONNABORTED' && String(failure.message).includes('timeout')) {
    return attempt.timedOut('axios timeout');
  }
  return attempt.fail(error);
}

/** axios's `AxiosHeaders` as a plain object (its own `toJSON`), or the object as it is. */
function plainHeaders(headers: unknown): Record<string, string> {
  const withJson = headers as { toJSON?: () => Record<string, string> } | undefined;
  if (typeof withJson?.toJSON === 'function') return withJson.toJSON();
  return (headers ?? {}) as Record<string, string>;
}

export type { IntegrationOptions } from './attempt-control.js';
