import { describe, expect, it } from 'vitest';
import { drawServer } from '../../../src/sim/family/draw.js';
import { Outcome, type ServerRecord } from '../../../src/sim/family/family-model.js';
import { measureRun } from '../../../src/sim/family/measures.js';
import type { FamilyServer } from '../../../src/sim/family/server.js';

/** A token bucket whose capacity steps 10 → 40 at 120 s, with room for 100 in flight. */
const server: FamilyServer = {
  ...drawServer(1, 0),
  kind: 'token-bucket',
  rate: [
    { fromMs: 0, rate: 10 },
    { fromMs: 120_000, rate: 40 },
  ],
  latencyMs: 100,
  jitterMs: 0,
  client: { maxConcurrency: 100, timeoutMs: 30_000 },
  durationMs: 240_000,
};
delete (server as { background?: unknown }).background;

/** A record of arrivals at `rate(t)` per second, all served, plus `refusals` refused ones per second. */
function record(rate: (at: number) => number, refusals = 0): ServerRecord {
  const out: ServerRecord = { at: [], doneAt: [], outcome: [] };
  for (let at = 0; at < 240_000; ) {
    out.at.push(at);
    out.doneAt.push(at + 100);
    out.outcome.push(Outcome.ok);
    at += 1000 / rate(at);
  }
  for (let s = 0; s < 240; s++) {
    for (let k = 0; k < refusals; k++) {
      out.at.push(s * 1000 + 500);
      out.doneAt.push(s * 1000 + 500);
      out.outcome.push(Outcome.refused);
    }
  }
  return out;
}

describe('measureRun', () => {
  it('gives an ideal client its whole capacity and a step up taken at once', () => {
    const m = measureRun(
      server,
      record((at) => (at < 120_000 ? 10 : 40)),
      240_000,
    );
    expect(m.goodput).toBeCloseTo(1, 2);
    expect(m.coldStart).toBeCloseTo(1, 2);
    expect(m.refused).toBe(0);
    expect(m.stepUps).toHaveLength(1);
    expect(m.stepUps[0]?.seconds).toBeLessThan(0.2);
  });

  it('counts a step up that is never followed, and the refused share', () => {
    const m = measureRun(
      server,
      record(() => 10, 1),
      240_000,
    );
    expect(m.stepUps[0]?.seconds).toBe(Infinity);
    // steady state: 30–120 s at 10/s, 150–240 s at 10/s of 40
    expect(m.goodput).toBeCloseTo((90 * 10 + 90 * 10) / (90 * 10 + 90 * 40), 2);
    expect(m.refused).toBeCloseTo(1 / 11, 2);
  });

  it('times a step up reached late, from the step to the start of the first window at 90 %', () => {
    const m = measureRun(
      server,
      record((at) => (at < 130_000 ? 10 : 40)),
      240_000,
    );
    expect(m.stepUps[0]?.seconds).toBeGreaterThan(9.5);
    expect(m.stepUps[0]?.seconds).toBeLessThan(10.5);
  });
});
