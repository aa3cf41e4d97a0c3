import type { BimodalResult } from '../detect/bimodal.js';
import type { PhaseDiagnosis } from '../detect/phase-diagnosis.js';
import type { RampResult } from '../detect/ramp.js';
import type { AlarmRecord } from './alarm-replay.js';

/** The overall reading of a log. */
export type DiagnosisVerdict =
  /** Enough 429s/503s that the target is limiting us openly. */
  | 'hard-throttling'
  /** No (or few) errors, but the target is slowing us: latency, phases, ramp or queue. */
  | 'soft-throttling'
  /** Throughput fell while latency held: the bottleneck is ours. */
  | 'look-inward'
  /** Nothing points at throttling. */
  | 'healthy'
  /** Too few requests to say. */
  | 'insufficient-data';

/** A verdict in plain words. */
export interface Diagnosis {
  verdict: DiagnosisVerdict;
  /** One sentence an operator can act on. */
  summary: string;
  /** The evidence, one plain sentence each, strongest first. */
  findings: string[];
}

/** What {@link diagnose} weighs. */
export interface DiagnosisInput {
  requests: number;
  throttled: number;
  overloaded: number;
  /** Seconds from the start of the log to the first 429/503, when there was one. */
  firstRejectionS?: number;
  alarms: readonly AlarmRecord[];
  phases: PhaseDiagnosis | null;
  ramp: RampResult;
  bimodal: BimodalResult;
  /** Highest window p95 / baseline p95 over the log, when known. */
  worstLatencyRatio?: number;
  /** Where the latency baseline came from: a captured file, or learned from the log's fastest window; absent without one. */
  baseline?: 'captured' | 'learned';
}

/** Fewest requests worth a diagnosis. */
const MIN_DIAGNOSIS_REQUESTS = 20;
/** Share of 429s + 503s from which throttling counts as hard. */
const HARD_SHARE = 0.01;
/** Window p95 above this multiple of the baseline is "latency up" (twice the unloaded latency means throttling: docs/server-models.md). */
const SLOW_RATIO = 2;
const TARGET_PHASES = new Set(['tarpit', 'byte-drip', 'slow-connect']);

/**
 * Turns the detectors' outputs into one verdict and plain sentences, the
 * order an operator should check them in: open
 * rejections first, then the target's soft signs (latency against the
 * baseline, which phase grew, a per-client ramp, a queue with a timeout),
 * then — only when none of those fired — the throughput alarms that say
 * "we sent less": look inward.
 */
export function diagnose(input: DiagnosisInput): Diagnosis {
  const { requests } = input;
  if (requests < MIN_DIAGNOSIS_REQUESTS) {
    const summary = `Only ${requests} requests with usable data: ${MIN_DIAGNOSIS_REQUESTS} are needed for a diagnosis.`;
    return { verdict: 'insufficient-data', summary, findings: [] };
  }
  const hard = hardFindings(input);
  const soft = softFindings(input);
  const inward = inwardFindings(input);
  const findings = [...hard, ...soft, ...inward];
  if (hard.length > 0) {
    const also = soft.length > 0 ? ', after soft signs' : '';
    const summary = `Hard throttling${also}: the target rejects ${pct((input.throttled + input.overloaded) / requests)} of requests with 429/503; pace down and honour Retry-After.`;
    return { verdict: 'hard-throttling', summary, findings };
  }
  if (soft.length > 0) {
    const summary = `Target-side soft throttling: no wall of errors, but the target is slowing us (${soft.length} sign${soft.length > 1 ? 's' : ''}); slow down and compare from another egress IP.`;
    return { verdict: 'soft-throttling', summary, findings };
  }
  if (inward.length > 0) {
    const summary =
      'Look inward: throughput fell while latency held, so the target is not slower and we sent less (pool size, CPU, concurrency ceiling, our own rate cut, a draining batch).';
    return { verdict: 'look-inward', summary, findings };
  }
  const rejected = input.throttled + input.overloaded;
  const held = latencyHeld(input.baseline).replace(/, $/, '');
  const quiet = ['no alarms', ...(held ? [held] : [])].join(', ');
  const summary =
    rejected === 0
      ? `No throttling seen over ${requests} requests: ${quiet}, none rejected.`
      : `No sustained throttling over ${requests} requests: ${rejected} refused (${pct(rejected / requests)}: ${input.throttled} × 429, ${input.overloaded} × 503), under the ${pct(HARD_SHARE)} that counts as hard throttling; ${quiet}.`;
  return { verdict: 'healthy', summary, findings };
}

function hardFindings(input: DiagnosisInput): string[] {
  const rejected = input.throttled + input.overloaded;
  if (rejected === 0 || rejected < HARD_SHARE * input.requests) return [];
  const first =
    input.firstRejectionS === undefined ? '' : `, the first at +${fmt(input.firstRejectionS)} s`;
  return [
    `${input.throttled} × 429 and ${input.overloaded} × 503 of ${input.requests} requests${first}.`,
  ];
}

function softFindings(input: DiagnosisInput): string[] {
  const out: string[] = [];
  const raised = (source: AlarmRecord['source']) =>
    input.alarms.filter((a) => a.source === source && a.transition === 'alarm');
  const latency = raised('latency');
  if (latency.length > 0) out.push(`Latency alarm ×${latency.length}: ${latency[0]?.detail}.`);
  else if ((input.worstLatencyRatio ?? 0) > SLOW_RATIO) {
    out.push(`The slowest window's p95 is ${fmt(input.worstLatencyRatio ?? 0)}× the baseline.`);
  }
  const perRequest = raised('per-request');
  if (perRequest.length > 0) {
    out.push(
      `Each request in flight completes less often (per-request decay ×${perRequest.length}): ${perRequest[0]?.detail}.`,
    );
  }
  const targetDecay = raised('throughput').filter((a) => a.side === 'target-side');
  if (targetDecay.length > 0) {
    out.push(`Throughput decayed while latency rose: ${targetDecay[0]?.detail}.`);
  }
  const controller = raised('controller');
  if (controller.length > 0)
    out.push(`The controller raised ${controller.length} alarm(s): ${controller[0]?.detail}.`);
  const { phases, ramp, bimodal } = input;
  if (phases && TARGET_PHASES.has(phases.verdict)) out.push(`Phases: ${phases.explanation}.`);
  if (ramp.verdict === 'ramp') out.push(`Per-client pacing ramp: ${ramp.explanation}.`);
  if (bimodal.bimodal) out.push(`Queue with a timeout? ${bimodal.explanation}.`);
  return out;
}

function inwardFindings(input: DiagnosisInput): string[] {
  const out: string[] = [];
  const decays = input.alarms.filter((a) => a.source === 'throughput' && a.transition === 'alarm');
  const held = decays.filter((a) => a.side === 'look-inward');
  if (held.length > 0) {
    out.push(`Throughput decayed ×${held.length} while latency held: ${held[0]?.detail}.`);
  }
  const unknown = decays.filter((a) => a.side === 'no-finding');
  if (unknown.length > 0) {
    out.push(
      `Throughput decayed ×${unknown.length} without a clear latency rise: ${unknown[0]?.detail}; rule out our own pool, CPU and ceiling first.`,
    );
  }
  if (input.phases?.verdict === 'slow-dns') {
    out.push(`Phases: ${input.phases.explanation} — usually our resolver, not the target.`);
  }
  return out;
}

function latencyHeld(baseline: DiagnosisInput['baseline']): string {
  if (baseline === undefined) return '';
  const reference = baseline === 'captured' ? 'the captured baseline' : 'its fastest window';
  return `latency within ${SLOW_RATIO}× ${reference}, `;
}

function pct(share: number): string {
  return `${(100 * share).toFixed(share < 0.1 ? 1 : 0)} %`;
}

function fmt(value: number): string {
  return value.toFixed(value < 10 ? 2 : 0);
}
