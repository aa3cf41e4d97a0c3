import { isRefusal, type Sample } from './sample.js';

/**
 * The scope's opening burst: the requests sent before any answer came back,
 * for a ceiling guessed from nothing (refused before anything was measured:
 * as many per second as the refusal met, see `lowestCeiling`). The server
 * grants the first of them to reach it and refuses the rest; in send order
 * (no timing noise) the first refusal heard is the first refused, and its
 * count at send is what was granted, plus one. A real network delivers a
 * burst in any order, and the first refusal heard may be its first send,
 * counted at one in flight where the limit granted three: a slow limit held a
 * third of its rate until probes found it (family seed 1 #144, seed 3 #101).
 * Once every send of the burst is answered its refusals say what it met in
 * either order: as many were granted as were sent less those refused, and the
 * first refused met those, plus one — the count at send of the first refused
 * when the server saw them in order. Not read until then: the guess stands as
 * one decision, corrected at most once (see `reguessFromBurst`). The burst's
 * size is what was in flight as its first answer came back; an answer that
 * took no time (the simulator without noise) leaves no burst to read. Not saved.
 */
export class OpeningBurst {
  /** When the first answer came back, ms; undefined before. */
  #firstAt: number | undefined;
  /** Sends in the burst (in flight at its first answer, itself included), answers and refusals heard. */
  #size = 0;
  #answered = 0;
  #refused = 0;
  /** A ceiling guessed from a refusal of the burst before it was read, and that refusal's count. */
  #guess: { ceiling: number; count: number } | undefined;

  /** Notes an outcome. */
  onSample(sample: Sample): void {
    if (this.#firstAt === undefined) {
      this.#firstAt = sample.at;
      this.#size = sample.outstanding === undefined ? 0 : sample.outstanding + 1;
    }
    if (!this.#holds(sample) || this.complete) return;
    this.#answered++;
    if (isRefusal(sample)) this.#refused++;
  }

  /** Whether every send of the burst is answered. */
  get complete(): boolean {
    return this.#size > 0 && this.#answered >= this.#size;
  }

  /**
   * How many requests `refusal` met at the server: for a send of the burst
   * once all its answers are in, the burst's sends less its refusals, plus
   * one; otherwise its count at send.
   */
  met(refusal: Sample): number {
    if (!this.complete || !this.#holds(refusal)) return refusal.inflight;
    return this.#size - this.#refused + 1;
  }

  /** Notes the `ceiling` guessed from nothing on `refusal`: read again when the burst is (see {@link OpeningBurst.reread}). */
  guessed(refusal: Sample, ceiling: number): void {
    if (this.#guess !== undefined || this.complete || !this.#holds(refusal)) return;
    this.#guess = { ceiling, count: refusal.inflight };
  }

  /**
   * Once, when the burst is all answered: the ceiling a guess noted by
   * {@link OpeningBurst.guessed} takes by what the burst met, in proportion
   * to the count it was read from, when `ceiling` is still that guess and the
   * burst says otherwise; undefined otherwise.
   */
  reread(ceiling: number): number | undefined {
    const guess = this.#guess;
    if (guess === undefined || !this.complete) return undefined;
    this.#guess = undefined;
    const met = this.#size - this.#refused + 1;
    if (ceiling !== guess.ceiling || met === guess.count) return undefined;
    return (guess.ceiling * met) / guess.count;
  }

  /** Whether `sample` answers a send of the burst (sent before the first answer came back). */
  #holds(sample: Sample): boolean {
    return this.#firstAt !== undefined && sample.sentAt < this.#firstAt;
  }
}
