import { NEVER } from './congestion.js';

/**
 * The last congestion event, as the {@link Prober} bills it: what it cost,
 * whether a probe caused it and found the ceiling where it was, whether it
 * was a refusal (timeouts and resets are no refusals: probing after them
 * draws none, and is not paid), when it started and the rate held before it
 * (a probe's: before the probe), the ceiling a probe started from (`NaN`
 * when it was no probe, or a refusal in its aftermath showed its reading too
 * high), and whether that probe was owed (a cut that left only a bound asked
 * for it: it is part of that cut's measurement, not the price of looking, and
 * is not charged), and, once a refusal at the held rate its reading set
 * continued it, what the probe itself had cost by then (`own`; the rest is
 * its aftermath's).
 */
export interface CongestionEvent {
  refusals: number;
  pauseMs: number;
  probe: boolean;
  confirmed: boolean;
  refusal: boolean;
  at: number;
  heldBefore: number;
  probedFrom: number;
  owed: boolean;
  own: { refusals: number; pauseMs: number } | undefined;
}

/** A new event at `at`: nothing refused or paused yet, no probe's. */
export function freshEvent(at: number): CongestionEvent {
  return {
    refusals: 0,
    pauseMs: 0,
    probe: false,
    confirmed: false,
    refusal: true,
    at,
    heldBefore: Infinity,
    probedFrom: Number.NaN,
    owed: false,
    own: undefined,
  };
}

/** What a scope's event reads as before its first: a refusal that cost nothing, no probe's. */
export const NO_EVENT: Readonly<CongestionEvent> = Object.freeze(freshEvent(NEVER));

/**
 * A refusal at a held rate, not yet counted, continues a probe's `event`: the
 * probe's reading was too high (it no longer confirms, nor names the ceiling
 * it started from), and what comes from here is its aftermath.
 */
export function toAftermath(event: CongestionEvent): void {
  event.confirmed = false;
  event.probedFrom = Number.NaN;
  event.own ??= { refusals: event.refusals, pauseMs: event.pauseMs };
}
