/**
 * The server-model contract. A model is a pure description of how a server
 * answers: the simulator drives it in virtual time and the loopback mock server
 * (`startMockServer`) drives the very same object over real HTTP, so a claim
 * proven in one place can be checked in the other.
 *
 * Time is data: a model never reads a clock. Every request carries its arrival
 * time, and the model decides the whole reply at arrival.
 */

/** One request as a model sees it. */
export interface ModelRequest {
  /** Unique, increasing request number. */
  readonly id: number;
  /** Arrival time in monotonic ms since the model's time origin (server or simulation start). */
  readonly at: number;
  /** Arrival time in wall-clock epoch ms, for `Date` and HTTP-date headers. */
  readonly wallAt: number;
  /** Who sent it: an IP address, a proxy session or an API key. Per-client models key on it. */
  readonly client: string;
  /** Request target, e.g. `/products/12`. */
  readonly path: string;
}

/** How a model answers one request. */
export interface ModelReply {
  /** HTTP status code. */
  status: number;
  /** Response headers, lower-case names (the server adds `date` and `content-length`). */
  headers: Record<string, string>;
  /** Delay between arrival and the status line (time to first byte), ms. */
  ttfbMs: number;
  /** Body length in bytes; equals the UTF-8 length of `body` when that is set. */
  bodyBytes: number;
  /** Time taken to drip the body after the status line, ms (0: all at once). */
  bodyMs: number;
  /** Body text; when absent the server sends `bodyBytes` filler bytes. */
  body?: string;
}

/** A server's behaviour: admission, latency, headers and capacity. */
export interface ServerModel {
  /** Short name, e.g. `fixed-window` or `fixed-window+ramp`. */
  readonly name: string;
  /** Decides the reply to a request at its arrival time. Arrivals come in time order. */
  arrive(request: ModelRequest): ModelReply;
  /**
   * Tells the model the reply to `request` completed (or the client went away) at `at`.
   * Callers call it exactly once per arrival; models that cap concurrency need it.
   */
  finish?(request: ModelRequest, at: number): void;
  /** Nominal capacity in requests/s at time `at`, for goodput ratios; `undefined` when unbounded. */
  capacity(at: number): number | undefined;
}
