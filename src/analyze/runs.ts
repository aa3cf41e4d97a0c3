/** One run of a log: a stretch written by one process (one `crawl`, one `--resume`). */
export interface RunSpan {
  /** The run's id from its run-start line; `null` for a run found by its clock going back. */
  id: string | null;
  /** First and last record of the run, ms on the log's axis. */
  start: number;
  end: number;
  /** Finished requests in the run. */
  requests: number;
}

/** How the runs of a log were laid out. */
export interface RunsSummary {
  /** Runs with records in them. */
  count: number;
  /**
   * `wall-clock`: each run's events placed by its own wall-clock start, one
   * after the other (gaps between runs left out of rates); `single`: the
   * whole log is one run.
   */
  axis: 'wall-clock' | 'single';
  /** Time covered by the runs themselves, gaps between them left out, s. */
  activeS: number;
  /** The first {@link MAX_LISTED_RUNS} runs, in order. */
  list: RunSpan[];
}

/** Runs described one by one; further runs are only counted. */
export const MAX_LISTED_RUNS = 100;

/**
 * Follows the runs of a log as its lines go by: a run opens with the first
 * record after a run-start line (or a clock restart) and stretches to its
 * last record. Memory is bounded: only the first {@link MAX_LISTED_RUNS}
 * runs are kept, later ones add to the count and the active time.
 */
export class RunTracker {
  readonly #list: RunSpan[] = [];
  #current: RunSpan | undefined;
  #pending: { id: string | null } | undefined;
  #count = 0;
  #closedMs = 0;

  /** A run begins: the next record opens it. */
  start(id: string | null): void {
    this.#pending = { id };
  }

  /** A record at `at` (a request when `request`): opens a run if one is due, stretches the current one. */
  record(at: number, request: boolean): void {
    if (this.#current === undefined || this.#pending !== undefined) this.#open(at);
    const run = this.#current as RunSpan;
    run.start = Math.min(run.start, at);
    run.end = Math.max(run.end, at);
    if (request) run.requests++;
  }

  /** The runs so far. */
  summary(): RunsSummary {
    const current = this.#current;
    const activeMs = this.#closedMs + (current ? current.end - current.start : 0);
    return {
      count: this.#count,
      axis: this.#count > 1 ? 'wall-clock' : 'single',
      activeS: activeMs / 1000,
      list: this.#list.map((run) => ({ ...run })),
    };
  }

  #open(at: number): void {
    const previous = this.#current;
    if (previous) this.#closedMs += previous.end - previous.start;
    const run: RunSpan = { id: this.#pending?.id ?? null, start: at, end: at, requests: 0 };
    this.#pending = undefined;
    this.#count++;
    this.#current = run;
    if (this.#list.length < MAX_LISTED_RUNS) this.#list.push(run);
  }
}
