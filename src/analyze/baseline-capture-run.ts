import type { Clock } from '../clock.js';
import type { LatencyBaseline } from '../detect/baseline-file.js';
import { BaselineCapture } from '../detect/latency-baseline.js';
import { InvalidOptionError } from '../errors.js';
import { given, number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { httpHost, type Probe, type ProbeOutcome } from './probe.js';

/** Options of {@link captureBaselines}. */
export interface BaselineRunOptions {
  /** Requests per host. @default 100 */
  requests?: number;
  /** Time between the starts of two requests to one host, ms (a slow request is followed at once). @default 1000 */
  intervalMs?: number;
  /** Requests per window; the baseline is the window with the lowest p95. @default 20 */
  windowSize?: number;
  /** Stop capturing a host after this many 429/503 answers: a polite capture does not argue. @default 3 */
  maxRejections?: number;
  /** Aborts the capture. */
  signal?: AbortSignal;
  /** Called after each request. */
  onRequest?: (host: string, outcome: ProbeOutcome, done: number) => void;
}

/** The outcome of capturing one host. */
export interface HostCapture {
  host: string;
  /** The fastest window's percentiles; `undefined` when no request succeeded. */
  baseline: LatencyBaseline | undefined;
  requests: number;
  ok: number;
  /** 429s and 503s. */
  rejected: number;
  /** Other failures. */
  failed: number;
  /** Whether the host was left early because it rejected requests. */
  stoppedEarly: boolean;
  /** The last failure's message, if any. */
  lastError?: string;
}

const OWNER = 'captureBaselines';
const COUNT = { min: 1, integer: true };
const readOptions = defineOptions<BaselineRunOptions>()(OWNER, {
  requests: number(100, COUNT),
  intervalMs: number(1000, { min: 0 }),
  windowSize: number(20, COUNT),
  maxRejections: number(3, COUNT),
  signal: given(),
  onRequest: given(),
});

/** {@link BaselineRunOptions} checked, defaults applied. */
type BaselineRunSettings = ReturnType<typeof readOptions>;

/**
 * Captures a latency baseline per host, politely: one request at a time per
 * host, one every `intervalMs` (hosts are captured side by side), cycling
 * through that host's URLs. Only successful requests count; the baseline is
 * the fastest window of `windowSize` of them (see `BaselineCapture`). Times
 * come from `clock`, so the capture runs on virtual time in tests.
 */
export async function captureBaselines(
  urls: readonly string[],
  probe: Probe,
  clock: Clock,
  options: BaselineRunOptions = {},
): Promise<HostCapture[]> {
  const settings = readOptions(options);
  const byHost = new Map<string, string[]>();
  for (const url of urls) {
    const host = httpHost(url);
    if (host === undefined) {
      throw InvalidOptionError.invalid(OWNER, 'url', url, 'an absolute http(s) URL');
    }
    byHost.set(host, [...(byHost.get(host) ?? []), url]);
  }
  const run = ([host, list]: [string, string[]]) => captureHost(host, list, probe, clock, settings);
  return Promise.all([...byHost].map(run));
}

async function captureHost(
  host: string,
  urls: readonly string[],
  probe: Probe,
  clock: Clock,
  options: BaselineRunSettings,
): Promise<HostCapture> {
  const capture = new BaselineCapture(host, { windowSize: options.windowSize });
  const result: HostCapture = {
    host,
    baseline: undefined,
    requests: 0,
    ok: 0,
    rejected: 0,
    failed: 0,
    stoppedEarly: false,
  };
  const { signal } = options;
  for (let n = 0; n < options.requests && !signal?.aborted; n++) {
    const started = clock.now();
    const outcome = await probe(urls[n % urls.length] as string, signal);
    result.requests++;
    if (outcome.signal === 'ok') {
      result.ok++;
      capture.add(outcome.latencyMs);
    } else if (outcome.signal === 'throttled' || outcome.signal === 'overloaded') {
      result.rejected++;
    } else {
      result.failed++;
    }
    if (outcome.error) result.lastError = outcome.error;
    options.onRequest?.(host, outcome, result.requests);
    if (result.rejected >= options.maxRejections) {
      result.stoppedEarly = true;
      break;
    }
    const wait = started + options.intervalMs - clock.now();
    if (n + 1 < options.requests && wait > 0)
      await clock.sleep(wait, signal).catch(() => undefined);
  }
  result.baseline = capture.toBaseline(clock.wallNow());
  return result;
}
