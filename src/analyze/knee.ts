import type { PhaseMedians } from '../detect/phase-diagnosis.js';

/** What one step of a concurrency ramp measured. */
export interface RampStep {
  /** Requests kept in flight. */
  concurrency: number;
  /** Requests sent in the step. */
  requests: number;
  /** From the first send to the last completion, ms. */
  elapsedMs: number;
  /** Requests answered per second (successes and 4xx; rejections and failures are not throughput). */
  rps: number;
  /** Latency percentiles of the successful requests, ms. */
  p50: number | null;
  p95: number | null;
  ok: number;
  /** 429s and vendor forms. */
  throttled: number;
  /** 503s and friends. */
  overloaded: number;
  /** Every other failure (resets, timeouts, 5xx, block pages). */
  errors: number;
  /** Median phases, when the client measured them. */
  phases: PhaseMedians | null;
}

/** Where requests/s stops scaling with concurrency, and why. */
export type KneeKind =
  /** Requests/s grew at every step: the knee is beyond the last one. */
  | 'scaling'
  /** Requests/s stopped growing at `at`. */
  | 'knee'
  /** 429s/503s started at `at`. */
  | 'throttled'
  /** Failures started at `at`. */
  | 'failing'
  /** Nothing came back. */
  | 'insufficient-data';

/** The verdict of {@link judgeKnee}. */
export interface KneeVerdict {
  verdict: KneeKind;
  /** The concurrency the verdict is about (the knee, or where rejections or failures start). */
  at: number | null;
  /** The step with the highest requests/s. */
  best: { concurrency: number; rps: number } | null;
  /** One plain sentence. */
  explanation: string;
}

/** Share of a step's requests answered 429/503 from which it counts as throttled. */
const THROTTLED_SHARE = 0.05;
/** Share of a step's requests failing otherwise from which it counts as failing. */
const FAILING_SHARE = 0.2;
/** A step scales when it gains at least this share of the ideal (linear) increase in requests/s. */
const MIN_EFFICIENCY = 0.25;
/** Latency growth across the knee from which "requests queue" is the explanation. */
const QUEUEING_GROWTH = 1.5;

/** Whether `step` saw enough 429s/503s to count as throttled. */
export function isThrottledStep(step: RampStep): boolean {
  return step.requests > 0 && (step.throttled + step.overloaded) / step.requests >= THROTTLED_SHARE;
}

/** Whether `step` saw enough other failures to count as failing. */
export function isFailingStep(step: RampStep): boolean {
  return step.requests > 0 && step.errors / step.requests >= FAILING_SHARE;
}

/** The step with the highest requests/s (the first of equals), if any. */
export function bestStep(steps: readonly RampStep[]): RampStep | undefined {
  return steps.reduce<RampStep | undefined>((b, s) => (!b || s.rps > b.rps ? s : b), undefined);
}

/**
 * How much of the ideal gain `step` got over `previous`: 1 when requests/s
 * grew in proportion to concurrency, 0 when it did not grow at all.
 */
export function scalingEfficiency(previous: RampStep, step: RampStep): number {
  const ideal = step.concurrency / previous.concurrency - 1;
  if (!(ideal > 0) || !(previous.rps > 0)) return 0;
  return (step.rps / previous.rps - 1) / ideal;
}

/**
 * Whether `step` stopped scaling: it gained less than {@link MIN_EFFICIENCY}
 * of the ideal over the best of the `earlier` steps (the knee is that best step).
 */
export function stoppedScaling(earlier: readonly RampStep[], step: RampStep): boolean {
  const best = bestStep(earlier);
  return best !== undefined && scalingEfficiency(best, step) < MIN_EFFICIENCY;
}

/**
 * Reads a concurrency ramp (steps in increasing concurrency, as `ratewise
 * diagnose` runs them): the first step with 429s/503s, else the first with
 * failures, else the first step that gained less than {@link MIN_EFFICIENCY}
 * of the ideal over the best step before it — the knee is that best step. The reason comes from how
 * latency (p50 or p95) moved across the knee: up (requests queue — at the server, or in
 * our own pool; the phase that grew says which) or flat (something caps the
 * rate without queueing: our CPU or event loop, or a pacing limit).
 */
export function judgeKnee(steps: readonly RampStep[]): KneeVerdict {
  const measured = steps.filter((s) => s.requests > 0);
  const best = bestStep(measured);
  const bestOf = best ? { concurrency: best.concurrency, rps: best.rps } : null;
  if (!best || best.ok === 0) {
    return {
      verdict: 'insufficient-data',
      at: null,
      best: bestOf,
      explanation: 'no successful request',
    };
  }
  const throttled = measured.find(isThrottledStep);
  if (throttled) {
    const share = (100 * (throttled.throttled + throttled.overloaded)) / throttled.requests;
    const explanation = `throttled at ${throttled.concurrency} in flight: ${Math.round(share)} % answered 429/503 (${throttled.throttled} × 429, ${throttled.overloaded} × 503); ${advice(measured, throttled)}`;
    return { verdict: 'throttled', at: throttled.concurrency, best: bestOf, explanation };
  }
  const failing = measured.find(isFailingStep);
  if (failing) {
    const explanation = `failing at ${failing.concurrency} in flight: ${failing.errors} of ${failing.requests} requests failed`;
    return { verdict: 'failing', at: failing.concurrency, best: bestOf, explanation };
  }
  for (let i = 1; i < measured.length; i++) {
    const earlier = measured.slice(0, i);
    const step = measured[i] as RampStep;
    if (stoppedScaling(earlier, step)) {
      const before = bestStep(earlier) as RampStep;
      const explanation = `knee at ${before.concurrency} in flight (${fmt(before.rps)} req/s; ${step.concurrency} gave ${fmt(step.rps)}): ${why(before, step)}`;
      return { verdict: 'knee', at: before.concurrency, best: bestOf, explanation };
    }
  }
  const last = measured.at(-1) as RampStep;
  const explanation = `requests/s still grows at ${last.concurrency} in flight (${fmt(last.rps)} req/s): the knee is higher; raise --max-concurrency to find it`;
  return { verdict: 'scaling', at: null, best: bestOf, explanation };
}

function why(before: RampStep, after: RampStep): string {
  const p50 = ratio(after.p50, before.p50);
  const p95 = ratio(after.p95, before.p95);
  const figures = `p50 ×${p50.toFixed(2)}, p95 ×${p95.toFixed(2)}`;
  if (Math.max(p50, p95) < QUEUEING_GROWTH) {
    return `latency held (${figures}), so requests do not queue: something caps the rate — our CPU, event loop or pool, or a pacing limit at the target`;
  }
  const grew = `latency grows with concurrency (${figures})`;
  // Phase medians say which phase grew only when the median itself grew.
  const phase = p50 >= QUEUEING_GROWTH ? grownPhase(before.phases, after.phases) : undefined;
  if (phase === 'wait')
    return `${grew} in the server wait: requests queue at the server (its worker pool or a concurrency cap)`;
  if (phase === 'connect')
    return `${grew} in connect/TLS: connection setup queues (SYN backlog, or our own connection pool)`;
  if (phase === 'body')
    return `${grew} in the body download: bandwidth is shared out (a byte-drip, or a full link)`;
  return `${grew}: requests queue — at the server, or in our own connection pool`;
}

function ratio(after: number | null, before: number | null): number {
  return after !== null && before !== null && before > 0 ? after / before : 1;
}

function grownPhase(
  a: PhaseMedians | null,
  b: PhaseMedians | null,
): 'wait' | 'connect' | 'body' | undefined {
  if (!a || !b) return undefined;
  const growth: ['wait' | 'connect' | 'body', number][] = [
    ['wait', b.waitMs - a.waitMs],
    ['connect', b.connectMs + b.tlsMs + b.dnsMs - (a.connectMs + a.tlsMs + a.dnsMs)],
    ['body', b.bodyMs - a.bodyMs],
  ];
  const total = growth.reduce((sum, [, v]) => sum + Math.max(0, v), 0);
  const [name, value] = growth.reduce((m, g) => (g[1] > m[1] ? g : m));
  return total > 0 && value / total >= 0.6 ? name : undefined;
}

function advice(steps: readonly RampStep[], step: RampStep): string {
  const previous = steps[steps.indexOf(step) - 1];
  return previous
    ? `stay at or below ${previous.concurrency}`
    : 'even the first step was throttled: pace by rate, not concurrency';
}

function fmt(value: number): string {
  return value.toFixed(1);
}
