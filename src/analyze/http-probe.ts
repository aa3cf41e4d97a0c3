import { classify, isAbort } from '../classify.js';
import { createClient } from '../client/client.js';
import { ratewiseInfo } from '../client/response-info.js';
import { type Clock, systemClock } from '../clock.js';
import type { Probe, ProbeOutcome } from './probe.js';

/** Options of {@link createHttpProbe}. */
export interface HttpProbeOptions {
  /** Requests the probe may have in flight (the client's fixed concurrency). */
  concurrency: number;
  /** Longest one request may take, ms. @default 30000 */
  timeoutMs?: number;
  /** Time source. @default systemClock */
  clock?: Clock;
}

/** A {@link Probe} on a ratewise client, and a way to close its connections. */
export interface HttpProbe {
  probe: Probe;
  close(): Promise<void>;
}

/**
 * A probe on ratewise's own client, set up to measure rather than to adapt
 * as far as the client allows: the concurrency limit is pinned at
 * `concurrency` (AIMD's floor, start and ceiling, and its cuts are ×1, so a
 * 429 or 503 does not shrink it), one attempt per request (no retry hides a
 * 429), no breaker, no latency guard. Every body is read to the end, so
 * `totalMs` is the full download and the connection is reused.
 *
 * What cannot be switched off: the client's adaptive rate. It starts
 * unpaced and stays so while the target answers, but after a 429/503 it
 * paces at the rate the target accepted, and it pauses the scope for a
 * `Retry-After`. So once a target starts rejecting, later requests of the
 * same probe may wait before they are sent (a ramp stops at its first
 * throttled step, and opens a fresh probe per step).
 *
 * `latencyMs` is the client's `totalMs` (send to last body byte). Without
 * timings — a failure without a response — it is measured from the call,
 * so it includes any such admission wait.
 */
export function createHttpProbe(options: HttpProbeOptions): HttpProbe {
  const clock = options.clock ?? systemClock;
  const { concurrency } = options;
  const client = createClient({
    maxConcurrency: concurrency,
    initialConcurrency: concurrency,
    aimd: { min: concurrency, backoffRatio: 1, overloadRatio: 1 },
    breaker: false,
    latencyGuard: false,
    retry: { maxAttempts: 1 },
    timeoutMs: options.timeoutMs ?? 30_000,
    clock,
  });
  const probe: Probe = async (url, signal) => {
    const started = clock.now();
    try {
      const response = await client.fetch(url, signal ? { signal } : {});
      if (response.body) for await (const _chunk of response.body);
      const info = ratewiseInfo(response);
      const timings = info?.timings();
      const outcome: ProbeOutcome = {
        status: response.status,
        signal: info?.signal.kind ?? (response.ok ? 'ok' : 'server-error'),
        latencyMs: timings?.totalMs ?? clock.now() - started,
      };
      if (timings) outcome.timings = timings;
      return outcome;
    } catch (error) {
      if (isAbort(error)) throw error;
      const reading = classify(error);
      return {
        signal: reading?.kind ?? 'server-error',
        latencyMs: clock.now() - started,
        error: reading?.reason ?? String(error),
      };
    }
  };
  return { probe, close: () => client.close() };
}
