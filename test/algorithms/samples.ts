import type { Sample } from '../../src/algorithms/sample.js';
import type { RateLimitQuota } from '../../src/headers/quota.js';
import type { SignalKind } from '../../src/signal.js';

/** What a hand-made sample may set; `at` is required, the rest has plain defaults. */
export interface SampleSpec {
  /** When the outcome arrived, ms. */
  at: number;
  /** When the request left, ms. @default at - 100 */
  sentAt?: number;
  /** @default 'ok' */
  kind?: SignalKind;
  /** @default 1 */
  inflight?: number;
  retryAfterMs?: number;
  quota?: RateLimitQuota;
  /** Requests still in flight when it arrived. */
  outstanding?: number;
  /** Refused for its concurrency. */
  overConcurrency?: boolean;
  /** Its part in a cap on trial. */
  capTrial?: Sample['capTrial'];
}

/** A sample for plain-call tests. */
export function sample(spec: SampleSpec): Sample {
  const kind = spec.kind ?? 'ok';
  const signal: Sample['signal'] = { kind, reason: kind };
  if (spec.retryAfterMs !== undefined) signal.retryAfterMs = spec.retryAfterMs;
  if (spec.quota !== undefined) signal.quota = spec.quota;
  const made: Sample = {
    sentAt: spec.sentAt ?? spec.at - 100,
    at: spec.at,
    inflight: spec.inflight ?? 1,
    signal,
  };
  if (spec.outstanding !== undefined) made.outstanding = spec.outstanding;
  if (spec.overConcurrency !== undefined) made.overConcurrency = spec.overConcurrency;
  if (spec.capTrial !== undefined) made.capTrial = spec.capTrial;
  return made;
}
