import type { ControlEvent, EventSink } from '../events/event.js';
import { type CrawlResult, isFailure } from './crawl-result.js';
import { type PausedScope, SetAside } from './set-aside.js';

/** What a crawl did, as `--json` prints it. */
export interface CrawlSummary {
  /** Responses received, retries and redirect hops included. */
  requests: number;
  /** 2xx responses. */
  ok: number;
  /** 429 responses. */
  throttled: number;
  /** URLs given up: no response after the retries, a failed body, a final status that is not 2xx/3xx, or malformed. */
  failed: number;
  /** Wall time of the crawl, s. */
  elapsedS: number;
  /** Responses by status code. */
  byStatus: Record<string, number>;
  /** URLs finished (written) in this run. */
  urls: number;
  /** URLs skipped because `--resume` found them done. */
  skipped: number;
  /** Input lines that were not http(s) URLs. */
  malformed: number;
  /** Why the crawl ended. */
  stopped: 'done' | 'duration' | 'interrupted';
  /** URLs set aside because their scope is paused too long; not written, so `--resume` fetches them. */
  setAside: number;
  /** The paused scopes they belong to: until when, why, how many URLs. */
  paused: PausedScope[];
}

/** Counts responses (from the controller's sample events) and finished URLs. */
export class CrawlTally {
  requests = 0;
  ok = 0;
  throttled = 0;
  readonly byStatus: Record<string, number> = {};
  urls = 0;
  failed = 0;
  skipped = 0;
  malformed = 0;
  /** URLs of paused scopes, set aside. */
  readonly setAside = new SetAside();

  /** An event sink that counts every response the controllers saw. */
  readonly sink: EventSink = (event: ControlEvent) => {
    if (event.type !== 'sample' || event.status === undefined) return;
    this.requests++;
    if (event.status >= 200 && event.status < 300) this.ok++;
    if (event.status === 429) this.throttled++;
    const key = String(event.status);
    this.byStatus[key] = (this.byStatus[key] ?? 0) + 1;
  };

  /** Counts one finished URL. */
  record(result: CrawlResult): void {
    this.urls++;
    if (result.signal === null && result.attempts === 0) this.malformed++;
    if (isFailure(result)) this.failed++;
  }

  /** The summary after `elapsedS` seconds. */
  summary(elapsedS: number, stopped: CrawlSummary['stopped']): CrawlSummary {
    return {
      requests: this.requests,
      ok: this.ok,
      throttled: this.throttled,
      failed: this.failed,
      elapsedS: Math.round(elapsedS * 1000) / 1000,
      byStatus: { ...this.byStatus },
      urls: this.urls,
      skipped: this.skipped,
      malformed: this.malformed,
      stopped,
      setAside: this.setAside.count,
      paused: this.setAside.scopes(),
    };
  }
}
