import { freshHeaderIndex, type HeadersInput, headerValue } from '../headers/header-value.js';
import type { RateLimitQuota } from '../headers/quota.js';
import { rateLimitQuota } from '../headers/rate-limit.js';
import { retryAfterDelay } from '../headers/retry-after.js';
import type { Signal, SignalKind } from '../signal.js';
import { findMarker, MAX_SNIFF_CHARS, MITIGATION_HEADERS, THROTTLE_MARKERS } from './markers.js';
import type { ClassifySettings } from './options.js';
import { attempt, clip, readProperty, readString } from './read.js';
import { VENDOR_STATUSES } from './statuses.js';

/** A kind and its reason, before the response's facts are attached. */
interface Verdict {
  kind: SignalKind;
  reason: string;
}

/** What the classifier reads off a response, each read guarded. */
interface Facts {
  status: number;
  headers: HeadersInput;
  header: (name: string) => string | undefined;
  body: string | undefined;
  retryAfterMs: number | undefined;
  quota: RateLimitQuota | undefined;
}

/**
 * A response's status: its numeric `status`, else its numeric `statusCode`
 * (undici's `request()` result and response errors, Node's `IncomingMessage`).
 */
function readStatus(value: unknown): number | undefined {
  const status = readProperty(value, 'status');
  if (typeof status === 'number') return status;
  const code = readProperty(value, 'statusCode');
  return typeof code === 'number' ? code : undefined;
}

/** Whether a value looks like a response: it has a numeric `status` or `statusCode`. */
export function isResponseLike(value: unknown): boolean {
  return readStatus(value) !== undefined;
}

/**
 * Classifies a response. The order of the rules, first match wins:
 * 1. the caller's `isBlocked` predicate → `blocked`;
 * 2. a CDN mitigation header (`cf-mitigated`, `x-vercel-mitigated`) → `blocked`;
 * 3. the status, read with its headers and body (see {@link statusVerdict}).
 */
export function classifyResponse(response: unknown, settings: ClassifySettings): Signal {
  const facts = gather(response, settings);
  const verdict =
    userVerdict(facts, settings) ??
    mitigationVerdict(facts) ??
    statusVerdict(facts, settings.blockMarkers);
  const signal: Signal = { kind: verdict.kind, reason: verdict.reason };
  if (Number.isInteger(facts.status)) signal.status = facts.status;
  if (facts.retryAfterMs !== undefined) signal.retryAfterMs = facts.retryAfterMs;
  if (facts.quota !== undefined) signal.quota = facts.quota;
  return signal;
}

function gather(response: unknown, settings: ClassifySettings): Facts {
  const raw = readProperty(response, 'headers') as HeadersInput;
  // Index the headers once: a dozen names are looked up per response.
  const lookup = attempt(
    () => (typeof raw === 'object' && raw !== null ? freshHeaderIndex(raw) : undefined),
    undefined,
  );
  const indexed = (lookup ?? raw) as HeadersInput;
  const header = (name: string): string | undefined =>
    attempt(() => headerValue(indexed, name), undefined);
  const { now } = settings;
  const retryAfter = header('retry-after');
  return {
    status: readStatus(response) as number,
    headers: raw,
    header,
    body: readString(response, 'body')?.slice(0, MAX_SNIFF_CHARS),
    retryAfterMs:
      retryAfter === undefined
        ? undefined
        : attempt(() => retryAfterDelay(retryAfter, now, header('date')), undefined),
    quota: attempt(() => rateLimitQuota(indexed, now), undefined),
  };
}

function userVerdict(facts: Facts, settings: ClassifySettings): Verdict | undefined {
  const { isBlocked } = settings;
  if (isBlocked === undefined) return undefined;
  const { status, headers, body } = facts;
  const said = attempt(() => isBlocked({ status, headers, body }), false);
  if (typeof said === 'string' && said !== '') return { kind: 'blocked', reason: said };
  return said === true ? { kind: 'blocked', reason: `${status} blocked (isBlocked)` } : undefined;
}

function mitigationVerdict(facts: Facts): Verdict | undefined {
  for (const name of MITIGATION_HEADERS) {
    const value = facts.header(name)?.trim();
    if (value) return { kind: 'blocked', reason: `${facts.status} ${name}: ${clip(value, 30)}` };
  }
  return undefined;
}

/**
 * The status rules:
 * - not an integer in 200–599 → `server-error` (a response that makes no sense);
 * - 2xx, 3xx → `ok`; 429 → `throttled`; the vendor statuses of {@link VENDOR_STATUSES};
 * - 400, 403, 503 with evidence of throttling → `throttled`: rate-limit quota
 *   `remaining` 0 (GitHub's `403`) or a rate-limit page ({@link THROTTLE_MARKERS});
 * - 401, 403, 503 whose body matches a block marker → `blocked`;
 * - a `403` with a `Retry-After` → `throttled` (GitHub's secondary limits). It is
 *   weaker evidence than a block page: Cloudflare adds `Retry-After` to its
 *   retryable 1xxx error pages, the "banned zone" page among them;
 * - 502, 503, 504 → `overloaded`, with or without `Retry-After` (with one, the
 *   gateway is shedding load on purpose; the signal carries the delay);
 * - any other 4xx → `client-error`, including a `401` or `403` without block
 *   evidence: an API's "forbidden" is about the request, not the session
 *   (pass `isBlocked` to treat a bare `403` from a wall without markers as blocked);
 * - any other 5xx → `server-error`.
 */
function statusVerdict(facts: Facts, blockMarkers: readonly RegExp[]): Verdict {
  const { status } = facts;
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    return { kind: 'server-error', reason: `unexpected status ${clip(String(status), 20)}` };
  }
  if (status < 400) return { kind: 'ok', reason: String(status) };
  if (status === 429) return { kind: 'throttled', reason: '429' };
  const special = VENDOR_STATUSES.get(status) ?? contentVerdict(facts, blockMarkers);
  if (special !== undefined) return special;
  if (status === 502 || status === 503 || status === 504) {
    return { kind: 'overloaded', reason: String(status) };
  }
  return { kind: status < 500 ? 'client-error' : 'server-error', reason: String(status) };
}

/** The rules for 400, 401, 403 and 503, which read the quota, the body and `Retry-After`. */
function contentVerdict(facts: Facts, blockMarkers: readonly RegExp[]): Verdict | undefined {
  const { status } = facts;
  if (status === 400 || status === 403 || status === 503) {
    const throttled = throttleEvidence(facts);
    if (throttled !== undefined) return { kind: 'throttled', reason: `${status} ${throttled}` };
  }
  if (status === 401 || status === 403 || status === 503) {
    const marker = facts.body === undefined ? undefined : findMarker(facts.body, blockMarkers);
    if (marker !== undefined)
      return { kind: 'blocked', reason: `${status} block page (${marker})` };
  }
  if (status === 403 && facts.retryAfterMs !== undefined) {
    return { kind: 'throttled', reason: '403 with retry-after' };
  }
  return undefined;
}

function throttleEvidence(facts: Facts): string | undefined {
  if (facts.quota?.remaining === 0) return 'quota exhausted';
  const text = facts.body === undefined ? undefined : findMarker(facts.body, THROTTLE_MARKERS);
  return text === undefined ? undefined : `rate-limit page (${text})`;
}
