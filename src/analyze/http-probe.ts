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
 * A probe on ratewise's own client, set up to measure rather than to adapt:
 * concurrency fixed at `concurrency` (the controller starts there, it does
 * not slow-start), one attempt per request (no retries hide a 429), no
 * breaker. Every body is read to the end, so `totalMs` is the full download
 * and the connection is reused.
 */
export function createHttpProbe(options: HttpProbeOptions): HttpProbe {
  const clock = options.clock ?? systemClock;
  const client = createClient({
    maxConcurrency: options.concurrency,
    initialConcurrency: options.concurrency,
    breaker: false,
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
