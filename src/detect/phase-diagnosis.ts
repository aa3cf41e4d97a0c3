import { check, number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import type { PhaseTimings } from '../timings.js';
import { isDuration } from './numbers.js';
import { median } from './percentiles.js';

/** What the per-phase timings point at. */
export type PhaseVerdict =
  /** Nothing is markedly slow. */
  | 'healthy'
  /** The server holds the request: the wait for the first byte grew, the handshakes did not. */
  | 'tarpit'
  /** The first byte comes quickly, the body trickles. */
  | 'byte-drip'
  /** Name resolution takes the time (usually our resolver, not the target). */
  | 'slow-dns'
  /** TCP connect or TLS handshake takes the time (network path, SYN backlog, handshake shaping). */
  | 'slow-connect'
  /** Slow, but no single phase explains it. */
  | 'mixed'
  /** No usable timings. */
  | 'insufficient-data';

/** Median duration of each phase, ms. `waitMs` = ttfb − (dns + connect + tls); `bodyMs` = total − ttfb. */
export interface PhaseMedians {
  /** DNS lookup. */
  dnsMs: number;
  /** TCP connect. */
  connectMs: number;
  /** TLS handshake. */
  tlsMs: number;
  /** Server wait: time to first byte after the handshakes. */
  waitMs: number;
  /** Body download: first byte to last byte. */
  bodyMs: number;
  /** Whole exchange. */
  totalMs: number;
}

/** Options for {@link diagnosePhases}. */
export interface PhaseDiagnosisOptions {
  /** Medians of healthy requests to compare against (e.g. from a quiet capture). Without it, the first `window` requests serve when there are at least 2 × `window`. @default undefined */
  reference?: PhaseMedians;
  /** Requests in the "current" window (the last ones) and in the implicit reference window (the first ones). @default 10 */
  window?: number;
  /** With a reference: the current total median must exceed this multiple of the reference's to count as slow. @default 2 */
  slowdown?: number;
  /** Without a reference: a total median below this is healthy, ms. @default 1000 */
  slowTotalMs?: number;
  /** Share of the extra time (with a reference) or of the total (without) one phase must explain to be named. @default 0.6 */
  dominance?: number;
}

/** The verdict with the numbers that justify it. */
export interface PhaseDiagnosis {
  /** What the timings point at. */
  verdict: PhaseVerdict;
  /** One line saying why, with the figures. */
  explanation: string;
  /** Medians of the current window. */
  medians: PhaseMedians;
  /** Medians compared against, when there was a reference. */
  reference?: PhaseMedians;
  /** Share (0–1) of the extra or total time explained by the named phase. */
  share: number;
  /** Timings in the current window. */
  samples: number;
}

const readOptions = defineOptions<PhaseDiagnosisOptions>()('diagnosePhases', {
  reference: check(
    'phase medians of durations >= 0',
    (value): value is PhaseMedians =>
      typeof value === 'object' && value !== null && Object.values(value).every(isDuration),
  ),
  window: number(10, { min: 1, integer: true }),
  slowdown: number(2, { min: 1 }),
  slowTotalMs: number(1000, { min: 0 }),
  dominance: number(0.6, { min: 0, max: 1 }),
});
type Group = 'dns' | 'connect' | 'wait' | 'body';
const LABEL: Record<Group, string> = {
  dns: 'DNS',
  connect: 'connect+TLS',
  wait: 'server wait',
  body: 'body download',
};
const VERDICT: Record<Group, PhaseVerdict> = {
  dns: 'slow-dns',
  connect: 'slow-connect',
  wait: 'tarpit',
  body: 'byte-drip',
};

/**
 * Tells soft-throttling mechanisms apart from curl-style per-phase timings.
 *
 * With a reference (given, or the first `window` requests), the last `window`
 * requests are slow when their total median is > `slowdown` × the
 * reference's; the phase group that grew the most — DNS, connect+TLS, server
 * wait (ttfb minus handshakes) or body — names the verdict if it explains at
 * least `dominance` of the growth (so a tarpit is only called while DNS and
 * connect stay flat), else `mixed`. Without a reference, a total median of at
 * least `slowTotalMs` is slow and the phase taking `dominance` of the time
 * names it — weaker: a slow endpoint then looks like a tarpit, so prefer a reference.
 * Invalid timings (non-finite or negative fields) are skipped.
 */
export function diagnosePhases(
  timings: readonly PhaseTimings[],
  options: PhaseDiagnosisOptions = {},
): PhaseDiagnosis {
  const { reference: given, window, slowdown, slowTotalMs, dominance } = readOptions(options);
  const usable = timings.filter(isUsable);
  const current = medianPhases(usable.slice(-window));
  const reference =
    given ?? (usable.length >= 2 * window ? medianPhases(usable.slice(0, window)) : undefined);
  const base = { medians: current, samples: Math.min(window, usable.length) };
  if (usable.length === 0) {
    const explanation = 'no usable timings';
    return { verdict: 'insufficient-data', explanation, share: 0, ...base };
  }
  if (!reference) return judgeAbsolute(current, slowTotalMs, dominance, base);
  return { ...judgeAgainst(current, reference, slowdown, dominance), reference, ...base };
}

function judgeAgainst(
  now: PhaseMedians,
  ref: PhaseMedians,
  slowdown: number,
  dominance: number,
): Pick<PhaseDiagnosis, 'verdict' | 'explanation' | 'share'> {
  const factor = `${ms(now.totalMs)} vs ${ms(ref.totalMs)} reference`;
  if (!(now.totalMs > slowdown * ref.totalMs)) {
    const explanation = `healthy: total median ${factor}, within ${slowdown}×`;
    return { verdict: 'healthy', explanation, share: 0 };
  }
  const before = groups(ref);
  const grown = groups(now).map(([g, v], i): [Group, number] => [g, v - (before[i]?.[1] ?? 0)]);
  const [group, , share] = largest(grown);
  const verdict = share >= dominance ? VERDICT[group] : 'mixed';
  const detail = `${LABEL[group]} ${ms(groupValue(ref, group))} → ${ms(groupValue(now, group))} (${pct(share)} of the growth)`;
  const handshake = `dns+connect+tls ${ms(handshakeOf(ref))} → ${ms(handshakeOf(now))}`;
  const explanation = `${verdict}: total median ${factor}; ${detail}; ${handshake}`;
  return { verdict, explanation, share };
}

function judgeAbsolute(
  now: PhaseMedians,
  slowTotalMs: number,
  dominance: number,
  base: Pick<PhaseDiagnosis, 'medians' | 'samples'>,
): PhaseDiagnosis {
  if (now.totalMs < slowTotalMs) {
    const explanation = `healthy: total median ${ms(now.totalMs)} < ${ms(slowTotalMs)} (no reference)`;
    return { verdict: 'healthy', explanation, share: 0, ...base };
  }
  const [group, , share] = largest(groups(now));
  const verdict = share >= dominance ? VERDICT[group] : 'mixed';
  const explanation = `${verdict}: total median ${ms(now.totalMs)} with no reference; ${LABEL[group]} takes ${ms(groupValue(now, group))}, ${pct(share)} of the time`;
  return { verdict, explanation, share, ...base };
}

/** The phase groups of `m` in a fixed order. */
function groups(m: PhaseMedians): [Group, number][] {
  return [
    ['dns', m.dnsMs],
    ['connect', m.connectMs + m.tlsMs],
    ['wait', m.waitMs],
    ['body', m.bodyMs],
  ];
}

function groupValue(m: PhaseMedians, group: Group): number {
  return groups(m).find(([g]) => g === group)?.[1] ?? 0;
}

/** The group with the largest value, that value, and its share of the positive values (0 if none). */
function largest(entries: readonly (readonly [Group, number])[]): [Group, number, number] {
  let best: readonly [Group, number] = ['wait', 0];
  let sum = 0;
  for (const entry of entries) {
    sum += Math.max(0, entry[1]);
    if (entry[1] > best[1]) best = entry;
  }
  return [best[0], best[1], sum > 0 ? best[1] / sum : 0];
}

function handshakeOf(m: PhaseMedians): number {
  return m.dnsMs + m.connectMs + m.tlsMs;
}

function medianPhases(timings: readonly PhaseTimings[]): PhaseMedians {
  const of = (pick: (t: PhaseTimings) => number): number => median(timings.map(pick));
  return {
    dnsMs: of((t) => t.dnsMs),
    connectMs: of((t) => t.connectMs),
    tlsMs: of((t) => t.tlsMs),
    waitMs: of((t) => Math.max(0, t.ttfbMs - t.dnsMs - t.connectMs - t.tlsMs)),
    bodyMs: of((t) => Math.max(0, t.totalMs - t.ttfbMs)),
    totalMs: of((t) => Math.max(t.totalMs, t.ttfbMs)),
  };
}

function isUsable(t: PhaseTimings): boolean {
  return [t.dnsMs, t.connectMs, t.tlsMs, t.ttfbMs, t.totalMs].every(isDuration);
}

function ms(value: number): string {
  return `${Math.round(value)} ms`;
}

function pct(share: number): string {
  return `${Math.round(100 * share)} %`;
}
