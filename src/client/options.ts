import { type ClassifySettings, readClassifyOptions } from '../classify/options.js';
import type { ClassifyOptions } from '../classify.js';
import { type Clock, systemClock } from '../clock.js';
import { CONTROL_OPTION_KEYS, type ControlOptions, controlSetup } from '../controller/defaults.js';
import { ScopeRegistry } from '../controller/registry.js';
import { byHost, type ScopeResolver } from '../controller/resolvers.js';
import { InvalidOptionError } from '../errors.js';
import type { EventSink } from '../events/event.js';
import { numberOption } from '../options.js';
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

/** Every {@link InterceptorOptions} key. */
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

/** Validates {@link InterceptorOptions} (after the caller rejected unknown keys) and builds the registry. */
export function readControlledOptions(
  owner: string,
  options: InterceptorOptions,
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
