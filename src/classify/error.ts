import { FetchFailedError, RatewiseError } from '../errors.js';
import type { Signal, SignalKind } from '../signal.js';
import { attempt, clip, readProperty, readString } from './read.js';
import { isResponseLike } from './response.js';

/**
 * Error codes of Node, undici and libuv, by the signal they give:
 * - `reset`: the connection dropped mid-request (a hard-throttling form);
 * - `refused`: nothing to talk to — connection refused, host or network
 *   unreachable, and DNS failures (`ENOTFOUND`, `EAI_AGAIN`). A DNS failure is not
 *   a rate signal: `refused` holds the speed and lets the breaker stop the retries;
 * - `timeout`: connect, headers or body took too long.
 */
const ERROR_CODES: ReadonlyMap<string, SignalKind> = new Map<string, SignalKind>([
  ['ECONNRESET', 'reset'],
  ['EPIPE', 'reset'],
  ['ECONNABORTED', 'reset'],
  ['UND_ERR_SOCKET', 'reset'],
  ['UND_ERR_RES_CONTENT_LENGTH_MISMATCH', 'reset'],
  ['ERR_STREAM_PREMATURE_CLOSE', 'reset'],
  ['ERR_HTTP2_STREAM_ERROR', 'reset'],
  ['ERR_HTTP2_SESSION_ERROR', 'reset'],
  ['ERR_HTTP2_GOAWAY_SESSION', 'reset'],
  ['ECONNREFUSED', 'refused'],
  ['EHOSTUNREACH', 'refused'],
  ['ENETUNREACH', 'refused'],
  ['EHOSTDOWN', 'refused'],
  ['ENETDOWN', 'refused'],
  ['ENOTFOUND', 'refused'],
  ['EAI_AGAIN', 'refused'],
  ['EAI_FAIL', 'refused'],
  ['ETIMEDOUT', 'timeout'],
  ['ESOCKETTIMEDOUT', 'timeout'],
  ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
  ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
  ['UND_ERR_BODY_TIMEOUT', 'timeout'],
]);

const DNS_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL']);
/** Codes of a caller's abort: Node's `AbortError` and undici's `RequestAbortedError`. */
const ABORT_CODES: ReadonlySet<string> = new Set(['ABORT_ERR', 'UND_ERR_ABORTED']);
/**
 * Codes of failures on our side — the client shut down, the request itself
 * was invalid (a bad header or method, an unsupported feature), or the
 * response broke one of our own limits (a head past undici's
 * `maxHeaderSize`, a body past its `maxResponseSize`): nothing about the
 * server's rate, and the same request would fail the same way again, so never
 * retried nor reported to its controller.
 */
const LOCAL_CODES: ReadonlySet<string> = new Set([
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
  'UND_ERR_HEADERS_OVERFLOW',
  'UND_ERR_RES_EXCEEDED_MAX_SIZE',
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
  'ERR_INVALID_URL',
  'ERR_INVALID_HTTP_TOKEN',
  'ERR_INVALID_CHAR',
]);
/** How many errors of a cause chain (and AggregateError members) are inspected. */
const MAX_CHAIN = 16;

/** What one error in a cause chain says. */
type Finding =
  | { type: 'signal'; signal: Signal }
  | { type: 'response'; response: unknown }
  | { type: 'abort' }
  | { type: 'local' };

/** The outcome of inspecting a whole failure. */
export type FailureReading = Finding | { type: 'unknown'; reason: string };

/**
 * Reads a thrown value. The cause chain is walked outermost first (undici's
 * `TypeError('fetch failed')` carries the real error in `cause`; an
 * `AggregateError`'s members are visited too) and the first error that says
 * something wins. An abort is the exception: a `TimeoutError` below it (Node's
 * `AbortError` whose cause is the `AbortSignal.timeout` reason) makes it a timeout.
 */
export function readFailure(error: unknown): FailureReading {
  let aborted = false;
  for (const node of causeChain(error)) {
    const finding = inspect(node);
    if (finding === undefined) continue;
    if (finding.type === 'abort') aborted = true;
    else if (!aborted || (finding.type === 'signal' && finding.signal.kind === 'timeout')) {
      return finding;
    }
  }
  return aborted ? { type: 'abort' } : { type: 'unknown', reason: describeUnknown(error) };
}

function inspect(error: unknown): Finding | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  if (isResponseLike(error)) return { type: 'response', response: error };
  const response = readProperty(error, 'response');
  if (isResponseLike(response)) return { type: 'response', response };
  // A failed fetch is read by its cause (refused, reset, timed out); other ratewise errors are local.
  if (attempt(() => error instanceof FetchFailedError, false)) return undefined;
  if (attempt(() => error instanceof RatewiseError, false)) return { type: 'local' };
  const name = readString(error, 'name');
  const code = readString(error, 'code');
  if (name === 'AbortError' || (code !== undefined && ABORT_CODES.has(code))) {
    return { type: 'abort' };
  }
  if (name === 'TimeoutError') return signal('timeout', 'TimeoutError');
  if (code === undefined) return undefined;
  if (LOCAL_CODES.has(code)) return { type: 'local' };
  const kind = ERROR_CODES.get(code);
  if (kind === undefined) return undefined;
  const message = readString(error, 'message') ?? '';
  if (code === 'ERR_HTTP2_STREAM_ERROR' && message.includes('ENHANCE_YOUR_CALM')) {
    return signal('throttled', 'HTTP/2 ENHANCE_YOUR_CALM');
  }
  if (DNS_CODES.has(code)) return signal(kind, `${code} (dns)`);
  if (code === 'UND_ERR_SOCKET' && message !== '') return signal(kind, `${code} ${clip(message)}`);
  return signal(kind, code);
}

function signal(kind: SignalKind, reason: string): Finding {
  return { type: 'signal', signal: { kind, reason } };
}

/** The error, its `cause`s and `AggregateError` members, breadth first, without cycles. */
function causeChain(error: unknown): unknown[] {
  const chain: unknown[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && chain.length < MAX_CHAIN) {
    const next = queue.shift();
    if (chain.includes(next)) continue;
    chain.push(next);
    const cause = readProperty(next, 'cause');
    if (cause !== undefined) queue.push(cause);
    const members = readProperty(next, 'errors');
    queue.push(...attempt(() => (Array.isArray(members) ? members.slice(0, MAX_CHAIN) : []), []));
  }
  return chain;
}

function describeUnknown(error: unknown): string {
  if (error === null) return 'unrecognised null thrown';
  if (typeof error !== 'object') return `unrecognised ${typeof error} thrown`;
  const label = readString(error, 'code') ?? readString(error, 'name') ?? 'error';
  return `unrecognised error ${clip(label, 40)}`;
}
