import type { ControlEvent, ControlEventType } from '../../src/events/event.js';

/** A realistic control event; `i` makes each one distinct. */
export function makeEvent(i: number, type: ControlEventType = 'sample'): ControlEvent {
  return {
    t: i * 10,
    wall: 1_700_000_000_000 + i * 10,
    scope: `host:h${i % 7}.example`,
    type,
    limit: 1 + (i % 32),
    rate: i % 3 === 0 ? null : i / 4,
    inflight: i % 5,
    queued: i % 11,
    reason: i % 2 === 0 ? '429' : '+1 per round trip',
    signal: i % 2 === 0 ? 'throttled' : 'ok',
    status: i % 2 === 0 ? 429 : 200,
    rttMs: 350 + (i % 13),
  };
}
