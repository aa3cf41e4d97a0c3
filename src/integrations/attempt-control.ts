import type { Backoff } from '../backoff/backoff.js';
import type { ClassifySettings } from '../classify/options.js';
import { controlledCore, INTERCEPTOR_RULES, type InterceptorOptions } from '../client/options.js';
import { isRateSignal } from '../client/retry-policy.js';
import type { Clock } from '../clock.js';
import type { ScopeRegistry } from '../controller/registry.js';
import type { ScopeResolver } from '../controller/resolvers.js';
import type { WaitOptions } from '../enforce/wait-queue.js';
import { check, hasMethods, number } from '../option-rules.js';
import { defineOptions, type OptionRule } from '../option-spec.js';
import type { Random } from '../random.js';
import type { Signal } from '../signal.js';
import { ControlledAttempt } from './controlled-attempt.js';

/** Options every integration takes: ratewise's control, minus what the library itself does. */
export interface IntegrationOptions
  extends Omit<InterceptorOptions, 'retry' | 'timeoutMs' | 'maxBodyBytes'> {
  /**
   * The delay before retrying a failure that is not a rate signal (a 500, a
   * reset, a timeout). Rate signals (429, 503) get no delay of their own:
   * the next attempt waits for admission, which honours Retry-After for the
   * whole scope. The library still decides whether to retry.
   * @default fullJitter({ baseMs: 500, capMs: 30000 })
   */
  backoff?: Backoff;
  /**
   * Longest wait for admission per attempt, ms; the attempt then fails with
   * an `AdmissionTimeoutError` (code `ERR_RATEWISE_TIMEOUT`), which a library
   * may retry. Keeps a paused scope from holding a caller past its own deadline.
   * @default Infinity
   */
  maxAdmissionWaitMs?: number;
}

const { retry, timeoutMs, maxBodyBytes, ...CONTROLLED_RULES } = INTERCEPTOR_RULES;

/** The rules of {@link IntegrationOptions}. */
const INTEGRATION_RULES = {
  ...CONTROLLED_RULES,
  backoff: check('a Backoff such as fullJitter()', hasMethods<Backoff>('delayMs')),
  maxAdmissionWaitMs: number(Infinity, { min: 0, infinite: true }),
};

/** Where an attempt goes, and what may end its wait for admission. */
export interface AttemptTarget {
  /** The URL of this attempt (of this redirect hop). */
  url: string | URL;
  /** Context for scope resolvers (`byContext('session')`). */
  context?: Readonly<Record<string, string | undefined>>;
  /** Aborting it ends the wait for admission with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Longest wait for admission, ms (capped by `maxAdmissionWaitMs`). */
  timeoutMs?: number;
}

/**
 * The core every integration is built on: admits each attempt under its
 * scopes (retries and redirect hops included) through the same
 * {@link ScopeRegistry} as `createClient`, reports each outcome once through
 * a {@link ControlledAttempt}, and tells the library when to retry.
 */
export class AttemptControl {
  /** The per-scope controllers. */
  readonly registry: ScopeRegistry;
  readonly #resolve: ScopeResolver;
  readonly #classify: ClassifySettings;
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #backoff: Backoff;
  readonly #maxWaitMs: number;

  /**
   * Validates `options` (errors name `owner`, the option and the value) and
   * builds the registry; `ownRules` check the options the integration adds.
   */
  constructor(
    owner: string,
    options: IntegrationOptions = {},
    ownRules: Readonly<Record<string, OptionRule<unknown>>> = {},
  ) {
    const read = defineOptions<IntegrationOptions>()(owner, { ...INTEGRATION_RULES, ...ownRules })(
      options,
    );
    const core = controlledCore(owner, {
      ...read,
      retry: read.backoff === undefined ? undefined : { backoff: read.backoff },
    });
    this.registry = core.registry;
    this.#resolve = core.resolve;
    this.#classify = core.classify;
    this.#clock = core.clock;
    this.#random = core.random;
    this.#backoff = core.retry.backoff;
    this.#maxWaitMs = read.maxAdmissionWaitMs;
  }

  /** The time source, for integrations that measure phases. */
  get clock(): Clock {
    return this.#clock;
  }

  /** Requests admitted and not yet reported, over every scope. */
  get inflight(): number {
    let total = 0;
    for (const controller of this.registry.controllers()) total += controller.inflight;
    return total;
  }

  /** The scope keys that must admit a request to `url` with `context`. */
  scopesOf(
    url: string | URL,
    context?: Readonly<Record<string, string | undefined>>,
  ): string | readonly string[] {
    const parsed = typeof url === 'string' ? new URL(url) : url;
    return this.#resolve(context ? { url: parsed, context } : { url: parsed });
  }

  /** Waits until every scope of `target` admits one attempt. */
  async admit(target: AttemptTarget): Promise<ControlledAttempt> {
    const wait: WaitOptions = {};
    if (target.signal) wait.signal = target.signal;
    const timeoutMs = Math.min(target.timeoutMs ?? Infinity, this.#maxWaitMs);
    if (timeoutMs !== Infinity) wait.timeoutMs = timeoutMs;
    const permit = await this.registry.admit(this.scopesOf(target.url, target.context), wait);
    return new ControlledAttempt(permit, this.#classify, this.#clock);
  }

  /**
   * How long a library should wait before retry number `retryCount` (1 for
   * the first retry) of an attempt that ended with `signal`: 0 for a rate
   * signal, whose pacing and Retry-After the next admission enforces; the
   * backoff otherwise, and never less than a Retry-After the server sent.
   */
  retryDelayMs(signal: Signal | undefined, retryCount: number): number {
    if (signal !== undefined && isRateSignal(signal)) return 0;
    const backoff = this.#backoff.delayMs(Math.max(0, retryCount - 1), this.#random);
    return Math.max(backoff, signal?.retryAfterMs ?? 0);
  }

  /** Stops the controllers' timers; callers still waiting for admission reject. */
  close(): Promise<void> {
    return this.registry.close();
  }
}
