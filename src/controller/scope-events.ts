import type { AlarmAction, Sample } from '../algorithms/sample.js';
import type { BreakerState, ControlEvent, ControlEventType, EventSink } from '../events/event.js';
import type { OutcomeDetails } from './permit.js';

/** A scope's limit, rate and pause at one moment. */
export interface ScopeNumbers {
  limit: number;
  rate: number;
  pausedUntil: number;
}

/** A pending pause extended by less than this is not news. */
const PAUSE_NEWS_MS = 100;

type Extra = Partial<Pick<ControlEvent, 'signal' | 'status' | 'rttMs' | 'breaker' | 'timings'>>;

/** What builds an event carrying a scope's current numbers (its controller). */
export interface EventSource {
  describe(type: ControlEventType, reason: string): ControlEvent;
}

/**
 * Turns one scope's decisions into {@link ControlEvent}s: a `sample` per
 * outcome, and an event for each decision it caused (limit, rate, pause,
 * block, breaker, alarm), each with a short human-readable reason.
 */
export class ScopeEvents {
  readonly #sink: EventSink;
  readonly #source: EventSource;
  /** The rate of the last `rate` event; undefined until one. */
  #reportedRate: number | undefined;

  /** @param source builds an event carrying the scope's current numbers (an object, not a closure: one fewer allocation per scope). */
  constructor(sink: EventSink, source: EventSource) {
    this.#sink = sink;
    this.#source = source;
  }

  /**
   * One outcome and the decisions it caused, given the numbers before and
   * after; `pauseCause` says why it paused the scope (`429 with Retry-After
   * 86400 s, capped at 300 s`), when it asked for a pause.
   */
  outcome(
    sample: Sample,
    details: OutcomeDetails | undefined,
    before: ScopeNumbers,
    after: ScopeNumbers,
    pauseCause?: string,
  ): void {
    const { signal } = sample;
    const extra: Extra = { signal: signal.kind, rttMs: sample.at - sample.sentAt };
    if (signal.status !== undefined) extra.status = signal.status;
    if (details?.timings) extra.timings = details.timings;
    this.#emit('sample', signal.reason, extra);
    const cause = { signal: signal.kind };
    if (after.limit !== before.limit)
      this.#emit('limit', `${before.limit} -> ${after.limit} on ${signal.reason}`, cause);
    if (this.#rateMovedNotably(before.rate, after.rate)) {
      const from = formatRate(this.#reportedRate ?? before.rate);
      this.#emit('rate', `${from} -> ${formatRate(after.rate)} on ${signal.reason}`, cause);
      this.#reportedRate = after.rate;
    }
    // A burst of refusals extends one pause by milliseconds each: one event, not one per refusal.
    const pending = before.pausedUntil > sample.at;
    if (
      pending
        ? after.pausedUntil > before.pausedUntil + PAUSE_NEWS_MS
        : after.pausedUntil > sample.at
    ) {
      this.#emit(
        'pause',
        `paused ${Math.round(after.pausedUntil - sample.at)} ms on ${pauseCause ?? signal.reason}`,
        cause,
      );
    }
    if (signal.kind === 'blocked') this.#emit('blocked', signal.reason, cause);
  }

  /** A latency-guard action; `ratio` is the latency over its unloaded value. */
  alarm(action: AlarmAction, ratio: number, rateBefore: number, rate: number): void {
    const times = `${ratio.toFixed(1)}x the unloaded latency`;
    const reason =
      action === 'slow-down'
        ? `latency median ${times}: slowing down to ${formatRate(rate)}`
        : action === 'futile'
          ? `cleared: slowing down did not help (latency does not follow our rate); back to ${formatRate(rate)}`
          : `cleared: latency median back to ${times} at ${formatRate(rateBefore)}`;
    this.#emit('alarm', reason, {});
  }

  /** A breaker transition. */
  breaker(state: BreakerState, reason: string): void {
    this.#emit('breaker', reason, { breaker: state });
  }

  /**
   * Every sample event carries the rate already; a `rate` event marks a cut,
   * a switch between paced and unpaced, or a 5 % drift since the last one.
   */
  #rateMovedNotably(before: number, rate: number): boolean {
    if (rate === before) return false;
    const reported = this.#reportedRate ?? before;
    if (rate < before || rate === Infinity || reported === Infinity) return true;
    return Math.abs(rate - reported) >= 0.05 * reported;
  }

  #emit(type: ControlEventType, reason: string, extra: Extra): void {
    this.#sink({ ...this.#source.describe(type, reason), ...extra });
  }
}

/** `12.34/s`, or `unpaced`. */
function formatRate(rate: number): string {
  return rate === Infinity ? 'unpaced' : `${rate.toFixed(2)}/s`;
}
