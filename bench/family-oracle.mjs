#!/usr/bin/env node
// What is attainable on a family server: a fixed-rate pacer that knows the client's true capacity
// (the server's limit net of an unseen consumer, within the client's slots) sends at x × it, for
// each x of a sweep, and the best steady goodput with at most `--budget` refused is the oracle —
// the figure a controller can be aimed at. Counted as `bench --family` counts (server side).
//
//   npm run build && node bench/family-oracle.mjs --seed 1 --indexes 110,60 [--xs 0.9,0.95,0.99,1] [--budget 0.01] [--dist DIR]
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    indexes: { type: 'string', default: '0' },
    xs: { type: 'string', default: '0.8,0.85,0.9,0.92,0.94,0.95,0.96,0.97,0.98,0.99,1' },
    budget: { type: 'string', default: '0.01' },
    dist: { type: 'string', default: new URL('../dist', import.meta.url).pathname },
  },
});
const dist = resolve(values.dist);
const { runFamilyServer } = await import(`${dist}/sim/family/run.js`);
const { drawServer } = await import(`${dist}/sim/family/draw.js`);
const { describeServer } = await import(`${dist}/sim/family/describe.js`);
const { capacitySpans } = await import(`${dist}/sim/family/capacity.js`);
const { runWorkers, takingTurns } = await import(`${dist}/sim/strategies/strategy.js`);

/** Sends one request every 1 / (x × capacity) s, whatever the answers; a refused URL is retried in turn. */
function pacer(x, spans) {
  return {
    name: `pace-${x}`,
    description: `a fixed pacer at ${x} × the true capacity`,
    run(context) {
      let next = 0;
      const rateAt = (t) => x * (spans.findLast((s) => s.fromMs <= t) ?? spans[0]).perS;
      const turn = async () => {
        const now = context.clock.now();
        const at = Math.max(now, next);
        next = at + 1000 / rateAt(at);
        if (at > now) await context.clock.sleep(at - now, context.work.stop);
      };
      const workers = Math.min(context.workers, context.maxConcurrency);
      return runWorkers(context, workers, (path) => takingTurns(context, path, turn));
    },
  };
}

const pct = (v, digits = 1) => `${(100 * v).toFixed(digits)} %`;
for (const index of values.indexes.split(',').map(Number)) {
  const server = drawServer(Number(values.seed), index);
  const spans = capacitySpans(server);
  if (spans === undefined) continue; // a latency ramp has no capacity
  let best;
  const cells = [];
  for (const x of values.xs.split(',').map(Number)) {
    const { measures } = await runFamilyServer(server, pacer(x, spans));
    if (measures.goodput === null) continue;
    cells.push(`${x}: ${pct(measures.goodput)} / ${pct(measures.refused, 2)}`);
    const polite = measures.refused <= Number(values.budget);
    if (polite && (best === undefined || measures.goodput > best.goodput))
      best = { x, ...measures };
  }
  const oracle = best
    ? `${pct(best.goodput)} at ${best.x} (refused ${pct(best.refused, 2)})`
    : 'none';
  console.log(
    `${describeServer(server)}\n  oracle ${oracle}; x: goodput / refused ${cells.join(', ')}`,
  );
}
