import type { ClockReading } from '../algorithms/clock-reading.js';
import type { AlarmAction, Sample } from '../algorithms/sample.js';
import type { ScopeFactory, ScopeSetup } from '../controller/registry.js';
import { readScopeControllerOptions } from '../controller/scope-controller-options.js';
import { ScopeFeedback } from '../controller/scope-feedback.js';
import { restoreScope } from '../controller/scope-state.js';
import type { Signal } from '../signal.js';
import type { ScopeState } from '../store/store.js';
import { FleetDrain, queuedInOrder } from './fleet-drain.js';

/**
 * One outcome as the fleet queues it for learning, times in Redis ms: a
 * request's (`s` sent, `a` answered, `i` fleet in-flight at admission, `o`
 * the scope's other requests still in flight when it was answered — see
 * `Sample.outstanding`; absent from older workers, read as none — `g` the
 * classified signal; `q` and `m`, stamped by Redis: its admission number and
 * the lowest still leased, see {@link FleetDrain}) or a soft-throttling alarm's.
 */
export type FleetOutcome =
  | { s: number; a: number; i: number; o?: number; q?: number; m?: number; g: Signal }
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
    ...(sample.outstanding === undefined ? {} : { o: sample.outstanding }),
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
  return learnWith(judging(resume(setup, scope, stored, redisNow), redisNow), outcomes);
}

/**
 * How the fleet's learner takes outcomes: through the same {@link ScopeFeedback}
 * a local controller judges with — pauses capped at the scope's `maxPauseMs`,
 * bare 5xx noise filtered (`OverloadFilter`), refusals that show a concurrency
 * cap marked as such — its latency guard left to each worker (whose alarms
 * reach the learner as outcomes). `redisNow`: when the algorithms took over.
 */
export function judging(algorithms: ScopeSetup, redisNow: number): ScopeFeedback {
  const feedback = new ScopeFeedback(
    algorithms.limit,
    algorithms.rate,
    readScopeControllerOptions(algorithms).maxPauseMs,
    false,
  );
  feedback.notePaced(redisNow);
  return feedback;
}

/**
 * {@link learnFrom} on algorithms already resumed and judging — the learner's
 * own, kept from its previous step while nobody else wrote the state since, so
 * what they hold beyond their snapshot (recent send times, the filter's
 * recent 5xx share…) carries on. Outcomes are taken in the order they were
 * answered; `drain` (kept with `feedback`) makes a refusal's first count exact
 * (see {@link FleetDrain}).
 */
export function learnWith(
  feedback: ScopeFeedback,
  outcomes: readonly FleetOutcome[],
  drain = new FleetDrain(),
): LearnedState {
  const { limit, rate } = feedback;
  const order = outcomes.map((_, k) => k).sort((x, y) => at(outcomes, x) - at(outcomes, y));
  const inOrder = queuedInOrder(order);
  order.forEach((index, k) => {
    const outcome = outcomes[index] as FleetOutcome;
    if ('alarm' in outcome) {
      rate.onAlarm?.(outcome.a, outcome.alarm);
      return;
    }
    const request = { sentAt: outcome.s, inflightAtSend: outcome.i };
    const outstanding = drain.outstanding(outcome, inOrder[k] === true);
    const { sample } = feedback.judge(request, outcome.a, outcome.g, outstanding);
    feedback.learn(sample);
    drain.learned(outcome, sample);
    feedback.notePaced(outcome.a);
  });
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

/** When the outcome at `index` was answered. */
function at(outcomes: readonly FleetOutcome[], index: number): number {
  return (outcomes[index] as FleetOutcome).a;
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
