import { seededRandom } from '../../src/random.js';

/** One synthetic finished request. */
export interface SyntheticRequest {
  /** Completion, epoch ms. */
  at: number;
  latencyMs: number;
  status: number;
  /** Cumulative request number (1-based) in send order. */
  index: number;
}

/** How a synthetic closed-loop run behaves. */
export interface SyntheticRun {
  /** Run length, s. */
  durationS: number;
  /** Workers (requests in flight) at time `s` seconds into the run. */
  workers: (s: number) => number;
  /** Mean latency, ms, at time `s` for the `index`-th request. */
  latencyMs: (s: number, index: number) => number;
  /** Status of a request sent at `s`. @default 200 */
  status?: (s: number, index: number) => number;
  /** Relative latency noise (uniform ±). @default 0.2 */
  noise?: number;
  /** Epoch ms of the start. @default 2026-01-31T04:00:00Z */
  start?: number;
  seed?: number;
}

/**
 * Closed-loop workers: each sends, waits its latency, sends again. Returns
 * the requests ordered by completion, like a request log.
 */
export function closedLoop(run: SyntheticRun): SyntheticRequest[] {
  const random = seededRandom(run.seed ?? 1);
  const start = run.start ?? Date.parse('2026-01-31T04:00:00Z');
  const noise = run.noise ?? 0.2;
  const end = run.durationS * 1000;
  const out: SyntheticRequest[] = [];
  const maxWorkers = Math.max(
    ...Array.from({ length: run.durationS + 1 }, (_, s) => run.workers(s)),
  );
  let index = 0;
  const free = Array.from({ length: maxWorkers }, () => 0);
  for (;;) {
    let worker = 0;
    for (let i = 1; i < free.length; i++)
      if ((free[i] as number) < (free[worker] as number)) worker = i;
    const sentAt = free[worker] as number;
    if (sentAt >= end) break;
    if (worker >= run.workers(sentAt / 1000)) {
      free[worker] = sentAt + 100; // idle worker: look again later
      continue;
    }
    index++;
    const mean = run.latencyMs(sentAt / 1000, index);
    const latencyMs = Math.max(1, Math.round(mean * (1 + noise * (2 * random.next() - 1))));
    const status = run.status?.(sentAt / 1000, index) ?? 200;
    out.push({ at: start + sentAt + latencyMs, latencyMs, status, index });
    free[worker] = sentAt + latencyMs;
  }
  return out.sort((a, b) => a.at - b.at);
}

/** The run as plain `ISO8601 url latency_ms status` lines. */
export function plainLines(requests: readonly SyntheticRequest[]): string[] {
  return requests.map(
    (r) =>
      `${new Date(r.at).toISOString()} https://store.example.com/p/${r.index} ${r.latencyMs} ${r.status}`,
  );
}
