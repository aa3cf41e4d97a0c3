/**
 * Share of what the server served when a latency alarm fired that a cleared
 * alarm restores: the margin under which a queue drains (nginx's default
 * `limit_req` serves its queue at its rate, and a client sending at 90 % of
 * that rate finds its latency back at the unloaded one).
 */
const RESTORED_SHARE = 0.9;
/**
 * An alarm during a restored ceiling's hold, when the server served under this share of it:
 * a queue serves its own rate whatever is sent, so the restore overshot it (what was served
 * when the first alarm fired included a burst), and the next restore is read from what it
 * serves now. A tarpit serves all it is sent, late: there it served about the held rate.
 */
const QUEUE_SHARE = 0.9;

/**
 * What a cleared latency alarm (slowing down helped) puts back. The alarm's
 * decisive cut — a quarter of what was served — tells whether the latency
 * follows our rate; it does not say that a quarter is what the server keeps
 * up with. Where latency is a queue building (it grows while we send above
 * the rate the server drains at, and falls back once we are under it), what
 * was served when the alarm fired is that drain rate: the alarm restores a
 * little under it, not a quarter, and the probe starts from there.
 *
 * A restore can be too high: a tarpit delays each request over its free rate
 * while serving all of them, so what it served when the alarm fired is more
 * than it allows. An alarm firing again while a restored ceiling is still
 * held (before any probe), the server serving about the held rate, says so,
 * and from then on a cleared alarm keeps the quarter, as it did before. A
 * queue serving clearly less than the restore was only overshot: what was
 * served at the first alarm included a burst (see {@link QUEUE_SHARE}).
 */
export class ClearedRestore {
  /** What the server served when the current alarm fired, requests/s. */
  #servedAtAlarm = 0;
  /** Until when the last restored ceiling is held: an alarm before then refutes it. */
  #heldUntil = -Infinity;
  /** Whether an alarm fired while a restored ceiling was held. */
  #refuted = false;

  /** The last restored ceiling, requests/s. */
  #restored = 0;

  /**
   * Notes an alarm's first cut at `at` (monotonic ms), when the server served `served`
   * requests/s. One while a restored ceiling is held refutes it, unless the server served
   * clearly less than it (see {@link QUEUE_SHARE}): a queue held over its rate, not a tarpit.
   */
  onAlarm(at: number, served: number): void {
    if (at < this.#heldUntil && served >= QUEUE_SHARE * this.#restored) this.#refuted = true;
    this.#servedAtAlarm = served;
  }

  /**
   * The ceiling (requests/s) a cleared alarm restores above `ceiling`, held
   * until `holdUntil`; undefined to keep `ceiling` (a restore was refuted, or
   * this one would not raise it).
   */
  restore(ceiling: number, holdUntil: number): number | undefined {
    const restored = this.#servedAtAlarm * RESTORED_SHARE;
    if (this.#refuted || !(restored > ceiling)) return undefined;
    this.#heldUntil = holdUntil;
    this.#restored = restored;
    return restored;
  }
}
