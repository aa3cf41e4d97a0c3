import { type ClassifySettings, readClassifyOptions } from '../classify/options.js';
import type { ClassifyOptions } from '../classify.js';
import { type Clock, systemClock } from '../clock.js';
import { CONTROL_OPTION_KEYS, type ControlOptions, controlSetup } from '../controller/defaults.js';
import { DEFAULT_MAX_PAUSE_MS } from '../controller/pause-cap.js';
import { ScopeRegistry } from '../controller/registry.js';
import { byHost, type ScopeResolver } from '../controller/resolvers.js';
import { InvalidOptionError } from '../errors.js';
import type { EventSink } from '../events/event.js';
import { check, func, hasMethods, number, passedOn } from '../option-rules.js';
import { definedOnly, defineOptions, type OptionSpec, type SettingsOf } from '../option-spec.js';
import { type Random, systemRandom } from '../random.js';
import type { Fleet } from '../store/fleet.js';
import type { StateStore } from '../store/store.js';
import { Deadlines } from './deadlines.js';
import { type RetryOptions, type RetryPolicy, retryPolicy } from './retry-policy.js';
import { steadyClock } from './steady-clock.js';

export type { ClientOptions } from './client-options.js';

/**
 * Options of {@link ratewiseInterceptor}; {@link createClient} takes them too
 * (its `ClientOptions` add the connection settings).
 */
export interface InterceptorOptions extends ControlOptions {
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

/** The validated form of {@link InterceptorOptions}. */
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

const isObject = (value: unknown): value is object => typeof value === 'object' && value !== null;

/**
 * The rules of {@link InterceptorOptions}, for the readers of the entry points
 * that take them: `ratewiseInterceptor`, `createClient` and the integrations.
 * The `ControlOptions` are passed on to {@link controlSetup}, which checks them.
 */
export const INTERCEPTOR_RULES = {
  ...passedOn<ControlOptions>(CONTROL_OPTION_KEYS),
  scope: func<ScopeResolver>(byHost, 'a scope resolver such as byHost'),
  retry: check('an object of retry options', isObject as (value: unknown) => value is RetryOptions),
  events: func<EventSink>(undefined, 'an event sink function'),
  store: check('a StateStore', hasMethods<StateStore>('load', 'save')),
  fleet: check('a Fleet such as redisFleet({ url })', hasMethods<Fleet>('registry')),
  idleMs: number(600_000, { min: 0, infinite: true }),
  classify: check(
    'an object of classify options',
    isObject as (value: unknown) => value is Omit<ClassifyOptions, 'now'>,
    {},
  ),
  clock: check('a Clock', hasMethods<Clock>('now', 'wallNow', 'setTimer', 'sleep'), systemClock),
  random: check('a Random such as seededRandom(1)', hasMethods<Random>('next'), systemRandom),
  timeoutMs: number(120_000, { min: 1, infinite: true }),
  maxBodyBytes: number(67_108_864, { min: 0, infinite: true }),
} satisfies OptionSpec<InterceptorOptions>;

/** {@link InterceptorOptions} as its rules read them, before the registry is built. */
export type InterceptorReading = SettingsOf<typeof INTERCEPTOR_RULES>;

/** Reads {@link InterceptorOptions}; errors name the entry point given as `as`. */
export const readInterceptorOptions = defineOptions<InterceptorOptions>()(
  'ratewiseInterceptor',
  INTERCEPTOR_RULES,
);

/** What every controlled entry point builds from its options: the registry and its companions. */
export type ControlledCore = Omit<ControlledSettings, 'deadlines' | 'timeoutMs' | 'maxBodyBytes'>;

/**
 * Builds the registry and the settings around it from options `owner` has
 * read: the `ControlOptions` through {@link controlSetup}, `retry` and
 * `classify` through their own readers.
 */
export function controlledCore(
  owner: string,
  read: Omit<InterceptorReading, 'timeoutMs' | 'maxBodyBytes'>,
): ControlledCore {
  const setup = controlSetup(
    definedOnly(Object.fromEntries(CONTROL_OPTION_KEYS.map((key) => [key, read[key]]))),
  );
  if ('now' in read.classify)
    throw InvalidOptionError.unknown(`${owner}.classify`, 'now', ['isBlocked', 'blockMarkers']);
  const clock = steadyClock(read.clock);
  const retry = retryPolicy(read.retry);
  const registryOptions = {
    setup,
    clock,
    random: read.random,
    ...(read.events ? { events: read.events } : {}),
    ...(read.store ? { store: read.store } : {}),
    idleMs: read.idleMs,
    // A request waits out a known pause only as long as it would wait for a Retry-After.
    maxPauseWaitMs: retry.maxRetryAfterMs,
  };
  return {
    registry: read.fleet
      ? read.fleet.registry(registryOptions)
      : new ScopeRegistry(registryOptions),
    resolve: read.scope,
    retry,
    classify: readClassifyOptions(read.classify),
    clock,
    random: read.random,
    maxPauseMs: read.maxPauseMs ?? DEFAULT_MAX_PAUSE_MS,
  };
}

/** Validates {@link InterceptorOptions} and builds the registry; errors name `owner`. */
export function readControlledOptions(
  owner: string,
  options: InterceptorOptions,
): ControlledSettings {
  return controlledSettings(owner, readInterceptorOptions(options, owner));
}

/** {@link controlledCore} with the attempts' timeouts. */
export function controlledSettings(owner: string, read: InterceptorReading): ControlledSettings {
  const core = controlledCore(owner, read);
  return {
    ...core,
    deadlines: new Deadlines(core.clock),
    timeoutMs: read.timeoutMs,
    maxBodyBytes: read.maxBodyBytes,
  };
}
