/** A reading within this share of a refuted raise's is that raise again. */
const SAME = 0.05;
/** A probe's raise is refuted by a refusal of the rate held under it within this long, ms. */
const TRIAL_MS = 10_000;
/**
 * A refusal refutes a raise only where its cut reads at least this share of the raise's reading:
 * a cut to its floor (half the rate refused, a grant read over a pause) reads no capacity, and
 * taken as what later probes are worth it held a 416 req/s window at 200 for good.
 */
const READ_SHARE = 0.75;

/** A refused probe's raise that the rate held under it refuted, requests/s. */
interface Refuted {
  /** The ceiling the probe's reading set. */
  readonly reading: number;
  /** The ceiling the refusal of the rate held under it set. */
  readonly held: number;
}

/**
 * A refused probe's raise that the rate held under it refuted, and what a later probe's reading
 * is then worth. A window or a bucket takes every send until it fills, so a refused probe's
 * accepted sends came at its own pace and its count reads above the capacity by as much as the
 * probe climbed in its last window; held a margin under that, the rate is refused again within
 * seconds (a 30 req/s window: climbed from 29.1, read 31.1, held 30.3, refused two seconds after
 * the pause, read 29.9 there). The next probe on that scope climbs the same way and reads the
 * same: a reading no higher than the refuted one (within {@link SAME}) is taken no higher than
 * what the held rate's refusal read. A reading above it is believed (the capacity rose). Only a
 * refusal that names a pause is told (`cutOnRefusal`): a free one costs a refusal, and held back
 * by it a capacity that rose 4x behind `Retry-After: 0` was found a second late. Not saved.
 */
export class RefutedRaise {
  /** The latest probe's raise (the ceiling its reading set) and when; undefined once judged. */
  #onTrial: { reading: number; at: number } | undefined;
  /** The latest raise the held rate refuted. */
  #refuted: Refuted | undefined;

  /** A refused probe's reading raised the ceiling `from` → `to` at `at` (ms): on trial if by more than {@link SAME}. */
  raised(from: number, to: number, at: number): void {
    this.#onTrial = to > from * (1 + SAME) ? { reading: to, at } : undefined;
  }

  /**
   * The rate held (not probing) was refused at `at`, and its cut set `ceiling`: a raise on trial
   * within {@link TRIAL_MS} is refuted.
   */
  heldRefused(at: number, ceiling: number): void {
    const raise = this.#onTrial;
    this.#onTrial = undefined;
    if (raise === undefined || at - raise.at > TRIAL_MS || !(ceiling < raise.reading)) return;
    if (ceiling < raise.reading * READ_SHARE) return;
    this.#refuted = { reading: raise.reading, held: ceiling };
  }

  /**
   * A refused probe's `reading`, worth no more than what the held rate's refusal read where it is
   * no higher than a refuted raise's reading (within {@link SAME}).
   */
  worth(reading: number): number {
    const refuted = this.#refuted;
    if (refuted === undefined || reading > refuted.reading * (1 + SAME)) return reading;
    return Math.min(reading, refuted.held);
  }
}
