import { isRefusal, type Sample } from './sample.js';

/** The sends this long after the scope's first refused send show how its limit refused, ms. */
const AFTER_MS = 100;

/**
 * How the server answered the sends that went out just after the scope's
 * first refused send (within {@link AFTER_MS}, before any pause stopped
 * them). A window or a log that refused its count refuses everything after
 * it until it resets; a bucket or a GCRA of a small burst refuses a slow
 * start's clump of sends, not a rate, and grants the next sends as its
 * tokens come back, a few ms later. Where it granted more of them than it
 * refused, what the slow start sent before that refusal was a clump the
 * burst could not hold, below the limit's rate: its first count is a lower
 * bound (see `CeilingRecounts.due`). Not saved.
 */
export class FirstRefusal {
  /** The first refused send, ms; undefined before any refusal. */
  #sentAt: number | undefined;
  #accepted = 0;
  #refused = 0;

  /** Notes an outcome (any order of arrival: the sends are judged by when they left). */
  onSample(sample: Sample): void {
    if (this.#sentAt === undefined) {
      if (isRefusal(sample)) this.#sentAt = sample.sentAt;
      return;
    }
    const after = sample.sentAt - this.#sentAt;
    if (!(after > 0 && after <= AFTER_MS)) return;
    if (sample.signal.kind === 'ok') this.#accepted++;
    else if (isRefusal(sample)) this.#refused++;
  }

  /** Whether the sends just after the first refused one were granted more often than refused. */
  get grantedAfter(): boolean {
    return this.#accepted > this.#refused;
  }
}
