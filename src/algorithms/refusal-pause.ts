import type { LatestPause } from './latest-pause.js';
import { isRefusal, type Sample } from './sample.js';

/**
 * Pauses for refusals that name none, ms: the first, the longest, and "right
 * after a pause"; and `short`, the first once pauses ended with the server
 * open (see {@link RefusalPause}).
 */
const UNHINTED_PAUSE = { first: 1000, short: 500, max: 32_000, soonMs: 2000 } as const;
/**
 * While the server stays closed, each pause is at most this share of the time
 * it has been closed: waiting out a long window then overshoots its end by at
 * most this share, where doubling could overshoot by as long again.
 */
const CLOSED_SHARE = 0.25;
/**
 * ...but no shorter than the held rate takes to send this many requests: one
 * refusal per pause stays a small share of what the scope sends (a slow one
 * keeps doubling).
 */
const REQUESTS_PER_CLOSED_PAUSE = 100;
/**
 * The short first pause is given only where the held rate sends at least this
 * many requests in the half second it saves: a slower scope keeps the first
 * second (a refusal is a larger share of what it sends, and a pause of a
 * pacing interval or two only shifts the next send).
 */
const SENDS_SAVED_BY_SHORT = 10;

/**
 * A refusal soon after a pause does not grow the next one when the server
 * granted at least this share of what the held rate sent since the pause
 * ended: it reopened, and the refusal is the rate's overshoot, not a pause too
 * short — unless the held rate is under this share of what the server granted
 * in the second before that pause: a limit that just took twice the rate
 * refuses it for what its window still holds (or for a capacity that fell),
 * and the pause grows as before.
 */
const REOPENED = 0.5;

/** What the server granted: its accepted sends, as the rate meter keeps them. */
export interface GrantedSends {
  /** The accepted sends in [`from`, `to`]: how many, and from when they were kept. */
  acceptedSentIn(from: number, to: number): { count: number; fromMs: number } | undefined;
}

/** What a refusal's pause is judged with: the floor, the held rate and the server's grants. */
export interface PauseContext {
  /** The shortest pause, ms. */
  readonly minPauseMs: number;
  /** The rate held, requests/s. */
  readonly rate: number;
  /** The accepted sends in a span; without it, no server is taken to have reopened. */
  readonly granted?: GrantedSends;
}

/** The pause a refusal that names none is given first, ms. */
export const FIRST_UNHINTED_PAUSE_MS = UNHINTED_PAUSE.first;

/**
 * What a pause that added `ms` costs the probe budget (see `ProbeBudget`): a
 * pause the server asked for, in full; one the controller chose itself
 * (`chosen`: the refusal named no pause) no more than half the first it gives
 * such a refusal. Beyond that its doubling answers refusals that came again,
 * each paid already as a refusal: priced in full, a probe's aftermath of 1 + 2 +
 * 4 s stops probing for minutes (at 5 % of the time) where the server asked
 * for no pause at all. And the first second itself is the controller's
 * caution, not the server's price: a bucket, GCRA or log refills within a few
 * sends, a 1 s window within the second (half of it on average); billed a
 * second, each probe of a limit that names no pause cost 20 s of earning, and
 * a capacity that rose waited 10 s on average for the next one.
 */
export function billedPauseMs(ms: number, chosen: boolean): number {
  return chosen ? Math.min(ms, UNHINTED_PAUSE.first / 2) : ms;
}

/**
 * How long to pause for a refusal when the server does not say, or says too
 * little: a second (what most limits count over), doubling while the server
 * refuses again right after each pause, up to 32 s. Without it, a limit that
 * remembers the last second's requests refuses every request sent in that
 * second, each a new congestion event — a collapse. A server still closed as
 * sending resumes is waited out in pauses that grow with how long it has been
 * closed (see {@link CLOSED_SHARE}).
 *
 * Once the pauses since the last new refusal all ended with the server open
 * (no refusal right after, no resume found closed), the next new refusal's
 * pause is half a second: a limit that refills as it goes reopens within a
 * few sends, and a 1 s window held near its grant refuses mostly in the last
 * part of its second (on the family's 1 s limits naming no pause, the real
 * wait was 0-110 ms at the median, over 500 ms in 1 refusal of 15). A longer
 * window, refused right after a pause or still closed as sending resumes,
 * keeps the second.
 */
export class RefusalPause {
  /** The pause the next refusal without a Retry-After brings, ms. */
  #unhintedMs: number = UNHINTED_PAUSE.first;
  /**
   * Whether the pauses since the latest new refusal without a Retry-After all
   * ended with the server open: no refusal came right after one of them.
   */
  #endedOpen = false;
  /** When the server closed: the refusal that began the current run of pauses. */
  #closedSince = 0;

  /**
   * The pause an outcome that does not grow the rate brings, ms (0: none),
   * given the server's `latest` pause:
   * after a send refused as sending resumed (`closed`), a longer one (see
   * `#longer`; `rate`: the rate held, requests/s); else the server's
   * `Retry-After` or, for a refusal that names none, see `#unhinted`; at least
   * `minPauseMs` — but a refusal for concurrency that asks for no pause gets
   * none: a free slot is what it lacked.
   */
  forSample(sample: Sample, closed: boolean, latest: LatestPause, pace: PauseContext): number {
    const hintMs = sample.signal.retryAfterMs;
    if (!closed) this.#closedSince = sample.at;
    const ms = closed
      ? this.#longer(hintMs, latest, sample.at, pace.rate)
      : (hintMs ?? this.#unhinted(sample, latest, pace));
    if (ms === undefined || !Number.isFinite(ms)) return 0;
    return sample.overConcurrency ? ms : Math.max(pace.minPauseMs, ms);
  }

  /**
   * The pause a refusal that names none brings, given the `latest`
   * pause: see `#soonAfter` for one sent within 2 s of its end, else
   * `#fresh`; none for a refusal of concurrency (the concurrency limit
   * handles that), for anything that is not a refusal, or for a request sent
   * before the last pause ended (the same burst).
   */
  #unhinted(sample: Sample, latest: LatestPause, pace: PauseContext): number | undefined {
    if (!isRefusal(sample) || sample.overConcurrency) return undefined;
    const endedAt = latest.end;
    if (sample.sentAt < endedAt) return undefined;
    const sinceMs = sample.sentAt - endedAt;
    this.#unhintedMs =
      sinceMs < UNHINTED_PAUSE.soonMs
        ? this.#soonAfter(sample, latest, pace)
        : this.#fresh(pace.rate);
    return this.#unhintedMs;
  }

  /**
   * A refusal soon after the `latest` pause: the pause did not end with the
   * server open. Twice the last unhinted pause (up to 32 s), or a second if
   * the server reopened (see {@link REOPENED}).
   */
  #soonAfter(sample: Sample, latest: LatestPause, pace: PauseContext): number {
    this.#endedOpen = false;
    return reopened(sample.sentAt, latest, pace)
      ? UNHINTED_PAUSE.first
      : Math.min(UNHINTED_PAUSE.max, this.#unhintedMs * 2);
  }

  /**
   * A new refusal (none within 2 s of the last pause's end): half a second if
   * every pause since the last new one ended with the server open and the held
   * `rate` (requests/s) sends {@link SENDS_SAVED_BY_SHORT} requests in the
   * half second saved; else a second.
   */
  #fresh(rate: number): number {
    const saved = ((UNHINTED_PAUSE.first - UNHINTED_PAUSE.short) * rate) / 1000;
    const short = this.#endedOpen && saved >= SENDS_SAVED_BY_SHORT;
    this.#endedOpen = true;
    return short ? UNHINTED_PAUSE.short : UNHINTED_PAUSE.first;
  }

  /**
   * The pause after a refusal at `at` as sending resumed: the `latest`
   * pause proved too short, so up to twice as long (and 32 s) — a quarter of
   * the time closed so far, or what the held `rate` takes to send
   * {@link REQUESTS_PER_CLOSED_PAUSE} requests if longer — or the server's
   * word (`hintMs`) if it asks for longer. A limit over a long window that
   * answers `Retry-After: 0` (or nothing, or the same short pause) until the
   * window ends is waited out in pauses that grow with it.
   */
  #longer(hintMs: number | undefined, latest: LatestPause, at: number, rate: number): number {
    const grown = Math.max(
      CLOSED_SHARE * (at - this.#closedSince),
      (1000 * REQUESTS_PER_CLOSED_PAUSE) / rate,
    );
    const doubled = 2 * latest.lengthMs;
    this.#endedOpen = false;
    this.#unhintedMs = Math.min(
      UNHINTED_PAUSE.max,
      Math.max(UNHINTED_PAUSE.first, Math.min(doubled, grown)),
    );
    return Math.max(hintMs ?? 0, this.#unhintedMs);
  }
}

/**
 * Whether the server reopened after the `latest` pause, for a refusal sent at
 * `sentAt` (see {@link REOPENED}): it granted at least half of what the held
 * rate sent since the pause ended, and the rate is at least half of what it
 * granted in the second before the pause began.
 */
function reopened(sentAt: number, latest: LatestPause, pace: PauseContext): boolean {
  const { granted, rate } = pace;
  if (granted === undefined) return false;
  const endedAt = latest.end;
  const owed = Math.max(1, (REOPENED * rate * (sentAt - endedAt)) / 1000);
  if ((granted.acceptedSentIn(endedAt, sentAt)?.count ?? 0) < owed) return false;
  const began = endedAt - latest.lengthMs;
  const before = granted.acceptedSentIn(began - UNHINTED_PAUSE.first, began);
  const spanMs = before === undefined ? 0 : began - before.fromMs;
  return spanMs <= 0 || rate >= (REOPENED * 1000 * (before?.count ?? 0)) / spanMs;
}
