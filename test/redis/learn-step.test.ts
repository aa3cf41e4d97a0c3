import { describe, expect, it } from 'vitest';
import { AimdLimit } from '../../src/algorithms/aimd.js';
import { controlSetup } from '../../src/controller/defaults.js';
import type { Permit } from '../../src/controller/permit.js';
import { ScopeController } from '../../src/controller/scope-controller.js';
import { seededRandom } from '../../src/random.js';
import { FleetDrain, queuedInOrder } from '../../src/redis/fleet-drain.js';
import {
  encodeOutcome,
  type FleetOutcome,
  judging,
  learnFrom,
  learnWith,
  parseOutcomes,
  resume,
} from '../../src/redis/learn-step.js';
import { VirtualClock } from '../../src/virtual-clock.js';
import { OK, REFUSED } from './fleet-helpers.js';

const setup = controlSetup({ maxConcurrency: 16, initialConcurrency: 8 });

describe('learnFrom: the fleet decides with the scope’s own algorithms', () => {
  it('gives the numbers the same algorithms give in one process for the same samples', () => {
    const outcomes: FleetOutcome[] = [
      { s: 1000, a: 1050, i: 8, g: OK },
      { s: 1010, a: 1060, i: 8, g: OK },
      { s: 1020, a: 1070, i: 8, g: REFUSED },
    ];
    const local = new AimdLimit({ max: 16, initialLimit: 8 });
    for (const o of outcomes as { s: number; a: number; i: number; g: typeof OK }[])
      local.onSample({ sentAt: o.s, at: o.a, inflight: o.i, signal: o.g });
    const learned = learnFrom(setup, 'host:x', '', outcomes, 1070);
    expect(learned.window).toBe(local.limit);
    // A refusal at a concurrency the server had been taking is the rate's: it is paced now.
    expect(learned.rate).toBeLessThan(Infinity);
  });

  it('resumes from the stored state and orders outcomes by answer time', () => {
    // Refused at 2 in flight before any success: the rate's (at 4 or more, a cap on trial).
    const cut = learnFrom(setup, 'host:x', '', [{ s: 1, a: 2, i: 2, g: REFUSED }], 2);
    const later = learnFrom(setup, 'host:x', cut.learned, [{ s: 3, a: 4, i: 1, g: OK }], 4);
    expect(cut.rate).toBeLessThan(Infinity);
    expect(later.rate).toBeLessThan(Infinity); // not a fresh start: the pace is remembered
    const swapped = learnFrom(
      setup,
      'host:x',
      '',
      [
        { s: 3, a: 4, i: 1, g: OK },
        { s: 1, a: 2, i: 2, g: REFUSED },
      ],
      4,
    );
    expect(swapped.learned).toBe(later.learned);
  });

  it('starts fresh from a corrupt stored state, and skips outcomes that do not parse', () => {
    expect(learnFrom(setup, 'host:x', '{not json', [], 0).window).toBe(8);
    expect(parseOutcomes(['{"a":1,"alarm":"slow-down"}', 'garbage', '{"x":1}', 7])).toEqual([
      { a: 1, alarm: 'slow-down' },
    ]);
  });
});

describe('learnFrom judges outcomes as a local controller does (ScopeFeedback)', () => {
  const oks = (from: number, n: number): FleetOutcome[] =>
    Array.from({ length: n }, (_, k) => ({ s: from + 20 * k, a: from + 20 * k + 50, i: 4, g: OK }));
  const BARE_503 = { kind: 'overloaded', reason: '503', status: 503 } as const;

  it('takes an isolated bare 503 as noise, not as a cut', () => {
    const before = oks(1000, 40);
    const clean = learnFrom(setup, 'host:x', '', [...before, ...oks(1800, 1)], 2000);
    const noisy = learnFrom(
      setup,
      'host:x',
      '',
      [...before, { s: 1800, a: 1850, i: 4, g: BARE_503 }],
      2000,
    );
    expect(noisy.window).toBe(clean.window);
    expect(noisy.rate).toBe(Infinity);
  });

  it('cuts on a surge of bare 503s, and caps a Retry-After at the scope’s maxPauseMs', () => {
    const surge = Array.from({ length: 8 }, (_, k) => ({
      s: 1000 + k,
      a: 1050 + k,
      i: 4,
      g: BARE_503,
    }));
    expect(learnFrom(setup, 'host:x', '', surge, 1100).window).toBeLessThan(8);
    const capped = controlSetup({ maxConcurrency: 16, initialConcurrency: 8, maxPauseMs: 5000 });
    const long = { ...REFUSED, retryAfterMs: 86_400_000 };
    const paused = learnFrom(capped, 'host:x', '', [{ s: 1000, a: 1050, i: 4, g: long }], 1050);
    expect(paused.pauseUntil).toBeGreaterThan(1050);
    expect(paused.pauseUntil).toBeLessThanOrEqual(1050 + 5000);
  });
});

describe('learnWith decides as a local controller does when outcomes come in batches', () => {
  // A slow start refused inside its first second by a 1 s window of 30, `Retry-After: 1`: sends
  // every 25 ms, pages answered in 100 ms, the refusal in 2 ms — three acceptances sent before
  // the refused send are answered after it.
  const schedule = Array.from({ length: 31 }, (_, k) => {
    const refused = k === 30;
    const signal = refused ? { ...REFUSED, retryAfterMs: 1000 } : OK;
    return { s: 25 * k, a: 25 * k + (refused ? 2 : 100), g: signal };
  });
  const byAnswer = [...schedule].sort((x, y) => x.a - y.a);
  /** Requests sent before `at` and answered after it: those in flight when it came, it excluded. */
  const outstandingAt = (at: number) => schedule.filter((r) => r.s < at && r.a > at).length;
  const scope = 'host:first-second';
  const setup = controlSetup({ maxConcurrency: 64, initialConcurrency: 40 });

  /** The local controller, fed the same requests on a virtual clock: its learned rate. */
  async function localRate(): Promise<number> {
    const clock = new VirtualClock();
    const controller = new ScopeController(scope, {
      clock,
      random: seededRandom(1),
      ...setup(scope),
    });
    const events = [
      ...schedule.map((r, k) => ({ t: r.s, k, send: true })),
      ...schedule.map((r, k) => ({ t: r.a, k, send: false })),
    ].sort((x, y) => x.t - y.t || Number(x.send) - Number(y.send));
    const permits = new Map<number, Permit>();
    for (const event of events) {
      await clock.advance(event.t - clock.now());
      const request = schedule[event.k] as (typeof schedule)[number];
      if (event.send) permits.set(event.k, await controller.admit());
      else permits.get(event.k)?.report(request.g);
    }
    return controller.rate;
  }

  it('reads a first second refused with acceptances still to come as the local controller does', async () => {
    // What a worker queues: each outcome with the requests still in flight when it came.
    const queued = byAnswer.map((r) =>
      encodeOutcome(
        { sentAt: r.s, at: r.a, inflight: 1, signal: r.g, outstanding: outstandingAt(r.a) },
        1,
        (local) => local,
      ),
    );
    // The learner's first step reads up to the refusal; the later acceptances come in its next.
    const split = byAnswer.findIndex((r) => r.g !== OK) + 1;
    const feedback = judging(resume(setup, scope, '', 0), 0);
    learnWith(feedback, parseOutcomes(queued.slice(0, split)));
    const learned = learnWith(feedback, parseOutcomes(queued.slice(split)));
    const local = await localRate();
    // The whole second's 30 acceptances, not the 28 learned when the first batch after it came.
    expect(local).toBeCloseTo(30 * 0.97, 5);
    expect(learned.rate).toBe(local);
  });

  it('reads it once Redis shows the fleet drained, each outcome’s own count an upper bound', async () => {
    // Several workers: each outcome's `o` adds the fleet's leases as Redis last counted them,
    // here 8 more booked for after the pause (numbers 32–39), so it is never 0. Redis numbers the
    // admissions (request k is k + 1, the refused one 31) and stamps each outcome queued with the
    // lowest number still leased: above 31 once every request sent before the refused one is in.
    const booked = 8;
    const lowestLeased = (at: number) => {
      const open = schedule.findIndex((r) => r.a > at);
      return open === -1 ? 32 : open + 1;
    };
    const queued = byAnswer.map((r) =>
      JSON.stringify({
        ...JSON.parse(
          encodeOutcome(
            {
              sentAt: r.s,
              at: r.a,
              inflight: 1,
              signal: r.g,
              outstanding: outstandingAt(r.a) + booked,
            },
            1,
            (local) => local,
          ),
        ),
        q: schedule.indexOf(r) + 1,
        m: lowestLeased(r.a),
      }),
    );
    const split = byAnswer.findIndex((r) => r.g !== OK) + 1;
    const feedback = judging(resume(setup, scope, '', 0), 0);
    const drain = new FleetDrain();
    learnWith(feedback, parseOutcomes(queued.slice(0, split)), drain);
    const learned = learnWith(feedback, parseOutcomes(queued.slice(split)), drain);
    // Counted as the pause's last acceptance came, as the local controller counts it (main: the
    // count waited for its due time, and no acceptance came by then — the refusal's reading held).
    expect(learned.rate).toBe(await localRate());
  });
});

describe('queuedInOrder: an outcome speaks for the fleet once those queued before it are learned', () => {
  it('marks each outcome taken in answer order', () => {
    // Queued 0, 1, 2, 3; answered 1, 0, 3, 2: outcome 1 comes before 0 is learned.
    expect(queuedInOrder([1, 0, 3, 2])).toEqual([false, true, false, true]);
    expect(queuedInOrder([0, 1, 2])).toEqual([true, true, true]);
  });
});

describe('FleetDrain: the first acceptance past the refused number, and only it', () => {
  const refusal = { sentAt: 0, at: 1, inflight: 1, signal: REFUSED };
  it('reads 0 once, then each outcome’s own count; never for an unnumbered refusal', () => {
    const drain = new FleetDrain();
    expect(drain.outstanding({ o: 5, m: 9 }, true)).toBe(5); // no refusal yet
    drain.learned({ q: 7 }, refusal);
    expect(drain.outstanding({ o: 5, m: 7 }, true)).toBe(5); // the refused one still leased
    expect(drain.outstanding({ o: 5, m: 8 }, false)).toBe(5); // outcomes queued before it unlearned
    expect(drain.outstanding({ o: 5 }, true)).toBe(5); // unstamped (a rate lease was held)
    expect(drain.outstanding({ o: 5, m: 8 }, true)).toBe(0);
    expect(drain.outstanding({ o: 5, m: 9 }, true)).toBe(5);
    drain.learned({}, refusal);
    expect(drain.outstanding({ o: 5, m: 1e9 }, true)).toBe(5);
  });
});
