import { isRefusal, type Sample } from '../algorithms/sample.js';

/**
 * How the server answered the sends a slow start made after its first
 * refused send and before that refusal was heard (sent in between, heard in
 * any order). Those sent in the same instant as it are a clump whatever
 * limit refuses at its last arrival: their successes count only once one
 * sent after it was granted too. A limit that refuses by what is in flight — a concurrency cap —
 * grants the next sends as requests leave; a window or a bucket the burst ran
 * out refuses them until it resets or refills. Under timing noise, where a
 * success of that burst may count past the cap answers still on their way,
 * this is what tells a cap the noise blurred from a burst that ran out (see
 * `CapTrial`). Slow pages make few such sends: none says nothing.
 */
export class BurstAfterRefusal {
  readonly #from: number;
  readonly #until: number;
  #granted = 0;
  /** Successes sent in the refused one's instant. */
  #grantedWith = 0;
  #refused = 0;

  /** @param refusal the slow start's first refusal: sends made after it left, until it came back, are counted. */
  constructor(refusal: Sample) {
    this.#from = refusal.sentAt;
    this.#until = refusal.at;
  }

  /** Notes an outcome; only those of sends made in between count. */
  onSample(sample: Sample): void {
    const { sentAt } = sample;
    if (!(sentAt >= this.#from && sentAt <= this.#until)) return;
    const ok = sample.signal.kind === 'ok';
    if (sentAt === this.#from) this.#grantedWith += ok ? 1 : 0;
    else if (ok) this.#granted++;
    else if (isRefusal(sample)) this.#refused++;
  }

  /** Those granted: after it, and once one after it was, those sent with it. */
  get #grants(): number {
    return this.#granted > 0 ? this.#granted + this.#grantedWith : 0;
  }

  /** Whether those heard so far leave it open: one granted at least, and no more refused. */
  get open(): boolean {
    return this.#grants > 0 && this.#grants >= this.#refused;
  }

  /** Whether more of those sends were granted than refused (none heard: no). */
  get granted(): boolean {
    return this.#grants > this.#refused;
  }
}
