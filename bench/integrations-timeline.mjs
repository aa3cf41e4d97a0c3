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

/**
 * Samples a registry's controllers every 100 ms and keeps one row per second: the concurrency
 * limit and pacing rate averaged over the second (rate ∞ while any sample was unpaced), the
 * share of it the scope was paused, and in flight and queued at its last sample.
 */
export function sampleRegistry(registry) {
  const samples = [];
  let current = [];
  const startedAt = performance.now();
  const timer = setInterval(() => {
    let limit = 0;
    let rate = 0;
    let inflight = 0;
    let queued = 0;
    let paused = false;
    for (const controller of registry.controllers()) {
      limit += controller.limit;
      rate += controller.rate;
      inflight += controller.inflight;
      queued += controller.queued;
      paused ||= controller.pauseLeftMs > 0;
    }
    current.push({ limit, rate, inflight, queued, paused });
    const second = Math.floor((performance.now() - startedAt) / 1000);
    while (samples.length < second) {
      // A second with no sample (the event loop blocked through it): the state carried over.
      samples.push(current.length ? summarize(current) : samples.at(-1));
      current = [];
    }
  }, 100);
  timer.unref();
  return { samples, stop: () => clearInterval(timer) };
}

function summarize(list) {
  const mean = (key) => list.reduce((sum, s) => sum + s[key], 0) / list.length;
  const last = list[list.length - 1];
  return {
    limit: mean('limit'),
    rate: list.every((s) => Number.isFinite(s.rate)) ? mean('rate') : Number.POSITIVE_INFINITY,
    pausedShare: list.filter((s) => s.paused).length / list.length,
    inflight: last.inflight,
    queued: last.queued,
  };
}

/**
 * What the controller let through in a second, req/s: the pacing rate, or the concurrency limit
 * over the page time (slow start), whichever is lower, no more than `capacity`, for the part
 * of the second the scope was not paused. `undefined` without a sample (no controller).
 */
export function allowedBy(sample, capacity, latencyMs) {
  if (sample === undefined) return undefined;
  const byLimit = sample.limit / (latencyMs / 1000);
  return (1 - sample.pausedShare) * Math.min(capacity, sample.rate, byLimit);
}

/**
 * Splits what a run missed of `capacity × seconds` into the cold start (the seconds before the
 * first one that served at least 90 % of capacity) and the steady state (every second after),
 * over the first `seconds` whole seconds; with the controller's samples, also into what the
 * controller held back (paced, limited or paused below capacity) and what the client did not
 * send of what the controller allowed (its own overhead, or the process starved of CPU).
 */
export function capacitySplit(timeline, capacity, seconds, samples, latencyMs) {
  const window = timeline.slice(0, seconds);
  while (window.length < seconds) window.push({ ok: 0, refused: 0, other: 0, maxInFlight: 0 });
  const reached = window.findIndex((s) => s.ok >= 0.9 * capacity);
  const warm = reached === -1 ? window.length : reached;
  const missed = (list) => list.reduce((sum, s) => sum + (capacity - s.ok), 0);
  const steady = window.slice(warm);
  const steadyOk = steady.reduce((sum, s) => sum + s.ok, 0);
  let heldBack = 0;
  let unsent = 0;
  window.forEach((s, i) => {
    const allowed = allowedBy(samples?.[i], capacity, latencyMs);
    if (allowed === undefined) return;
    heldBack += capacity - allowed;
    unsent += Math.max(0, allowed - s.ok);
  });
  return {
    warmSeconds: warm,
    coldMissed: missed(window.slice(0, warm)),
    steadyMissed: missed(steady),
    steadyShare: steady.length ? steadyOk / (capacity * steady.length) : 0,
    steadyRefused: steady.reduce((sum, s) => sum + s.refused, 0),
    heldBack: samples ? Math.round(heldBack) : undefined,
    unsent: samples ? Math.round(unsent) : undefined,
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

/**
 * Collects a run's pauses, pacing-rate changes and soft-throttling alarms (ratewise's `events`
 * sink), timed by the events' own clock from `startedAt` (performance.now() ms on the real
 * clock, 0 in virtual time), and renders them as one line each.
 */
export function decisionLog(startedAt) {
  const decisions = [];
  return {
    sink(event) {
      if (event.type !== 'rate' && event.type !== 'pause' && event.type !== 'alarm') return;
      const at = (event.t - startedAt) / 1000;
      decisions.push({ at, line: `${event.type}: ${event.reason}` });
    },
    render(seconds) {
      const shown = decisions.filter((d) => d.at < seconds);
      if (shown.length === 0) return '';
      return `\n\nDecisions:\n${shown.map((d) => `- ${d.at.toFixed(1)} s ${d.line}`).join('\n')}`;
    },
  };
}

/** The timeline as a compact table: one row per second. */
export function timelineTable(label, timeline, samples, capacity, latencyMs) {
  const rows = [`\n${label}: per second, server side (ok / 429 / most in flight) and controller`];
  rows.push(
    '| s | ok | 429 | other | in flight | limit | rate | paused | allowed | client inflight | queued |',
  );
  rows.push('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  timeline.forEach((s, i) => {
    const c = samples?.[i];
    const rate = c === undefined ? '' : Number.isFinite(c.rate) ? c.rate.toFixed(1) : '∞';
    const allowed = allowedBy(c, capacity, latencyMs);
    const cells = c
      ? [
          c.limit.toFixed(0),
          rate,
          c.pausedShare.toFixed(1),
          allowed.toFixed(1),
          c.inflight,
          c.queued,
        ]
      : ['', '', '', '', '', ''];
    rows.push(
      `| ${i} | ${s.ok} | ${s.refused} | ${s.other} | ${s.maxInFlight} | ${cells.join(' | ')} |`,
    );
  });
  return rows.join('\n');
}

/** A Crawlee HTTP client that marks each URL with its admission time as it is sent. */
export function marking(inner) {
  return {
    sendRequest: (request) => inner.sendRequest({ ...request, url: admittedAt(request.url) }),
    stream: (request, onRedirect) =>
      inner.stream({ ...request, url: admittedAt(request.url) }, onRedirect),
  };
}

/** An axios adapter that marks each URL with its admission time as it is sent. */
export function markingAdapter(inner, getUri) {
  return (config) => inner({ ...config, url: admittedAt(getUri(config)), params: undefined });
}
