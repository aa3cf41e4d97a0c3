import type { Writable } from 'node:stream';
import { Presets, SingleBar } from 'cli-progress';
import type { Clock } from '../clock.js';

/** What a baseline capture is about to do. */
export interface CapturePlan {
  hosts: number;
  /** Requests per host. */
  requests: number;
  /** Time between two requests to a host, ms. */
  intervalMs: number;
}

/** Shows a capture's progress; `request()` after each request, `stop()` at the end. */
export interface CaptureProgress {
  request(): void;
  stop(): void;
}

/** Plain progress lines are written at most this often (clock time), ms. */
const LINE_EVERY_MS = 10_000;

/**
 * Progress of `baseline capture` on stderr: first one line saying what it
 * will do and about how long it takes (hosts are captured side by side, one
 * request per interval each), then a bar with the time left on a terminal,
 * or a plain line every 10 s anywhere else (a log, a pipe, a test).
 */
export function captureProgress(
  stream: Writable & { isTTY?: boolean },
  clock: Pick<Clock, 'now'>,
  plan: CapturePlan,
): CaptureProgress {
  const total = plan.hosts * plan.requests;
  const hosts = `${plan.hosts} host${plan.hosts === 1 ? '' : 's'}`;
  const each = plan.intervalMs >= 1000 ? `${plan.intervalMs / 1000} s` : `${plan.intervalMs} ms`;
  stream.write(
    `ratewise baseline: capturing ${hosts}, ${plan.requests} requests each, one every ${each}: about ${duration(plan.requests * plan.intervalMs)}\n`,
  );
  const started = clock.now();
  let done = 0;
  // Paced: at least one interval per request left on a host; slower when requests take longer.
  const left = () => {
    const paced = ((total - done) / plan.hosts) * plan.intervalMs;
    const measured = done > 0 ? ((clock.now() - started) * (total - done)) / done : 0;
    return Math.max(paced, measured);
  };
  if (stream.isTTY) {
    const bar = new SingleBar(
      { format: '{bar} {value}/{total} requests | about {left} left', stream, barsize: 24 },
      Presets.shades_classic,
    );
    bar.start(total, 0, { left: duration(left()) });
    return {
      request: () => bar.update(++done, { left: duration(left()) }),
      stop: () => bar.stop(),
    };
  }
  let lastLine = started;
  return {
    request() {
      done++;
      if (clock.now() - lastLine < LINE_EVERY_MS || done === total) return;
      lastLine = clock.now();
      stream.write(
        `ratewise baseline: ${done}/${total} requests, about ${duration(left())} left\n`,
      );
    },
    stop() {},
  };
}

/** `95 s`, `3 min 20 s`. */
function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  const rest = s % 60;
  return `${Math.floor(s / 60)} min${rest > 0 ? ` ${rest} s` : ''}`;
}
