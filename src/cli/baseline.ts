import { captureBaselines, type HostCapture } from '../analyze/baseline-capture-run.js';
import {
  checkExitCode,
  checkHost,
  type HostCheck,
  HostLatencies,
  sampleLatencies,
} from '../analyze/baseline-check.js';
import { loadBaseline, saveBaseline } from '../analyze/baseline-store.js';
import { formatCaptures, formatChecks } from '../analyze/format-baselines.js';
import { createHttpProbe } from '../analyze/http-probe.js';
import { httpHost, type Probe } from '../analyze/probe.js';
import { readLogLines } from '../analyze/read-log.js';
import { requireUsable } from '../analyze/unusable-log.js';
import { isHttpUrl } from '../client/request-input.js';
import { type Clock, systemClock } from '../clock.js';
import { redactUrl } from '../util/redact.js';
import { type CommandIo, processIo, reportFailure, requireLogFile } from './analyze.js';
import { captureProgress } from './capture-progress.js';
import { BASELINE_DIR } from './register/baseline.js';
import { UsageError } from './usage-error.js';

/** Options of `ratewise baseline capture`. */
export interface CaptureCommandOptions {
  /** Folder of the baseline files. @default 'baselines' */
  dir?: string;
  /** Requests per host. @default 100 */
  requests?: number;
  /** Time between two requests to a host, ms. @default 1000 */
  intervalMs?: number;
  /** Requests per window (the fastest window is kept). @default 20 */
  windowRequests?: number;
  window?: number; // its former name
  json?: boolean;
}

/** Options of `ratewise baseline check`. */
export interface CheckCommandOptions {
  /** Folder of the baseline files. @default 'baselines' */
  dir?: string;
  /** Alarm when live p95 > threshold × baseline p95. @default 2 */
  threshold?: number;
  /** Live requests per host (URL mode). @default 20 */
  requests?: number;
  /** Time between two live requests to a host, ms (URL mode). @default 1000 */
  intervalMs?: number;
  /** Latest latencies per host compared (log mode). @default 100 */
  windowRequests?: number;
  window?: number; // its former name
  json?: boolean;
}

/** Fewest live latencies a host is judged on: this many, or all of them when fewer are asked for. */
const MIN_CHECK_SAMPLES = 20;

/** How baseline commands reach the network and the clock (tests substitute both). */
export interface BaselineDeps {
  io: CommandIo;
  clock: Clock;
  /** Opens a probe of concurrency 1. */
  openProbe: () => { probe: Probe; close(): Promise<void> };
}

const defaultDeps = (): BaselineDeps => ({
  io: processIo(),
  clock: systemClock,
  openProbe: () => createHttpProbe({ concurrency: 1 }),
});

/**
 * `ratewise baseline capture <url…>`: one polite capture per host (one
 * request per interval), the fastest window saved as `<dir>/<host>.json`.
 * Progress and the time left go to stderr (a bar on a terminal).
 * Exit 0 when every host got a baseline, 1 otherwise, 2 for a bad URL.
 */
export async function runCapture(
  urls: readonly string[],
  options: CaptureCommandOptions,
  deps: BaselineDeps = defaultDeps(),
): Promise<number> {
  const { io } = deps;
  try {
    requireUrls(urls);
    const plan = {
      hosts: new Set(urls.map(httpHost)).size,
      requests: options.requests ?? 100,
      intervalMs: options.intervalMs ?? 1000,
    };
    const progress = captureProgress(io.stderr, deps.clock, plan);
    const { probe, close } = deps.openProbe();
    let captures: HostCapture[];
    try {
      captures = await captureBaselines(urls, probe, deps.clock, {
        requests: plan.requests,
        intervalMs: plan.intervalMs,
        windowSize: options.windowRequests ?? options.window ?? 20,
        onRequest: () => progress.request(),
      });
    } finally {
      progress.stop();
      await close();
    }
    const files: string[] = [];
    for (const capture of captures) {
      files.push(
        capture.baseline ? await saveBaseline(options.dir ?? BASELINE_DIR, capture.baseline) : '-',
      );
    }
    io.stdout.write(
      options.json ? `${JSON.stringify({ captures, files })}\n` : formatCaptures(captures, files),
    );
    return captures.every((c) => c.baseline) ? 0 : 1;
  } catch (error) {
    return reportFailure(io, error);
  }
}

/**
 * `ratewise baseline check <log | - | url…>`: compares live p95 per host
 * with its baseline file — from the last `window` latencies per host in a
 * log (`-` reads it from stdin), or from `requests` polite live requests per
 * URL host. A host needs min(20, `window` or `requests`) latencies to be
 * judged. Exit 0 healthy, 1 alarm (some host slower than threshold ×
 * baseline p95), 2 usage error, 3 no verdict (too few latencies, or no
 * baseline for any host).
 */
export async function runCheck(
  targets: readonly string[],
  options: CheckCommandOptions,
  deps: BaselineDeps = defaultDeps(),
): Promise<number> {
  const { io } = deps;
  try {
    const { latencies, asked } = await liveLatencies(targets, options, deps);
    const dir = options.dir ?? BASELINE_DIR;
    const judge = {
      threshold: options.threshold ?? 2,
      minSamples: Math.min(MIN_CHECK_SAMPLES, asked),
    };
    const checks: HostCheck[] = [];
    for (const [host, values] of latencies) {
      const loaded = await loadBaseline(dir, host);
      const baseline = loaded.ok ? loaded.baseline : loaded.error;
      checks.push(checkHost(host, values, baseline, judge));
    }
    io.stdout.write(options.json ? `${JSON.stringify({ checks })}\n` : formatChecks(checks));
    return checkExitCode(checks);
  } catch (error) {
    return reportFailure(io, error);
  }
}

/** Live latencies per host, and how many per host were asked for (`window` or `requests`). */
async function liveLatencies(
  targets: readonly string[],
  options: CheckCommandOptions,
  deps: BaselineDeps,
): Promise<{ latencies: ReadonlyMap<string, readonly number[]>; asked: number }> {
  const [first] = targets;
  if (targets.length === 1 && first !== undefined && !isHttpUrl(first)) {
    await requireLogFile(first);
    const asked = options.windowRequests ?? options.window ?? 100;
    const hosts = new HostLatencies(asked);
    for await (const line of readLogLines(first === '-' ? deps.io.stdin : first)) hosts.push(line);
    requireUsable(hosts.lines, first === '-' ? 'stdin' : first);
    return { latencies: hosts.hosts, asked };
  }
  requireUrls(targets);
  const asked = options.requests ?? 20;
  const { probe, close } = deps.openProbe();
  try {
    const latencies = await sampleLatencies(targets, probe, deps.clock, {
      requests: asked,
      intervalMs: options.intervalMs ?? 1000,
    });
    return { latencies, asked };
  } finally {
    await close();
  }
}

function requireUrls(urls: readonly string[]): void {
  const bad = urls.find((url) => !isHttpUrl(url));
  if (bad !== undefined) throw new UsageError(`not an http(s) URL: ${redactUrl(bad)}`);
}
