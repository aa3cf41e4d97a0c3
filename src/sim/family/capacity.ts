import { quotaLimit } from './build.js';
import { type FamilyServer, hasCapacity, meanLatencyMs } from './server.js';

/** A stretch of run time over which the client's capacity is constant. */
export interface CapacitySpan {
  readonly fromMs: number;
  readonly toMs: number;
  /** Requests/s the client can get: the server's limit net of others, within its own concurrency. */
  readonly perS: number;
}

/**
 * The capacity a client has on `server` over its run, as constant spans:
 * what the limit admits (a window admits whole requests per window), less an
 * unseen consumer's share while it is active, and never more than the
 * client's own concurrency allows at the mean latency (Little's law).
 * Undefined for servers with no capacity (latency ramps).
 */
export function capacitySpans(server: FamilyServer): CapacitySpan[] | undefined {
  if (!hasCapacity(server)) return undefined;
  const clientBound = (server.client.maxConcurrency * 1000) / meanLatencyMs(server);
  const edges = new Set<number>([0, server.durationMs]);
  for (const step of server.rate) edges.add(step.fromMs);
  for (const span of server.background?.active ?? []) {
    edges.add(span.fromMs);
    edges.add(span.toMs);
  }
  const times = [...edges].filter((t) => t <= server.durationMs).sort((a, b) => a - b);
  const spans: CapacitySpan[] = [];
  for (let i = 0; i + 1 < times.length; i++) {
    const fromMs = times[i] as number;
    const perS = Math.min(clientBound, serverCapacity(server, fromMs));
    const last = spans[spans.length - 1];
    if (last !== undefined && Math.abs(last.perS - perS) < 1e-9) {
      spans[spans.length - 1] = { ...last, toMs: times[i + 1] as number };
    } else spans.push({ fromMs, toMs: times[i + 1] as number, perS });
  }
  return spans;
}

/** Requests/s the server grants the client at `at`, before the client's own bound. */
function serverCapacity(server: FamilyServer, at: number): number {
  const background = server.background?.active.some((s) => at >= s.fromMs && at < s.toMs)
    ? (server.background?.share ?? 0)
    : 0;
  return limitCapacity(server, at) * (1 - background);
}

function limitCapacity(server: FamilyServer, at: number): number {
  let rate = server.rate[0]?.rate ?? 0;
  for (const step of server.rate) if (step.fromMs <= at) rate = step.rate;
  switch (server.kind) {
    case 'fixed-window':
    case 'sliding-log':
    case 'sliding-counter':
    case 'penalty-box':
      return (Math.floor((rate * server.windowMs) / 1000) * 1000) / server.windowMs;
    case 'lumpy-bucket':
      return (Math.max(1, Math.round((rate * server.windowMs) / 1000)) * 1000) / server.windowMs;
    case 'quota':
      return (quotaLimit(server) * 1000) / server.windowMs;
    default:
      return rate;
  }
}

/** Requests the capacity allows over [from, to), ms. */
export function capacityBetween(spans: readonly CapacitySpan[], from: number, to: number): number {
  let total = 0;
  for (const span of spans) {
    const overlap = Math.min(to, span.toMs) - Math.max(from, span.fromMs);
    if (overlap > 0) total += (overlap * span.perS) / 1000;
  }
  return total;
}
