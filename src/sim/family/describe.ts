import { quotaLimit } from './build.js';
import type { FamilyServer } from './server.js';

/**
 * One line naming what matters about a family server, so a regression names
 * its case: `#12 fixed-window/1s 26.9→12.0 (+22 steps) req/s, 77+76ms, 429
 * Retry-After wait, Date +12s, background 30 %, noise 0.5 %, 13 slots`.
 */
export function describeServer(server: FamilyServer): string {
  const parts = [`#${server.index} ${limitText(server)}`];
  parts.push(`${server.latencyMs}+${server.jitterMs}ms`);
  if (server.ramp === undefined) parts.push(refusalText(server));
  if (server.dateSkewMs !== 0) parts.push(`Date ${signed(server.dateSkewMs / 1000)}s`);
  if (server.background) parts.push(`background ${percent(server.background.share)}`);
  if (server.noise > 0) parts.push(`noise ${percent(server.noise, 1)}`);
  parts.push(`${server.client.maxConcurrency} slots`);
  if (server.client.urls !== undefined) parts.push(`${server.client.urls} URLs`);
  return parts.join(', ');
}

function limitText(server: FamilyServer): string {
  const window = `${server.windowMs / 1000}s`;
  switch (server.kind) {
    case 'fixed-window':
    case 'sliding-log':
      return `${server.kind}/${window} ${rateText(server)}`;
    case 'token-bucket':
    case 'gcra':
      return `${server.kind} ${rateText(server)} burst ${server.burst}`;
    case 'concurrency-cap':
      return `concurrency-cap ${server.slots} (${rateText(server)})`;
    case 'quota':
      return `quota ${quotaLimit(server)}/${window} ${server.quota.headers} ${server.quota.resetForm}`;
    case 'limit-req':
      return `limit-req ${rateText(server)} burst ${server.burst} ${delayText(server.field?.delay)}`;
    case 'sliding-counter':
      return `sliding-counter/${window} ${rateText(server)}${server.field?.countsRefused ? ' counting refusals' : ''}`;
    case 'penalty-box':
      return `penalty-box/${window} ${rateText(server)} block ${(server.field?.blockMs ?? 0) / 1000}s`;
    case 'lumpy-bucket':
      return `lumpy-bucket ${rateText(server)} fill ${window} max ${server.burst}${server.field?.publishes ? ' published' : ''}`;
    default: {
      const ramp = server.ramp;
      const keyed = ramp?.windowMs === Infinity ? 'all' : `${(ramp?.windowMs ?? 0) / 1000}s`;
      return `${server.kind} +${ramp?.stepMs}ms/${ramp?.stepRequests} req (${keyed}) ≤${ramp?.maxDelayMs}ms`;
    }
  }
}

/** nginx's words for how `limit_req` treats the excess it admits. */
function delayText(delay: number | undefined): string {
  if (delay === undefined || delay === Infinity) return 'nodelay';
  return delay === 0 ? 'delayed' : `delay=${delay}`;
}

function rateText(server: FamilyServer): string {
  const [first, second] = server.rate;
  const more = server.rate.length > 2 ? ` (+${server.rate.length - 2} steps)` : '';
  const head = first?.rate.toFixed(1) ?? '?';
  return `${second ? `${head}→${second.rate.toFixed(1)}${more}` : head} req/s`;
}

function refusalText(server: FamilyServer): string {
  const after =
    server.retryAfter === 'fixed'
      ? `${server.retryAfterS}`
      : server.retryAfter.replace('none', '—');
  return `${server.refusalStatus} Retry-After ${after}`;
}

function signed(value: number): string {
  return `${value >= 0 ? '+' : ''}${value.toFixed(0)}`;
}

function percent(share: number, digits = 0): string {
  return `${(share * 100).toFixed(digits)} %`;
}
