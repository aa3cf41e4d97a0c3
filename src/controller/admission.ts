import type { BreakerOutcome, BreakerSnapshot } from '../algorithms/breaker-policy.js';
import type { Pass } from '../enforce/breaker-gate.js';
import { Pacer } from '../enforce/pacer.js';
import { PauseGuard } from '../enforce/pause-guard.js';
import { Semaphore } from '../enforce/semaphore.js';
import { deadlineOf, untilDeadline, type WaitOptions } from '../enforce/wait-queue.js';
import type { BreakerState } from '../events/event.js';
import { AdmissionBreaker, type AdmissionBreakerSetup } from './admission-breaker.js';

/** What an {@link Admission} is built from. */
export interface AdmissionSetup extends AdmissionBreakerSetup {
  scope: string;
  /** The first concurrency limit. */
  limit: number;
  /** Requests the pacer lets through back to back after an idle spell. */
  burst: number;
  /** Longest known pause a request waits through before failing at once, ms. */
  maxPauseWaitMs: number;
}

/** What a request that passed every gate is handed to (the scope's outcomes). */
export interface Grantee<T> {
  grant(pass: Pass): T;
}

/**
 * The three gates of one scope a request passes before it is sent: the
 * breaker (created at the first failure), the concurrency limit (a
 * semaphore) and the rate (a pacer, created once pacing is needed), and the
 * pause guard that fails at once a request that cannot outlast a known pause.
 * A pass holds one slot until it is given back or released.
 */
export class Admission {
  readonly #s: AdmissionSetup;
  readonly #semaphore: Semaphore;
  /** Created when the rate first becomes finite or the server asks for a pause. */
  #pacer: Pacer | undefined;
  readonly #breaker: AdmissionBreaker;
  /** Created with the first pause or wait: what the scope is paused for, and who cannot wait that long. */
  #pauses: PauseGuard | undefined;

  constructor(setup: AdmissionSetup) {
    this.#s = setup;
    this.#semaphore = new Semaphore(setup.limit, setup.clock);
    this.#breaker = new AdmissionBreaker(setup);
    if (this.#breaker.exists) this.notePause(setup.clock.now(), 'an open breaker (saved state)');
  }

  /** Current concurrency limit. */
  get limit(): number {
    return this.#semaphore.limit;
  }

  /** Current pacing rate in requests/s (`Infinity` when unpaced). */
  get rate(): number {
    return this.#pacer?.rate ?? Infinity;
  }

  /** Monotonic ms before which the pacer sends nothing; 0 when no pause. */
  get pausedUntil(): number {
    return this.#pacer?.pausedUntil ?? 0;
  }

  /** Callers waiting at any gate. */
  get queued(): number {
    return this.#breaker.queued + this.#semaphore.queued + (this.#pacer?.queued ?? 0);
  }

  /** Slots held. */
  get inflight(): number {
    return this.#semaphore.inflight;
  }

  /** Whether a breaker watches outcomes (one is created at the first failure). */
  get hasBreaker(): boolean {
    return this.#breaker.exists;
  }

  /** The breaker's state (`closed` when there is no breaker). */
  get breaker(): BreakerState {
    return this.#breaker.state;
  }

  /** The pause pending, if any, and why. */
  pause(now: number): { until: number; reason: string } | undefined {
    return this.#pauses?.current(now);
  }

  /** The breaker's state as plain data, if there is one. */
  breakerSnapshot(): BreakerSnapshot | undefined {
    return this.#breaker.snapshot();
  }

  /** Rejects every waiting caller with `reason` and stops the timers. */
  close(reason: unknown): void {
    this.#breaker.close(reason);
    this.#semaphore.close(reason);
    this.#pacer?.close(reason);
  }

  /** Resizes the concurrency limit. */
  setLimit(limit: number): void {
    this.#semaphore.setLimit(limit);
  }

  /** Paces at `rate` and pauses until `pausedUntil`, creating the pacer once pacing is needed. */
  pace(rate: number, pausedUntil: number, now: number): void {
    if (this.#pacer === undefined && rate === Infinity && !(pausedUntil > now)) return;
    this.#pacer ??= new Pacer({ rate, burst: this.#s.burst, clock: this.#s.clock });
    this.#pacer.setRate(rate);
    if (pausedUntil > now) this.#pacer.pauseUntil(pausedUntil);
  }

  /** A pass at once if every gate allows it; never waits. */
  tryPass(): Pass | undefined {
    const pass = this.#breaker.tryPass();
    if (pass === undefined) return undefined;
    if (pass === 'probe')
      return this.#serverPause() > 0 ? this.giveBack(pass, false) : this.#probe();
    if (!this.#semaphore.tryAcquire()) return this.giveBack(pass, false);
    if (this.#pacer !== undefined && !this.#pacer.tryTake()) return this.giveBack(pass, true);
    return pass;
  }

  /**
   * Waits until every gate allows a request and hands the pass to `grantee` at
   * that moment; fails at once if a known pause outlasts the deadline.
   */
  async pass<T>(options: WaitOptions | undefined, grantee: Grantee<T>): Promise<T> {
    const deadline = deadlineOf(options, this.#s.clock.now());
    // A request that will not outlast the pause fails now, not after waiting in silence.
    const guarded = this.#pauseGuard().enter(options, deadline);
    try {
      return await this.#waitForPass(guarded.options, deadline, grantee);
    } finally {
      guarded.leave();
    }
  }

  /** Gives back a pass (and its slot, when it holds one) that was not used. */
  giveBack(pass: Pass, heldSlot: boolean): undefined {
    if (heldSlot) this.#semaphore.release();
    this.#breaker.abandon(pass);
    return undefined;
  }

  /** Frees the slot of a request that was sent. */
  release(): void {
    this.#semaphore.release();
  }

  /** Tells the breaker an outcome (a failure creates it). */
  report(report: BreakerOutcome): void {
    this.#breaker.report(report);
  }

  /** Tells the pause guard of the pause the pacer or the breaker now holds, and its cause. */
  notePause(at: number, cause: string): void {
    const paced = this.#pacer?.pausedUntil ?? 0;
    const open = this.#breaker.openUntil;
    if (paced > at || open > at) this.#pauseGuard().note(paced, open, cause);
  }

  async #waitForPass<T>(
    options: WaitOptions | undefined,
    deadline: number,
    grantee: Grantee<T>,
  ): Promise<T> {
    const stage = (): WaitOptions => untilDeadline(options, deadline, this.#s.clock.now());
    for (;;) {
      const passing = this.#breaker.pass(stage);
      const pass = typeof passing === 'string' ? passing : await passing;
      if (pass === 'probe') {
        await this.#breaker.waitOutPause(() => this.#serverPause(), stage());
        return grantee.grant(this.#probe());
      }
      try {
        await this.#semaphore.acquire(stage());
      } catch (error) {
        this.#breaker.abandon(pass);
        throw error;
      }
      try {
        if (this.#pacer !== undefined) await this.#pacer.take(stage());
      } catch (error) {
        this.giveBack(pass, true);
        throw error;
      }
      // The breaker may have opened while we queued for a slot or a token: park again.
      if (this.breaker === 'closed') return grantee.grant(pass);
      this.giveBack(pass, true);
    }
  }

  /** Ms left in the server's pause (the pacer's), 0 when none. */
  #serverPause(): number {
    const until = this.#pacer?.pausedUntil ?? 0;
    return until === 0 ? 0 : Math.max(0, until - this.#s.clock.now());
  }

  /**
   * The half-open probe goes at once: it is the breaker's one question to the
   * server, and callers parked at the semaphore or the pacer were admitted
   * before the breaker opened — the probe must not wait behind them.
   */
  #probe(): Pass {
    this.#semaphore.forceAcquire();
    return 'probe';
  }

  #pauseGuard(): PauseGuard {
    this.#pauses ??= new PauseGuard(this.#s.scope, this.#s.clock, this.#s.maxPauseWaitMs);
    return this.#pauses;
  }
}
