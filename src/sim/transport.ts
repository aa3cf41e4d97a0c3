import type { PhaseTimings } from '../timings.js';

/** One request, as strategies send it. */
export interface ExchangeRequest {
  /** Request target, e.g. `/item/17`. */
  path: string;
  /** Who sends it (IP or session), for per-client server models. */
  client?: string;
}

/** One completed HTTP exchange, virtual or real. */
export interface Exchange {
  /** HTTP status. */
  status: number;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
  /** The body text when it is small enough to sniff (block pages). */
  body?: string;
  /** Per-phase timings. */
  timings: PhaseTimings;
}

/**
 * How a strategy reaches a server: a model in virtual time, or a real HTTP
 * server on loopback. A request the server does not answer in time rejects
 * (with an error `classify` reads as a timeout).
 */
export interface Transport {
  /** Sends one request and resolves with the whole exchange. */
  send(request: ExchangeRequest): Promise<Exchange>;
}

/** The error a transport rejects with when a request outlives its timeout. */
export function timeoutError(timeoutMs: number): Error {
  return new DOMException(`no response within ${timeoutMs} ms`, 'TimeoutError');
}
