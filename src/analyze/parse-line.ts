import type { ControlEvent, ControlEventType } from '../events/event.js';
import type { SignalKind } from '../signal.js';
import type { PhaseTimings } from '../timings.js';
import { httpHost } from './probe.js';
import type { ParsedLine, RequestRecord } from './records.js';
import { isDateRange } from './wall-clock.js';

/** Lines longer than this are rejected unread (a log line is a few hundred characters). */
export const MAX_LINE_LENGTH = 1_000_000;

const EVENT_TYPES: ReadonlySet<string> = new Set<ControlEventType>([
  'sample',
  'limit',
  'rate',
  'pause',
  'breaker',
  'blocked',
  'alarm',
  'evict',
  'fleet',
]);
/** Fields a crawl result may carry its time in: epoch ms or an ISO 8601 string. */
const RESULT_TIME_FIELDS = ['at', 'wall', 'time', 'timestamp', 'ts', 'finishedAt'] as const;
const ISO_START = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;
/** An ISO 8601 date-time with no zone designator: read as UTC (ECMAScript would read it as local time). */
const ZONELESS = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)$/;
const TIMING_FIELDS = ['dnsMs', 'connectMs', 'tlsMs', 'ttfbMs', 'totalMs'] as const;

/**
 * Understands one line of a log, whatever its format — detected per line, so
 * a file that mixes formats is read too:
 * - a ratewise control event (`{"t":…,"type":"sample",…}`, `crawl --log`), or
 *   the run-start line a `jsonlSink` begins each run with (`{"type":"run",…}`);
 * - a crawl result (`{"url":…,"status":…}`, `crawl --out`);
 * - a plain request-log line `ISO8601 url latency_ms`, optionally followed by
 *   an HTTP status; its time is taken as the request's completion.
 *
 * A timestamp without a zone (`2026-01-31T04:00:01`) is read as UTC, so a
 * log reads the same on every machine. Times outside the `Date` range
 * (±8.64e15 ms) are rejected. A crawl result with `attempts: 0` was never
 * sent: it is `unsent`, not a request. Never throws: anything else is
 * `malformed` with the reason.
 */
export function parseLogLine(line: string): ParsedLine {
  if (line.length > MAX_LINE_LENGTH) return malformed(`line longer than ${MAX_LINE_LENGTH} chars`);
  const text = line.trim();
  if (text === '' || text.startsWith('#')) return { kind: 'blank' };
  if (text.startsWith('{')) return parseJsonLine(text);
  return parsePlainLine(text);
}

function parseJsonLine(text: string): ParsedLine {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return malformed('invalid JSON');
  }
  if (!isRecord(value)) return malformed('JSON is not an object');
  if (value.type === 'run' && typeof value.run === 'string') {
    return {
      kind: 'run',
      run: { id: value.run, wall: isDateRange(value.wall) ? value.wall : Number.NaN },
    };
  }
  if (typeof value.type === 'string' && 't' in value) return parseEvent(value);
  if (typeof value.url === 'string') return parseResult(value);
  return malformed('JSON object is neither a ratewise event (t, type) nor a crawl result (url)');
}

function parseEvent(value: Record<string, unknown>): ParsedLine {
  const { t, type, scope } = value;
  if (!EVENT_TYPES.has(type as string)) return malformed(`unknown event type ${String(type)}`);
  if (!isDateRange(t)) return malformed('event without a finite time t (within ±8.64e15 ms)');
  const event: ControlEvent = {
    t,
    wall: isDateRange(value.wall) ? value.wall : Number.NaN,
    scope: typeof scope === 'string' ? scope : '',
    type: type as ControlEventType,
    limit: finiteOr(value.limit, Number.NaN),
    rate: isFiniteNumber(value.rate) ? value.rate : null,
    inflight: finiteOr(value.inflight, Number.NaN),
    queued: finiteOr(value.queued, Number.NaN),
    reason: typeof value.reason === 'string' ? value.reason : '',
  };
  if (typeof value.signal === 'string') event.signal = value.signal as SignalKind;
  if (isStatus(value.status)) event.status = value.status;
  if (isDuration(value.rttMs)) event.rttMs = value.rttMs;
  const timings = readTimings(value.timings);
  if (timings) event.timings = timings;
  return { kind: 'event', event };
}

function parseResult(value: Record<string, unknown>): ParsedLine {
  if (value.attempts === 0) return { kind: 'unsent' };
  const request: RequestRecord = { failed: false };
  const at = RESULT_TIME_FIELDS.map((field) => readTime(value[field])).find(isFiniteNumber);
  if (at !== undefined) request.at = at;
  if (isStatus(value.status)) request.status = value.status;
  if (typeof value.signal === 'string') request.signal = value.signal;
  const timings = readTimings(value.timings);
  if (timings) request.timings = timings;
  const latency = [value.latencyMs, value.rttMs, timings?.totalMs].find(isDuration);
  if (latency !== undefined) request.latencyMs = latency;
  const host = httpHost(value.url as string);
  if (host) request.host = host;
  request.failed = isFailure(request.signal, value.error);
  return { kind: 'result', request };
}

function parsePlainLine(text: string): ParsedLine {
  const fields = text.split(/\s+/);
  const [stamp = '', url = '', latency = '', status] = fields;
  if (fields.length < 3) return malformed('expected "ISO8601 url latency_ms"');
  if (!ISO_START.test(stamp)) return malformed(`not an ISO 8601 timestamp: ${clip(stamp)}`);
  const at = parseTimestamp(stamp);
  if (!Number.isFinite(at)) return malformed(`not an ISO 8601 timestamp: ${clip(stamp)}`);
  const latencyMs = Number(latency);
  if (!/^\d+(\.\d+)?$/.test(latency) || !isDuration(latencyMs)) {
    return malformed(`latency is not a number of ms >= 0: ${clip(latency)}`);
  }
  const request: RequestRecord = { at, latencyMs, failed: false };
  const host = httpHost(url);
  if (host) request.host = host;
  if (status !== undefined && /^\d{3}$/.test(status)) {
    request.status = Number(status);
    request.failed = request.status >= 500 || request.status === 429;
  }
  return { kind: 'plain', request };
}

/**
 * The finished request a parsed line describes, if any: a `sample` event's
 * (on the event's own time, `t`), a crawl result's or a plain line's.
 */
export function requestOfLine(parsed: ParsedLine): RequestRecord | undefined {
  if (parsed.kind === 'event') {
    return parsed.event.type === 'sample' ? requestOfSample(parsed.event) : undefined;
  }
  return parsed.kind === 'result' || parsed.kind === 'plain' ? parsed.request : undefined;
}

/** The request a `sample` event describes, on the event's own time (`t`). */
export function requestOfSample(event: ControlEvent): RequestRecord {
  const request: RequestRecord = { at: event.t, failed: isFailure(event.signal, undefined) };
  const latency = [event.rttMs, event.timings?.totalMs].find(isDuration);
  if (latency !== undefined) request.latencyMs = latency;
  if (event.status !== undefined) request.status = event.status;
  if (event.signal !== undefined) request.signal = event.signal;
  if (event.timings) request.timings = event.timings;
  if (event.scope !== '') request.host = event.scope.replace(/^host:/, '');
  return request;
}

function isFailure(signal: unknown, error: unknown): boolean {
  const hasError = error !== undefined && error !== null && error !== '' && error !== false;
  return hasError || (typeof signal === 'string' && signal !== 'ok' && signal !== 'client-error');
}

function readTimings(value: unknown): PhaseTimings | undefined {
  if (!isRecord(value)) return undefined;
  if (!TIMING_FIELDS.every((field) => isDuration(value[field]))) return undefined;
  const t = value as unknown as PhaseTimings;
  const bytes = isDuration(value.bytes) ? value.bytes : 0;
  return {
    dnsMs: t.dnsMs,
    connectMs: t.connectMs,
    tlsMs: t.tlsMs,
    ttfbMs: t.ttfbMs,
    totalMs: t.totalMs,
    bytes,
  };
}

function readTime(value: unknown): number | undefined {
  if (isDateRange(value)) return value;
  if (typeof value === 'string' && ISO_START.test(value)) {
    const at = parseTimestamp(value);
    return Number.isFinite(at) ? at : undefined;
  }
  return undefined;
}

/** Epoch ms of an ISO 8601 timestamp (`NaN` if invalid); without a zone it is UTC. */
function parseTimestamp(text: string): number {
  const zoneless = ZONELESS.exec(text);
  return Date.parse(zoneless ? `${zoneless[1]}T${zoneless[2]}Z` : text);
}

function malformed(reason: string): ParsedLine {
  return { kind: 'malformed', reason };
}

function clip(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function finiteOr(value: unknown, fallback: number): number {
  return isFiniteNumber(value) ? value : fallback;
}

function isDuration(value: unknown): value is number {
  return isFiniteNumber(value) && value >= 0 && value <= 1e12;
}

function isStatus(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 100 && (value as number) <= 599;
}
