import { type ClockReading, fromWall, toWall } from './clock-reading.js';

/**
 * The breaker's serialisable state. Times are monotonic ms of the owning
 * process (`BreakerPolicy.toJSON()`), or wall-clock epoch ms in a store
 * ({@link breakerToWall}).
 */
export interface BreakerSnapshot {
  /** Stored state; an `open` breaker is half-open once `openUntil` has passed. */
  state: 'closed' | 'open';
  /** Consecutive strikes so far. */
  strikes: number;
  /** When the last strike was counted. */
  lastStrikeAt: number;
  /** When the breaker last opened. */
  openedAt: number;
  /** When the current open period ends. */
  openUntil: number;
  /** The cooldown the next opening will use. */
  cooldownMs: number;
}

/**
 * The snapshot as a store keeps it: its times as wall-clock epoch ms
 * (`clocks` pairs the clocks now), so another process can resume it.
 */
export function breakerToWall(snapshot: BreakerSnapshot, clocks: ClockReading): BreakerSnapshot {
  const wall = (t: number) => toWall(t, clocks);
  return {
    ...snapshot,
    lastStrikeAt: wall(snapshot.lastStrikeAt),
    openedAt: wall(snapshot.openedAt),
    openUntil: wall(snapshot.openUntil),
  };
}

/**
 * A snapshot from a store ({@link breakerToWall}) on this process's monotonic
 * clock (`clocks` pairs its clocks now); undefined when it is not a usable
 * one (the breaker then starts closed).
 */
export function breakerFromWall(
  saved: BreakerSnapshot,
  clocks: ClockReading,
): BreakerSnapshot | undefined {
  if (typeof saved !== 'object' || saved === null || !isSnapshot(saved)) return undefined;
  const local = (t: number) => fromWall(t, clocks);
  return {
    state: saved.state,
    strikes: saved.strikes,
    lastStrikeAt: local(saved.lastStrikeAt),
    openedAt: local(saved.openedAt),
    openUntil: local(saved.openUntil),
    cooldownMs: saved.cooldownMs,
  };
}

/** Whether a saved state is usable (a corrupt one is ignored: the breaker starts closed). */
export function isSnapshot(value: BreakerSnapshot): boolean {
  const numbers = [
    value.strikes,
    value.lastStrikeAt,
    value.openedAt,
    value.openUntil,
    value.cooldownMs,
  ];
  return (value.state === 'closed' || value.state === 'open') && numbers.every(Number.isFinite);
}
