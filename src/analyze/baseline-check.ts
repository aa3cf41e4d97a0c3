import type { Clock } from '../clock.js';
import type { LatencyBaseline } from '../detect/baseline-file.js';
import { type BaselineCheckOptions, checkAgainstBaseline } from '../detect/latency-baseline.js';
import { type BaselineRunOptions, captureBaselines } from './baseline-capture-run.js';
import { parseLogLine, requestOfLine } from './parse-line.js';
import type { Probe } from './probe.js';
import type { RequestRecord } from './records.js';
import { type LineUse, LineUseCounter } from './unusable-log.js';

/** The answer for one host. */
export interface HostCheck {
  host: string;
  /** `slow`: live p95 > threshold × baseline p95; `no-baseline`: nothing to compare with. */
  verdict: 'ok' | 'slow' | 'insufficient-data' | 'no-baseline';
  /** p95 of the live latencies, ms. */
  liveP95: number | null;
  baselineP95: number | null;
  /** liveP95 / baselineP95. */
  ratio: number | null;
  /** Live latencies used. */
  samples: number;
  /** Why there is no verdict, for `no-baseline`. */
  message?: string;
}

/** Exit status of `ratewise baseline check`. */
export const CHECK_EXIT = {
  /** Every host with a baseline is within the threshold. */
  healthy: 0,
  /** At least one host is slow. */
  alarm: 1,
  /** No host could be judged (too few latencies, or no baseline for any host). */
  unknown: 3,
} as const;

/**
 * The last `window` successful latencies of each host in a log (any format
 * `analyze` reads); memory is `window` numbers per host.
 */
export class HostLatencies {
  readonly #window: number;
  readonly #byHost = new Map<string, number[]>();
  readonly #lines = new LineUseCounter();

  /** @param window Latencies kept per host (an integer >= 1; the caller validates it). */
  constructor(window: number) {
    this.#window = window;
  }

  /** Reads one log line; lines without a host or latency, failures and malformed lines are skipped. */
  push(line: string): void {
    const parsed = parseLogLine(line);
    this.#lines.add(parsed);
    const request = requestOfLine(parsed);
    if (request) this.add(request);
  }

  /** How many of the lines pushed were understood. */
  get lines(): LineUse {
    return this.#lines.use;
  }

  /** Adds a request's latency under its host, when it succeeded. */
  add(request: RequestRecord): void {
    const ok = !request.failed && (request.status === undefined || request.status < 400);
    if (!ok || request.host === undefined || request.latencyMs === undefined) return;
    const list = this.#byHost.get(request.host) ?? [];
    list.push(request.latencyMs);
    if (list.length > this.#window) list.shift();
    this.#byHost.set(request.host, list);
  }

  /** Hosts seen, in first-seen order, with their latencies. */
  get hosts(): ReadonlyMap<string, readonly number[]> {
    return this.#byHost;
  }
}

/** Judges one host's live latencies against its baseline (or says it has none). */
export function checkHost(
  host: string,
  latencies: readonly number[],
  baseline: LatencyBaseline | string,
  options: BaselineCheckOptions = {},
): HostCheck {
  if (typeof baseline === 'string') {
    return {
      host,
      verdict: 'no-baseline',
      liveP95: null,
      baselineP95: null,
      ratio: null,
      samples: latencies.length,
      message: baseline,
    };
  }
  const v = checkAgainstBaseline(latencies, baseline, options);
  return {
    host,
    verdict: v.verdict,
    liveP95: v.liveP95,
    baselineP95: v.baselineP95,
    ratio: v.ratio,
    samples: v.samples,
  };
}

/** The exit status for a set of host checks (see {@link CHECK_EXIT}). */
export function checkExitCode(checks: readonly HostCheck[]): number {
  if (checks.some((c) => c.verdict === 'slow')) return CHECK_EXIT.alarm;
  if (checks.some((c) => c.verdict === 'ok')) return CHECK_EXIT.healthy;
  return CHECK_EXIT.unknown;
}

/**
 * Live latencies per host for a check: `requests` polite requests per host
 * (one every `intervalMs`, as a baseline capture), successes only.
 */
export async function sampleLatencies(
  urls: readonly string[],
  probe: Probe,
  clock: Clock,
  options: Pick<BaselineRunOptions, 'requests' | 'intervalMs'>,
): Promise<Map<string, number[]>> {
  const byHost = new Map<string, number[]>();
  await captureBaselines(urls, probe, clock, {
    ...options,
    onRequest: (host, outcome) => {
      const list = byHost.get(host) ?? [];
      if (outcome.signal === 'ok') list.push(outcome.latencyMs);
      byHost.set(host, list);
    },
  });
  return byHost;
}
