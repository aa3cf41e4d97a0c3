import { NEVER } from './congestion.js';

/**
 * The last congestion event, as the {@link Prober} bills it: what it cost,
 * whether a probe caused it and found the ceiling where it was, whether it
 * was a refusal (timeouts and resets are no refusals: probing after them
 * draws none, and is not paid), when it started and the rate held before it
 * (a probe's: before the probe), and whether that probe was owed (a cut that
 * left only a bound asked for it: it is part of that cut's measurement, not
 * the price of looking, and is not charged).
 */
export interface CongestionEvent {
  refusals: number;
  pauseMs: number;
  probe: boolean;
  confirmed: boolean;
  refusal: boolean;
  at: number;
  heldBefore: number;
  owed: boolean;
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
    owed: false,
  };
}

/** What a scope's event reads as before its first: a refusal that cost nothing, no probe's. */
export const NO_EVENT: Readonly<CongestionEvent> = Object.freeze(freshEvent(NEVER));
