import { AdaptiveRate } from '../algorithms/adaptive-rate.js';
import type { AdaptiveRateOptions } from '../algorithms/adaptive-rate-options.js';
import { AimdLimit } from '../algorithms/aimd.js';
import type { AimdOptions } from '../algorithms/aimd-options.js';
import type { BreakerOptions } from '../algorithms/breaker-policy.js';
import { InvalidOptionError } from '../errors.js';
import { func, given, number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { DEFAULT_MAX_CONCURRENCY, MAX_REFUSED_SHARE } from './control-bounds.js';
import { guardSettings, type LatencyGuardOptions } from './latency-guard.js';
import type { ScopeFactory, ScopeSetup } from './registry.js';
import type { RetryBudgetOptions } from './retry-budget.js';

/** The knobs most users turn, plus full access to each algorithm's options. */
export interface ControlOptions {
  /**
   * Builds each scope's algorithms instead of the defaults: called once per
   * new scope with its name, it returns fresh algorithms — the scope's `limit`
   * and `rate` (resumed from the store through their `restore`, when they
   * have one) — and, optionally, the rest of a
   * {@link ScopeSetup}. `breaker`, `retryBudget`, `latencyGuard` and
   * `maxPauseMs` given beside it apply where the factory sets none;
   * `maxConcurrency`, `initialConcurrency`, `rate`, `aimd` and
   * `adaptiveRate` configure the default algorithms and are rejected with it.
   *
   * ```ts
   * createClient({ control: () => ({ limit: new GradientLimit(), rate: new AdaptiveRate() }) });
   * ```
   * @default AIMD on concurrency with an adaptive rate ({@link controlSetup})
   */
  control?: ScopeFactory;
  /**
   * Most requests in flight per scope: a politeness and socket budget.
   * @default 32
   */
  maxConcurrency?: number;
  /**
   * Requests in flight per scope to start with; slow start doubles it each
   * round trip until the first sign of throttling.
   * @default 4
   */
  initialConcurrency?: number;
  /**
   * The rate the server documents, in requests/s (60 per minute → 1). Never exceeded.
   * @default Infinity (none: the rate is learned)
   */
  rate?: number;
  /**
   * The share of requests that probing may spend on refusals: how often the
   * scope looks for capacity above what the server has granted — the
   * concurrency's probes and the rate's alike. Larger finds a capacity that
   * rose sooner and is refused more; smaller is politer and slower to follow
   * a rise; 0 never probes (the first ceilings found stay). What the server
   * refuses for other reasons (a capacity that fell, an unseen consumer) comes
   * on top.
   * @default 0.01
   */
  refusedShare?: number;
  /** Further AIMD options (`maxConcurrency`, `initialConcurrency` and `refusedShare` win). */
  aimd?: AimdOptions;
  /** Further adaptive-rate options (`rate` and `refusedShare` win). */
  adaptiveRate?: AdaptiveRateOptions;
  /** Breaker options, or `false` for none. @default {} */
  breaker?: BreakerOptions | false;
  /** Retry allowance per scope. @default {} */
  retryBudget?: RetryBudgetOptions;
  /** Soft-throttling detection per scope, or `false` for none. @default {} */
  latencyGuard?: LatencyGuardOptions | false;
  /**
   * Longest one response may pause its scope, ms: a longer Retry-After (or a
   * spent quota's reset further away) is read as this; then one request asks
   * again. A server that means a longer pause says so again, at the cost of
   * one request per `maxPauseMs`.
   * @default 300000 (5 minutes)
   */
  maxPauseMs?: number;
}

export { DEFAULT_MAX_CONCURRENCY, MAX_REFUSED_SHARE } from './control-bounds.js';

const readOptions = defineOptions<ControlOptions>()('control', {
  control: func(undefined, 'a function (scope) => ({ limit, rate, … })'),
  maxConcurrency: number(DEFAULT_MAX_CONCURRENCY, { min: 1, integer: true }),
  initialConcurrency: number(
    (earlier) => Math.min(4, earlier.maxConcurrency as number),
    (earlier) => ({ min: 1, max: earlier.maxConcurrency as number, integer: true }),
  ),
  rate: number(Infinity, { above: 0, infinite: true }),
  refusedShare: number(undefined, { min: 0, max: MAX_REFUSED_SHARE }),
  aimd: given(),
  adaptiveRate: given(),
  breaker: given(),
  retryBudget: given(),
  latencyGuard: given(),
  maxPauseMs: number(undefined, { min: 0, infinite: true }),
});

/** Every {@link ControlOptions} key. */
export const CONTROL_OPTION_KEYS = readOptions.keys;

/**
 * The ratewise default for every scope: AIMD on concurrency (slow start, +1
 * per round trip, one cut per congestion event) together with an adaptive
 * rate that learns the server's ceiling from its first rejections and obeys
 * its hints, behind a breaker with half-open probing.
 */
export function controlSetup(options: ControlOptions = {}): ScopeFactory {
  if (options.control !== undefined) return chosenControl(options.control, options);
  const settings = readOptions(options);
  const { maxConcurrency: max, initialConcurrency: initial, rate: documentedRate } = settings;
  const budget = settings.refusedShare === undefined ? {} : { refusedShare: settings.refusedShare };
  const aimd: AimdOptions = { ...options.aimd, max, initialLimit: initial, ...budget };
  const adaptiveRate: AdaptiveRateOptions = { ...options.adaptiveRate, ...budget };
  if (documentedRate !== Infinity) adaptiveRate.documentedRate = documentedRate;
  // Build once so bad options fail here, not on the first request.
  if (options.latencyGuard) guardSettings(options.latencyGuard);
  new AimdLimit(aimd);
  new AdaptiveRate(adaptiveRate);
  const rest = scopeSettings(options, settings.maxPauseMs);
  return () => ({ limit: new AimdLimit(aimd), rate: new AdaptiveRate(adaptiveRate), ...rest });
}

/** The options that configure the default algorithms, which a `control` factory replaces. */
const DEFAULT_ALGORITHM_KEYS = [
  'maxConcurrency',
  'initialConcurrency',
  'rate',
  'refusedShare',
  'aimd',
  'adaptiveRate',
] as const;

/** The user's factory, with the scope-wide options beside it as defaults for what it leaves out. */
function chosenControl(control: ScopeFactory, options: ControlOptions): ScopeFactory {
  for (const key of DEFAULT_ALGORITHM_KEYS) {
    if (options[key] !== undefined) {
      throw new InvalidOptionError(
        key,
        `control: option \`${key}\` configures the default algorithms, which \`control\` replaces: set it on the algorithms your factory builds (e.g. new AimdLimit({ max }), new AdaptiveRate({ documentedRate }))`,
      );
    }
  }
  const { maxPauseMs } = readOptions(options);
  if (options.latencyGuard) guardSettings(options.latencyGuard);
  const rest = scopeSettings(options, maxPauseMs);
  return (scope) => ({ ...rest, ...control(scope) });
}

/** The scope settings beside the algorithms, only those given. */
function scopeSettings(
  options: ControlOptions,
  maxPauseMs: number | undefined,
): Omit<ScopeSetup, 'limit' | 'rate'> {
  return {
    ...(options.breaker === undefined ? {} : { breaker: options.breaker }),
    ...(options.retryBudget === undefined ? {} : { retryBudget: options.retryBudget }),
    ...(options.latencyGuard === undefined ? {} : { latencyGuard: options.latencyGuard }),
    ...(maxPauseMs === undefined ? {} : { maxPauseMs }),
  };
}
