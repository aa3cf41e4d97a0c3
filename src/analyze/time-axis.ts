import type { DataLine } from './records.js';

/** A record further than this from the first record's time (a year) is not part of the log. */
const MAX_SPAN_MS = 366 * 86_400_000;

/** Where a line lands on the log's time axis. */
export type Placement =
  /** `at`: the line's time (`undefined` when it carries none). */
  | { ok: true; at: number | undefined }
  /** The line's time lies more than a year from the first record's. */
  | { ok: false; reason: string };

/**
 * The time axis of a log: epoch ms for ISO-stamped lines and crawl results;
 * ratewise events' monotonic `t` shifted by the first event's `wall − t`,
 * so differences stay monotonic and labels read as wall time. A time more
 * than a year from the first accepted record's is refused: one stray
 * far-future stamp must not stretch a log into millions of windows.
 */
export class LogTimeAxis {
  #eventOffset: number | undefined;
  #first: number | undefined;

  /** Places a line; an accepted line's time becomes the reference if it is the first. */
  place(line: DataLine): Placement {
    const at = this.#timeOf(line);
    if (at === undefined) return { ok: true, at };
    this.#first ??= at;
    if (Math.abs(at - this.#first) > MAX_SPAN_MS) {
      return { ok: false, reason: `time ${at} ms is more than a year from the first record's` };
    }
    if (line.kind === 'event') this.#eventOffset ??= at - line.event.t;
    return { ok: true, at };
  }

  #timeOf(line: DataLine): number | undefined {
    if (line.kind !== 'event') return line.request.at;
    const { t, wall } = line.event;
    return t + (this.#eventOffset ?? (Number.isFinite(wall) ? wall - t : 0));
  }
}
