#!/usr/bin/env node
// The attainable cold start (issue 9, "goodput over the first 20 s, p10 ≥ 85 %"): for each server
// of a seed, what a client that does not know the limit could be served in the first 20 s, as
// `bench --family` counts it (served over the capacity, 20 s widened to whole windows of a limit
// counting over 10 s or more), against what ratewise was served (`--runs FILE.json`, rows of
// bench/family-servers.mjs), and which share of the gap the bound leaves to the controller.
//
// Model (a fluid on 1 ms steps, every choice in the client's favour but the two below).
// - The client starts with INITIAL (4, ratewise's `initialConcurrency`) in flight and doubles
//   them each mean round trip (`latencyMs + jitterMs / 2`), or each second on pages longer than a
//   second (ratewise's paced slow start, session 13): it sends 4 × 2^(t / min(rtt, 1 s)) / rtt
//   requests/s, never more than its slots allow (`maxConcurrency / rtt`). Nothing reaches the
//   capacity faster than this slow start at the server's round trip.
// - It must be refused once to learn the limit (a published quota needs no refusal: the client
//   stops where the quota does): the first send the server cannot admit is refused at once, and
//   the client then pays that refusal's pause — a constant Retry-After its constant; "wait"
//   (delta-seconds) the real wait rounded up to the second, as the header states it; an HTTP-date
//   the real wait plus 0.5 s (the wall clock's mean phase under a whole-second date); `0` none;
//   absent `--unhinted-ms` (0 by default, the pure bound; ratewise's own first pause is 1000).
//   The real wait is the window's rest (fixed window), the oldest entry's expiry (log), the next
//   token (bucket, GCRA: a few ms, so "wait" says 1 s), a request's latency (concurrency cap).
// - From the end of that pause the client knows the limit and its state exactly (an oracle): it
//   sends as fast as its slots allow whenever the server would admit, follows every capacity step,
//   and is never refused again.
// - The server as a credit on its whole limit: a bucket starts full (`burst`, `burst + 1` for a
//   GCRA) and refills at the limit's rate; a fixed window grants floor(rate × window) per window
//   (windows of 10 s or more on the clock, shorter ones from the first arrival after the last one
//   ended); a log the same count over any window's span; a concurrency cap its slots over any mean
//   round trip; a quota its count per window on the clock. An unseen consumer, while active, draws
//   its share of the rate from the same credit, evenly and first (so a bucket's burst and a
//   window's early count are the client's to take, as in the family's model). The capacity served
//   is counted against is `capacitySpans`'. Unrelated 5xx noise is left out.
// Quantiles as bench/family-compare.mjs reads them: p10 at rank floor(0.1 n), the band the mean of
// ranks p5–p15.
//
// Rows: the `--worst` servers (by ratewise's cold start, or the bound's without `--runs`);
// `--above` lists the servers where ratewise beat the bound (what the model leaves out).
//
//   npm run build && node bench/family-cold-bound.mjs --seed 1 --runs /work/base/fs-ccc999a-s1.json [--worst 20] [--above] [--unhinted-ms 1000]
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    count: { type: 'string', default: '200' },
    runs: { type: 'string' },
    worst: { type: 'string', default: '20' },
    'unhinted-ms': { type: 'string', default: '0' },
    above: { type: 'boolean', default: false },
  },
});
const dist = new URL('../dist', import.meta.url).pathname;
const { drawServer } = await import(`${dist}/sim/family/draw.js`);
const { capacitySpans, capacityBetween } = await import(`${dist}/sim/family/capacity.js`);
const { meanLatencyMs } = await import(`${dist}/sim/family/server.js`);
const { ALIGNED_FROM_MS, quotaLimit } = await import(`${dist}/sim/family/build.js`);
const { COLD_START_MS } = await import(`${dist}/sim/family/measures.js`);

const [DT, INITIAL] = [1, 4];
const unhintedMs = Number(values['unhinted-ms']);
const runs = values.runs ? JSON.parse(await readFile(values.runs, 'utf8')) : undefined;

/** The end of the counted cold start: 20 s, widened to whole windows of 10 s or more. */
function coldEndMs(server) {
  const windowed = ['fixed-window', 'sliding-log', 'quota'].includes(server.kind);
  const w = server.windowMs;
  return windowed && w >= ALIGNED_FROM_MS ? Math.ceil(COLD_START_MS / w) * w : COLD_START_MS;
}

/** A token bucket (or GCRA) of `size` refilled at the limit's rate. */
function bucket(size, rate) {
  let tokens = size;
  return {
    advance: (t) => {
      const refill = (rate(t) * DT) / 1000; // a step's refill fits, whatever the size
      tokens = Math.min(Math.max(size, refill), tokens + refill);
    },
    left: () => tokens,
    take: (_t, n) => {
      tokens -= n;
    },
    waitMs: (t) => (1000 * Math.max(0, 1 - tokens)) / rate(t),
  };
}

/** A fixed window of `w` ms (on the clock, or from the first arrival after the last one ended). */
function fixedWindow(w, aligned, count) {
  let [start, used] = [-Infinity, 0];
  return {
    advance: () => {},
    left: (t) => (t - start >= w ? count(t) : count(start) - used),
    take: (t, n) => {
      if (t - start >= w) [start, used] = [aligned ? Math.floor(t / w) * w : t, 0];
      used += n;
    },
    waitMs: (t) => start + w - t,
  };
}

/** A sliding log of `w` ms (or a concurrency cap: its slots over a round trip), bin by bin. */
function slidingLog(w, count) {
  const bins = [];
  let [first, sum] = [0, 0];
  return {
    advance: (t) => {
      for (; first < bins.length && bins[first][0] <= t - w; first++) sum -= bins[first][1];
    },
    left: (t) => count(t) - sum,
    take: (t, n) => {
      if (n <= 0) return;
      bins.push([t, n]);
      sum += n;
    },
    waitMs: (t) => (first < bins.length ? bins[first][0] + w - t : 0),
  };
}

/** The server's limit as a credit, on its whole rate (an unseen consumer draws on it too). */
function creditOf(server, rate) {
  const w = server.windowMs;
  const count = (t) => Math.floor((rate(t) * w) / 1000);
  switch (server.kind) {
    case 'token-bucket':
      return bucket(server.burst, rate);
    case 'gcra':
      return bucket(server.burst + 1, rate);
    case 'concurrency-cap':
      return {
        ...slidingLog(meanLatencyMs(server), () => server.slots),
        waitMs: () => server.latencyMs,
      };
    case 'fixed-window':
      return fixedWindow(w, w >= ALIGNED_FROM_MS, count);
    case 'sliding-log':
      return slidingLog(w, count);
    case 'quota':
      return fixedWindow(w, true, () => quotaLimit(server));
  }
}

/** The pause a refusal `waitMs` before the server would admit again costs, ms. */
function pauseMs(server, waitMs) {
  switch (server.retryAfter) {
    case 'fixed':
      return server.retryAfterS * 1000;
    case 'wait':
      return Math.ceil(waitMs / 1000) * 1000;
    case 'http-date':
      return waitMs + 500;
    case 'zero':
      return 0;
    case 'none':
      return unhintedMs;
  }
}

/** The bound's cold start on `server`, with when it was refused and the pause it paid. */
function coldBound(server) {
  const spans = capacitySpans(server);
  if (spans === undefined) return undefined;
  const rate = (t) => server.rate.findLast((s) => s.fromMs <= t).rate;
  const rtt = meanLatencyMs(server);
  const doublingMs = Math.min(rtt, 1000);
  const slotsRate = (server.client.maxConcurrency * 1000) / rtt;
  const credit = creditOf(server, rate);
  const { share: taken = 0, active = [] } = server.background ?? {};
  const endMs = coldEndMs(server);
  let [served, refusedAt, resumeAt] = [0, undefined, 0];
  for (let t = 0; t < endMs; t += DT) {
    credit.advance(t);
    if (active.some((s) => t >= s.fromMs && t < s.toMs)) {
      credit.take(t, Math.max(0, Math.min(credit.left(t), (taken * rate(t) * DT) / 1000)));
    }
    if (t < resumeAt) continue;
    const sending =
      refusedAt === undefined
        ? Math.min(slotsRate, (INITIAL * 2 ** (t / doublingMs) * 1000) / rtt)
        : slotsRate;
    const want = (sending * DT) / 1000;
    const got = Math.max(0, Math.min(want, credit.left(t)));
    credit.take(t, got);
    served += got;
    if (refusedAt === undefined && got < want - 1e-9 && server.kind !== 'quota') {
      refusedAt = t;
      resumeAt = t + pauseMs(server, credit.waitMs(t));
    }
  }
  const share = served / capacityBetween(spans, 0, endMs);
  return { share, refusedAt, pausedMs: refusedAt === undefined ? 0 : resumeAt - refusedAt };
}

const rows = [];
for (let index = 0; index < Number(values.count); index++) {
  const server = drawServer(Number(values.seed), index);
  const bound = coldBound(server);
  if (bound === undefined) continue;
  const ratewise = runs?.find((row) => row.index === index)?.coldStart ?? undefined;
  rows.push({ server, ...bound, ratewise });
}

const pct = (v) => (v === undefined || v === null ? '—' : `${(100 * v).toFixed(1)}`);
const sorted = (vs) => vs.filter((v) => v !== undefined && v !== null).sort((a, b) => a - b);
const at = (vs, p) => vs[Math.min(vs.length - 1, Math.floor(p * vs.length))];
const band = (vs) => {
  const b = vs.slice(Math.floor(0.05 * vs.length), Math.floor(0.15 * vs.length) + 1);
  return b.reduce((s, v) => s + v, 0) / b.length;
};
const mean = (vs) => vs.reduce((s, v) => s + v, 0) / vs.length;
const shape = ({ kind, retryAfter, retryAfterS, rate, windowMs, burst, latencyMs, jitterMs }) =>
  `${kind}${kind.endsWith('window') || kind === 'sliding-log' ? ` ${windowMs / 1000} s` : ''}${kind === 'token-bucket' || kind === 'gcra' ? ` burst ${burst}` : ''}, ${rate.map((s) => s.rate.toFixed(1)).join('→')} req/s, ${latencyMs}+${jitterMs} ms, Retry-After ${retryAfter === 'fixed' ? retryAfterS : retryAfter}`;

const worst = runs
  ? [...rows].sort((a, b) => (a.ratewise ?? 1) - (b.ratewise ?? 1))
  : [...rows].sort((a, b) => a.share - b.share);
console.log('index  bound %  ratewise %  refused at s  paused s  shape');
for (const r of worst.slice(0, Number(values.worst))) {
  const t = r.refusedAt === undefined ? '—' : (r.refusedAt / 1000).toFixed(2);
  console.log(
    `#${String(r.server.index).padEnd(4)} ${pct(r.share).padStart(6)}  ${pct(r.ratewise).padStart(9)}  ${t.padStart(12)}  ${(r.pausedMs / 1000).toFixed(1).padStart(8)}  ${shape(r.server)}`,
  );
}
const bound = sorted(rows.map((r) => r.share));
let summary = `seed ${values.seed}: ${rows.length} servers; bound p10 ${pct(at(bound, 0.1))} %, band ${pct(band(bound))} %, mean ${pct(mean(bound))} %`;
if (runs) {
  const rw = sorted(rows.map((r) => r.ratewise));
  const over = rows.filter((r) => r.ratewise > r.share + 0.005).length;
  if (values.above) {
    for (const r of rows.filter((r) => r.ratewise > r.share + 0.005))
      console.log(
        `above: #${r.server.index} ${pct(r.share)} < ${pct(r.ratewise)} ${shape(r.server)}`,
      );
  }
  summary += `; ratewise p10 ${pct(at(rw, 0.1))} %, band ${pct(band(rw))} %, mean ${pct(mean(rw))} %; ratewise above the bound on ${over}`;
}
console.log(summary);
