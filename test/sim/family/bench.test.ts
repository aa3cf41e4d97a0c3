import { describe, expect, it } from 'vitest';
import { runFamilyBench } from '../../../src/sim/family/bench.js';
import { drawServer } from '../../../src/sim/family/draw.js';
import { runFamilyServer } from '../../../src/sim/family/run.js';
import { familyMarkdown } from '../../../src/sim/family/table.js';
import { fixedJitter } from '../../../src/sim/strategies/index.js';
import type { Strategy } from '../../../src/sim/strategies/strategy.js';

describe('runFamilyBench', () => {
  it('is deterministic and prints every figure with the worst servers named', async () => {
    const run = () => runFamilyBench({ count: 6, seed: 3, strategies: [fixedJitter], threads: 1 });
    const [a, b] = [await run(), await run()];
    expect(a.figures).toEqual(b.figures);
    const text = familyMarkdown(a, 'fixed+jitter', 2);
    expect(text).toMatch(/^\| figure \(p10 \/ p50 \/ p90\) \| target \| fixed\+jitter \|/);
    expect(text).toMatch(/steady goodput, share of capacity \| p10 ≥ 95 % \| \d/);
    expect(text).toMatch(
      /Worst 2 servers for fixed\+jitter by steady goodput \(seed 3\):\n- goodput [\d.]+ %: #\d+ /,
    );
  });
});

describe('the hot-loop guard', () => {
  it('ends a run whose strategy re-sends without ever waiting, and flags it', async () => {
    const hammer: Strategy = {
      name: 'hammer',
      description: 'never waits',
      async run(context) {
        while (!context.work.stop.aborted) await context.transport.send({ path: '/' });
      },
    };
    const server = { ...drawServer(1, 12), latencyMs: 0, jitterMs: 0 }; // refusals come back at once
    const run = await runFamilyServer(server, hammer, { durationMs: 60_000 });
    expect(run.hotLoopAt).toBeDefined();
    expect(run.measures.requests).toBeLessThan(20_000);
  });
});
