import type { Dispatcher } from 'undici';
import { DEFAULT_MAX_CONCURRENCY } from '../controller/defaults.js';
import { InvalidOptionError } from '../errors.js';
import { numberOption, rejectUnknownOptions } from '../options.js';
import {
  CONTROLLED_KEYS,
  type ControlledSettings,
  type InterceptorOptions,
  readControlledOptions,
} from './options.js';

/** Options of {@link createClient}. */
export interface ClientOptions extends InterceptorOptions {
  /**
   * Keep-alive connections per origin. Never fewer than `maxConcurrency`, so
   * the pool is never the bottleneck.
   * @default maxConcurrency
   */
  connections?: number;
  /** TCP (and TLS) connect timeout, ms. @default 10000 */
  connectTimeoutMs?: number;
  /** Wait for the response head after sending, ms. @default 30000 */
  headersTimeoutMs?: number;
  /** Longest silence between two body chunks, ms. @default 30000 */
  bodyTimeoutMs?: number;
  /** Redirects followed per request; each hop is admitted by its own scopes. @default 20 */
  maxRedirects?: number;
  /**
   * Your own undici dispatcher (a `ProxyAgent`, say) instead of the client's
   * agent; `close()` leaves it open. Build it with `connect: timedConnect()` to
   * have DNS, connect and TLS timed. Excludes `connections` and `connectTimeoutMs`.
   */
  dispatcher?: Dispatcher;
}

/** The validated form of {@link ClientOptions}. */
export interface ClientSettings extends ControlledSettings {
  connections: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  maxRedirects: number;
  dispatcher: Dispatcher | undefined;
}

const CLIENT_KEYS = [
  ...CONTROLLED_KEYS,
  'connections',
  'connectTimeoutMs',
  'headersTimeoutMs',
  'bodyTimeoutMs',
  'maxRedirects',
  'dispatcher',
] as const;

/** Validates {@link ClientOptions}; errors name the option, the value and what was expected. */
export function readClientOptions(options: ClientOptions): ClientSettings {
  const owner = 'createClient';
  if (typeof options !== 'object' || options === null) {
    throw InvalidOptionError.invalid(owner, 'options', options, 'an object');
  }
  rejectUnknownOptions(owner, options, CLIENT_KEYS);
  const settings = readControlledOptions(owner, options);
  const max = options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY;
  const ms = (name: keyof ClientOptions, fallback: number) =>
    numberOption(owner, name, options[name], fallback, { min: 1, infinite: true });
  const dispatcher = options.dispatcher;
  if (dispatcher !== undefined) {
    if (typeof dispatcher?.dispatch !== 'function') {
      throw InvalidOptionError.invalid(owner, 'dispatcher', dispatcher, 'an undici Dispatcher');
    }
    for (const name of ['connections', 'connectTimeoutMs'] as const) {
      if (options[name] !== undefined) {
        throw InvalidOptionError.invalid(
          owner,
          name,
          options[name],
          'left unset when `dispatcher` is given',
        );
      }
    }
  }
  return {
    ...settings,
    connections: numberOption(owner, 'connections', options.connections, max, {
      min: max,
      integer: true,
    }),
    connectTimeoutMs: ms('connectTimeoutMs', 10_000),
    headersTimeoutMs: ms('headersTimeoutMs', 30_000),
    bodyTimeoutMs: ms('bodyTimeoutMs', 30_000),
    maxRedirects: numberOption(owner, 'maxRedirects', options.maxRedirects, 20, {
      min: 0,
      integer: true,
    }),
    dispatcher,
  };
}
