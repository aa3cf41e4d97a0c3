import type { PhaseTimings } from '../timings.js';
import type { ControlledAttempt } from './controlled-attempt.js';

/** A browser's response to a navigation, as Playwright (and Puppeteer) give it. */
export interface BrowserResponse {
  status(): number;
  /** The status line's text (Playwright, Puppeteer). */
  statusText?(): string;
  /** Playwright: every header, `set-cookie` included. */
  allHeaders?(): Promise<Record<string, string>>;
  headers(): Record<string, string>;
  /** Playwright: the request, whose `timing()` has the phases. */
  request?(): { timing?(): ResourceTiming };
}

/** Playwright's resource timing: ms from `startTime`, -1 for a phase that did not happen. */
export interface ResourceTiming {
  domainLookupStart: number;
  domainLookupEnd: number;
  connectStart: number;
  secureConnectionStart: number;
  connectEnd: number;
  requestStart: number;
  responseStart: number;
  responseEnd: number;
}

/** Chromium's network errors by the Node code that says the same to the classifier. */
const NET_ERRORS: Record<string, string> = {
  ERR_CONNECTION_RESET: 'ECONNRESET',
  ERR_CONNECTION_CLOSED: 'ECONNRESET',
  ERR_EMPTY_RESPONSE: 'ECONNRESET',
  ERR_CONNECTION_REFUSED: 'ECONNREFUSED',
  ERR_ADDRESS_UNREACHABLE: 'EHOSTUNREACH',
  ERR_NAME_NOT_RESOLVED: 'ENOTFOUND',
  ERR_TIMED_OUT: 'ETIMEDOUT',
  ERR_CONNECTION_TIMED_OUT: 'ETIMEDOUT',
  ERR_ABORTED: 'ABORT_ERR',
};

/**
 * What a proxy-chain proxy answers, status and text, when the origin failed — by the Node code
 * that says the same. Crawlee's browser crawlers send every page through such a local proxy,
 * so over plain HTTP a reset reaches the browser as `595 Connection Reset`.
 */
const PROXY_FAILURES: Record<number, readonly [string, string]> = {
  593: ['Not Found', 'ENOTFOUND'],
  594: ['Connection Refused', 'ECONNREFUSED'],
  595: ['Connection Reset', 'ECONNRESET'],
  596: ['Broken Pipe', 'EPIPE'],
};

/** The network failure a proxy's stand-in page stands for (with its Node code), or `undefined`. */
export function proxyFailure(response: BrowserResponse | null | undefined): Error | undefined {
  const status = response?.status();
  const failure = status === undefined ? undefined : PROXY_FAILURES[status];
  if (failure === undefined || response?.statusText?.() !== failure[0]) return undefined;
  const message = `${status} ${failure[0]} from the browser's proxy: the origin's connection failed`;
  return Object.assign(new Error(message), { code: failure[1] });
}

/**
 * Reports a navigation: the main document's response (status, every header,
 * the phases of its timing), or the error it failed with — a browser's
 * `net::ERR_*` read as the network failure it names, and so is a proxy's
 * stand-in page for one ({@link proxyFailure}). No response and no error
 * (a same-document navigation) says nothing: the permit is released.
 */
export async function settleNavigation(
  attempt: ControlledAttempt,
  response: BrowserResponse | null | undefined,
  error?: unknown,
): Promise<void> {
  if (error !== undefined) {
    attempt.fail(browserFailure(error));
    return;
  }
  if (!response) {
    attempt.release();
    return;
  }
  const failed = proxyFailure(response);
  if (failed) {
    attempt.fail(failed);
    return;
  }
  let headers: Record<string, string>;
  try {
    headers = response.allHeaders ? await response.allHeaders() : response.headers();
  } catch {
    headers = response.headers();
  }
  const timings = phases(response.request?.().timing?.());
  attempt.respond({ status: response.status(), headers }, timings);
}

/** The error with the Node code its `net::ERR_*` stands for (a Playwright `TimeoutError` stays one). */
export function browserFailure(error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error);
  const net = /net::(ERR_[A-Z_]+)/.exec(message)?.[1];
  const code = net === undefined ? undefined : NET_ERRORS[net];
  if (code === undefined) return error;
  return Object.assign(new Error(message, { cause: error }), { code });
}

function phases(timing: ResourceTiming | undefined): PhaseTimings | undefined {
  if (timing === undefined || !(timing.responseEnd >= 0)) return undefined;
  const span = (from: number, to: number) => (from >= 0 && to >= from ? to - from : 0);
  return {
    dnsMs: span(timing.domainLookupStart, timing.domainLookupEnd),
    connectMs: span(
      timing.connectStart,
      timing.secureConnectionStart >= 0 ? timing.secureConnectionStart : timing.connectEnd,
    ),
    tlsMs: span(timing.secureConnectionStart, timing.connectEnd),
    ttfbMs: Math.max(0, timing.responseStart),
    totalMs: Math.max(0, timing.responseEnd),
    bytes: 0,
  };
}
