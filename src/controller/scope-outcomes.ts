import type { Clock } from '../clock.js';
import type { Pass } from '../enforce/breaker-gate.js';
import { outcomesObserved, publishOutcome, publishRelease } from '../events/diagnostics.js';
import { REACTIONS, type Signal } from '../signal.js';
import type { Admission } from './admission.js';
import type { OutcomeDetails, Permit } from './permit.js';
import type { ScopeEvents, ScopeNumbers } from './scope-events.js';
import type { ScopeFeedback } from './scope-feedback.js';
import { type PermitOwner, ScopePermit } from './scope-permit.js';

/** What a scope's outcomes act on. */
export interface OutcomeParts {
  /** The controller, as the diagnostics channels name it. */
  readonly controller: { readonly scope: string };
  readonly clock: Clock;
  readonly admission: Admission;
  readonly feedback: ScopeFeedback;
  readonly log: ScopeEvents | undefined;
}

/**
 * The feedback half of a scope's control loop: the permits it granted and
 * what each outcome does — the algorithms learn from it (see
 * {@link ScopeFeedback}), the semaphore is resized and the pacer re-paced,
 * the breaker hears of it, and observers are told. It is its permits'
 * {@link PermitOwner}; the controller keeps it private, so outcomes arrive
 * only through permits.
 */
export class ScopeOutcomes implements PermitOwner {
  readonly #controller: { readonly scope: string };
  readonly #clock: Clock;
  readonly #admission: Admission;
  readonly #feedback: ScopeFeedback;
  readonly #log: ScopeEvents | undefined;
  #sent = 0;
  /** Whole ms, so the field stays a small integer rather than a boxed double. */
  #lastUsed: number;

  constructor(parts: OutcomeParts) {
    this.#controller = parts.controller;
    this.#clock = parts.clock;
    this.#admission = parts.admission;
    this.#feedback = parts.feedback;
    this.#log = parts.log;
    this.applyRate(parts.clock.now());
    this.#lastUsed = Math.floor(parts.clock.now());
  }

  /** Requests admitted and not yet reported. */
  get sent(): number {
    return this.#sent;
  }

  /** Monotonic ms of the last admission or outcome. */
  get lastUsed(): number {
    return this.#lastUsed;
  }

  /** A permit for a request admitted with `pass`. */
  grant(pass: Pass): Permit {
    this.#sent++;
    const now = this.#clock.now();
    this.#lastUsed = Math.floor(now);
    return new ScopePermit(this, pass, now, this.#sent);
  }

  /** Hands the rate algorithm's rate and pause to the pacer. */
  applyRate(now: number): void {
    const { rate } = this.#feedback;
    this.#feedback.notePaced(now);
    this.#admission.pace(rate.rate, rate.pausedUntil, now);
  }

  /** A request ended without an outcome: free its slot. */
  release(permit: ScopePermit): void {
    this.#sent--;
    this.#admission.giveBack(permit.pass, true);
    publishRelease(this.#controller, permit.sentAt, this.#clock.now());
  }

  /** A request's outcome: feed the algorithms, resize and re-pace, then free its slot. */
  complete(permit: ScopePermit, reported: Signal, details: OutcomeDetails | undefined): void {
    const admission = this.#admission;
    const feedback = this.#feedback;
    const log = this.#log;
    const at = this.#clock.now();
    this.#lastUsed = Math.floor(at);
    const { sample, heard, cappedCause } = feedback.judge(permit, at, reported, this.#sent - 1);
    const before = log || outcomesObserved() ? this.#numbers() : undefined;
    const alarm = feedback.learn(sample);
    admission.setLimit(feedback.limit.limit);
    this.applyRate(at);
    this.#sent--;
    admission.release();
    const { signal } = sample;
    const effect = REACTIONS[signal.kind].breaker;
    const felt = effect === 'failure' || effect === 'refusal';
    if (felt || admission.hasBreaker) {
      admission.report({
        sentAt: permit.sentAt,
        at,
        effect,
        probe: permit.pass === 'probe',
        retryAfterMs: signal.retryAfterMs ?? 0,
      });
    }
    if (cappedCause !== undefined || felt) admission.notePause(at, cappedCause ?? signal.reason);
    if (before === undefined) return;
    const after = this.#numbers();
    // Observers see the outcome as it was classified; the filter only changed the reaction.
    const seen = signal === heard ? sample : { ...sample, signal: heard };
    publishOutcome(this.#controller, seen, before, after);
    if (log) {
      log.outcome(seen, details, before, after, cappedCause);
      if (alarm) log.alarm(alarm, feedback.latencyRatio, before.rate, after.rate);
    }
  }

  #numbers(): ScopeNumbers {
    const admission = this.#admission;
    return { limit: admission.limit, rate: admission.rate, pausedUntil: admission.pausedUntil };
  }
}
