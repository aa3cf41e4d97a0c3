#!/usr/bin/env node
// Files each steady refusal of family servers by the controller's state when it came back, read
// from the control events: `probe` (the last rate change was a rise: a probe's climb), `after<5`
// and `after5-30` (at a held rate, within 5 s / 5–30 s of the last probe's refusal), `held` (at a
// held rate, later). Per server: its steady refused share, goodput, the counts and a timeline
// (seconds, first letter of the class); then the points of refused share each class holds,
// summed over the servers given. Steady is approximate: 30 s clear of the start and of each
// capacity change (the measures also snap long windows to whole ones).
//
//   npm run build && node bench/family-refusal-classes.mjs --seed 1 [--dist DIR] INDEX...
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seed: { type: 'string', default: '1' },
    dist: { type: 'string', default: new URL('../dist', import.meta.url).pathname },
  },
});
const dist = resolve(values.dist);
const { runFamilyServer } = await import(`${dist}/sim/family/run.js`);
const { drawServer } = await import(`${dist}/sim/family/draw.js`);
const { capacitySpans } = await import(`${dist}/sim/family/capacity.js`);
const { ratewise } = await import(`${dist}/sim/strategies/index.js`);

const SETTLE_MS = 30_000;
const RATE_CHANGE = /([\d.]+\/s|unpaced) -> ([\d.]+\/s|unpaced)/;
const perSecond = (text) => (text === 'unpaced' ? Infinity : Number.parseFloat(text));
const totals = {};
const pct = (v) => (100 * v).toFixed(2);

for (const index of positionals) {
  const server = drawServer(Number(values.seed), Number(index));
  const spans = capacitySpans(server) ?? [];
  const steady = (t) =>
    spans.some((s) => t >= Math.max(s.fromMs + SETTLE_MS, SETTLE_MS) && t < s.toMs);
  let climbing = false;
  let probeRefusedAt = Number.NEGATIVE_INFINITY;
  const counts = {};
  const timeline = [];
  const run = await runFamilyServer(server, ratewise, {
    events: (e) => {
      const change = e.type === 'rate' ? RATE_CHANGE.exec(e.reason ?? '') : null;
      if (change) {
        const [from, to] = [perSecond(change[1]), perSecond(change[2])];
        if (to !== from) climbing = to > from;
      }
      if (e.type !== 'sample' || (e.status !== 429 && e.status !== 503)) return;
      const since = e.t - probeRefusedAt;
      const kind = climbing
        ? 'probe'
        : since <= 5000
          ? 'after<5'
          : since <= 30_000
            ? 'after5-30'
            : 'held';
      if (climbing) probeRefusedAt = e.t;
      if (!steady(e.t)) return;
      counts[kind] = (counts[kind] ?? 0) + 1;
      timeline.push(`${(e.t / 1000).toFixed(1)}${kind[0]}`);
    },
  });
  const { refused, goodput } = run.measures;
  const n = Object.values(counts).reduce((sum, c) => sum + c, 0);
  for (const [kind, c] of Object.entries(counts)) {
    totals[kind] = (totals[kind] ?? 0) + (100 * (refused ?? 0) * c) / n;
  }
  console.log(
    `#${index} ${server.kind}: refused ${pct(refused ?? 0)} %, goodput ${pct(goodput ?? 0)} %`,
    JSON.stringify(counts),
    timeline.join(' '),
  );
}
const points = Object.entries(totals).map(([kind, v]) => `${kind} ${v.toFixed(2)}`);
console.log(`points of refused share: ${points.join(', ')}`);
