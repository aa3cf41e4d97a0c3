// Per-second timelines for bench/integrations-crawlee-axios.mjs: what the server decided each
// second (by arrival time), what the client's controllers held, and a split of the capacity
// a run missed into its cold start and its steady state.

/**
 * Wraps a server model so each reply is counted in the second it was decided (model time),
 * and the requests in flight at the server are tracked per second (largest seen).
 */
export function timedModel(model) {
  const seconds = [];
  const sendDelays = [];
  let inFlight = 0;
  const at = (ms) => {
    const index = Math.floor(ms / 1000);
    while (seconds.length <= index) seconds.push({ ok: 0, refused: 0, other: 0, maxInFlight: 0 });
    return seconds[index];
  };
  return {
    seconds,
    sendDelays,
    model: {
      name: model.name,
      capacity: (ms) => model.capacity(ms),
      arrive(request) {
        const admitted = /[?&]admitted=(\d+)/.exec(request.path)?.[1];
        if (admitted !== undefined) sendDelays.push(request.wallAt - Number(admitted));
        const reply = model.arrive(request);
        const second = at(request.at);
        if (reply.status === 200) second.ok++;
        else if (reply.status === 429) second.refused++;
        else second.other++;
        inFlight++;
        second.maxInFlight = Math.max(second.maxInFlight, inFlight);
        return reply;
      },
      finish(request, ms) {
        inFlight--;
        model.finish?.(request, ms);
      },
    },
  };
}

/** Samples a registry's controllers every second: concurrency limit, pacing rate, in flight, queued. */
export function sampleRegistry(registry) {
  const samples = [];
  const timer = setInterval(() => {
    let limit = 0;
    let rate = 0;
    let inflight = 0;
    let queued = 0;
    for (const controller of registry.controllers()) {
      limit += controller.limit;
      rate += controller.rate;
      inflight += controller.inflight;
      queued += controller.queued;
    }
    samples.push({ limit, rate, inflight, queued });
  }, 1000);
  timer.unref();
  return { samples, stop: () => clearInterval(timer) };
}

/**
 * Splits what a run missed of `capacity × seconds` into the cold start (the seconds before the
 * first one that served at least 90 % of capacity) and the steady state (every second after),
 * over the first `seconds` whole seconds.
 */
export function capacitySplit(timeline, capacity, seconds) {
  const window = timeline.slice(0, seconds);
  while (window.length < seconds) window.push({ ok: 0, refused: 0, other: 0, maxInFlight: 0 });
  const reached = window.findIndex((s) => s.ok >= 0.9 * capacity);
  const warm = reached === -1 ? window.length : reached;
  const missed = (list) => list.reduce((sum, s) => sum + (capacity - s.ok), 0);
  const steady = window.slice(warm);
  const steadyOk = steady.reduce((sum, s) => sum + s.ok, 0);
  return {
    warmSeconds: warm,
    coldMissed: missed(window.slice(0, warm)),
    steadyMissed: missed(steady),
    steadyShare: steady.length ? steadyOk / (capacity * steady.length) : 0,
    steadyRefused: steady.reduce((sum, s) => sum + s.refused, 0),
  };
}

/**
 * Marks each URL with the wall time it was admitted at (`admitted=<ms>` in the query), so the
 * server can tell how long an integration took from admission to the request's arrival.
 */
export function admittedAt(url) {
  const marked = new URL(url);
  marked.searchParams.set('admitted', String(Date.now()));
  return marked.href;
}

/** `p`-th percentile of `values` (nearest rank); `NaN` when empty. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** The timeline as a compact table: one row per second. */
export function timelineTable(label, timeline, samples) {
  const rows = [`\n${label}: per second, server side (ok / 429 / most in flight) and controller`];
  rows.push('| s | ok | 429 | other | in flight | limit | rate | client inflight | queued |');
  rows.push('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  timeline.forEach((s, i) => {
    const c = samples?.[i];
    const rate = c === undefined ? '' : Number.isFinite(c.rate) ? c.rate.toFixed(1) : '∞';
    rows.push(
      `| ${i} | ${s.ok} | ${s.refused} | ${s.other} | ${s.maxInFlight} | ${c?.limit ?? ''} | ${rate} | ${c?.inflight ?? ''} | ${c?.queued ?? ''} |`,
    );
  });
  return rows.join('\n');
}
