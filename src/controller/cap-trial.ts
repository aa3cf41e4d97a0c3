import { penaltyAsked } from '../algorithms/penalty-spells.js';
import type { Sample } from '../algorithms/sample.js';
import { BurstAfterRefusal } from './burst-after-refusal.js';
import { CountNoise } from './count-noise.js';

/**
 * One refusal at fewer in flight than this shows no cap by itself (it starts no
 * trial, nor marks a held rate's refusal): one or two requests in flight is
 * where a slow rate-limited scope always is, and a cap of one is
 * indistinguishable from a rate of one request per round trip.
 */
export const MIN_REFUSED_INFLIGHT = 3;

/** How a refusal stands against the trial. */
export type TrialVerdict =
  /** Starts the trial: the cap is tentatively one less than this refusal's in flight. */
  | 'tentative'
  /** The trial's cap: the burst it started in, or more in flight than the cap while it holds. */
  | 'cap'
  /** The trial's cap, one lower: under timing noise, a refusal that met the cap (see `CapTrial`). */
  | 'lowered'
  /** Refutes the trial: refused at no more in flight than the cap, a rate limit's refusal. */
  | 'refuted'
  /** Outside the trial: the rate's, or for the scope's other evidence to judge. */
  | 'other';

/**
 * A concurrency cap read from the first refusal of an unpaced slow start, on
 * trial. A slow start raises the concurrency and the rate together, so its
 * first refusal, sent at more in flight than any success, may show a cap —
 * or a rate limit whose window the burst outran. Read as a rate, a cap met in
 * the first round trips leaves a guessed ceiling far below capacity; read as
 * a cap, a rate limit on slow pages leaves the concurrency far below what its
 * rate needs. So the cap is taken on trial: tentatively one less than that
 * refusal's in flight, and the concurrency limit checks it soon with one
 * more. The trial is refuted — the refusal that began it was the rate's — by
 * a success past the cap sent before it began (the same burst: a cap refuses
 * every send past it) or a refusal at no more in flight than the cap sent
 * after (even once a refused check confirmed the cap: a window that the
 * burst on resuming after a pause exhausts refuses the check too); a success
 * past the cap sent after it began (the check) ends it, the slow start going
 * on. Refusals past the cap are the cap's while the trial lasts. Only the
 * scope's first refusal can begin a trial. Under timing noise a success of
 * the burst counts answers still on their way, and a cap's own burst comes
 * past it: such a success leaves the trial in doubt until the first outcome
 * of a send made since, by when the burst was heard; it stands where the
 * sends made after the refused one before it was heard were granted more
 * than refused (see {@link BurstAfterRefusal}), and is refuted otherwise.
 */
export class CapTrial {
  /** The tentative cap; 0 before the trial. */
  #cap = 0;
  /** When the trial began: refusals of requests sent earlier are the burst that started it. */
  #since = Number.NEGATIVE_INFINITY;
  #state: 'none' | 'open' | 'over' = 'none';
  #refuted = false;
  /** When the trial was refuted, and whether a success sent since has answered. */
  #refutedAt = Number.POSITIVE_INFINITY;
  #caughtUp = false;
  /** Whether the refusal that began the trial showed timing noise (see {@link CountNoise}). */
  #noisy = false;
  /** Under timing noise, how the sends after the refusal that began the trial were answered. */
  #after: BurstAfterRefusal | undefined;
  /** Under timing noise, whether a success of the burst came past the cap: judged at the first outcome of a send made since. */
  #doubted = false;
  /** When the latest refusal that lowered the cap was sent: sends made with it are its burst. */
  #loweredSent = Number.NEGATIVE_INFINITY;
  /** Whether a success sent since the trial began was heard: sending resumed past its first burst. */
  #resumed = false;
  readonly #noise = new CountNoise();
  readonly #blind: boolean;
  /** When the latest refusal a blind trial counted one past the cap came back: sends made before are its clump. */
  #countedAt = Number.NEGATIVE_INFINITY;

  /**
   * @param blind whether the trial is opened by a refusal before any success
   * (see `opensBlindTrial`): then any success past the cap refutes it, the
   * check too — the refusal came from a limit's burst, not a cap of what was
   * in flight, and the rate is to read it as its own.
   */
  constructor(blind = false) {
    this.#blind = blind;
  }

  /** Whether the trial was refuted: the slow start's first refusal was a rate limit's. */
  get refuted(): boolean {
    return this.#refuted;
  }

  /**
   * Whether the trial was refuted and what was accepted still lags: on
   * second-long pages the most in flight any success was sent at is the first
   * round's for a round trip after the trial, so a refusal at the held rate
   * soon after looks like a cap of a few. Without timing noise a refutation is
   * exact and this lasts; under noise, which refutes a cap's own trial with a
   * success the server let in as another request left (see {@link CountNoise}),
   * it ends once a success sent after the refutation answers — and a cap is
   * still found by its refusals.
   */
  get lagging(): boolean {
    return this.#refuted && !(this.#noisy && this.#caughtUp);
  }

  /**
   * Judges a refusal `sample`: `unpaced`, whether it was sent unpaced;
   * `accepted`, the most in flight recent successes were sent at.
   */
  judge(sample: Sample, unpaced: boolean, accepted: number): TrialVerdict {
    const { inflight, sentAt } = sample;
    const state = this.#state;
    if (state === 'none') {
      // A penalty opens no trial: a rate limit taken for a cap refutes the trial only with a
      // second refusal as sending resumes, and where the server blocks a client that went over
      // for a minute, that is a second minute; a cap taken for a rate costs the rate's climb.
      const penalty = penaltyAsked(sample) > 0;
      const above = unpaced && !penalty && inflight > accepted && inflight >= MIN_REFUSED_INFLIGHT;
      this.#state = above ? 'open' : 'over';
      this.#cap = inflight - 1;
      this.#since = sample.at;
      this.#noisy = this.#noise.noiseMs(sample) > 0;
      if (above && this.#noisy && !this.#blind) this.#after = new BurstAfterRefusal(sample);
      return above ? 'tentative' : 'other';
    }
    if (state === 'over') return 'other';
    this.#after?.onSample(sample);
    if (this.#doubtRefutes(sample)) return 'refuted';
    // A blind trial's burst was sent at one to four in flight: a cap refuses none at or under it.
    if (inflight > this.#cap || (sentAt <= this.#since && !this.#blind)) return 'cap';
    const noisy = this.#blind ? this.#blindNoiseVerdict(sample) : this.#noiseVerdict(sample);
    if (noisy !== undefined) return noisy;
    this.#state = 'over';
    this.#refute(sample.at);
    return 'refuted';
  }

  /**
   * A success `sample`: past the cap, the trial is over, and refuted when it
   * was sent before it began or the trial is blind — `refuted`; or, of the
   * burst under timing noise, the trial is in doubt and holds for now —
   * `held`. A doubt it resolves against the trial refutes it too.
   */
  onAccepted(sample: Sample): 'refuted' | 'held' | undefined {
    this.#noise.onAccepted(sample.at - sample.sentAt);
    if (sample.sentAt > this.#refutedAt) this.#caughtUp = true;
    if (this.#state !== 'open') return undefined;
    this.#after?.onSample(sample);
    if (this.#doubtRefutes(sample)) return 'refuted';
    if (sample.sentAt > this.#since) this.#resumed = true;
    if (sample.inflight <= this.#cap) return undefined;
    // Out with a refusal a blind trial counted past the cap: the one of the two the server took first.
    if (this.#blind && sample.sentAt < this.#countedAt) return 'held';
    const burst = sample.sentAt <= this.#since;
    // Sent with a refusal that lowered the cap, it reached the server before that one.
    if ((burst || sample.sentAt <= this.#loweredSent) && this.#after?.open === true) {
      this.#doubted = true;
      return 'held';
    }
    this.#state = 'over';
    if (this.#blind || burst) this.#refute(sample.at);
    return this.#refuted ? 'refuted' : undefined;
  }

  /**
   * How a refusal at no more in flight than the cap, sent since the trial
   * began, stands under timing noise, where the burst's sends after the
   * refused one were granted more than refused (see {@link BurstAfterRefusal}):
   * one that met more than the cap as it came back (see
   * {@link CountNoise.refusedCount}) is the cap's — a burst sent at once
   * reaches the server in any order, and one sent with the check may have
   * come after it; one that met the cap shows it lower (the refusal that
   * began the trial counted answers still on their way), as sending first
   * resumes, before any success sent since is heard (later, a refusal at the
   * cap held is the noise's own). Undefined: the trial's exact rules judge.
   */
  #noiseVerdict(refusal: Sample): 'cap' | 'lowered' | undefined {
    if (this.#after?.granted !== true) return undefined;
    const met = this.#noise.refusedCount(refusal);
    if (met > this.#cap) return 'cap';
    if (met < this.#cap || this.#resumed) return undefined;
    this.#cap -= 1;
    this.#loweredSent = Math.max(this.#loweredSent, refusal.sentAt);
    return 'lowered';
  }

  /**
   * How a blind trial's refusal at no more in flight than the cap, sent since
   * it began, stands under timing noise: one that met more than the cap as it
   * came back (see {@link CountNoise.refusedCount}) is the cap's — the check
   * goes out with the send that replaces an answered one, and either may reach
   * the server last. A blind trial has no sends after its refusal to vouch for
   * it (see `BurstAfterRefusal`); that it met more than the cap is its own
   * evidence; it is counted one past the cap. Undefined: the trial's exact
   * rules judge.
   */
  #blindNoiseVerdict(refusal: Sample): 'cap' | undefined {
    if (refusal.sentAt <= this.#since || this.#noise.refusedCount(refusal) <= this.#cap)
      return undefined;
    // Counted at what it met, one past the cap: the concurrency limit reads the cap from it.
    refusal.inflight = this.#cap + 1;
    this.#countedAt = Math.max(this.#countedAt, refusal.at);
    return 'cap';
  }

  /**
   * Whether the doubt a success of the burst past the cap raised (see
   * {@link BurstAfterRefusal}) refutes the trial at `sample`, the first
   * outcome of a send made since it began, by when the burst was heard: its
   * sends after the refusal granted no more than refused. Then it is over.
   */
  #doubtRefutes(sample: Sample): boolean {
    if (!this.#doubted || sample.sentAt <= this.#since) return false;
    this.#doubted = false;
    if (this.#after?.granted === true) return false;
    this.#state = 'over';
    this.#refute(sample.at);
    return true;
  }

  #refute(at: number): void {
    this.#refuted = true;
    this.#refutedAt = at;
  }
}
