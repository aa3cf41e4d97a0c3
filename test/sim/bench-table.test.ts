import { describe, expect, it } from 'vitest';
import type { BenchRow } from '../../src/sim/bench.js';
import { benchMarkdown } from '../../src/sim/bench-table.js';
import { ExchangeLog } from '../../src/sim/exchange-log.js';
import { findScenario } from '../../src/sim/scenarios.js';
import { type RunSummary, summarise } from '../../src/sim/summary.js';

/** A 10 s run judged from 5 s whose exchanges all end by 4.4 s: a breaker open to the end. */
function idleSteadyState(): RunSummary {
  const log = new ExchangeLog();
  for (let i = 0; i < 20; i++) {
    log.sentAt.push(i * 200);
    log.doneAt.push(i * 200 + 350);
    log.status.push(i % 5 === 4 ? 429 : 200);
  }
  return summarise({
    log,
    capacity: () => 30,
    steadyFromMs: 5000,
    endMs: 10_000,
    maxConcurrency: 40,
    batchDoneMs: undefined,
    batch: false,
  });
}

describe('bench figures of a steady state with no request in it', () => {
  it('measures no rejected share, latency or oscillation: null, not 0', () => {
    const summary = idleSteadyState();
    expect(summary.ok).toBe(16);
    expect(summary.steadyRequests).toBe(0);
    // Nothing succeeded in the steady state: that is measured, 0 ok/s.
    expect(summary.okPerS).toBe(0);
    expect(summary.capacityShare).toBe(0);
    expect(summary.rejectedShare).toBeNull();
    expect(summary.p50Ms).toBeNull();
    expect(summary.p95Ms).toBeNull();
    expect(summary.oscillation).toBeNull();
  });

  it('prints them as — in the table, with a note naming the strategy', () => {
    const scenario = findScenario('reference-000');
    if (!scenario) throw new Error('no scenario reference-000');
    const row: BenchRow = {
      scenario: scenario.name,
      strategy: 'reference-aimd',
      mode: 'real',
      seed: 1,
      durationS: 10,
      summary: idleSteadyState(),
      wallS: 10,
    };
    const table = benchMarkdown([row], [scenario]);
    expect(table).toContain('| reference-aimd | 0.0 | 0.0 % | — | — | — | — | — | — |\n');
    expect(table).toContain(
      '\n\n— not measured: reference-aimd sent no request in the steady state.\n',
    );
  });
});
