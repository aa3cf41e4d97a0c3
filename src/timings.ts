/**
 * Per-phase timings of one HTTP exchange, in milliseconds from the start of
 * the request (curl's `time_*` values). A phase that did not happen (a reused
 * connection needs no DNS, connect or TLS) is 0.
 */
export interface PhaseTimings {
  /** DNS lookup duration. */
  dnsMs: number;
  /** TCP connect duration. */
  connectMs: number;
  /** TLS handshake duration. */
  tlsMs: number;
  /** Time from request start to the first response byte. */
  ttfbMs: number;
  /** Time from request start to the last body byte. */
  totalMs: number;
  /** Body bytes received. */
  bytes: number;
}
