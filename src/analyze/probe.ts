import type { SignalKind } from '../signal.js';
import type { PhaseTimings } from '../timings.js';

/** One measured request of a baseline capture or a concurrency ramp. */
export interface ProbeOutcome {
  /** HTTP status, when a response came. */
  status?: number;
  /** The classified outcome. */
  signal: SignalKind;
  /** From sending to the last body byte (or to the failure), ms. */
  latencyMs: number;
  /** Per-phase timings, when the client measured them. */
  timings?: PhaseTimings;
  /** What went wrong, for a failure without a response. */
  error?: string;
}

/**
 * Sends one request to `url` and measures it; never rejects for a failed
 * request (that is an outcome), only for the caller's abort. The HTTP probe
 * lives in `http-probe.ts`; tests pass their own.
 */
export type Probe = (url: string, signal?: AbortSignal) => Promise<ProbeOutcome>;

/** The `host` (with port) of an absolute http(s) URL; `undefined` for anything else. */
export function httpHost(text: string): string | undefined {
  try {
    const { protocol, host } = new URL(text);
    return (protocol === 'http:' || protocol === 'https:') && host !== '' ? host : undefined;
  } catch {
    return undefined;
  }
}
