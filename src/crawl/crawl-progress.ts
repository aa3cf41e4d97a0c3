import type { CancelTimer, Clock } from '../clock.js';
import type { ScopeRegistry } from '../controller/registry.js';
import type { CrawlTally } from './crawl-tally.js';

/** The scope with the most work, as the progress shows it. */
export interface BusiestScope {
  scope: string;
  /** Current concurrency limit. */
  limit: number;
  /** Current pacing rate, requests/s; `null` when unpaced. */
  rate: number | null;
  inflight: number;
  queued: number;
}

/** A crawl's progress at one moment. */
export interface CrawlProgress {
  /** Seconds since the crawl started. */
  elapsedS: number;
  /** URLs finished (written), this run. */
  done: number;
  /**
   * URLs in the input (blank lines and comments not counted), when known:
   * `done + skipped` reaches it when the crawl has been through them all.
   */
  total?: number;
  /** URLs skipped by `--resume`. */
  skipped: number;
  /** 2xx responses so far. */
  ok: number;
  /** 2xx responses per second over the last few seconds. */
  okPerSecond: number;
  /** 429 responses so far. */
  throttled: number;
  /** URLs given up so far. */
  failed: number;
  /** Responses so far, retries included. */
  requests: number;
  /** The scope with the most requests in flight or waiting. */
  busiest?: BusiestScope;
  /** URLs set aside so far because their scope is paused too long. */
  setAside: number;
  /** The scope paused longest, if any is: seconds left and why. */
  paused?: { scope: string; leftS: number; reason: string };
}

/** Span over which ok/s is measured, ms. */
const RATE_SPAN_MS = 5000;

/** Builds progress snapshots, measuring ok/s over a sliding span. */
export class ProgressMeter {
  readonly #marks: { at: number; ok: number }[] = [{ at: 0, ok: 0 }];

  constructor(
    private readonly tally: CrawlTally,
    private readonly registry: ScopeRegistry,
    private readonly total: number | undefined,
    private readonly clock: Clock,
  ) {}

  /** The progress `elapsedMs` into the crawl. */
  snapshot(elapsedMs: number): CrawlProgress {
    const { tally } = this;
    this.#marks.push({ at: elapsedMs, ok: tally.ok });
    while (this.#marks.length > 2 && (this.#marks[1]?.at ?? 0) <= elapsedMs - RATE_SPAN_MS)
      this.#marks.shift();
    const first = this.#marks[0] ?? { at: 0, ok: 0 };
    const span = elapsedMs - first.at;
    const progress: CrawlProgress = {
      elapsedS: elapsedMs / 1000,
      done: tally.urls,
      skipped: tally.skipped,
      ok: tally.ok,
      okPerSecond: span > 0 ? ((tally.ok - first.ok) * 1000) / span : 0,
      throttled: tally.throttled,
      failed: tally.failed,
      requests: tally.requests,
      setAside: tally.setAside.count,
    };
    if (this.total !== undefined) progress.total = this.total;
    const busiest = this.#busiest();
    if (busiest) progress.busiest = busiest;
    const paused = this.#longestPause();
    if (paused) progress.paused = paused;
    return progress;
  }

  #longestPause(): CrawlProgress['paused'] {
    let longest: { scope: string; until: number; reason: string } | undefined;
    for (const c of this.registry.controllers()) {
      const pause = c.pause;
      if (pause && (longest === undefined || pause.until > longest.until)) {
        longest = { scope: c.scope, ...pause };
      }
    }
    if (longest === undefined) return undefined;
    const leftS = Math.ceil((longest.until - this.clock.now()) / 1000);
    return { scope: longest.scope, leftS, reason: longest.reason };
  }

  #busiest(): BusiestScope | undefined {
    let best: BusiestScope | undefined;
    for (const c of this.registry.controllers()) {
      if (best && c.inflight + c.queued <= best.inflight + best.queued) continue;
      const rate = c.rate;
      best = {
        scope: c.scope,
        limit: c.limit,
        rate: rate === Infinity ? null : rate,
        inflight: c.inflight,
        queued: c.queued,
      };
    }
    return best;
  }
}

/** Calls `tick` every `intervalMs` of `clock` time until cancelled. */
export function every(clock: Clock, intervalMs: number, tick: () => void): CancelTimer {
  let cancel: CancelTimer = () => {};
  const arm = () => {
    cancel = clock.setTimer(intervalMs, () => {
      tick();
      arm();
    });
  };
  arm();
  return () => cancel();
}
