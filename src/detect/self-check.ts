import { number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { rejectUnknownOptions } from '../options.js';
import { isDuration } from './numbers.js';

/**
 * What the process measured about itself over a recent period. Every field is
 * optional; missing, negative or non-finite values are ignored. Measuring is
 * done elsewhere (perf_hooks, process.cpuUsage, the HTTP pool); this is the verdict.
 */
export interface SelfCheckMeasurements {
  /** p99 event-loop delay, ms (`perf_hooks.monitorEventLoopDelay().percentile(99) / 1e6`). */
  eventLoopLagP99Ms?: number;
  /** Process CPU time / wall time (`process.cpuUsage` deltas): 1 = one core fully busy. JavaScript runs on one thread, so ~1 means the main thread is saturated. */
  cpuUtilisation?: number;
  /** Requests waiting for a connection divided by the pool's connections per origin. */
  poolSaturation?: number;
  /** Share of the period (0–1) during which in-flight requests sat at the configured concurrency ceiling. */
  ceilingShare?: number;
  /** How far raw throughput is below its peak, 0–1 (a raw-mode `ThroughputDecayDetector`'s `drop`). */
  throughputDrop?: number;
  /** Live p95 / baseline p95 (`checkAgainstBaseline(...).ratio` or `LatencyMonitor` `ratio`). */
  latencyRatio?: number;
}

/** Options for {@link selfCheck}: the limits each measurement is judged by. */
export interface SelfCheckOptions {
  /** Event-loop p99 lag at or above this means the loop is blocked, ms. @default 100 */
  maxLagMs?: number;
  /** CPU utilisation at or above this means the process is CPU-bound. @default 0.9 */
  maxCpu?: number;
  /** Pool saturation at or above this means requests queue for connections. @default 0.5 */
  maxPoolSaturation?: number;
  /** Ceiling share at or above this means the ceiling caps throughput. @default 0.9 */
  maxCeilingShare?: number;
  /** Throughput this far below peak counts as decayed. @default 0.35 */
  decayFraction?: number;
  /** Latency ratio at or below this "holds". @default 1.3 */
  holdRatio?: number;
  /** Latency ratio above this is the target slowing down (twice the unloaded latency means throttling: docs/server-models.md). @default 2 */
  slowRatio?: number;
}

/** Where a finding points. */
export type SelfCheckSide = 'inward' | 'target';

/** One thing the check found. */
export interface SelfCheckFinding {
  /** Which measurement. */
  area: 'event-loop' | 'cpu' | 'connection-pool' | 'concurrency-ceiling' | 'throughput' | 'latency';
  /** `inward`: our own bottleneck; `target`: the server is slowing us. */
  side: SelfCheckSide;
  /** The measured value. */
  value: number;
  /** The limit it reached. */
  limit: number;
  /** What it means and what to do. */
  advice: string;
}

/** The overall answer. */
export interface SelfCheckResult {
  /** `look-inward` if any finding is ours (fix those first: they also inflate measured latency). */
  verdict: 'look-inward' | 'target-side' | 'no-finding';
  /** Every finding, inward ones first in a fixed order. */
  findings: SelfCheckFinding[];
}

const OWNER = 'selfCheck';
const MEASUREMENTS = [
  'eventLoopLagP99Ms',
  'cpuUtilisation',
  'poolSaturation',
  'ceilingShare',
  'throughputDrop',
  'latencyRatio',
] as const;
const NON_NEGATIVE = { min: 0 };
const SHARE = { min: 0, max: 1 };
const readLimits = defineOptions<SelfCheckOptions>()(OWNER, {
  maxLagMs: number(100, NON_NEGATIVE),
  maxCpu: number(0.9, NON_NEGATIVE),
  maxPoolSaturation: number(0.5, NON_NEGATIVE),
  maxCeilingShare: number(0.9, SHARE),
  decayFraction: number(0.35, SHARE),
  holdRatio: number(1.3, NON_NEGATIVE),
  slowRatio: number(2, (earlier) => ({ min: earlier.holdRatio as number })),
});

/**
 * "Is it our own bottleneck?" — rule out the client before blaming the
 * target. Inward findings: a blocked event loop, a saturated CPU, requests
 * queueing for pool connections, in-flight pinned at our ceiling while
 * latency holds, throughput falling while latency holds (we are sending less).
 * Target findings: latency above `slowRatio` × baseline, with or without the
 * throughput fall. Inward findings win the verdict because a busy client
 * inflates its own latency measurements.
 */
export function selfCheck(
  measurements: SelfCheckMeasurements,
  options: SelfCheckOptions = {},
): SelfCheckResult {
  const limits = readLimits(options);
  const m = sanitise(measurements);
  const ratio = m.latencyRatio;
  const latencyHolds = ratio !== undefined && ratio <= limits.holdRatio;
  const latencySlow = ratio !== undefined && ratio > limits.slowRatio;
  const decayed = atLeast(m.throughputDrop, limits.decayFraction);
  const checks: [SelfCheckFinding, boolean][] = [
    [
      finding('event-loop', m.eventLoopLagP99Ms, limits.maxLagMs),
      atLeast(m.eventLoopLagP99Ms, limits.maxLagMs),
    ],
    [finding('cpu', m.cpuUtilisation, limits.maxCpu), atLeast(m.cpuUtilisation, limits.maxCpu)],
    [
      finding('connection-pool', m.poolSaturation, limits.maxPoolSaturation),
      atLeast(m.poolSaturation, limits.maxPoolSaturation),
    ],
    [
      finding('concurrency-ceiling', m.ceilingShare, limits.maxCeilingShare),
      atLeast(m.ceilingShare, limits.maxCeilingShare) && !latencySlow,
    ],
    [finding('throughput', m.throughputDrop, limits.decayFraction), decayed && latencyHolds],
    [finding('latency', ratio, limits.slowRatio, decayed), latencySlow],
  ];
  const findings = checks.filter(([, fires]) => fires).map(([f]) => f);
  const inward = findings.some((f) => f.side === 'inward');
  const verdict = inward ? 'look-inward' : findings.length > 0 ? 'target-side' : 'no-finding';
  return { verdict, findings };
}

const ADVICE: Record<SelfCheckFinding['area'], string> = {
  'event-loop':
    'the event loop is blocked: move parsing to worker threads or lower concurrency; measured latencies include this lag',
  cpu: 'the process is CPU-bound: more concurrency makes it slower; offload parsing or run more processes',
  'connection-pool':
    'requests queue for connections: raise the connections per origin or lower concurrency to match',
  'concurrency-ceiling':
    'in-flight sits at our ceiling and latency is not up: our ceiling may be the cap; raise it and see whether throughput follows',
  throughput:
    'throughput fell while latency holds: the target is not slower, we send less (pool, CPU, ceiling, our own rate cut or a draining batch)',
  latency:
    'latency is up against the baseline: the target is slowing us; pace down and compare from another egress IP',
};

function finding(
  area: SelfCheckFinding['area'],
  value: number | undefined,
  limit: number,
  withDecay = false,
): SelfCheckFinding {
  const side = area === 'latency' ? 'target' : 'inward';
  const advice = withDecay ? `throughput fell and ${ADVICE[area]}` : ADVICE[area];
  return { area, side, value: value ?? 0, limit, advice };
}

/** Whether a measurement is present and at or above its limit. */
function atLeast(value: number | undefined, limit: number): boolean {
  return value !== undefined && value >= limit;
}

/** The known measurements with unusable values dropped; an unknown key (a typo) is an error. */
function sanitise(m: SelfCheckMeasurements): SelfCheckMeasurements {
  rejectUnknownOptions(`${OWNER} measurements`, m, MEASUREMENTS);
  const out: SelfCheckMeasurements = {};
  for (const key of MEASUREMENTS) {
    const value = m[key];
    if (isDuration(value)) out[key] = value;
  }
  return out;
}
