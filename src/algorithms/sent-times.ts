/** The send times of this many recent acceptances are kept. */
const SENT_KEPT = 256;

/**
 * The send times of the latest acceptances, a ring of constant size. A
 * refusal arrives before the acceptances sent just ahead of it, so ceilings
 * are recounted by send time once those are in (slow start ramps so fast
 * that an average lags what the server accepted when it first refused).
 */
export class SentTimes {
  #sent: number[] = [];
  #next = 0;

  /** Keeps `sentAt`, dropping the oldest once the ring is full. */
  keep(sentAt: number): void {
    const sent = this.#sent;
    // The first send gets an array of one: a push would reserve 17 slots, and most scopes serve few requests.
    if (sent.length === 0) this.#sent = [sentAt];
    else if (sent.length < SENT_KEPT) sent.push(sentAt);
    else sent[this.#next] = sentAt;
    this.#next = (this.#next + 1) % SENT_KEPT;
  }

  /**
   * Sends in [`from`, `to`], and the span they were counted over: [`from`,
   * `to`], or less when the kept sends reach back no further (the ring is
   * full, or sending began later) — then from the oldest kept send.
   * Undefined when none are kept.
   */
  countIn(from: number, to: number): { count: number; fromMs: number } | undefined {
    const sent = this.#sent;
    if (sent.length === 0) return undefined;
    let oldest = Infinity;
    for (const t of sent) oldest = Math.min(oldest, t);
    const start = Math.max(from, oldest);
    let count = 0;
    for (const t of sent) if (t >= start && t <= to) count++;
    return { count, fromMs: start };
  }

  /**
   * How many kept sends came after `to`, or undefined when the ring holds
   * nothing older (it may have dropped some of them).
   */
  countAfter(to: number): number | undefined {
    let count = 0;
    for (const t of this.#sent) if (t > to) count++;
    return count < this.#sent.length || this.#sent.length < SENT_KEPT ? count : undefined;
  }

  /**
   * The fastest spacing of the kept sends in [`from`, `to`], as a rate: one
   * over the shortest time between two consecutive ones, requests/s. The
   * latest kept send before `from` opens the first spacing: at a request or
   * two a second a span holds one send or two, and the spacing into it is
   * as much a grant as those within. Undefined with fewer than two.
   */
  fastestIn(from: number, to: number): number | undefined {
    let before = -Infinity;
    for (const t of this.#sent) if (t < from && t > before) before = t;
    const times = this.#sent.filter((t) => t >= from && t <= to);
    if (before > -Infinity) times.push(before);
    times.sort((a, b) => a - b);
    let shortest = Infinity;
    for (let i = 1; i < times.length; i++) {
      shortest = Math.min(shortest, (times[i] ?? 0) - (times[i - 1] ?? 0));
    }
    return shortest > 0 && shortest < Infinity ? 1000 / shortest : undefined;
  }
}
