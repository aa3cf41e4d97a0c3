import type { DataLine } from './records.js';

/** A record further than this from the first record's time (a year) is not part of the log. */
const MAX_SPAN_MS = 366 * 86_400_000;
/**
 * An event whose monotonic `t` is this far before the previous event's
 * belongs to a new run (a new process, whose clock started again) in a log
 * written without run-start lines.
 */
const CLOCK_RESTART_MS = 1000;

/** Where a line lands on the log's time axis. */
export type Placement =
  /**
   * `at`: the line's time (`undefined` when it carries none); `newRun`: the
   * event's clock went back, so a run without a run-start line begins here.
   */
  | { ok: true; at: number | undefined; newRun: boolean }
  /** The line's time lies more than a year from the first record's. */
  | { ok: false; reason: string };

/**
 * The time axis of a log: epoch ms for ISO-stamped lines and crawl results;
 * for ratewise events, one wall-clock axis across runs — each run's
 * monotonic `t` shifted by its own first event's `wall − t`, so within a run
 * differences stay monotonic, and runs appended to one log (`crawl
 * --resume`) follow each other instead of lying on top of each other. A run
 * starts at a run-start line ({@link startRun}) or where the events' `t`
 * goes back. A time more than a year from the first accepted record's is
 * refused: one stray far-future stamp must not stretch a log into millions
 * of windows.
 */
export class LogTimeAxis {
  #eventOffset: number | undefined;
  #lastT: number | undefined;
  #first: number | undefined;

  /** A new run begins: its events are placed by their own clock from here on. */
  startRun(): void {
    this.#eventOffset = undefined;
    this.#lastT = undefined;
  }

  /** Places a line; an accepted line's time becomes the reference if it is the first. */
  place(line: DataLine): Placement {
    let newRun = false;
    if (line.kind === 'event') {
      const { t } = line.event;
      newRun = this.#lastT !== undefined && t < this.#lastT - CLOCK_RESTART_MS;
      if (newRun) this.#eventOffset = undefined;
    }
    const at = this.#timeOf(line);
    if (at === undefined) return { ok: true, at, newRun };
    this.#first ??= at;
    if (Math.abs(at - this.#first) > MAX_SPAN_MS) {
      return { ok: false, reason: `time ${at} ms is more than a year from the first record's` };
    }
    if (line.kind === 'event') {
      this.#eventOffset ??= at - line.event.t;
      this.#lastT = Math.max(this.#lastT ?? Number.NEGATIVE_INFINITY, line.event.t);
    }
    return { ok: true, at, newRun };
  }

  #timeOf(line: DataLine): number | undefined {
    if (line.kind !== 'event') return line.request.at;
    const { t, wall } = line.event;
    return t + (this.#eventOffset ?? (Number.isFinite(wall) ? wall - t : 0));
  }
}
