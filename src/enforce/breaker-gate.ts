import type {
  BreakerOutcome,
  BreakerPolicy,
  BreakerSnapshot,
} from '../algorithms/breaker-policy.js';
import type { CancelTimer, Clock } from '../clock.js';
import type { BreakerState } from '../events/event.js';
import { type WaitOptions, WaitQueue } from './wait-queue.js';

/** How a caller got through the gate: as ordinary traffic, or as the half-open probe. */
export type Pass = 'pass' | 'probe';

/** Called when the breaker changes state. */
export type BreakerListener = (state: BreakerState, reason: string) => void;

/**
 * Enforces a {@link BreakerPolicy}: while it is open, callers park here; when
 * the open period ends a timer turns it half-open and releases exactly one
 * caller as the probe; the probe's success releases everyone, its failure
 * re-opens the gate and re-arms the timer. No parked caller depends on an
 * unrelated event to be woken.
 */
export class BreakerGate {
  readonly #policy: BreakerPolicy;
  readonly #clock: Clock;
  readonly #listener: BreakerListener | undefined;
  #queue: WaitQueue | undefined;
  #probeOut = false;
  #cancelTimer: CancelTimer | undefined;

  constructor(policy: BreakerPolicy, clock: Clock, listener?: BreakerListener) {
    this.#policy = policy;
    this.#clock = clock;
    this.#listener = listener;
    // Built open (from a saved state): the half-open wake-up must be armed now.
    if (!policy.closed) this.#arm();
  }

  /** The breaker state now. */
  get state(): BreakerState {
    return this.#policy.stateAt(this.#clock.now());
  }

  /** When the open period ends (monotonic ms); 0 while the breaker is closed. */
  get openUntil(): number {
    return this.#policy.closed ? 0 : this.#policy.openUntil;
  }

  /** Callers parked at the gate. */
  get queued(): number {
    return this.#queue?.size ?? 0;
  }

  /** The breaker's serialisable state. */
  snapshot(): BreakerSnapshot {
    return this.#policy.toJSON();
  }

  /** Cancels the half-open wake-up and rejects every parked caller with `reason`. */
  close(reason: unknown): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#queue?.rejectAll(reason);
  }

  /** Passes at once if the gate allows it; never waits. */
  tryPass(): Pass | undefined {
    if (this.#policy.closed) return this.queued === 0 ? 'pass' : undefined;
    const state = this.state;
    if (state === 'closed') return this.queued === 0 ? 'pass' : undefined;
    if (state === 'half-open' && !this.#probeOut) {
      this.#probeOut = true;
      return 'probe';
    }
    return undefined;
  }

  /** Passes the gate, parking while it is open or while a probe is out. */
  async pass(options?: WaitOptions): Promise<Pass> {
    for (;;) {
      const pass = this.tryPass();
      if (pass !== undefined) return pass;
      this.#queue ??= new WaitQueue();
      await this.#queue.wait(this.#clock, options, 'BreakerGate.pass');
      // Woken because the state changed: look again (if someone else took the probe, park again).
    }
  }

  /** Reports the outcome of a request that passed (`probe` says whether it was the half-open probe). */
  report(outcome: BreakerOutcome): void {
    const probe = outcome.probe;
    if (probe) this.#probeOut = false;
    const changed = this.#policy.onOutcome(outcome);
    if (changed !== undefined) this.#onChange(changed, outcome.effect);
    else if (probe) this.#queue?.wakeOne();
  }

  /** A caller that passed gave up without an outcome: a probe slot goes to the next caller. */
  abandon(pass: Pass): void {
    if (pass !== 'probe') return;
    this.#probeOut = false;
    this.#queue?.wakeOne();
  }

  #onChange(state: BreakerState, effect: BreakerOutcome['effect']): void {
    this.#listener?.(state, state === 'closed' ? 'probe succeeded' : `opened after ${effect}`);
    if (state === 'closed') {
      this.#cancelTimer?.();
      this.#cancelTimer = undefined;
      this.#queue?.wakeAll();
    } else {
      this.#arm();
    }
  }

  /** Schedules the open → half-open transition. */
  #arm(): void {
    this.#cancelTimer?.();
    const delay = Math.max(0, this.#policy.openUntil - this.#clock.now());
    this.#cancelTimer = this.#clock.setTimer(delay, () => {
      this.#cancelTimer = undefined;
      // Fired early (a clock that does not correct setTimeout's early wake-ups): a caller
      // woken now would find the breaker open and park again with no timer left to wake it.
      if (this.state === 'open') return this.#arm();
      this.#listener?.('half-open', 'cooldown over');
      this.#queue?.wakeOne();
    });
  }
}
