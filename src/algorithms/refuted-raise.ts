/** A reading within this share of a refuted raise's is that raise again. */
const SAME = 0.05;
/** A probe's raise is refuted by a refusal of the rate held under it within this long, ms. */
const TRIAL_MS = 10_000;

/** A ceiling a refused probe raised, requests/s. */
interface Raise {
  /** The ceiling the probe climbed from. */
  readonly from: number;
  /** The ceiling its reading set. */
  readonly to: number;
}

/**
 * A refused probe's raise that the rate held under it refuted, and what a later probe's reading
 * is then worth. A window or a bucket takes every send until it fills, so a refused probe's
 * accepted sends came at its own pace and its count reads above the capacity by as much as the
 * probe climbed in its last window; held a margin under that, the rate is refused again within
 * seconds (a 30 req/s window: climbed from 29.1, read 31.1, held 30.3, refused two seconds after
 * the pause). On a scope where that happened, the next probe from the same ceiling climbs the
 * same way and reads the same: a reading no higher than the refuted one (within {@link SAME}),
 * from a ceiling no lower than the refuted raise's, finds the capacity where it was. A reading
 * above it, or one from a ceiling that fell since (the capacity moved), is believed. Not saved.
 */
export class RefutedRaise {
  /** The latest probe's raise, and when it was made; undefined once judged. */
  #onTrial: (Raise & { at: number }) | undefined;
  /** The latest raise the held rate refuted. */
  #refuted: Raise | undefined;

  /** A refused probe raised the ceiling `from` → `to` at `at` (ms). */
  raised(from: number, to: number, at: number): void {
    this.#onTrial = to > from * (1 + SAME) ? { from, to, at } : undefined;
  }

  /** The rate held (not probing) was refused at `at`: a raise on trial within {@link TRIAL_MS} is refuted. */
  heldRefused(at: number): void {
    const raise = this.#onTrial;
    this.#onTrial = undefined;
    if (raise !== undefined && at - raise.at <= TRIAL_MS) this.#refuted = raise;
  }

  /**
   * Whether a refused probe's `reading`, climbed from the ceiling `from`, says more than a
   * refuted raise did: false when it is no higher than that raise's reading (within {@link SAME})
   * and the probe climbed from a ceiling no lower than that raise's (within {@link SAME}).
   */
  believes(from: number, reading: number): boolean {
    const refuted = this.#refuted;
    if (refuted === undefined || !(reading > from)) return true;
    return from < refuted.from * (1 - SAME) || reading > refuted.to * (1 + SAME);
  }
}
