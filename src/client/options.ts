import type { Dispatcher } from 'undici';
import { type ClassifySettings, readClassifyOptions } from '../classify/options.js';
import type { ClassifyOptions } from '../classify.js';
import { type Clock, systemClock } from '../clock.js';
import {
  CONTROL_OPTION_KEYS,
  type ControlOptions,
  controlSetup,
  DEFAULT_MAX_CONCURRENCY,
} from '../controller/defaults.js';
import { ScopeRegistry } from '../controller/registry.js';
import { byHost, type ScopeResolver } from '../controller/resolvers.js';
import { InvalidOptionError } from '../errors.js';
import type { EventSink } from '../events/event.js';
import { numberOption, rejectUnknownOptions } from '../options.js';
import { type Random, systemRandom } from '../random.js';
import type { Fleet } from '../store/fleet.js';
import type { StateStore } from '../store/store.js';
import { Deadlines } from './deadlines.js';
import { type RetryOptions, type RetryPolicy, retryPolicy } from './retry-policy.js';
import { steadyClock } from './steady-clock.js';

/** Options shared by {@link createClient} and {@link ratewiseInterceptor}. */
export interface ControlledOptions extends ControlOptions {
  /**
   * Maps each request to the rate-limit scopes that must admit it
   * (`byHost`, `byDomain`, `byContext('session')`, `allOf(…)`).
   * @default byHost
   */
  scope?: ScopeResolver;
  /** Retry settings. @default {} (6 attempts, full jitter, Retry-After capped at 120 s) */
  retry?: RetryOptions;
  /** Receives every controller decision (`jsonlSink('events.jsonl')`, a recorder…). */
  events?: EventSink;
  /**
   * Where an evicted scope's state is kept, e.g. shared by a fleet of workers.
   * @default new MemoryStore() (at most 10,000 scopes, none unused for an hour)
   */
  store?: StateStore;
  /**
   * Share every scope with other processes: `redisFleet({ url })` from
   * `ratewise/redis`. Excludes `store` (the fleet keeps the learned state).
   */
  fleet?: Fleet;
  /**
   * A scope with nothing in flight or waiting for this long is evicted, ms
   * (its state saved to `store` first). Lower it when a run touches very many
   * hosts once each: live scopes cost about 1 KB apiece until evicted.
   * @default 600000
   */
  idleMs?: number;
  /** How responses are classified: your own `isBlocked` test, block-page markers. @default {} */
  classify?: Omit<ClassifyOptions, 'now'>;
  /**
   * Time source. A reading that goes backward (a wall clock set back) is
   * absorbed: time carries on from the latest reading, so nothing stalls.
   * @default systemClock
   */
  clock?: Clock;
  /** Randomness for backoff and breaker jitter. @default systemRandom */
  random?: Random;
  /**
   * Longest one attempt may take, from sending the request to receiving the
   * last body byte; it then fails as a `timeout` (and may be retried). Not
   * counted: the wait for admission and for a retry, and the time the download
   * is paused because you have not read the body yet (past 64 KiB it waits for
   * you), so a slow reader is never taken for a slow server. For a deadline
   * over everything, pass `signal: AbortSignal.timeout(ms)`.
   * @default 120000
   */
  timeoutMs?: number;
  /**
   * Largest response body accepted, bytes; a larger one fails with a
   * `ResponseTooLargeError` (at once when `Content-Length` says so).
   * @default 67108864 (64 MiB)
   */
  maxBodyBytes?: number;
}

/** Options of {@link createClient}. */
export interface ClientOptions extends ControlledOptions {
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

/** The validated form of {@link ControlledOptions}. */
export interface ControlledSettings {
  registry: ScopeRegistry;
  resolve: ScopeResolver;
  retry: RetryPolicy;
  /** Checked once; each response adds its own `now`. */
  classify: ClassifySettings;
  clock: Clock;
  /** The attempts' timeouts, on one timer. */
  deadlines: Deadlines;
  random: Random;
  timeoutMs: number;
  maxBodyBytes: number;
  /** Longest pause one response may ask for (capped before any controller, a fleet's included, sees it). */
  maxPauseMs: number;
}

/** Every {@link ControlledOptions} key. */
export const CONTROLLED_KEYS = [
  ...CONTROL_OPTION_KEYS,
  'scope',
  'retry',
  'events',
  'store',
  'fleet',
  'idleMs',
  'classify',
  'clock',
  'random',
  'timeoutMs',
  'maxBodyBytes',
] as const;

/** `maxConcurrency`'s default, as the controller applies it: most requests in flight per scope. */

/** Validates {@link ControlledOptions} (after the caller rejected unknown keys) and builds the registry. */
export function readControlledOptions(
  owner: string,
  options: ControlledOptions,
): ControlledSettings {
  const control: ControlOptions = {};
  for (const key of CONTROL_OPTION_KEYS) {
    if (options[key] !== undefined) Object.assign(control, { [key]: options[key] });
  }
  const setup = controlSetup(control);
  requireFunction(owner, 'scope', options.scope, 'a scope resolver such as byHost');
  requireFunction(owner, 'events', options.events, 'an event sink function');
  requireMethods(owner, 'clock', options.clock, ['now', 'wallNow', 'setTimer', 'sleep'], 'a Clock');
  requireMethods(owner, 'random', options.random, ['next'], 'a Random such as seededRandom(1)');
  requireMethods(owner, 'store', options.store, ['load', 'save'], 'a StateStore');
  requireMethods(
    owner,
    'fleet',
    options.fleet,
    ['registry'],
    'a Fleet such as redisFleet({ url })',
  );
  requireMethods(owner, 'retry', options.retry, [], 'an object of retry options');
  requireMethods(owner, 'classify', options.classify, [], 'an object of classify options');
  const clock = steadyClock(options.clock ?? systemClock);
  const random = options.random ?? systemRandom;
  const classifyOptions = options.classify ?? {};
  if ('now' in classifyOptions)
    throw InvalidOptionError.unknown(`${owner}.classify`, 'now', ['isBlocked', 'blockMarkers']);
  const classify = readClassifyOptions(classifyOptions);
  const retry = retryPolicy(options.retry);
  const registryOptions = {
    setup,
    clock,
    random,
    ...(options.events ? { events: options.events } : {}),
    ...(options.store ? { store: options.store } : {}),
    idleMs: numberOption(owner, 'idleMs', options.idleMs, 600_000, { min: 0, infinite: true }),
    // A request waits out a known pause only as long as it would wait for a Retry-After.
    maxPauseWaitMs: retry.maxRetryAfterMs,
  };
  const registry = options.fleet
    ? options.fleet.registry(registryOptions)
    : new ScopeRegistry(registryOptions);
  return {
    registry,
    resolve: options.scope ?? byHost,
    retry,
    classify,
    clock,
    deadlines: new Deadlines(clock),
    random,
    timeoutMs: numberOption(owner, 'timeoutMs', options.timeoutMs, 120_000, {
      min: 1,
      infinite: true,
    }),
    maxPauseMs: numberOption(owner, 'maxPauseMs', options.maxPauseMs, 300_000, {
      min: 0,
      infinite: true,
    }),
    maxBodyBytes: numberOption(owner, 'maxBodyBytes', options.maxBodyBytes, 67_108_864, {
      min: 0,
      infinite: true,
    }),
  };
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

function requireFunction(owner: string, name: string, value: unknown, expected: string): void {
  if (value !== undefined && typeof value !== 'function') {
    throw InvalidOptionError.invalid(owner, name, value, expected);
  }
}

/** Checks that an optional object option is an object with these methods. */
function requireMethods(
  owner: string,
  name: string,
  value: unknown,
  methods: readonly string[],
  expected: string,
): void {
  if (value === undefined) return;
  const object = value as Record<string, unknown> | null;
  if (
    typeof object !== 'object' ||
    object === null ||
    methods.some((method) => typeof object[method] !== 'function')
  ) {
    throw InvalidOptionError.invalid(owner, name, value, expected);
  }
}
