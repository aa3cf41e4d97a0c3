/** A ceiling below this share of the recent peak is a fallen one. */
const FALLEN = 0.75;
/** A ceiling this share under the peak may be a shared capacity's. */
const BELOW = 0.05;
/** Half-life of the peak's memory, ms: a capacity that fell for good stops being watched. */
const PEAK_HALF_LIFE_MS = 300_000;
/** Probes in a row that must find a fallen ceiling where it was before it stops being one. */
const CONFIRMATIONS = 2;
/** A ceiling not read calmly may become the peak once it has stood this long (ms) with no cut. */
const STANDING_MS = 10_000;
/** A refused probe's count this much above the peak its probe started under says the capacity rose. */
const RISEN = 0.2;

/** Where a probe's event left the ceiling it started from. */
export interface ProbeFound {
  /** Where it was: not lower, at most 5 % higher. */
  readonly kept: boolean;
  /** Within 5 % of it, either side. */
  readonly near: boolean;
}

/**
 * The highest learned ceiling lately, against which a ceiling is judged
 * fallen: a capacity that fell may come back, so it is probed eagerly (see
 * `Prober`). Its memory halves every {@link PEAK_HALF_LIFE_MS}. A peak the
 * server was not seen to grant — not read in a calm spell, not standing
 * {@link STANDING_MS} since (see {@link CeilingPeak.onCut}) — is unproven:
 * probes that find the ceiling where it was bring it down. Not saved.
 */
export class CeilingPeak {
  #value = 0;
  #at = 0;
  /** Probes in a row that found the ceiling where it was. */
  #kept = 0;
  /** Whether the ceiling the last cut left was read calmly (a configured start rate counts as one). */
  #calm = true;
  /** When the last cut was. */
  #cutAt = -Infinity;
  /** Whether the peak was neither read calmly nor stood {@link STANDING_MS}. */
  #unproven = false;
  /** The peak when the last probe started. */
  #atProbe = 0;

  /**
   * Whether `ceiling` is well below the peak at `at`; a ceiling at or above it
   * is the new peak, unproven unless read calmly or standing {@link STANDING_MS}.
   */
  fallen(at: number, ceiling: number): boolean {
    const peak = this.#peak(at);
    if (ceiling >= peak) {
      this.#set(at, ceiling);
      this.#unproven = !this.#calm && at - this.#cutAt < STANDING_MS;
    }
    return ceiling < FALLEN * peak;
  }

  /**
   * Whether `ceiling` sits more than {@link BELOW} under a proven peak at
   * `at`: a capacity that may be shared with a consumer that came since, and
   * gives its share back when it leaves. An unproven peak (a cold start's
   * over-read) says nothing of the kind.
   */
  below(at: number, ceiling: number): boolean {
    return !this.#unproven && ceiling < (1 - BELOW) * this.#peak(at);
  }

  /**
   * A cut at `at` left a ceiling read `calm`ly or not: at a paced rate held
   * two windows clear of any pause, or otherwise — unpaced (a slow start's
   * grant, counted over the span it climbed in), or soon after a pause (what
   * the server granted as sending resumed: a window or bucket refilled while
   * paused). Such a reading often says twice the capacity, and its held rate
   * is refused within seconds; as the peak it would judge the true ceiling
   * fallen for minutes, every probe eager, its patience never growing: as
   * the peak it is unproven until it has stood {@link STANDING_MS} uncut. A
   * recount of the ceiling keeps its cut's calm and time.
   */
  onCut(at: number, calm: boolean): void {
    this.#calm = calm;
    this.#cutAt = at;
  }

  /**
   * A probe's event ended with the ceiling `kept` where it started, or not
   * (`near`: within 5 % of it either side); `slow`: at a scope the
   * probe budget's earning floor tops up, where each eager probe's refusal
   * costs more than the budget's share. Found where it was by
   * {@link CONFIRMATIONS} probes in a row, at a slow scope, or near it under
   * an unproven peak (a refill over a pause moves each reading by a few
   * percent either way), `ceiling` is no longer a fallen one: the capacity
   * did not come back, and the peak it was judged fallen from (often a cold
   * start's over-read) comes down to it. One probe is not enough: an early
   * one can find a cold start's under-read where it was. A capacity that
   * rises later is found by the budget's regular probes, as any rise.
   * Elsewhere a proven peak stays: a capacity that fell where it was read
   * calmly may come back.
   */
  onProbe(at: number, ceiling: number, found: ProbeFound, slow: boolean): void {
    const overRead = this.#unproven && ceiling < FALLEN * this.#peak(at);
    this.#kept = (found.kept && slow) || (found.near && overRead) ? this.#kept + 1 : 0;
    if (this.#kept < CONFIRMATIONS || ceiling <= 0) return;
    this.#set(at, ceiling);
    this.#unproven = false;
  }

  /**
   * A reading at `at` per the server's memory (see `ServerMemory`) came to
   * `ceiling`: the readings per a shorter span that set the peak read what a
   * long window let through in seconds, not its rate. The peak comes down to
   * it, proven.
   */
  recall(at: number, ceiling: number): void {
    if (ceiling >= this.#peak(at)) return;
    this.#set(at, ceiling);
    this.#unproven = false;
  }

  /** A probe started at `at`: its count is judged against the peak then ({@link CeilingPeak.rose}). */
  onStart(at: number): void {
    this.#atProbe = this.#peak(at);
  }

  /**
   * Whether a refused probe's `count` (requests/s), read far below the rate it
   * was refused at, says the capacity rose by more than it tells: {@link RISEN}
   * above the peak when the probe started, a capacity well above any lately. A probe
   * climbing to a risen capacity, its excess doubling each second, is refused
   * soon after crossing it, and its count averages the climb (a 3x rise read
   * at two thirds); held there, what it found waits for the budget's next
   * probe, 20 pauses of earning away or more where each refusal brings one.
   * Within the peak the count is no under-read — the probe climbed back
   * toward a level known lately, far from a cut (a fixed window refuses only
   * once its count is spent, well above its rate) — and a fallen ceiling is
   * probed eagerly anyway.
   */
  rose(count: number): boolean {
    return count > this.#atProbe * (1 + RISEN);
  }

  #peak(at: number): number {
    return this.#value * 2 ** (-Math.max(0, at - this.#at) / PEAK_HALF_LIFE_MS);
  }

  #set(at: number, ceiling: number): void {
    this.#value = ceiling;
    this.#at = at;
  }
}
