import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../src/algorithms/adaptive-rate.js';
import { AimdLimit } from '../../src/algorithms/aimd.js';
import type { Permit } from '../../src/controller/permit.js';
import { ScopeController } from '../../src/controller/scope-controller.js';
import { seededRandom } from '../../src/random.js';
import type { Signal, SignalKind } from '../../src/signal.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { hasty } from './hasty-clock.js';

type Op =
  | { op: 'arrive'; abortable: boolean; timeoutMs: number | undefined }
  | { op: 'complete'; pick: number; kind: SignalKind; retryAfterMs: number | undefined }
  | { op: 'abort'; pick: number }
  | { op: 'release'; pick: number }
  | { op: 'advance'; ms: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('arrive' as const),
      abortable: fc.boolean(),
      timeoutMs: fc.option(fc.integer({ min: 0, max: 20_000 }), { nil: undefined }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      op: fc.constant('complete' as const),
      pick: fc.nat(),
      kind: fc.constantFrom<SignalKind>(
        'ok',
        'ok',
        'throttled',
        'overloaded',
        'reset',
        'timeout',
        'client-error',
      ),
      retryAfterMs: fc.option(fc.integer({ min: 0, max: 8000 }), { nil: undefined }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('abort' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('release' as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('advance' as const),
      ms: fc.integer({ min: 0, max: 3000 }),
    }),
  },
);

interface Caller {
  state: 'waiting' | 'admitted' | 'done' | 'rejected';
  permit?: Permit;
  abort?: AbortController;
}

const signalOf = (kind: SignalKind, retryAfterMs: number | undefined): Signal => ({
  kind,
  reason: kind,
  ...(retryAfterMs === undefined || kind !== 'throttled' ? {} : { retryAfterMs }),
});

async function play(ops: readonly Op[], early = false): Promise<void> {
  const clock = new VirtualClock();
  const controller = new ScopeController('host:p', {
    clock: early ? hasty(clock) : clock,
    random: seededRandom(3),
    limit: new AimdLimit({ initialLimit: 3, max: 6 }),
    rate: new AdaptiveRate(),
    breaker: { threshold: 2, cooldownMs: 1000 },
  });
  const callers: Caller[] = [];
  const violations: string[] = [];
  const pick = (state: Caller['state'], n: number) => {
    const matching = callers.filter((c) => c.state === state);
    return matching.length === 0 ? undefined : matching[n % matching.length];
  };
  const arrive = (abortable: boolean, timeoutMs: number | undefined) => {
    const caller: Caller = { state: 'waiting' };
    if (abortable) caller.abort = new AbortController();
    callers.push(caller);
    const options = {
      ...(caller.abort ? { signal: caller.abort.signal } : {}),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    };
    controller.admit(options).then(
      (permit) => {
        // Invariant 1: an admission never takes in-flight work above the current limit.
        if (controller.inflight > controller.limit)
          violations.push(`admitted ${controller.inflight} > ${controller.limit}`);
        caller.state = 'admitted';
        caller.permit = permit;
      },
      () => {
        caller.state = 'rejected';
      },
    );
  };
  const checkNotStranded = () => {
    // Invariant 2: a parked caller always has something that will wake it.
    const waking =
      controller.inflight >= controller.limit || clock.pendingTimers > 0 || controller.inflight > 0;
    if (controller.queued > 0 && !waking)
      violations.push(`stranded: ${controller.queued} queued, nothing to wake them`);
  };
  const checkWokenInTime = async () => {
    // Invariant 3: with nothing in flight, no pause and no open breaker, a waiter goes within one token's time.
    if (controller.queued === 0 || controller.inflight > 0) return;
    if (controller.pause !== undefined || controller.breaker === 'open') return;
    const queued = controller.queued;
    const tokenMs = controller.rate === Infinity ? 0 : Math.ceil(1000 / controller.rate);
    await clock.advance(tokenMs);
    if (controller.queued >= queued)
      violations.push(`late: ${queued} queued, idle, still waiting after ${tokenMs} ms`);
  };
  for (const step of ops) {
    if (step.op === 'arrive') arrive(step.abortable, step.timeoutMs);
    else if (step.op === 'advance') await clock.advance(step.ms);
    else if (step.op === 'abort') pick('waiting', step.pick)?.abort?.abort();
    else {
      const caller = pick('admitted', step.pick);
      if (caller?.permit) {
        if (step.op === 'release') caller.permit.release();
        else caller.permit.report(signalOf(step.kind, step.retryAfterMs));
        caller.state = 'done';
      }
    }
    await clock.advance(0);
    checkNotStranded();
    await checkWokenInTime();
  }
  // Liveness: once the server only says yes, every caller that did not leave is admitted.
  for (let round = 0; round < 200 && callers.some((c) => c.state === 'waiting'); round++) {
    for (const caller of callers.filter((c) => c.state === 'admitted')) {
      caller.permit?.report({ kind: 'ok', reason: 'ok' });
      caller.state = 'done';
    }
    await clock.advance(5000);
  }
  await clock.advance(400_000); // longer than any cooldown
  expect(violations).toEqual([]);
  expect(callers.filter((c) => c.state === 'waiting')).toHaveLength(0);
  expect(controller.breaker).not.toBe('open'); // its timer has turned it half-open at least
}

describe('admission under any interleaving', () => {
  it('never exceeds the current limit and never strands a waiter', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 80 }), (ops) => play(ops)),
      { numRuns: 300 },
    );
  });

  it('the same on a clock whose timers fire up to a millisecond early', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 80 }), (ops) => play(ops, true)),
      { numRuns: 300 },
    );
  });
});
