import type { Clock } from '../clock.js';
import { percentiles } from '../detect/percentiles.js';
import { diagnosePhases } from '../detect/phase-diagnosis.js';
import { given, number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import type { PhaseTimings } from '../timings.js';
import { isFailingStep, isThrottledStep, type RampStep, stoppedScaling } from './knee.js';
import type { Probe, ProbeOutcome } from './probe.js';

/** Options of {@link runConcurrencyRamp}. */
export interface ConcurrencyRampOptions {
  /** Highest concurrency tried (at most {@link MAX_RAMP_CONCURRENCY}); the steps are 1, 2, 4, … and this. @default 64 */
  maxConcurrency?: number;
  /** Requests per step, at least 4 × the step's concurrency so every slot cycles a few times. @default 50 */
  requestsPerStep?: number;
  /** Stop early after this many consecutive steps that did not scale. @default 2 */
  patience?: number;
  /** Stops the ramp: the step in progress is aborted and dropped, the finished steps are returned. */
  signal?: AbortSignal;
  /** Called after each step, e.g. to print progress. */
  onStep?: (step: RampStep) => void;
}

/** Makes a probe for one step (fixed at `concurrency`), and closes it after the step. */
export interface StepProbes {
  open(concurrency: number): { probe: Probe; close(): Promise<void> };
}

/** Highest `maxConcurrency` a ramp accepts. */
export const MAX_RAMP_CONCURRENCY = 4096;
const readOptions = defineOptions<ConcurrencyRampOptions>()('runConcurrencyRamp', {
  maxConcurrency: number(64, { min: 1, max: MAX_RAMP_CONCURRENCY, integer: true }),
  requestsPerStep: number(50, { min: 1, integer: true }),
  patience: number(2, { min: 1, integer: true }),
  signal: given(),
  onStep: given(),
});

/** The concurrencies of a ramp up to `max`: 1, 2, 4, … and `max` itself. */
export function rampSteps(max: number): number[] {
  const steps: number[] = [];
  for (let c = 1; c < max; c *= 2) steps.push(c);
  steps.push(max);
  return steps;
}

/**
 * Ramps concurrency 1, 2, 4 … against `url`: each step keeps `concurrency`
 * requests in flight (closed loop: a finished request is replaced at once)
 * until `max(requestsPerStep, 4 × concurrency)` have been sent. It stops as
 * soon as a step is throttled (429s/503s: no reason to push a target that
 * says no) or failing, or after `patience` steps in a row that did not
 * scale beyond the best step so far — the knee is found, more load only
 * queues. Aborting `signal` ends the ramp without an error: the steps
 * finished by then are returned. Time comes from `clock`.
 */
export async function runConcurrencyRamp(
  url: string,
  probes: StepProbes,
  clock: Clock,
  options: ConcurrencyRampOptions = {},
): Promise<RampStep[]> {
  const { maxConcurrency: max, requestsPerStep: perStep, patience } = readOptions(options);
  const steps: RampStep[] = [];
  let flat = 0;
  for (const concurrency of rampSteps(max)) {
    if (options.signal?.aborted) break;
    const requests = Math.max(perStep, 4 * concurrency);
    const step = await runStep(url, probes, clock, concurrency, requests, options.signal);
    if (options.signal?.aborted) break;
    flat = stoppedScaling(steps, step) ? flat + 1 : 0;
    steps.push(step);
    options.onStep?.(step);
    if (isThrottledStep(step) || isFailingStep(step)) break;
    if (flat >= patience) break;
  }
  return steps;
}

async function runStep(
  url: string,
  probes: StepProbes,
  clock: Clock,
  concurrency: number,
  requests: number,
  signal: AbortSignal | undefined,
): Promise<RampStep> {
  const { probe, close } = probes.open(concurrency);
  const outcomes: ProbeOutcome[] = [];
  let sent = 0;
  const started = clock.now();
  const worker = async () => {
    while (sent < requests && !signal?.aborted) {
      sent++;
      try {
        outcomes.push(await probe(url, signal));
      } catch (error) {
        // The probe rejects only for the caller's abort: this worker stops, the others too.
        if (signal?.aborted) return;
        throw error;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    await close();
  }
  return summariseStep(concurrency, outcomes, clock.now() - started);
}

/** Summarises one step's outcomes (exported for tests and for other drivers). */
export function summariseStep(
  concurrency: number,
  outcomes: readonly ProbeOutcome[],
  elapsedMs: number,
): RampStep {
  const ok = outcomes.filter((o) => o.signal === 'ok');
  const p = percentiles(ok.map((o) => o.latencyMs));
  const timings = ok.map((o) => o.timings).filter((t): t is PhaseTimings => t !== undefined);
  const count = (kind: string) => outcomes.filter((o) => o.signal === kind).length;
  const throttled = count('throttled');
  const overloaded = count('overloaded');
  const answered = ok.length + count('client-error');
  return {
    concurrency,
    requests: outcomes.length,
    elapsedMs,
    rps: elapsedMs > 0 ? (1000 * answered) / elapsedMs : 0,
    p50: p?.p50 ?? null,
    p95: p?.p95 ?? null,
    ok: ok.length,
    throttled,
    overloaded,
    errors: outcomes.length - answered - throttled - overloaded,
    phases: timings.length > 0 ? diagnosePhases(timings, { window: timings.length }).medians : null,
  };
}
