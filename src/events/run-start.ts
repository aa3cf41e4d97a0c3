import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';

/**
 * The first line a {@link jsonlSink} writes for a run: where one run of a
 * program starts in a log that several runs append to (`crawl --resume`).
 * `ratewise analyze` and `report` place each run's events on the wall
 * clock from here on, so runs follow each other instead of overlapping.
 */
export interface RunStart {
  type: 'run';
  /** Identifies the run: its wall-clock start and a random suffix. */
  run: string;
  /** Monotonic time of the start, ms (the clock the run's events use). */
  t: number;
  /** Wall-clock time of the start, epoch ms. */
  wall: number;
  /** The start as ISO 8601 UTC, for people reading the log. */
  started: string;
}

/** The largest time a `Date` holds, ms either side of the epoch. */
const MAX_DATE_MS = 8.64e15;

/** A run-start record for a run starting now by `clock`. */
export function runStart(clock: Pick<Clock, 'now' | 'wallNow'>): RunStart {
  const wall = clock.wallNow();
  const started = Math.abs(wall) <= MAX_DATE_MS ? new Date(wall).toISOString() : String(wall);
  return {
    type: 'run',
    run: `${started}-${randomUUID().slice(0, 8)}`,
    t: clock.now(),
    wall,
    started,
  };
}
