import type {
  BreakerOptions,
  BreakerOutcome,
  BreakerSnapshot,
} from '../algorithms/breaker-policy.js';
import { BreakerPolicy } from '../algorithms/breaker-policy.js';
import type { Clock } from '../clock.js';
import { BreakerGate, type Pass } from '../enforce/breaker-gate.js';
import type { WaitOptions } from '../enforce/wait-queue.js';
import type { BreakerState } from '../events/event.js';
import type { Random } from '../random.js';

/** What an {@link AdmissionBreaker} is built from. */
export interface AdmissionBreakerSetup {
  clock: Clock;
  random: Random;
  breaker: BreakerOptions | false | undefined;
  breakerState: BreakerSnapshot | undefined;
  /** Told of every breaker transition, when given. */
  log: BreakerLog | undefined;
}

/** What hears of a scope's breaker transitions (its `ScopeEvents`). */
export interface BreakerLog {
  breaker(state: BreakerState, reason: string): void;
}

/**
 * The breaker gate of one scope's admission, created at the first failure
 * (or from a saved open state): a healthy scope needs none, and until then
 * every answer is a closed breaker's. Also where the half-open probe waits
 * out the server's pause.
 */
export class AdmissionBreaker {
  readonly #s: AdmissionBreakerSetup;
  #gate: BreakerGate | undefined;

  constructor(setup: AdmissionBreakerSetup) {
    this.#s = setup;
    if (setup.breakerState?.state === 'open') this.#created();
  }

  /** Whether a breaker watches outcomes. */
  get exists(): boolean {
    return this.#gate !== undefined;
  }

  /** The breaker's state (`closed` when there is none). */
  get state(): BreakerState {
    return this.#gate?.state ?? 'closed';
  }

  /** When the open period ends (monotonic ms); 0 while closed. */
  get openUntil(): number {
    return this.#gate?.openUntil ?? 0;
  }

  /** Callers parked at the breaker. */
  get queued(): number {
    return this.#gate?.queued ?? 0;
  }

  /** The breaker's state as plain data, if there is one. */
  snapshot(): BreakerSnapshot | undefined {
    return this.#gate?.snapshot() ?? this.#s.breakerState;
  }

  /** Rejects every parked caller with `reason` and stops the half-open timer. */
  close(reason: unknown): void {
    this.#gate?.close(reason);
  }

  /** A pass at once if the breaker allows it; never waits. */
  tryPass(): Pass | undefined {
    return this.#gate ? this.#gate.tryPass() : 'pass';
  }

  /** Passes the breaker, synchronously when it is closed, so queue counts stay exact. */
  pass(options: () => WaitOptions): Pass | Promise<Pass> {
    if (this.#gate === undefined) return 'pass';
    return this.#gate.tryPass() ?? this.#gate.pass(options());
  }

  /** A pass that was not used: a probe's turn goes to the next caller. */
  abandon(pass: Pass): void {
    this.#gate?.abandon(pass);
  }

  /** Tells the breaker an outcome (a failure or a refusal creates it). */
  report(outcome: BreakerOutcome): void {
    const felt = outcome.effect === 'failure' || outcome.effect === 'refusal';
    if (felt || this.#gate !== undefined) this.#created()?.report(outcome);
  }

  /**
   * The half-open probe waits out the server's pause (the breaker may
   * half-open sooner: `maxCooldownMs` caps it, not the pause); `pauseLeft`
   * reads what is left of it, ms. Gives the probe's turn back if the wait ends
   * in an abort.
   */
  async waitOutPause(pauseLeft: () => number, options: WaitOptions): Promise<void> {
    for (let left = pauseLeft(); left > 0; left = pauseLeft()) {
      try {
        await this.#s.clock.sleep(left, options.signal);
      } catch (error) {
        this.abandon('probe');
        throw error;
      }
    }
  }

  /** The breaker gate, created on first use; undefined when the breaker is disabled. */
  #created(): BreakerGate | undefined {
    if (this.#gate !== undefined || this.#s.breaker === false) return this.#gate;
    const policy = new BreakerPolicy(this.#s.random, this.#s.breaker, this.#s.breakerState);
    const log = this.#s.log;
    // The listener is made here, with the gate: most scopes never need one.
    const listener = log && ((state: BreakerState, reason: string) => log.breaker(state, reason));
    this.#gate = new BreakerGate(policy, this.#s.clock, listener);
    return this.#gate;
  }
}
