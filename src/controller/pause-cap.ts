import type { Signal } from '../signal.js';

/** A signal with its pause capped, and what the pause it asks for is about. */
export interface CappedPause {
  /** The signal the algorithms see: `retryAfterMs`, and a spent quota's `resetMs`, at most the cap. */
  signal: Signal;
  /** Why the signal pauses the scope, in words (`429 with Retry-After 86400 s, capped at 300 s`). */
  cause: string;
}

/**
 * Caps how long one response may pause its scope, before the algorithms see
 * it: a `Retry-After`, or the reset of a quota with nothing left (`remaining`
 * 0), longer than `maxPauseMs` is read as `maxPauseMs`. The server is still
 * obeyed — nothing is sent during the pause — but a hostile or mistaken
 * header (`Retry-After: 99999999`, a reset a day away) cannot stall a host
 * for a day on its own: when the capped pause ends, one request asks again,
 * and a server that really means a long pause says so again. A quota with
 * requests left keeps its reset as sent: it only spreads them out.
 * `undefined` (and nothing allocated) for a signal that asks for no pause.
 */
export function capPause(signal: Signal, maxPauseMs: number): CappedPause | undefined {
  const { retryAfterMs, quota } = signal;
  const spent = quota !== undefined && (quota.remaining ?? 1) < 1 && quota.resetMs !== undefined;
  if (retryAfterMs === undefined && !spent) return undefined;
  // Capped once already (by the client, before a fleet's controllers): explain what was asked.
  const asked = (signal as Capped)[ASKED] ?? { retryAfterMs, resetMs: quota?.resetMs };
  let capped: Capped = signal;
  const parts: string[] = [];
  if (retryAfterMs !== undefined) {
    const ms = asked.retryAfterMs ?? retryAfterMs;
    parts.push(`${signal.reason} with Retry-After ${seconds(ms)}${capNote(ms, maxPauseMs)}`);
    if (retryAfterMs > maxPauseMs) capped = { ...capped, retryAfterMs: maxPauseMs };
  }
  if (spent) {
    const resetMs = quota.resetMs as number;
    const ms = asked.resetMs ?? resetMs;
    parts.push(
      `quota spent (${signal.reason}), resets in ${seconds(ms)}${capNote(ms, maxPauseMs)}`,
    );
    if (resetMs > maxPauseMs) capped = { ...capped, quota: { ...quota, resetMs: maxPauseMs } };
  }
  if (capped !== signal) capped[ASKED] = asked;
  return { signal: capped, cause: parts.join('; ') };
}

/** Where a capped signal keeps what the response asked for (module-private: not part of `Signal`). */
const ASKED = Symbol('ratewise.askedPause');

type Capped = Signal & {
  [ASKED]?: { retryAfterMs: number | undefined; resetMs: number | undefined };
};

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

function capNote(ms: number, maxPauseMs: number): string {
  return ms > maxPauseMs ? `, capped at ${seconds(maxPauseMs)} (maxPauseMs)` : '';
}

/** The default `maxPauseMs`: 5 minutes. */
export const DEFAULT_MAX_PAUSE_MS = 300_000;
