import type { Writable } from 'node:stream';
import { Presets, SingleBar } from 'cli-progress';
import type { BusiestScope, CrawlProgress } from '../crawl/crawl-progress.js';

/** Shows a crawl's progress. */
export interface ProgressDisplay {
  /** How often it wants an update, ms. */
  readonly intervalMs: number;
  update(progress: CrawlProgress): void;
  /** Leaves the last state on screen. */
  stop(): void;
}

/**
 * A live bar on a terminal (URLs done or skipped by `--resume`, out of the
 * total when known; ok/s, the busiest scope's limit and rate, 429s), plain
 * periodic lines anywhere else (a log, a pipe) or when `bar` is `false`.
 */
export function progressDisplay(
  stream: Writable & { isTTY?: boolean },
  bar = true,
): ProgressDisplay {
  return stream.isTTY && bar ? terminalBar(stream) : plainLines(stream);
}

function terminalBar(stream: Writable): ProgressDisplay {
  let bar: SingleBar | undefined;
  return {
    intervalMs: 250,
    update(progress) {
      const payload = { status: status(progress) };
      if (!bar) {
        const format =
          progress.total === undefined
            ? '{value} done | {status}'
            : '{bar} {value}/{total} | {status}';
        bar = new SingleBar(
          { format, stream, hideCursor: true, clearOnComplete: false, fps: 4, barsize: 24 },
          Presets.shades_classic,
        );
        bar.start(progress.total ?? 0, through(progress), payload);
      }
      bar.update(through(progress), payload);
    },
    stop: () => bar?.stop(),
  };
}

function plainLines(stream: Writable): ProgressDisplay {
  return {
    intervalMs: 2000,
    update(progress) {
      const done =
        progress.total === undefined
          ? `${through(progress)}`
          : `${through(progress)}/${progress.total}`;
      stream.write(
        `ratewise crawl: ${progress.elapsedS.toFixed(1)}s done ${done} | ${status(progress)}\n`,
      );
    },
    stop() {},
  };
}

/** URLs the crawl is through: finished this run, or skipped as done by an earlier one. */
function through(progress: CrawlProgress): number {
  return progress.done + progress.skipped;
}

function status(progress: CrawlProgress): string {
  const parts = [
    `${progress.okPerSecond.toFixed(1)} ok/s`,
    `429s ${progress.throttled}`,
    `failed ${progress.failed}`,
  ];
  if (progress.busiest) parts.push(scopeLine(progress.busiest));
  const { paused } = progress;
  if (paused) parts.push(`paused ${paused.scope} ${paused.leftS} s (${paused.reason})`);
  if (progress.setAside > 0) parts.push(`set aside ${progress.setAside}`);
  return parts.join(' | ');
}

function scopeLine(scope: BusiestScope): string {
  const rate = scope.rate === null ? 'unpaced' : `${scope.rate.toFixed(1)}/s`;
  return `${scope.scope} limit ${scope.limit} rate ${rate} in flight ${scope.inflight}`;
}
