#!/usr/bin/env node
// One family server, second by second, as ratewise ran it in virtual time: the server's capacity,
// what was served and refused, the pacing rate and concurrency limit at the end of the second,
// and the pauses (with --rates, every rate decision too) — to see why a server loses.
//
// `--timing-noise MS`: 0..MS ms of seeded noise each way between the controller and the server.
//
//   npm run build && node bench/family-trace.mjs --seed 1 --index 34 [--set family|field] [--from 0] [--to 240] [--rates] [--timing-noise 0] [--dist DIR]
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    set: { type: 'string', default: 'family' },
    index: { type: 'string', default: '0' },
    from: { type: 'string', default: '0' },
    to: { type: 'string', default: '1e9' },
    rates: { type: 'boolean', default: false },
    'timing-noise': { type: 'string', default: '0' },
    dist: { type: 'string', default: new URL('../dist', import.meta.url).pathname },
  },
});
const dist = resolve(values.dist);
const sets = values.set === 'family' ? undefined : await import(`${dist}/sim/family/sets.js`);
const { runFamilyServer } = await import(`${dist}/sim/family/run.js`);
// The field set needs a build that has it; the family is every build's.
const draw =
  values.set === 'family'
    ? (await import(`${dist}/sim/family/draw.js`)).drawServer
    : (s, i) => sets.drawFrom(values.set, s, i);
const { describeServer } = await import(`${dist}/sim/family/describe.js`);
const { ratewise } = await import(`${dist}/sim/strategies/index.js`);

const server = draw(Number(values.seed), Number(values.index));
const [from, to] = [Number(values.from), Number(values.to)];
const seconds = new Map();
const second = (s) => {
  const bin = seconds.get(s) ?? { ok: 0, refused: 0, other: 0, rate: null, limit: 0, notes: [] };
  seconds.set(s, bin);
  return bin;
};
const timingNoiseMs = Number(values['timing-noise']);
const run = await runFamilyServer(server, ratewise, {
  ...(timingNoiseMs > 0 ? { timingNoiseMs } : {}),
  events: (event) => {
    const s = Math.floor(event.t / 1000);
    if (s < from || s > to) return;
    const bin = second(s);
    if (event.type === 'sample') {
      if (event.status === 200) bin.ok++;
      else if (event.status === 429 || event.status === 503) bin.refused++;
      else bin.other++;
    }
    bin.rate = event.rate;
    bin.limit = event.limit;
    if (event.type === 'pause') bin.notes.push(event.reason);
    if (event.type === 'rate' && values.rates) bin.notes.push(event.reason);
  },
});
const capacityAt = (ms) => server.rate.findLast((step) => step.fromMs <= ms)?.rate ?? 0;
console.log(describeServer(server));
console.log(JSON.stringify(run.measures, (_, v) => (v === Infinity ? 'never' : v)));
for (const [s, bin] of [...seconds].sort((a, b) => a[0] - b[0])) {
  const rate = bin.rate === null ? 'unpaced' : bin.rate.toFixed(2);
  const other = bin.other > 0 ? ` other ${bin.other}` : '';
  console.log(
    `${String(s).padStart(4)} s capacity ${capacityAt(s * 1000).toFixed(1)} ok ${bin.ok} refused ${bin.refused}${other} rate ${rate} limit ${bin.limit} ${bin.notes.join('; ')}`,
  );
}
