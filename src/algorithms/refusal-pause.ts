import type { RateMeter } from './rate-meter.js';
import { isRefusal, type Sample } from './sample.js';

/** Pauses for refusals that name none, ms: the first, the longest, and "right after a pause". */
const UNHINTED_PAUSE = { first: 1000, max: 32_000, soonMs: 2000 } as const;

/** The pause a refusal that names none is given first, ms. */
export const FIRST_UNHINTED_PAUSE_MS = UNHINTED_PAUSE.first;

/**
 * How long to pause for a refusal when the server does not say, or says too
 * little: a second (what most limits count over), doubling while the server
 * refuses again right after each pause, up to 32 s. Without it, a limit that
 * remembers the last second's requests refuses every request sent in that
 * second, each a new congestion event — a collapse.
 */
export class RefusalPause {
  /** The pause the next refusal without a Retry-After brings, ms. */
  #unhintedMs: number = UNHINTED_PAUSE.first;

  /**
   * The pause an outcome that does not grow the rate brings, ms (0: none):
   * after a send refused as sending resumed (`closed`), a longer one (see `#longer`);
   * else the server's `Retry-After` or, for a refusal that names none,
   * see `#unhinted`; at least `minPauseMs` — but a refusal for concurrency
   * that asks for no pause gets none: a free slot is what it lacked.
   */
  forSample(sample: Sample, closed: boolean, meter: RateMeter, minPauseMs: number): number {
    const hintMs = sample.signal.retryAfterMs;
    const ms = closed ? this.#longer(hintMs, meter) : (hintMs ?? this.#unhinted(sample, meter));
    if (ms === undefined || !Number.isFinite(ms)) return 0;
    return sample.overConcurrency ? ms : Math.max(minPauseMs, ms);
  }

  /**
   * The pause a refusal that names none brings, given the `meter`'s last
   * pause; none for a refusal of concurrency (the concurrency limit handles
   * that), for anything that is not a refusal, or for a request sent before
   * the last pause ended (the same burst).
   */
  #unhinted(sample: Sample, meter: RateMeter): number | undefined {
    if (!isRefusal(sample) || sample.overConcurrency) return undefined;
    const endedAt = meter.pauseEnd;
    if (sample.sentAt < endedAt) return undefined;
    const soon = sample.sentAt - endedAt < UNHINTED_PAUSE.soonMs;
    this.#unhintedMs = soon
      ? Math.min(UNHINTED_PAUSE.max, this.#unhintedMs * 2)
      : UNHINTED_PAUSE.first;
    return this.#unhintedMs;
  }

  /**
   * The pause after a refusal as sending resumed: the `meter`'s last pause
   * proved too short, so twice as long (up to 32 s), or the server's word
   * (`hintMs`) if it asks for longer. A limit over a long window that answers
   * `Retry-After: 0` (or nothing) until the window ends is waited out in a few
   * doublings.
   */
  #longer(hintMs: number | undefined, meter: RateMeter): number {
    this.#unhintedMs = Math.min(
      UNHINTED_PAUSE.max,
      Math.max(UNHINTED_PAUSE.first, 2 * meter.lastPauseMs),
    );
    return Math.max(hintMs ?? 0, this.#unhintedMs);
  }
}
