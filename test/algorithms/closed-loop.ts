import type { ConcurrencyLimit, RatePolicy, Sample } from '../../src/algorithms/sample.js';
import type { RateLimitQuota } from '../../src/headers/quota.js';
import { type Random, uniform } from '../../src/random.js';
import type { SignalKind } from '../../src/signal.js';
import { MinHeap } from '../../src/util/heap.js';

/**
 * A deliberately small discrete-event loop for checking the algorithms' control
 * quality without the enforcement layer: unlimited demand, admission by the
 * concurrency limit, a token-bucket pacer (burst 1) at the policy's rate, and
 * the policy's pause. Time is plain numbers (ms); nothing sleeps.
 */

/** What a server model answers at arrival. */
export interface Reply {
  kind: SignalKind;
  latencyMs: number;
  retryAfterMs?: number;
  /** The quota headers, written when the response leaves (at `at`). */
  quota?: (at: number) => RateLimitQuota;
}

/** A server model: decides at arrival; `capacity(at)` is its nominal rate for goodput. */
export interface ToyServer {
  arrive(at: number): Reply;
  capacity(at: number): number;
}

export interface LoopResult {
  ok: number;
  throttled: number;
  /** ok / integral of capacity over the run. */
  goodput: number;
  /** throttled / all answered. */
  rejected: number;
}

interface Flight {
  sentAt: number;
  inflight: number;
  reply: Reply;
}

/** Runs `durationMs` of closed-loop traffic and counts outcomes answered within it. */
export function runClosedLoop(
  server: ToyServer,
  limit: ConcurrencyLimit,
  policy: RatePolicy,
  durationMs: number,
  trace?: (at: number, policy: RatePolicy, limit: ConcurrencyLimit, sample: Sample) => void,
): LoopResult {
  const flights = new MinHeap<Flight>();
  let now = 0;
  let tokens = 1;
  let stamp = 0;
  let ok = 0;
  let throttled = 0;
  const refill = (at: number) => {
    tokens =
      policy.rate === Infinity ? 1 : Math.min(1, tokens + ((at - stamp) * policy.rate) / 1000);
    stamp = at;
  };
  for (;;) {
    refill(now);
    while (flights.size < limit.limit && now >= policy.pausedUntil && tokens >= 1 - 1e-9) {
      tokens -= 1;
      const reply = server.arrive(now);
      flights.push(now + reply.latencyMs, { sentAt: now, inflight: flights.size + 1, reply });
    }
    const next = nextTime(now, flights, policy, limit, tokens);
    if (next > durationMs) break;
    refill(next);
    now = next;
    while (flights.size > 0 && (flights.peekKey() ?? Infinity) <= now) {
      const flight = flights.pop() as Flight;
      const { kind, retryAfterMs, quota } = flight.reply;
      const signal = {
        kind,
        reason: kind,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      };
      const sample: Sample = {
        sentAt: flight.sentAt,
        at: now,
        inflight: flight.inflight,
        signal: quota === undefined ? signal : { ...signal, quota: quota(now) },
      };
      if (kind === 'ok') ok++;
      else throttled++;
      limit.onSample(sample);
      policy.onSample(sample);
      trace?.(now, policy, limit, sample);
    }
  }
  let capacity = 0;
  for (let t = 0; t < durationMs; t += 10) capacity += server.capacity(t) / 100;
  return { ok, throttled, goodput: ok / capacity, rejected: throttled / (ok + throttled) };
}

function nextTime(
  now: number,
  flights: MinHeap<Flight>,
  policy: RatePolicy,
  limit: ConcurrencyLimit,
  tokens: number,
): number {
  const landing = flights.peekKey() ?? Infinity;
  if (flights.size >= limit.limit) return landing;
  if (now < policy.pausedUntil) return Math.min(landing, policy.pausedUntil);
  const tokenDue = now + ((1 - tokens) * 1000) / policy.rate;
  return Math.min(landing, Math.max(tokenDue, now + 1e-6));
}

/** Capacity over time: `[fromMs, reqPerS]` steps, the first from 0. */
export type Schedule = ReadonlyArray<readonly [number, number]>;

function capacityAt(schedule: Schedule, at: number): number {
  let capacity = schedule[0]?.[1] ?? 0;
  for (const [from, rate] of schedule) if (at >= from) capacity = rate;
  return capacity;
}

/** Reference 000's server: a window starts at the first arrival after the last expired. */
export function fixedWindow(
  schedule: Schedule,
  random?: Random,
  quota = false,
  latencyMs = 350,
): ToyServer {
  let start = -Infinity;
  let used = 0;
  return {
    capacity: (at) => capacityAt(schedule, at),
    arrive(at) {
      if (at - start >= 1000) {
        start = at;
        used = 0;
      }
      const limit = capacityAt(schedule, at);
      const over = used >= limit;
      if (!over) used++;
      const reply: Reply = over
        ? { kind: 'throttled', latencyMs: 1, retryAfterMs: 1000 }
        : { kind: 'ok', latencyMs: jitter(latencyMs, random) };
      if (quota) {
        reply.quota = (now) => {
          const expired = now - start >= 1000;
          const remaining = expired ? limit : limit - used;
          const resetMs = expired ? 1000 : start + 1000 - now;
          return { limit, windowMs: 1000, remaining, resetMs, source: 'ietf' };
        };
      }
      return reply;
    },
  };
}

/** A sliding-window log: at most `capacity` accepted in any 1 s. */
export function slidingWindow(capacity: number, random?: Random, latencyMs = 350): ToyServer {
  const log: number[] = [];
  return {
    capacity: () => capacity,
    arrive(at) {
      while (log.length > 0 && (log[0] as number) <= at - 1000) log.shift();
      if (log.length >= capacity) return { kind: 'throttled', latencyMs: 1, retryAfterMs: 1000 };
      log.push(at);
      return { kind: 'ok', latencyMs: jitter(latencyMs, random) };
    },
  };
}

/** A token bucket refilled at `capacity`/s holding up to `burst`. */
export function tokenBucket(
  capacity: number,
  burst: number,
  random?: Random,
  latencyMs = 350,
): ToyServer {
  let tokens = burst;
  let stamp = 0;
  return {
    capacity: () => capacity,
    arrive(at) {
      tokens = Math.min(burst, tokens + ((at - stamp) * capacity) / 1000);
      stamp = at;
      if (tokens < 1) return { kind: 'throttled', latencyMs: 1, retryAfterMs: 1000 };
      tokens -= 1;
      return { kind: 'ok', latencyMs: jitter(latencyMs, random) };
    },
  };
}

/** `ms` with ±20 % uniform jitter when a `random` is given. */
function jitter(ms: number, random: Random | undefined): number {
  return random === undefined ? ms : uniform(random, 0.8 * ms, 1.2 * ms);
}
