import type { ClockReading } from '../algorithms/clock-reading.js';
import type { AlarmAction, Sample } from '../algorithms/sample.js';
import type { ScopeFactory, ScopeSetup } from '../controller/registry.js';
import { restoreScope } from '../controller/scope-state.js';
import type { Signal } from '../signal.js';
import type { ScopeState } from '../store/store.js';

/**
 * One outcome as the fleet queues it for learning, times in Redis ms: a
 * request's (`s` sent, `a` answered, `i` fleet in-flight at admission, `g`
 * the classified signal) or a soft-throttling alarm's.
 */
export type FleetOutcome =
  | { s: number; a: number; i: number; g: Signal }
  | { a: number; alarm: AlarmAction };

/** A request's outcome as queued for learning (JSON), its times turned into Redis ms by `toRedis`. */
export function encodeOutcome(
  sample: Sample,
  inflight: number,
  toRedis: (local: number) => number,
): string {
  const outcome = {
    s: toRedis(sample.sentAt),
    a: toRedis(sample.at),
    i: inflight,
    g: sample.signal,
  };
  return JSON.stringify(outcome);
}

/** What a learning step leaves in Redis. */
export interface LearnedState {
  /** The algorithms' state, JSON: `{ limit, rate }`. */
  learned: string;
  /** The concurrency window. */
  window: number;
  /** Requests/s; `Infinity` when unpaced. */
  rate: number;
  /** A pause the rate algorithm asks for (a spent quota…), Redis ms; 0 for none. */
  pauseUntil: number;
}

/**
 * The fleet's decision logic, kept in one place: the scope's own algorithms
 * (from the client's `ScopeFactory`, the same ones a single process runs)
 * resumed from the state stored in Redis, fed the queued outcomes in the
 * order they were answered. Redis then applies the result only if nobody
 * changed the state since it was read (see `learnApplyScript`).
 */
export function learnFrom(
  setup: ScopeFactory,
  scope: string,
  stored: string,
  outcomes: readonly FleetOutcome[],
  redisNow: number,
): LearnedState {
  return learnWith(resume(setup, scope, stored, redisNow), outcomes);
}

/**
 * {@link learnFrom} on algorithms already resumed — the learner's own, kept
 * from its previous step while nobody else wrote the state since, so what
 * they hold beyond their `snapshot()` (recent send times…) carries on.
 */
export function learnWith(algorithms: ScopeSetup, outcomes: readonly FleetOutcome[]): LearnedState {
  const { limit, rate } = algorithms;
  const ordered = [...outcomes].sort((x, y) => x.a - y.a);
  for (const outcome of ordered) {
    if ('alarm' in outcome) {
      rate.onAlarm?.(outcome.a, outcome.alarm);
      continue;
    }
    const sample: Sample = {
      sentAt: outcome.s,
      at: outcome.a,
      inflight: outcome.i,
      signal: outcome.g,
    };
    limit.onSample(sample);
    rate.onSample(sample);
  }
  return {
    // Any moment will do: on Redis's clock the two readings are the same number.
    learned: JSON.stringify({
      limit: limit.snapshot?.(redisClock(0)),
      rate: rate.snapshot?.(redisClock(0)),
    }),
    window: limit.limit,
    rate: rate.rate,
    pauseUntil: rate.pausedUntil > 0 ? Math.ceil(rate.pausedUntil) : 0,
  };
}

/**
 * The scope's algorithms resumed from `stored` (fresh when nothing is stored
 * or it no longer parses: a corrupt entry must not lock a scope out).
 */
export function resume(
  setup: ScopeFactory,
  scope: string,
  stored: string,
  redisNow: number,
): ScopeSetup {
  const algorithms = setup(scope);
  if (stored === '') return algorithms;
  try {
    const state = JSON.parse(stored) as Pick<ScopeState, 'limit' | 'rate'>;
    restoreScope(algorithms, { ...state, savedAt: redisNow }, redisClock(redisNow));
    return algorithms;
  } catch {
    return setup(scope);
  }
}

/**
 * Redis's clock (`TIME`, epoch ms) read at `now`: the fleet's algorithms run
 * on it, and it is a wall clock, so their saved state needs no conversion.
 */
function redisClock(now: number): ClockReading {
  return { monotonic: now, wall: now };
}

/** Parses queued outcomes, skipping any that do not parse. */
export function parseOutcomes(raw: readonly unknown[]): FleetOutcome[] {
  const outcomes: FleetOutcome[] = [];
  for (const text of raw) {
    try {
      const outcome = JSON.parse(String(text)) as FleetOutcome;
      if (typeof outcome?.a === 'number') outcomes.push(outcome);
    } catch {
      // a foreign or truncated entry teaches nothing
    }
  }
  return outcomes;
}
