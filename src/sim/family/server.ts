import type { Span } from '../models/background.js';
import type { RateStep } from '../models/rate-schedule.js';

/** How a family server limits its clients. */
export type LimitKind =
  | 'fixed-window'
  | 'sliding-log'
  | 'token-bucket'
  | 'gcra'
  | 'concurrency-cap'
  | 'quota'
  | 'count-ramp'
  | 'rate-ramp'
  | FieldKind;

/**
 * Limits as deployed in the field (the "field" set, `drawFieldServer`): nginx's `limit_req`,
 * a sliding window counter, a token bucket refilled in lumps (Envoy's local rate limit) and a
 * penalty box that blocks a client for a while once it goes over.
 */
export type FieldKind = 'limit-req' | 'sliding-counter' | 'lumpy-bucket' | 'penalty-box';

/**
 * How a refusal states when to come back: no header, `0`, the real wait in
 * delta-seconds, the real wait as an HTTP-date, or a constant number of
 * seconds whatever the real wait.
 */
export type RetryAfterChoice = 'none' | 'zero' | 'wait' | 'http-date' | 'fixed';

/** A published quota's header family and reset form. */
export interface QuotaForm {
  readonly headers: 'x-ratelimit' | 'ietf' | 'both';
  readonly resetForm: 'delta' | 'epoch';
}

/** The settings only the field's limits have. */
export interface FieldLimit {
  /** nginx's `delay=N`: excess served at once, the rest held their turn (`Infinity`: `nodelay`). */
  readonly delay: number;
  /** Whether refused requests count against a sliding counter's window (HAProxy, express-rate-limit). */
  readonly countsRefused: boolean;
  /** How long a penalty box blocks a client that went over, ms. */
  readonly blockMs: number;
  /** Where a counter's windows or a bucket's fills start on the server's clock, ms. */
  readonly phaseMs: number;
  /** Whether a lumpy bucket publishes `X-RateLimit-*` on every reply. */
  readonly publishes: boolean;
}

/** A field limit's settings where a server names none: `nodelay`, no refusal counted, a minute's block. */
export const FIELD_DEFAULTS: FieldLimit = {
  delay: Infinity,
  countsRefused: false,
  blockMs: 60_000,
  phaseMs: 0,
  publishes: false,
};

/** A latency ramp keyed to the client's request count (over all time or a recent window). */
export interface RampForm {
  /** Extra delay per step, ms. */
  readonly stepMs: number;
  /** Requests per step. */
  readonly stepRequests: number;
  /** Largest extra delay, ms. */
  readonly maxDelayMs: number;
  /** Span of requests counted, ms: `Infinity` for a cumulative (count-keyed) ramp. */
  readonly windowMs: number;
}

/** What the client brings to the server: its demand and limits. */
export interface ClientSetup {
  /** Most requests in flight (also the demand: one worker per slot). */
  readonly maxConcurrency: number;
  /** Per-request timeout, ms. */
  readonly timeoutMs: number;
  /** A batch of this many URLs (ramp servers), else a timed run. */
  readonly urls?: number;
}

/**
 * One server drawn from the family: plain data (it prints as JSON and is all
 * `familyModel` needs), so any sampled case can be rebuilt from its seed and
 * index, simulated, or served on loopback.
 */
export interface FamilyServer {
  readonly seed: number;
  readonly index: number;
  readonly kind: LimitKind;
  /** Capacity over time, requests/s (steps start at 0); for a concurrency cap, slots / mean latency. */
  readonly rate: readonly RateStep[];
  /** Window of a window or quota limit (a lumpy bucket's fill interval), ms. */
  readonly windowMs: number;
  /** Burst of a token bucket or GCRA (nginx's `burst`, a lumpy bucket's most tokens), requests. */
  readonly burst: number;
  /** Slots of a concurrency cap. */
  readonly slots: number;
  readonly quota: QuotaForm;
  readonly ramp?: RampForm;
  /** A field limit's own settings (field kinds only). */
  readonly field?: FieldLimit;
  /** Base latency of a served request, ms. */
  readonly latencyMs: number;
  /** Extra latency, uniform in [0, jitterMs), ms. */
  readonly jitterMs: number;
  /** Status of a refusal. */
  readonly refusalStatus: 429 | 503;
  readonly retryAfter: RetryAfterChoice;
  /** The constant of `retryAfter: 'fixed'`, s. */
  readonly retryAfterS: number;
  /** How far the server's clock (its `Date`, HTTP-dates, epoch resets) is ahead of the client's, ms. */
  readonly dateSkewMs: number;
  /** An unseen consumer of the same limit, when there is one. */
  readonly background?: { readonly share: number; readonly active: readonly Span[] };
  /** Chance of an unrelated 5xx per request (0: none). */
  readonly noise: number;
  readonly client: ClientSetup;
  /** Run length, ms (a batch stops earlier when done). */
  readonly durationMs: number;
}

/** Mean latency of a served request, ms. */
export function meanLatencyMs(server: FamilyServer): number {
  return server.latencyMs + server.jitterMs / 2;
}

/** Whether a refusal from this server comes with a pause (a Retry-After of a second or more). */
export function refusalPauses(server: FamilyServer): boolean {
  return server.retryAfter !== 'none' && server.retryAfter !== 'zero';
}

/** Whether the server has a capacity to measure goodput against (ramps have none). */
export function hasCapacity(server: FamilyServer): boolean {
  return server.kind !== 'count-ramp' && server.kind !== 'rate-ramp';
}
