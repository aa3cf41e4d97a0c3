import type { BreakerState } from '../events/event.js';
import { number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { sharedSettings } from '../options.js';
import type { Random } from '../random.js';
import type { Reaction } from '../signal.js';
import { type BreakerSnapshot, isSnapshot } from './breaker-snapshot.js';
import { NEVER } from './congestion.js';

export type { BreakerSnapshot } from './breaker-snapshot.js';

/** Options for {@link BreakerPolicy}. */
export interface BreakerOptions {
  /**
   * Failures (strikes: timeouts, resets, refused connections, a surge of 5xx;
   * a refusal such as a 429 is none) in a row, with no success in between, that open
   * the breaker. A burst of failures from requests that were all in flight
   * together is one strike, so a single overshoot never trips it.
   * @default 5
   */
  threshold?: number;
  /**
   * How long the breaker stays open the first time, ms (longer if Retry-After says so).
   * @default 15000
   */
  cooldownMs?: number;
  /**
   * Each failed half-open probe multiplies the cooldown by this factor.
   * @default 2
   */
  backoffFactor?: number;
  /**
   * Upper bound on the cooldown, ms — a longer Retry-After included.
   * @default 300000
   */
  maxCooldownMs?: number;
  /**
   * Spread of the open time around the cooldown, as a fraction of it: the
   * breaker stays open for cooldown × (1 ± jitter/2), drawn at random, so a
   * fleet's probes spread out and never fall in step with a server that flaps
   * on a period (every probe in its down spell). Never beyond `maxCooldownMs`,
   * nor sooner than a Retry-After asked for. A Retry-After is not spread: the
   * server chose that time, so a pause it named ends when it said.
   * @default 1
   */
  jitter?: number;
  /**
   * A Retry-After at least this long opens the breaker by itself: after a long
   * pause one probe tests the water before everyone resumes.
   * @default 5000
   */
  openOnRetryAfterMs?: number;
}

const OWNER = 'BreakerPolicy';
const readOptions = defineOptions<BreakerOptions>()(OWNER, {
  threshold: number(5, { min: 1, integer: true }),
  cooldownMs: number(15_000, { min: 0 }),
  backoffFactor: number(2, { min: 1 }),
  maxCooldownMs: number(300_000, (earlier) => ({ min: earlier.cooldownMs as number })),
  jitter: number(1, { min: 0, max: 2 }),
  openOnRetryAfterMs: number(5000, { min: 0, infinite: true }),
});

/** {@link BreakerOptions} validated, every default applied. */
type BreakerSettings = Readonly<Required<BreakerOptions>>;

/** Validates breaker options (once per options object), naming the option on error. */
export const breakerSettings = sharedSettings(
  (options: BreakerOptions): BreakerSettings => Object.freeze(readOptions(options)),
);

/** The default options: one object, so every default breaker shares one settings record. */
const NO_OPTIONS: BreakerOptions = Object.freeze({});

/** An outcome reported to the breaker. */
export interface BreakerOutcome {
  /** When the request was sent (monotonic ms). */
  sentAt: number;
  /** When its outcome arrived (monotonic ms). */
  at: number;
  /** The signal's breaker reaction. */
  effect: Reaction['breaker'];
  /** Whether this request was the half-open probe. */
  probe: boolean;
  /** The server's Retry-After, ms (0 when it sent none). */
  retryAfterMs: number;
}

/**
 * The breaker's decisions as a pure state machine: outcomes and times in,
 * state out. It opens after `threshold` strikes (failures: a refusal is
 * none) with no success between, for max(cooldown spread by jitter,
 * Retry-After), or on a long Retry-After, for the Retry-After (never spread:
 * the server named it); at most `maxCooldownMs` either way. Then it is
 * half-open: one probe decides — success closes it, failure reopens it with a
 * longer cooldown, a refusal reopens it for its long Retry-After or else closes
 * it (the server is up: the rate's pauses take over). Parking callers is {@link BreakerGate}'s job.
 */
export class BreakerPolicy {
  readonly #settings: BreakerSettings;
  readonly #random: Random;
  #s: BreakerSnapshot;

  constructor(random: Random, options: BreakerOptions = NO_OPTIONS, initial?: BreakerSnapshot) {
    this.#settings = breakerSettings(options);
    this.#random = random;
    this.#s =
      initial && isSnapshot(initial)
        ? { ...initial }
        : {
            state: 'closed',
            strikes: 0,
            lastStrikeAt: NEVER,
            openedAt: NEVER,
            openUntil: 0,
            cooldownMs: this.#settings.cooldownMs,
          };
  }

  /** Whether the breaker is closed, whatever the time (a cheap check for the hot path). */
  get closed(): boolean {
    return this.#s.state === 'closed';
  }

  /** The state at time `at`: an open breaker whose time is up is half-open. */
  stateAt(at: number): BreakerState {
    if (this.#s.state === 'open' && at >= this.#s.openUntil) return 'half-open';
    return this.#s.state;
  }

  /** When the current open period ends (monotonic ms). */
  get openUntil(): number {
    return this.#s.openUntil;
  }

  /** Feeds one outcome; returns the new state if it changed. */
  onOutcome(outcome: BreakerOutcome): BreakerState | undefined {
    const before = this.stateAt(outcome.at);
    if (outcome.probe) this.#onProbe(outcome);
    else if (before === 'closed' || outcome.sentAt >= this.#s.openedAt) this.#onRegular(outcome);
    const after = this.stateAt(outcome.at);
    return after === before ? undefined : after;
  }

  /** Plain serialisable state, for a shared store. */
  toJSON(): BreakerSnapshot {
    return { ...this.#s };
  }

  #onProbe(outcome: BreakerOutcome): void {
    if (outcome.effect === 'success') this.#close();
    else if (outcome.effect === 'refusal') {
      if (this.#longPause(outcome)) this.#open(outcome.at, outcome.retryAfterMs, true);
      else this.#close();
    } else if (outcome.effect === 'failure') {
      this.#s.cooldownMs = Math.min(
        this.#settings.maxCooldownMs,
        this.#s.cooldownMs * this.#settings.backoffFactor,
      );
      this.#open(outcome.at, outcome.retryAfterMs);
    }
  }

  #onRegular(outcome: BreakerOutcome): void {
    if (outcome.effect === 'success') {
      this.#s.strikes = 0;
      return;
    }
    if (outcome.effect === 'none') return;
    const strike = outcome.effect === 'failure';
    if (strike && outcome.sentAt > this.#s.lastStrikeAt) {
      this.#s.strikes++;
      this.#s.lastStrikeAt = outcome.at;
    }
    if (this.#s.state !== 'closed') return;
    if (strike && this.#s.strikes >= this.#settings.threshold) {
      this.#open(outcome.at, outcome.retryAfterMs);
    }
    // The server asked for a long pause: open for that long (the pause is its
    // word, not a sign of failure), so that one probe goes first after it.
    else if (this.#longPause(outcome)) this.#open(outcome.at, outcome.retryAfterMs, true);
  }

  /** Whether the outcome's Retry-After is long enough to open the breaker by itself. */
  #longPause(outcome: BreakerOutcome): boolean {
    return outcome.retryAfterMs > 0 && outcome.retryAfterMs >= this.#settings.openOnRetryAfterMs;
  }

  /**
   * Opens for max(jittered cooldown, Retry-After) — or for the Retry-After alone
   * when `pauseOnly`. Only the breaker's own cooldown is jittered: a pause the
   * server named ends when the server said, never later.
   */
  #open(at: number, retryAfterMs = 0, pauseOnly = false): void {
    const { maxCooldownMs } = this.#settings;
    // A Retry-After longer than the longest cooldown does not keep the breaker open longer.
    const asked = Math.min(retryAfterMs, maxCooldownMs);
    const cooled = pauseOnly ? 0 : this.#jittered(this.#s.cooldownMs);
    this.#s.state = 'open';
    this.#s.openedAt = at;
    this.#s.openUntil = at + Math.min(Math.max(cooled, asked), maxCooldownMs);
    this.#s.strikes = 0;
  }

  /** The cooldown spread by jitter: cooldown × (1 ± jitter/2), drawn at random. */
  #jittered(cooldownMs: number): number {
    return cooldownMs * (1 + this.#settings.jitter * (this.#random.next() - 0.5));
  }

  #close(): void {
    this.#s.state = 'closed';
    this.#s.strikes = 0;
    this.#s.cooldownMs = this.#settings.cooldownMs;
  }
}
