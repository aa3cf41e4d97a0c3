import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AimdLimit } from '../../src/algorithms/aimd.js';
import { InvalidOptionError } from '../../src/errors.js';
import type { SignalKind } from '../../src/signal.js';
import { SAME_CLOCKS, throughJson } from './clocks.js';
import { sample } from './samples.js';

/** Feeds `count` successes of a fully used limit, one ms apart from `from`. */
function succeed(limit: AimdLimit, count: number, from = 1000): void {
  for (let i = 0; i < count; i++) limit.onSample(sample({ at: from + i, inflight: limit.limit }));
}

describe('AimdLimit', () => {
  it('starts at 4 and never leaves [1, 32] by default', () => {
    const limit = new AimdLimit();
    expect(limit.limit).toBe(4);
    succeed(limit, 1000);
    expect(limit.limit).toBe(32);
  });

  it('grows by about one per round trip (a window of successes), not one per success, while the limit is not full (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 8, max: 24 }),
        fc.integer({ min: 1, max: 6 }),
        (initialLimit, roundTrips) => {
          const limit = new AimdLimit({ initialLimit, slowStartThreshold: 0 });
          for (let r = 0; r < roundTrips; r++) {
            // Used (over half in flight), not full: the pacer or the demand holds it back.
            const inflight = Math.ceil(0.6 * limit.limit);
            for (let i = 0; i < limit.limit; i++)
              limit.onSample(sample({ at: 1000 * (r + 1) + i, inflight }));
          }
          const grown = limit.limit - initialLimit;
          expect(grown).toBeGreaterThanOrEqual(roundTrips - 1);
          expect(grown).toBeLessThanOrEqual(roundTrips);
        },
      ),
    );
  });

  it('doubles its growth each round trip the limit binds, clean and calm, at most by half', () => {
    // Pages of a second, a server granting far more: at one per round trip, 40 → 250 took minutes.
    const limit = new AimdLimit({ initialLimit: 40, max: 256, slowStartThreshold: 0 });
    const sizes = [limit.limit];
    for (let r = 1; r <= 10; r++) {
      succeed(limit, limit.limit, 1000 * r);
      sizes.push(limit.limit);
    }
    // One per round trip until a round trip showed it full, then about 2, 4, 8, … per round trip.
    expect(sizes.slice(0, 5)).toEqual([40, 40, 41, 43, 47]);
    expect(sizes[8]).toBeGreaterThanOrEqual(120);
    expect(limit.limit).toBe(256);
    for (let r = 1; r < sizes.length; r++) {
      const [before, after] = [sizes[r - 1] as number, sizes[r] as number];
      expect(after).toBeLessThanOrEqual(Math.max(before + 1, 1.5 * before));
    }
  });

  it('starts again from one per round trip after a refusal, a timeout, a limit not full or a latency rising', () => {
    /** Six round trips of a full limit from 40, each round trip `rise` times the last. */
    const bound = (rise = 1) => {
      const limit = new AimdLimit({ initialLimit: 40, max: 256, slowStartThreshold: 0 });
      for (let r = 1; r <= 6; r++) {
        for (let i = 0, n = limit.limit; i < n; i++) {
          const at = 1000 * r + i;
          limit.onSample(sample({ at, sentAt: at - 100 * rise ** r, inflight: limit.limit }));
        }
      }
      return limit;
    };
    /** Growth over the next round trip from `at`, sent at `inflight`. */
    const nextRound = (limit: AimdLimit, at: number, inflight = limit.limit) => {
      const before = limit.limit;
      for (let i = 0; i < before; i++) limit.onSample(sample({ at: at + i, inflight }));
      return limit.limit - before;
    };
    expect(nextRound(bound(), 7000)).toBeGreaterThanOrEqual(20);
    const refused = bound();
    refused.onSample(sample({ at: 6900, sentAt: 6800, kind: 'throttled', inflight: 68 }));
    expect(nextRound(refused, 7000)).toBe(1);
    const timedOut = bound();
    timedOut.onSample(sample({ at: 6900, sentAt: 6800, kind: 'timeout', inflight: 68 }));
    expect(nextRound(timedOut, 7000)).toBe(1); // the round trip of the cut was not clean
    expect(nextRound(timedOut, 8000)).toBe(2); // from one again: 2, 4, … while clean and full
    const notFull = bound();
    nextRound(notFull, 7000, 40); // judged as the next round trip ends
    expect(nextRound(notFull, 8000, 60)).toBe(1);
    // Each round trip 20 % slower than the last (a latency keyed to the rate): one per round trip.
    expect(bound(1.2).limit).toBe(45);
  });

  it('does not grow while the limit is not used (inflight * 2 < limit)', () => {
    const limit = new AimdLimit({ initialLimit: 10, slowStartThreshold: 0 });
    for (let i = 0; i < 200; i++) limit.onSample(sample({ at: i, inflight: 4 }));
    expect(limit.limit).toBe(10);
    // Half used is the edge: it may grow to 2 × inflight, no further.
    for (let i = 0; i < 200; i++) limit.onSample(sample({ at: 1000 + i, inflight: 6 }));
    expect(limit.limit).toBe(12);
  });

  it('slow start adds one per success (doubling per round trip) until a refusal of concurrency', () => {
    const limit = new AimdLimit({ initialLimit: 4 });
    succeed(limit, 4);
    expect(limit.limit).toBe(8);
    succeed(limit, 8, 2000);
    expect(limit.limit).toBe(16);
    const refused = { at: 3000, sentAt: 2900, kind: 'throttled' as const, inflight: 14 };
    limit.onSample(sample({ ...refused, overConcurrency: true }));
    expect(limit.limit).toBe(13); // the most the server took: one less than was refused
    succeed(limit, 13, 4000);
    expect(limit.limit).toBe(13); // at the cap, one more only when the budget pays for it
  });

  it('slow start on pages of two seconds, latency flat and nothing but successes, doubles about each second', () => {
    // Each success of a round trip of 2 s adds 2^2 - 1 = 3: the limit quadruples per round trip.
    const slowPages = (from: number, count: number, rttMs = 2000) => {
      for (let i = 0; i < count; i++) {
        limit.onSample(sample({ at: from + i, sentAt: from + i - rttMs, inflight: limit.limit }));
      }
    };
    let limit = new AimdLimit({ initialLimit: 4, max: 1000 });
    slowPages(2000, 4);
    expect(limit.limit).toBe(16);
    slowPages(4000, 16);
    expect(limit.limit).toBe(64);
    // A round whose shortest round trip rose by more than a quarter: one per success for the next.
    slowPages(6600, 64, 2600);
    expect(limit.limit).toBe(256);
    slowPages(9200, 8, 2600);
    expect(limit.limit).toBe(264);
    // A refusal (for the rate: the limit stays) ends it for good.
    limit = new AimdLimit({ initialLimit: 4, max: 1000 });
    slowPages(2000, 4);
    limit.onSample(sample({ at: 3000, sentAt: 2990, kind: 'throttled', inflight: 16 }));
    slowPages(4000, 16);
    expect(limit.limit).toBe(32);
    // Pages under a second: one per success, as ever.
    limit = new AimdLimit({ initialLimit: 4, max: 1000 });
    slowPages(2000, 4, 900);
    expect(limit.limit).toBe(8);
    // Saved and restored in another process (monotonic clock of another origin), it climbs on as fast.
    limit = new AimdLimit({ initialLimit: 4, max: 1000 });
    slowPages(2000, 4);
    const saved = throughJson(limit.snapshot({ monotonic: 3000, wall: 1_700_000_000_000 }));
    limit = new AimdLimit({ initialLimit: 4, max: 1000 });
    limit.restore(saved, { monotonic: 50_000, wall: 1_700_000_000_000 });
    slowPages(51_000, 16);
    expect(limit.limit).toBe(64);
  });

  it('slow start on pages of two seconds climbs as fast with the requests really in flight, each answered a round trip after it was sent', () => {
    // A client keeps the limit full: each answer frees its slot and the limit's growth is sent
    // at once, every request answered 2 s later. The requests of a round were sent under a limit
    // that has quadrupled by the time they come back; they used it all the same.
    const limit = new AimdLimit({ initialLimit: 4, max: 1000 });
    const inFlight: { sentAt: number; inflight: number }[] = [];
    const fill = (at: number) => {
      while (inFlight.length < limit.limit)
        inFlight.push({ sentAt: at, inflight: inFlight.length + 1 });
    };
    fill(0);
    for (let at = 2000; at <= 6000; at += 2000) {
      for (let i = 0; inFlight[0] !== undefined && inFlight[0].sentAt < at - 1000; i++) {
        const sent = inFlight.shift() as { sentAt: number; inflight: number };
        limit.onSample(sample({ at: at + i / 100, sentAt: sent.sentAt, inflight: sent.inflight }));
        fill(at + i / 100);
      }
    }
    // ×4 a round (2^2 − 1 = 3 added per success): 4 → 16 → 64 → 256.
    expect(limit.limit).toBe(256);
  });

  it('checks a cap on trial one past it a second on, without waiting for the budget, and forgets it when the server takes more', () => {
    const limit = new AimdLimit({ initialLimit: 4 });
    succeed(limit, 4);
    succeed(limit, 8, 2000);
    const refused = { at: 3000, sentAt: 2900, kind: 'throttled' as const, inflight: 14 };
    limit.onSample(sample({ ...refused, overConcurrency: true, capTrial: 'begins' }));
    expect(limit.limit).toBe(13);
    // Held a second, the cap is checked on a probe's worth of credit: one past it in a round trip.
    for (let i = 0; i < 20; i++) limit.onSample(sample({ at: 3500 + i, inflight: 13 }));
    expect(limit.limit).toBe(13);
    for (let i = 0; i < 20; i++) limit.onSample(sample({ at: 4500 + i, inflight: 13 }));
    expect(limit.limit).toBe(14);
    // Accepted at 14 in flight: a rate limit (or a cap that rose); the slow start goes on from 16.
    limit.onSample(sample({ at: 5000, inflight: 14 }));
    expect(limit.limit).toBe(17);
    succeed(limit, 8, 6000);
    expect(limit.limit).toBe(25);
  });

  it('checks a cap on trial whose refusal asked for a pause of seconds only once the budget has earned that pause', () => {
    // A cap answers its check as it answered the slow start: a refused check would cost another
    // 4 s pause. Beyond the second the trial holds anyway, 3 s of pause at 3 % of the time.
    const limit = new AimdLimit({ initialLimit: 4 });
    succeed(limit, 4);
    succeed(limit, 8, 2000);
    const refused = { at: 3000, sentAt: 2900, kind: 'throttled' as const, inflight: 14 };
    const paused = { ...refused, retryAfterMs: 4000 };
    limit.onSample(sample({ ...paused, overConcurrency: true, capTrial: 'begins' }));
    expect(limit.limit).toBe(13);
    // Held well past the pause and the second's hold, 100 successes a second: no check yet.
    let at = 7000;
    for (; at < 60_000; at += 10) limit.onSample(sample({ at, inflight: 13 }));
    expect(limit.limit).toBe(13);
    // Once 3 s of pause are earned (100 s at 3 %), the cap is checked one past it.
    for (; at < 110_000 && limit.limit === 13; at += 10)
      limit.onSample(sample({ at, inflight: 13 }));
    expect(limit.limit).toBe(14);
    expect(at).toBeGreaterThan(100_000);
  });

  it('forgets a cap on trial that a refusal for the rate refutes, and keeps one the check confirmed', () => {
    const trial = () => {
      const limit = new AimdLimit({ initialLimit: 16 });
      succeed(limit, 16);
      const refused = { at: 1000, sentAt: 900, kind: 'throttled' as const, inflight: 20 };
      limit.onSample(sample({ ...refused, overConcurrency: true, capTrial: 'begins' }));
      return limit;
    };
    const refuted = trial();
    const forRate = { at: 2000, sentAt: 1900, kind: 'throttled' as const, inflight: 12 };
    refuted.onSample(sample({ ...forRate, capTrial: 'refuted' }));
    expect(refuted.limit).toBe(32); // as before the trial
    const confirmed = trial();
    succeed(confirmed, 19, 1500);
    const check = { at: 2000, sentAt: 1900, kind: 'throttled' as const, inflight: 20 };
    confirmed.onSample(sample({ ...check, overConcurrency: true }));
    expect(confirmed.limit).toBe(19);
    confirmed.onSample(sample({ at: 2500, sentAt: 2400, inflight: 19 }));
    confirmed.onSample(sample({ ...forRate, at: 3000, sentAt: 2900 }));
    expect(confirmed.limit).toBe(19); // a refusal for the rate leaves a cap the check confirmed
  });

  it('keeps a cap on trial past a success timing noise explains, and lowers it by each refusal that met it', () => {
    const limit = new AimdLimit({ initialLimit: 16 });
    succeed(limit, 16);
    const refused = { at: 1000, sentAt: 995, kind: 'throttled' as const, inflight: 20 };
    limit.onSample(sample({ ...refused, overConcurrency: true, capTrial: 'begins' }));
    expect(limit.limit).toBe(19);
    // A success of the burst past the cap that the trial holds the noise's: the cap stays.
    limit.onSample(sample({ at: 1050, sentAt: 990, inflight: 21, capTrial: 'held' }));
    expect(limit.limit).toBe(19);
    // Resuming, a burst sent at once meets the cap twice: one lower each time, in one congestion event.
    const resumed = { sentAt: 2000, kind: 'throttled' as const, overConcurrency: true };
    limit.onSample(sample({ ...resumed, at: 2003, inflight: 7, capTrial: 'lowered' }));
    limit.onSample(sample({ ...resumed, at: 2004, inflight: 12, capTrial: 'lowered' }));
    expect(limit.limit).toBe(17);
    // Any other success past it still forgets the cap on trial: as before it.
    limit.onSample(sample({ at: 3000, sentAt: 2900, inflight: 18 }));
    expect(limit.limit).toBeGreaterThan(19);
  });

  it('leaves the limit to the pacer when a refusal was for the rate', () => {
    const limit = new AimdLimit({ initialLimit: 20, slowStartThreshold: 0 });
    limit.onSample(sample({ at: 1000, sentAt: 990, kind: 'throttled', inflight: 20 }));
    expect(limit.limit).toBe(20);
  });

  it('learns a concurrency cap once per congestion event, and probes one past it on budget', () => {
    const limit = new AimdLimit({ initialLimit: 20, slowStartThreshold: 0 });
    for (let i = 0; i < 15; i++) {
      const spec = { at: 1000 + i, sentAt: 990, kind: 'throttled' as const, inflight: 20 - i };
      limit.onSample(sample({ ...spec, overConcurrency: true }));
    }
    expect(limit.limit).toBe(19); // one less than the first refusal: the rest were the same event
    // At the cap, one more only once the budget has earned a refusal's worth.
    let successes = 0;
    while (limit.limit === 19 && successes < 1000) succeed(limit, 1, 2000 + successes++);
    expect(limit.limit).toBe(20);
    expect(successes).toBeGreaterThan(0);
    // The server takes 20 too: the cap rises, and each try goes twice as far as the last.
    limit.onSample(sample({ at: 2100, inflight: 20 }));
    succeed(limit, 80, 2200);
    expect(limit.limit).toBeGreaterThanOrEqual(22);
  });

  it('probes again at once after a refusal below where its probe began (a capacity that fell), and pays for one past it', () => {
    // A cap of 19 learned with a 2 s pause, then a probe that the server takes far past it.
    const probed = () => {
      const limit = new AimdLimit({ initialLimit: 20, max: 64, slowStartThreshold: 0 });
      const cap = { at: 1000, sentAt: 990, kind: 'throttled' as const, retryAfterMs: 2000 };
      limit.onSample(sample({ ...cap, inflight: 20, overConcurrency: true }));
      let at = 4000;
      while (limit.limit < 40 && at < 100_000) succeed(limit, 1, at++);
      expect(limit.limit).toBeGreaterThanOrEqual(40);
      return { limit, at };
    };
    /** Successes at a full limit, one ms apart, until it grows past `above` (or 10 s pass); how many it took. */
    const regrow = (limit: AimdLimit, from: number, above: number) => {
      let at = from;
      while (limit.limit <= above && at < from + 10_000) succeed(limit, 1, at++);
      return at - from;
    };
    /** A refusal with a 2 s pause, sent at `inflight` and read as over concurrency. */
    const refuse = ({ limit, at }: ReturnType<typeof probed>, inflight: number) =>
      limit.onSample(
        sample({
          at,
          sentAt: at - 5,
          kind: 'throttled',
          retryAfterMs: 2000,
          inflight,
          overConcurrency: true,
        }),
      );
    // Refused at 8 in flight, far below the 19 the probe began from: the capacity fell.
    const fell = probed();
    refuse(fell, 8);
    expect(fell.limit.limit).toBe(7);
    expect(regrow(fell.limit, fell.at + 1, 7)).toBeLessThan(100);
    // Refused past where the probe began: what looking costs, paid for from the budget (a 2 s
    // pause at 3 % of the time: tens of seconds of earning).
    const found = probed();
    refuse(found, 30);
    expect(found.limit.limit).toBe(29);
    expect(regrow(found.limit, found.at + 1, 29)).toBeGreaterThanOrEqual(10_000);
  });

  it('probes a cap less often each time a probe finds it where it was, and as the budget allows again once one finds it moved', () => {
    // A cap of 19 in flight (a refusal at 20, no Retry-After), its limit full: ten successes a
    // second earn a probe's refusal every 10 s. A stable cap's probes are all refused one past it.
    const limit = new AimdLimit({ initialLimit: 20, max: 64, slowStartThreshold: 0 });
    let at = 1000;
    const refuse = (inflight: number) => {
      at += 100;
      const spec = { at, sentAt: at - 5, kind: 'throttled' as const, inflight };
      limit.onSample(sample({ ...spec, overConcurrency: true }));
    };
    /** Successes 100 ms apart at the full limit until it tries past `cap`; when it did. */
    const probeAfter = (cap: number) => {
      while (limit.limit <= cap && at < 10_000_000) {
        at += 100;
        limit.onSample(sample({ at, inflight: limit.limit }));
      }
      return at;
    };
    refuse(20);
    const learned = at;
    let last = probeAfter(19);
    const first = last - learned; // a probe's worth of credit, earned from nothing
    const waits: number[] = [];
    for (let probe = 0; probe < 3; probe++) {
      refuse(20); // found where it was
      const next = probeAfter(19);
      waits.push(next - last);
      last = next;
    }
    expect(first).toBeLessThan(15_000);
    expect(waits[0]).toBeGreaterThanOrEqual(1.5 * first); // twice the patience
    expect(waits[2]).toBeGreaterThanOrEqual(3 * first); // four times, at most
    // The cap rose: the probe is taken at 20, tries further and is refused there (a cap above 19).
    at += 100;
    limit.onSample(sample({ at, inflight: 20 }));
    probeAfter(20);
    const refused = at;
    refuse(limit.limit);
    const cap = limit.limit;
    expect(cap).toBeGreaterThan(19);
    expect(probeAfter(cap) - refused).toBeLessThan(1.5 * first); // patience back to one
  });

  it('does not collapse under a burst the way per-response halving does (the reference-aimd strategy)', () => {
    const limit = new AimdLimit({ initialLimit: 32, slowStartThreshold: 0 });
    // 26 rejections of one burst, all sent together at t=0, at 32 in flight: one event.
    for (let i = 0; i < 26; i++) {
      const spec = { at: 10 + i, sentAt: 0, kind: 'throttled' as const, inflight: 32 };
      limit.onSample(sample({ ...spec, overConcurrency: true }));
    }
    expect(limit.limit).toBe(31);
  });

  it('cuts by backoffRatio on a reset or timeout, once per event', () => {
    const options = { initialLimit: 20, slowStartThreshold: 0, backoffRatio: 0.6 };
    const once = new AimdLimit(options);
    once.onSample(sample({ at: 1000, sentAt: 990, kind: 'timeout', inflight: 20 }));
    expect(once.limit).toBe(Math.floor(20 * 0.6));
    const burst = new AimdLimit(options);
    for (let i = 0; i < 5; i++)
      burst.onSample(sample({ at: 1000 + i, sentAt: 990, kind: 'timeout', inflight: 20 }));
    expect(burst.limit).toBe(once.limit); // sent before the cut: the same event
    burst.onSample(sample({ at: 1200, sentAt: 1100, kind: 'reset', inflight: 12 })); // sent after: a new one
    expect(burst.limit).toBeLessThan(once.limit);
  });

  it('cuts harder on overload and holds increases for overloadHoldMs', () => {
    const options = { initialLimit: 20, slowStartThreshold: 0, overloadHoldMs: 3000 };
    const timedOut = new AimdLimit(options);
    timedOut.onSample(sample({ at: 1000, kind: 'timeout', inflight: 20 }));
    const limit = new AimdLimit(options);
    limit.onSample(sample({ at: 1000, kind: 'overloaded', inflight: 20 }));
    expect(limit.limit).toBeLessThan(timedOut.limit);
    const cut = limit.limit;
    succeed(limit, 100, 1001); // within the hold: no growth, however many successes
    expect(limit.limit).toBe(cut);
    succeed(limit, 2 * cut, 4000); // after it: grows again, about one per round trip
    expect(limit.limit).toBeGreaterThan(cut);
    expect(limit.limit).toBeLessThanOrEqual(cut + 2);
  });

  it('does not decrease for a failure sent while the limit was under half used', () => {
    // A lone request refused as sending resumes after a pause says nothing about
    // concurrency: halving the limit on each of them left 4 of 128.
    const limit = new AimdLimit({ initialLimit: 128, max: 256, slowStartThreshold: 0 });
    for (let i = 0; i < 5; i++) {
      const at = 1000 * (i + 1);
      limit.onSample(sample({ at, sentAt: at - 50, kind: 'overloaded', inflight: 1 }));
      limit.onSample(sample({ at: at + 1, sentAt: at - 40, kind: 'timeout', inflight: 63 }));
    }
    expect(limit.limit).toBe(128);
    limit.onSample(sample({ at: 9000, sentAt: 8950, kind: 'overloaded', inflight: 64 }));
    expect(limit.limit).toBeLessThan(128);
  });

  it('ignores hold signals and keeps the floor', () => {
    const limit = new AimdLimit({ initialLimit: 2, min: 2 });
    for (const kind of ['blocked', 'refused', 'client-error', 'server-error'] as SignalKind[]) {
      limit.onSample(sample({ at: 1, kind }));
    }
    expect(limit.limit).toBe(2);
    for (let i = 0; i < 10; i++)
      limit.onSample(sample({ at: 10 * i + 10, sentAt: 10 * i + 5, kind: 'timeout', inflight: 2 }));
    expect(limit.limit).toBe(2);
  });

  it('rejects bad options with an error naming the option, the value and the rule', () => {
    expect(() => new AimdLimit({ max: 0 })).toThrow(/option `max` must be an integer >= 1, got 0/);
    expect(() => new AimdLimit({ backoffRatio: 1.5 })).toThrow(/backoffRatio.*1\.5/);
    expect(() => new AimdLimit({ initialLimit: 2.5 })).toThrow(InvalidOptionError);
    expect(() => new AimdLimit({ maxLimit: 3 } as never)).toThrow(/unknown option `maxLimit`/);
    expect(() => new AimdLimit({ min: 5, max: 4 })).toThrow(/`max` must be an integer >= 5/);
  });

  it('serialises to plain numbers and resumes from them', () => {
    const first = new AimdLimit({ slowStartThreshold: 0, overloadHoldMs: 5000 });
    succeed(first, 50);
    first.onSample(sample({ at: 2000, kind: 'overloaded' }));
    const saved = throughJson(first.snapshot(SAME_CLOCKS));
    for (const [key, value] of Object.entries(saved)) {
      expect(typeof value).toBe(['ceiling', 'rounds', 'pace'].includes(key) ? 'object' : 'number');
    }
    const second = new AimdLimit({ slowStartThreshold: 0, overloadHoldMs: 5000 });
    second.restore(saved, SAME_CLOCKS);
    expect(second.limit).toBe(first.limit);
    expect(second.snapshot(SAME_CLOCKS)).toEqual(first.snapshot(SAME_CLOCKS));
    // The hold and the once-per-event rule carry over.
    succeed(second, 20, 3000);
    expect(second.limit).toBe(first.limit);
    second.onSample(sample({ at: 3100, sentAt: 1500, kind: 'timeout' }));
    expect(second.limit).toBe(first.limit);
  });

  it('resumes growing as fast as it was: the round trips it bound are saved', () => {
    const options = { initialLimit: 40, max: 256, slowStartThreshold: 0 };
    const live = new AimdLimit(options);
    for (let r = 1; r <= 6; r++) succeed(live, live.limit, 1000 * r);
    // Saved and restored on a monotonic clock of another origin, a wall clock a minute later.
    const saved = throughJson(live.snapshot({ monotonic: 6500, wall: 1_700_000_000_000 }));
    const restored = new AimdLimit(options);
    restored.restore(saved, { monotonic: 123, wall: 1_700_000_060_000 });
    expect(restored.limit).toBe(live.limit);
    const before = live.limit;
    succeed(live, before, 66_500);
    succeed(restored, before, 60_123);
    expect(live.limit - before).toBeGreaterThanOrEqual(8); // doubling, not one per round trip
    expect(restored.limit).toBe(live.limit);
  });

  it('rejects malformed saved state', () => {
    const restore = (state: Record<string, unknown>) => () =>
      new AimdLimit().restore(state, SAME_CLOCKS);
    expect(restore({ value: 'ten' })).toThrow(/AimdLimit state.*`value`/);
    expect(restore({ holdUntil: Number.NaN })).toThrow(InvalidOptionError);
    expect(restore({ ceiling: 7 })).toThrow(/AimdLimit state.*`ceiling` must be an object/);
    expect(restore({ rounds: { boost: 0.5 } })).toThrow(/AimdLimit state rounds.*`boost`/);
    expect(restore({ pace: { flat: 2 } })).toThrow(/AimdLimit state pace.*`flat`/);
    expect(restore({ pace: { ended: 'yes' } })).toThrow(/AimdLimit state pace.*`ended`/);
  });

  it('keeps an integer limit in [min, max] whatever the samples (property)', () => {
    const kinds: SignalKind[] = ['ok', 'throttled', 'overloaded', 'blocked', 'timeout', 'reset'];
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 0, max: 40 }),
        fc.array(
          fc.record({
            kind: fc.constantFrom(...kinds),
            dt: fc.double({ min: 0, max: 2000, noNaN: true }),
            rtt: fc.double({ min: -100, max: 5000, noNaN: true }),
            inflight: fc.integer({ min: 0, max: 64 }),
            overConcurrency: fc.boolean(),
          }),
          { maxLength: 200 },
        ),
        (min, extra, steps) => {
          const limit = new AimdLimit({ min, max: min + extra, initialLimit: min });
          let at = 0;
          for (const step of steps) {
            at += step.dt;
            const value = limit.onSample(
              sample({
                at,
                sentAt: at - step.rtt,
                kind: step.kind,
                inflight: step.inflight,
                overConcurrency: step.overConcurrency,
              }),
            );
            expect(Number.isInteger(value)).toBe(true);
            expect(value).toBeGreaterThanOrEqual(min);
            expect(value).toBeLessThanOrEqual(min + extra);
          }
        },
      ),
    );
  });
});
