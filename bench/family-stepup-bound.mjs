#!/usr/bin/env node
// The budget's bound on step-up times (issue 9, "a capacity that rises is found quickly"): for each
// cheap step-up event of a seed (a raise of 25 % or more whose new capacity holds 30 s, on a server
// whose refusals name no pause), the time to 90 % of the raised capacity that the best prober
// within the refused-share budget could reach, against what ratewise reached (`--runs FILE.json`,
// rows of bench/family-servers.mjs).
//
// Model. Before the raise the prober holds the old capacity r exactly. On a stable server each
// probe costs one refusal (the first send over the capacity, refused at once, no pause), and the
// budget pays `share` (1 %) of a refusal per request, or per EARNING_FLOOR (2) requests/s when the
// scope sends fewer: one probe per I = 1 / (share * max(r, 2)) s, at a phase unrelated to the
// raise, so the first probe after it comes U(0, I) later (periodic probing at the budget's pace:
// a lower mean wait is not affordable; patience, cost estimates and debts only lengthen I). Two
// climbs from there: "instant" serves the new capacity from the first probe on (the budget's pure
// bound), "curve" climbs as ratewise's probe does (5 % above r, the excess doubling each second).
// Both judged as `bench --family` judges (the first window of max(1 s, 5 requests) served at 90 %,
// at 100 ms resolution; none before the next change: never). Quantiles are nearest-rank over all
// events, each event's wait sampled at 100 evenly spaced phases.
//
//
// `--paused`: the paused step-ups instead (servers whose refusals name a pause of a second or
// more). Each probe's refusal then also costs its pause P, and the pause budget (`pausedShare`,
// 5 % of the time) paces probes too: I = max(1 / (share * max(r, 2)), P / 0.05) s. P is the pause
// the server names for a refusal by one send over its capacity: a fixed Retry-After its constant;
// "wait" (delta-seconds, rounded up) and an HTTP-date (the moment rounded up to the second, so
// less than a second more than the wait) the real wait, which is the rest of a fixed window's
// window (uniform over it) and one send's spacing (a few ms) on a bucket, GCRA, log or cap: so
// 1 s for "wait", 0–1 s (0.5 s mean) for an HTTP-date on those. I is paced by the mean P; each
// phase draws its own. The curve climb is refused where it crosses the new capacity and serves
// nothing for that pause (then the new capacity); the instant climb is never refused.
//   npm run build && node bench/family-stepup-bound.mjs --seed 1 [--paused] [--runs /work/base/fs-183c5c2-s1.json]
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    count: { type: 'string', default: '200' },
    share: { type: 'string', default: '0.01' },
    runs: { type: 'string' },
    paused: { type: 'boolean', default: false },
    'paused-share': { type: 'string', default: '0.05' },
  },
});
const dist = new URL('../dist', import.meta.url).pathname;
const { drawServer } = await import(`${dist}/sim/family/draw.js`);
const { capacitySpans } = await import(`${dist}/sim/family/capacity.js`);
const { refusalPauses, hasCapacity } = await import(`${dist}/sim/family/server.js`);

const EARNING_FLOOR = 2;
const [STEP, REACHED, JUDGED_MS, SCAN_MS, PHASES] = [1.25, 0.9, 30_000, 100, 100];
const share = Number(values.share);
const runs = values.runs ? JSON.parse(await readFile(values.runs, 'utf8')) : undefined;
if (runs?.some((row) => row.runs > 1)) {
  console.error(
    'family-stepup-bound: --runs takes one run of bench/family-servers.mjs, not a pooled file',
  );
  process.exit(2);
}

/** Served rate `t` ms after the first probe, climbing from `from` to `to` on the probe's curve. */
const curve = (from, to, pauseMs) => {
  // refused where the curve crosses the new capacity: nothing served for the pause it names
  const crossMs = 1000 * Math.log2((to / from - 1) / 0.05);
  return (t) =>
    pauseMs > 0 && t >= crossMs && t < crossMs + pauseMs
      ? 0
      : Math.min(to, from * (1 + 0.05 * 2 ** (t / 1000)));
};
const instant = (_from, to) => () => to;
const pausedShare = Number(values['paused-share']);
/** The fraction `k` of a golden-ratio sequence: a second draw per phase, unrelated to the first. */
const draw = (k) => (k * 0.6180339887) % 1;

/** The pause (ms) a refusal of one send over the capacity names, `u` and `f` uniform in [0, 1). */
function pauseOf(server, u, f) {
  if (server.retryAfter === 'fixed') return server.retryAfterS * 1000;
  const waitMs = server.kind === 'fixed-window' ? u * server.windowMs : 0;
  if (server.retryAfter === 'wait') return Math.max(1000, Math.ceil(waitMs / 1000) * 1000);
  return (Math.ceil(f + waitMs / 1000) - f) * 1000; // an HTTP-date, the wall clock at f into a second
}

/** Seconds from the raise to the first window served at 90 %, probe at `phaseMs`; Infinity: never. */
function reached(event, phaseMs, climb, pauseMs = 0) {
  const rate = climb(event.from, event.to, pauseMs);
  const windowMs = Math.max(1000, 5000 / event.to);
  const needed = (REACHED * event.to * windowMs) / 1000;
  const servedIn = (a, b) => {
    let sum = 0; // integrate the served rate over [a, b) ms, 10 ms steps
    for (let t = a; t < b; t += 10) sum += (t < phaseMs ? event.from : rate(t - phaseMs)) * 0.01;
    return sum;
  };
  for (let t = windowMs; t <= event.spanMs; t += SCAN_MS) {
    if (servedIn(t - windowMs, t) >= needed - 1e-9) return (t - windowMs) / 1000;
  }
  return Infinity;
}

const events = [];
for (let index = 0; index < Number(values.count); index++) {
  const server = drawServer(Number(values.seed), index);
  if (!hasCapacity(server) || refusalPauses(server) !== values.paused) continue;
  const pauses = Array.from({ length: PHASES }, (_, k) =>
    values.paused ? pauseOf(server, (k + 0.5) / PHASES, draw(k + 1)) : 0,
  );
  const meanPauseMs = pauses.reduce((a, b) => a + b, 0) / PHASES;
  const spans = capacitySpans(server);
  const measured = runs?.find((row) => row.index === index)?.stepUps ?? [];
  let n = 0;
  for (let i = 1; i < spans.length; i++) {
    const [before, after] = [spans[i - 1], spans[i]];
    const spanMs = Math.min(after.toMs, server.durationMs) - after.fromMs;
    if (spanMs < JUDGED_MS || after.perS < STEP * before.perS) continue;
    const intervalS = Math.max(
      1 / (share * Math.max(before.perS, EARNING_FLOOR)),
      meanPauseMs / 1000 / pausedShare,
    );
    const event = { index, from: before.perS, to: after.perS, spanMs, intervalS, meanPauseMs };
    // the phase and the pause drawn apart, so a long pause is not always a late probe
    const times = (climb) =>
      Array.from({ length: PHASES }, (_, k) =>
        reached(event, ((k + 0.5) / PHASES) * intervalS * 1000, climb, pauses[(k * 37) % PHASES]),
      );
    events.push({
      ...event,
      instant: times(instant),
      curve: times(curve),
      ratewise: measured[n++],
    });
  }
}

const rank = (sorted, p) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
const s = (v) =>
  v === undefined ? '—' : v === Infinity || v === null ? 'never' : `${v.toFixed(1)} s`;
const quantiles = (values) => {
  const sorted = values.map((v) => v ?? Infinity).sort((a, b) => a - b);
  return [0.1, 0.5, 0.9].map((p) => s(rank(sorted, p))).join(' / ');
};
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
console.log(
  `index  from→to req/s  span s  interval s${values.paused ? '  pause s' : ''} | mean / p90 wait: instant, curve | ratewise`,
);
for (const e of events) {
  const p90 = (v) =>
    s(
      rank(
        [...v].sort((a, b) => a - b),
        0.9,
      ),
    );
  const m = (v) => (v.every(Number.isFinite) ? `${mean(v).toFixed(1)} s` : 'never');
  console.log(
    `#${String(e.index).padEnd(4)} ${e.from.toFixed(1)}→${e.to.toFixed(1)}  ${(e.spanMs / 1000).toFixed(0)}  ${e.intervalS.toFixed(1)}${values.paused ? `  ${(e.meanPauseMs / 1000).toFixed(1)}` : ''} | ${m(e.instant)} / ${p90(e.instant)}, ${m(e.curve)} / ${p90(e.curve)} | ${s(e.ratewise)}`,
  );
}
console.log(
  `seed ${values.seed}: ${events.length} ${values.paused ? 'paused' : 'cheap'} step-ups; p10 / p50 / p90 of the bound, instant climb ${quantiles(events.flatMap((e) => e.instant))}; probe-curve climb ${quantiles(events.flatMap((e) => e.curve))}${runs ? `; ratewise ${quantiles(events.map((e) => e.ratewise))}` : ''}`,
);
