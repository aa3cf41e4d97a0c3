import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PhaseMarks } from '../../src/client/phase-marks.js';
import type { Clock } from '../../src/clock.js';
import { sleepOn } from '../../src/clock.js';
import type { PhaseTimings } from '../../src/timings.js';

/** A clock that reads whatever `at` is set to (timers are not needed here). */
function settableClock(): Clock & { at: number } {
  const clock = {
    at: 1000,
    now: () => clock.at,
    wallNow: () => clock.at,
    setTimer: () => () => {},
    sleep: (ms: number, signal?: AbortSignal) => sleepOn(clock, ms, signal),
  };
  return clock;
}

function expectConsistent(t: PhaseTimings): void {
  for (const ms of [t.dnsMs, t.connectMs, t.tlsMs, t.ttfbMs, t.totalMs]) {
    expect(ms).toBeGreaterThanOrEqual(0);
  }
  expect(t.dnsMs + t.connectMs + t.tlsMs).toBeLessThanOrEqual(t.ttfbMs + 1e-9);
  expect(t.ttfbMs).toBeLessThanOrEqual(t.totalMs);
}

describe('PhaseMarks', () => {
  it('a connection opened before the request counts only from the request on', () => {
    const clock = settableClock();
    const marks = new PhaseMarks(clock); // the request starts at 1000
    // Opened at 950 for another request: DNS 950-960, TCP 960-1020, TLS 1020-1030.
    marks.connected({ start: 950, lookup: 960, connect: 1020, end: 1030, clock });
    clock.at = 1040;
    marks.firstByte();
    clock.at = 1100;
    marks.ended();
    expect(marks.timings()).toEqual({
      dnsMs: 0,
      connectMs: 20,
      tlsMs: 10,
      ttfbMs: 40,
      totalMs: 100,
      bytes: 0,
    });
  });

  it('moves marks read on another clock onto its own', () => {
    const clock = settableClock();
    const connector = settableClock();
    connector.at = 50_000;
    const marks = new PhaseMarks(clock); // starts at 1000 on its clock, 50,000 on the connector's
    marks.connected({
      start: 49_995,
      lookup: 49_995,
      connect: 50_000,
      end: 50_000,
      clock: connector,
    });
    clock.at = 1010;
    marks.firstByte();
    expect(marks.timings()).toMatchObject({ dnsMs: 0, connectMs: 0, tlsMs: 0, ttfbMs: 10 });
    const later = new PhaseMarks(clock); // starts at 1010
    connector.at = 50_010;
    later.connected({
      start: 50_012,
      lookup: 50_012,
      connect: 50_015,
      end: 50_015,
      clock: connector,
    });
    clock.at = 1020;
    later.firstByte();
    expect(later.timings()).toMatchObject({ connectMs: 3, ttfbMs: 10 });
  });

  it('stops changing once the exchange is over, also when it failed before the head', () => {
    const clock = settableClock();
    const marks = new PhaseMarks(clock);
    clock.at = 1150;
    marks.ended(); // a timeout, say
    clock.at = 5000;
    expect(marks.timings()).toMatchObject({ ttfbMs: 150, totalMs: 150 });
  });

  it('grows while the body downloads', () => {
    const clock = settableClock();
    const marks = new PhaseMarks(clock);
    clock.at = 1010;
    marks.firstByte();
    clock.at = 1070;
    expect(marks.timings()).toMatchObject({ ttfbMs: 10, totalMs: 70 });
  });

  it('keeps dns + connect + tls <= ttfb <= total, whenever each mark is made and read', () => {
    const time = fc.integer({ min: 0, max: 2000 });
    fc.assert(
      fc.property(
        fc.array(time, { minLength: 4, maxLength: 4 }),
        fc.option(time),
        fc.option(time),
        time,
        (setup, head, end, readAt) => {
          const clock = settableClock();
          const marks = new PhaseMarks(clock);
          const [start, lookup, connect, done] = setup.sort((a, b) => a - b) as [
            number,
            number,
            number,
            number,
          ];
          marks.connected({ start, lookup, connect, end: done, clock });
          // Marks are made in time order on a monotonic clock: head, then end, then a read.
          const moments = [head, end, readAt].map((at) => (at === null ? null : 1000 + at));
          let last = 1000;
          const advanceTo = (at: number) => {
            last = Math.max(last, at);
            clock.at = last;
          };
          if (moments[0] !== null) {
            advanceTo(moments[0] as number);
            marks.firstByte();
          }
          if (moments[1] !== null) {
            advanceTo(moments[1] as number);
            marks.ended();
          }
          advanceTo(moments[2] as number);
          expectConsistent(marks.timings());
        },
      ),
    );
  });
});
