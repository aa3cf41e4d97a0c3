import type { Dispatcher } from 'undici';
import { DEFAULT_MAX_CONCURRENCY } from '../controller/defaults.js';
import { InvalidOptionError } from '../errors.js';
import { check, hasMethods, number } from '../option-rules.js';
import { defineOptions, type EarlierSettings, type OptionRule } from '../option-spec.js';
import {
  type ControlledSettings,
  controlledSettings,
  INTERCEPTOR_RULES,
  type InterceptorOptions,
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

/** `connections` and `connectTimeoutMs` configure the client's own agent: unset with a `dispatcher`. */
function ownAgent<T>(rule: OptionRule<T>): OptionRule<T> {
  return {
    read(value, owner, name, earlier) {
      if (value !== undefined && earlier.dispatcher !== undefined) {
        throw InvalidOptionError.invalid(
          owner,
          name,
          value,
          'left unset when `dispatcher` is given',
        );
      }
      return rule.read(value, owner, name, earlier);
    },
  };
}

/** The `maxConcurrency` given (checked later by `controlSetup`), or its default. */
function concurrencyOf(earlier: EarlierSettings): number {
  const max = earlier.maxConcurrency;
  return typeof max === 'number' ? max : DEFAULT_MAX_CONCURRENCY;
}

const MS = { min: 1, infinite: true };

const readOptions = defineOptions<ClientOptions>()('createClient', {
  ...INTERCEPTOR_RULES,
  dispatcher: check('an undici Dispatcher', hasMethods<Dispatcher>('dispatch')),
  connections: ownAgent(
    number(
      (earlier) => concurrencyOf(earlier),
      (earlier) => ({ min: concurrencyOf(earlier), integer: true }),
    ),
  ),
  connectTimeoutMs: ownAgent(number(10_000, MS)),
  headersTimeoutMs: number(30_000, MS),
  bodyTimeoutMs: number(30_000, MS),
  maxRedirects: number(20, { min: 0, integer: true }),
});

/** Validates {@link ClientOptions}; errors name the option, the value and what was expected. */
export function readClientOptions(options: ClientOptions): ClientSettings {
  const read = readOptions(options);
  return {
    ...controlledSettings(readOptions.owner, read),
    connections: read.connections,
    connectTimeoutMs: read.connectTimeoutMs,
    headersTimeoutMs: read.headersTimeoutMs,
    bodyTimeoutMs: read.bodyTimeoutMs,
    maxRedirects: read.maxRedirects,
    dispatcher: read.dispatcher,
  };
}
