import { ClosureSpan, type LongClosure } from './closure-span.js';
import { NEVER } from './congestion.js';
import { PenaltySpells, penaltyAsked } from './penalty-spells.js';
import type { RateMeterState } from './rate-meter-state.js';
import { ReorderSpan } from './reorder-span.js';
import type { Sample } from './sample.js';
import { ServerMemory } from './server-memory.js';
import { ServerPause } from './server-pause.js';

/**
 * A closure's tail lasts at most this long, ms: a limit still refusing the
 * sends of a second after it reopened is refusing the rate.
 */
const CLOSURE_TAIL_MS = 1000;

/**
 * A resume that found the server still closed: the pause it followed, the
 * refusal that found it, and whether the verdict rests on timing noise (the
 * refusal was not the first send's by the first-send rule, or later refusals
 * of the resume were forgiven as its own): then an acceptance of a send of the
 * resume sent no later than that refusal refutes it.
 */
interface ClosedResume {
  readonly pause: ServerPause;
  readonly refusal: Sample;
  provisional: boolean;
}

/** How a refusal is judged against the latest pause (see {@link LatestPause.judgeRefusal}). */
export type ResumeVerdict = 'closed' | 'closure-late' | undefined;

/** The saved part of a {@link LatestPause}: its fields of {@link RateMeterState}. */
export type LatestPauseState = Pick<RateMeterState, 'pauseFrom' | 'pauseTo' | 'offeredSincePause'>;

/**
 * The server's latest pause as a {@link RateMeter} keeps it: pauses that
 * overlap merge into one, which remembers what the pacer offered since it
 * ended; a pause that waited out a server still closed as sending resumed
 * (a closure) also marks the sends of its tail, whose refusals are the
 * closure's, not the rate's.
 */
export class LatestPause {
  /** The latest server pause, once there was one. */
  #pause: ServerPause | undefined;
  /** The sends after a closure's pause whose refusal is the closure's (not saved). */
  #closureTail: { from: number; to: number } | undefined;
  /** The latest resume found still closed (not saved). */
  #closed: ClosedResume | undefined;
  /** When the latest pause answering a refusal of the rate was taken, ms (not saved). */
  #answeredAt = Number.NEGATIVE_INFINITY;
  /** How far refusals may come back out of send order (not saved). */
  readonly #reorder = new ReorderSpan();
  /** How long the server remembers what it granted (not saved). */
  readonly #memory = new ServerMemory();
  /** Requests accepted in all, and when the first was sent, ms: where a first cycle and spell begin (not saved). */
  #accepted = 0;
  #firstAcceptedAt = Number.NaN;
  /** How long the server stays closed as sending resumes; created with the first refusal (not saved). */
  #span: ClosureSpan | undefined;
  /** The spells between penalties; created with the first penalty (not saved). */
  #penalties: PenaltySpells | undefined;
  /** What the latest refusal judged read as a penalty met again after the same count (not saved). */
  #penaltyRead: { refusal: Sample; rate: number } | undefined;

  /** When the latest pause ended (or ends), ms; `-Infinity` when there was none. */
  get end(): number {
    return this.#pause?.to ?? -Infinity;
  }

  /** What the server accepted over its memory up to `sentAt`, per that memory (see `ServerMemory.remembered`). */
  remembered(sentAt: number): number {
    return this.#memory.remembered(sentAt);
  }

  /**
   * What a penalty `refusal`, just judged, read with the penalty before it (see `PenaltySpells`),
   * requests/s; Infinity when it read nothing.
   */
  penaltyRead(refusal: Sample): number {
    const read = this.#penaltyRead;
    return read?.refusal === refusal ? read.rate : Number.POSITIVE_INFINITY;
  }

  /** How long the latest pause was, ms (0 when none). */
  get lengthMs(): number {
    return this.#pause === undefined ? 0 : this.#pause.to - this.#pause.from;
  }

  /** How much of [`from`, `to`] the latest pause covered, ms. */
  within(from: number, to: number): number {
    return this.#pause?.within(from, to) ?? 0;
  }

  /** The end of the latest pause if it is after `now`, ms; else 0. */
  pendingAfter(now: number): number {
    const to = this.#pause?.to ?? 0;
    return to > now ? to : 0;
  }

  /**
   * Records a server-requested pause of `ms` from `at` (overlapping pauses
   * merge); `closure`: it waits out a server found still closed as sending
   * resumed, and the sends in its tail are judged by {@link LatestPause.refusedInTail}.
   */
  record(at: number, ms: number, closure = false): void {
    const pause = this.#pause;
    const merged = pause === undefined || at >= pause.to ? new ServerPause(at, at + ms) : pause;
    merged.to = Math.max(merged.to, at + ms);
    merged.askedMs = Math.max(merged.askedMs, ms);
    this.#pause = merged;
    if (closure)
      this.#closureTail = { from: merged.to, to: merged.to + Math.min(ms, CLOSURE_TAIL_MS) };
  }

  /**
   * Credits the pacer's offer at `rate` (requests/s, `Infinity` when unpaced:
   * nothing to credit) over [`from`, `at`] to the latest pause, and returns how
   * much of that span it covered, ms.
   */
  advance(from: number, at: number, rate: number): number {
    const pause = this.#pause;
    if (pause === undefined) return 0;
    if (rate !== Infinity) pause.credit(from, at, rate);
    return pause.within(from, at);
  }

  /**
   * Notes that a pause taken at `at` answered a refusal of the rate: the
   * congestion event it belongs to was reacted to then (see
   * {@link LatestPause.answeredByPause}).
   */
  answered(at: number): void {
    this.#answeredAt = Math.max(this.#answeredAt, at);
  }

  /**
   * Whether `sample` was sent before the latest pause that answered a refusal
   * of the rate was taken, and came back after: in flight when the pause was
   * taken, its refusal is part of the congestion event that pause answered,
   * not a new one. Without timing noise a server refusing at once answers
   * every such refusal before the pause; under noise one sent a few ms before
   * it comes back after, and read as a refusal after the pause it found
   * nothing granted since (a cut to half the rate).
   */
  answeredByPause(sample: Sample): boolean {
    return sample.sentAt < this.#answeredAt && sample.at >= this.#answeredAt;
  }

  /** Notes an accepted outcome sent at `sentAt` (it shows when sending resumed). */
  accepted(sentAt: number): void {
    this.#pause?.accepted(sentAt);
    this.#closed?.pause.accepted(sentAt);
    this.#memory.onAccepted(sentAt);
    this.#accepted++;
    if (Number.isNaN(this.#firstAcceptedAt)) this.#firstAcceptedAt = sentAt;
  }

  /**
   * Notes a refusal (not one for concurrency) and judges it against the
   * latest pause. `closed`: it came for the first request sent after the
   * pause (within half a pacing interval at `rate` of its end, before
   * anything sent since was accepted): the server is still closed — a long
   * window spent, a pause asked too short — which says nothing about the rate.
   * A later send's refusal may overtake an earlier send's acceptance, so only
   * the first counts; but refusals come back out of send order by up to the
   * reorder span ({@link ReorderSpan}: 0 without timing noise), and a send
   * that close to the pause's end may be the first whose refusal is in.
   * `closure-late`: it came for a send of a resume already found closed,
   * within that span of the pause's end and before anything sent since was
   * accepted — the same closure come back late, not a new congestion event.
   * Undefined otherwise. A penalty's spell is counted too: what it read is
   * {@link LatestPause.penaltyRead}'s.
   */
  judgeRefusal(sample: Sample, rate: number): ResumeVerdict {
    this.#reorder.note(sample);
    const penaltyMs = penaltyAsked(sample);
    const read =
      penaltyMs > 0
        ? this.#penaltySpells().onPenalty(sample.sentAt, sample.at, penaltyMs, this.#accepted, rate)
        : undefined;
    this.#penaltyRead = read === undefined ? undefined : { refusal: sample, rate: read };
    const remainderRate = penaltyMs > 0 ? this.#penaltySpells().remainderRate : Infinity;
    // A remainder: the server stayed closed to the count since the block before (see `PenaltySpells.remainderRate`).
    if (remainderRate < Infinity && this.#pause !== undefined)
      this.#closureSpan().foundClosed(this.#pause.from, remainderRate);
    const reorderMs = this.#reorder.ms;
    const closed = this.#closed;
    const before = this.#pause === undefined || sample.sentAt < this.#pause.from;
    if (closed !== undefined && before && closed.pause.sentOnResume(sample, reorderMs)) {
      closed.provisional = true;
      return 'closure-late';
    }
    const pause = this.#pause;
    if (pause === undefined || !pause.refusedOnResume(sample, rate, reorderMs)) {
      this.#closureSpan().refused(rate);
      if (pause === undefined) return undefined;
      if (sample.sentAt >= pause.to && pause.resumedAt !== Infinity)
        this.#memory.onRefusal(sample.sentAt, pause.resumedAt, unhinted(sample));
      return undefined;
    }
    const provisional = !pause.refusedOnResume(sample, rate);
    this.#closed = { pause, refusal: sample, provisional };
    this.#memory.onClosed(sample.sentAt);
    this.#closureSpan().foundClosed(pause.from);
    return 'closed';
  }

  /**
   * Notes an accepted outcome sent at `sentAt` for the closure in progress:
   * the long closure it ended (see {@link ClosureSpan.reopened}), else undefined.
   */
  reopened(sentAt: number): LongClosure | undefined {
    return this.#span?.reopened(sentAt, this.end);
  }

  /** The closure span, created at the first need with the cycle so far. */
  #closureSpan(): ClosureSpan {
    this.#span ??= new ClosureSpan(this.#firstAcceptedAt, this.#accepted);
    return this.#span;
  }

  /** The penalty spells, created at the first penalty. */
  #penaltySpells(): PenaltySpells {
    this.#penalties ??= new PenaltySpells(this.#firstAcceptedAt);
    return this.#penalties;
  }

  /**
   * The refusal whose verdict `closed` an acceptance refutes: one of a send of
   * that resume sent no later than the refusal, while the verdict rested on
   * timing noise — the server was open, and the refusal is the rate's. It is
   * returned once, as if it had arrived with the acceptance; undefined when none.
   */
  refutedBy(accepted: Sample): Sample | undefined {
    const closed = this.#closed;
    if (closed === undefined || !closed.provisional) return undefined;
    const { sentAt } = accepted;
    if (sentAt < closed.pause.to || sentAt > closed.refusal.sentAt) return undefined;
    this.#closed = undefined;
    return { ...closed.refusal, at: accepted.at };
  }

  /**
   * Whether a refusal came for a request sent in a closure's tail: within one
   * pause length (at most {@link CLOSURE_TAIL_MS}) after the end of a pause
   * that waited out a server found still closed as sending resumed. A limit
   * that reopens gradually (a log whose oldest entries age out at the rate
   * they were sent) refuses the sends that outrun its reopening — still the
   * closure, which says nothing about the rate.
   */
  refusedInTail(sample: Sample): boolean {
    const tail = this.#closureTail;
    return tail !== undefined && sample.sentAt >= tail.from && sample.sentAt < tail.to;
  }

  /** What the server granted since its latest pause ({@link ServerPause.granted}); Infinity when none. */
  granted(sample: Sample, rate: number): number {
    return this.#pause?.granted(sample, rate) ?? Infinity;
  }

  /** The sends a refusal soon after the latest pause is judged by; undefined when there was none. */
  grantWindow(sample: Sample): { from: number; to: number; spanMs: number } | undefined {
    return this.#pause?.grantWindow(sample);
  }

  /** Plain state, times mapped by `wall` (to wall-clock epoch ms); the closure's tail is not saved. */
  snapshot(wall: (t: number) => number): LatestPauseState {
    const pause = this.#pause;
    return {
      pauseFrom: pause === undefined ? NEVER : wall(pause.from),
      pauseTo: pause === undefined ? 0 : wall(pause.to),
      offeredSincePause: pause?.offered ?? 0,
    };
  }

  /** Restores the pause from {@link LatestPause.snapshot}'s state, times mapped by `local`. */
  restore(state: LatestPauseState, local: (t: number) => number): void {
    this.#pause =
      state.pauseTo === 0
        ? undefined
        : new ServerPause(local(state.pauseFrom), local(state.pauseTo), state.offeredSincePause);
  }
}

/** Whether a refusal named no wait (no `Retry-After`, or `0`): its pause is the controller's choice. */
function unhinted(sample: Sample): boolean {
  return (sample.signal.retryAfterMs ?? 0) <= 0;
}
