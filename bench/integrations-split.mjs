// The hidden server of the integrations benchmark, and where a run's missed capacity went: the
// cold start, the seconds around each refusal (a probe or a refusal at the held pace), and the
// other seconds (the pace held below capacity, or the client not sending what was allowed).
// Shared by bench/integrations-crawlee-axios.mjs (loopback, wall time) and
// bench/integrations-sim.mjs (the same server and controller in virtual time).

import { allowedBy } from './integrations-timeline.mjs';

/**
 * The demo server (docs/server-models.md; the simulator's scenario `reference-000`): a fixed
 * window of 30 req/s, 350 ± 50 ms pages, `429 + Retry-After: 1` beyond it.
 */
export const HIDDEN_SERVER = {
  model: 'fixed-window',
  params: { rate: 30, latencyMs: 350, jitterMs: 50, retryAfter: 'seconds' },
};

/** Seconds counted as the cold start in {@link missedSplit}. */
export const COLD_SECONDS = 5;

/**
 * Splits what a run missed of `capacity` per second over its first `seconds` (server-side
 * counts, one entry per second) into the first {@link COLD_SECONDS} seconds, the "refusal
 * seconds" after them (a second with a 429 and the one after it: the pause and the pace cut),
 * and the other seconds, divided by the controller's samples into what it held back (paced
 * below capacity) and what it allowed that was not served (the client's own delay).
 */
export function missedSplit(timeline, capacity, seconds, samples, latencyMs) {
  const refusal = new Set();
  for (let i = COLD_SECONDS; i < seconds; i++) {
    if ((timeline[i]?.refused ?? 0) > 0) refusal.add(i).add(i + 1);
  }
  const split = { missed: 0, cold: 0, refusal: 0, refusalSeconds: 0, paced: 0, unsent: 0 };
  for (let i = 0; i < seconds; i++) {
    const missed = capacity - (timeline[i]?.ok ?? 0);
    split.missed += missed;
    if (i < COLD_SECONDS) split.cold += missed;
    else if (refusal.has(i)) {
      split.refusal += missed;
      split.refusalSeconds++;
    } else {
      const allowed = allowedBy(samples?.[i], capacity, latencyMs) ?? capacity;
      split.paced += capacity - allowed;
      split.unsent += missed - (capacity - allowed);
    }
  }
  split.paced = Math.round(split.paced);
  split.unsent = Math.round(split.unsent);
  split.heldPace = heldPace(samples, refusal, seconds);
  return split;
}

/** The mean pacing rate over the other seconds (not cold, not refusal), req/s; NaN if unpaced. */
function heldPace(samples, refusal, seconds) {
  const rates = [];
  for (let i = COLD_SECONDS; i < seconds; i++) {
    if (!refusal.has(i) && samples?.[i]) rates.push(samples[i].rate);
  }
  if (rates.length === 0) return Number.NaN;
  return rates.reduce((sum, r) => sum + r, 0) / rates.length;
}

/** The split as a Markdown table row: run label, then the figures of {@link missedSplit}. */
export function splitRow(label, split) {
  const { heldPace } = split;
  const pace = Number.isNaN(heldPace) ? '-' : Number.isFinite(heldPace) ? heldPace.toFixed(1) : '∞';
  return `| ${label} | ${split.missed} | ${split.cold} | ${split.refusal} (${split.refusalSeconds} s) | ${split.paced} | ${split.unsent} | ${pace} |`;
}

/** The header of {@link splitRow}'s table. */
export function splitHeader() {
  return [
    `| run | missed | first ${COLD_SECONDS} s | refusal seconds | other seconds: paced below capacity | other seconds: allowed, not served | held pace req/s |`,
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
  ].join('\n');
}
