/** How much of the input a crawl keeps going at once. */
export interface WindowLimits {
  /** Requests started and not finished, all scopes together. */
  window: number;
  /** Requests started and not finished per scope. */
  scopeWindow: number;
  /** URLs set aside because their scope (or the whole window) is full, before the input waits. */
  backlog: number;
}

/**
 * Decides when each URL of a crawl starts, in bounded memory: at most
 * `window` requests going in all and `scopeWindow` per scope, so requests
 * queued for one slow scope never take every slot while other scopes could
 * run. A URL whose scope is full waits aside (up to `backlog` of them) and
 * starts as soon as its scope has room, while the input moves on to other
 * scopes. A failing `run` stops everything: nothing more starts, and
 * {@link next} and {@link finish} rethrow its error.
 */
export class CrawlWindow {
  readonly #limits: WindowLimits;
  readonly #stop: AbortSignal;
  readonly #scopeOf: (url: string) => string;
  readonly #run: (url: string) => Promise<void>;
  readonly #running = new Set<Promise<void>>();
  readonly #perScope = new Map<string, number>();
  /** URLs set aside, by scope, in the order the scopes get their turn. */
  readonly #waiting = new Map<string, string[]>();
  #waitingCount = 0;
  #failure: { error: unknown } | undefined;

  /**
   * `run` fetches and records one URL; `scopeOf` names its scope. Once
   * `stop` aborts, the URLs set aside are dropped and nothing more starts.
   */
  constructor(
    limits: WindowLimits,
    stop: AbortSignal,
    scopeOf: (url: string) => string,
    run: (url: string) => Promise<void>,
  ) {
    this.#limits = limits;
    this.#stop = stop;
    this.#scopeOf = scopeOf;
    this.#run = run;
  }

  /** Whether the input should wait ({@link next}) before adding more: the backlog is full. */
  get full(): boolean {
    return this.#waitingCount >= this.#limits.backlog;
  }

  /** Starts `url` if its scope and the window have room, else sets it aside. */
  add(url: string): void {
    if (this.#stop.aborted || this.#failure) return;
    const scope = this.#scopeOf(url);
    if (this.#hasRoom(scope)) {
      this.#start(url, scope);
      return;
    }
    const waiting = this.#waiting.get(scope);
    if (waiting) waiting.push(url);
    else this.#waiting.set(scope, [url]);
    this.#waitingCount++;
  }

  /** Resolves when a request finishes (at once when none is going); rejects with a failure. */
  async next(): Promise<void> {
    this.#throwFailure();
    if (this.#running.size > 0) await Promise.race(this.#running);
    this.#throwFailure();
  }

  /** Waits for every URL added (set-aside ones included) to finish; rethrows a failure. */
  async finish(): Promise<void> {
    while (this.#running.size > 0) await Promise.race(this.#running);
    this.#throwFailure();
  }

  #hasRoom(scope: string): boolean {
    return (
      this.#running.size < this.#limits.window &&
      (this.#perScope.get(scope) ?? 0) < this.#limits.scopeWindow
    );
  }

  #start(url: string, scope: string): void {
    this.#perScope.set(scope, (this.#perScope.get(scope) ?? 0) + 1);
    const task: Promise<void> = this.#run(url)
      .catch((error: unknown) => {
        this.#failure ??= { error };
      })
      .finally(() => {
        this.#running.delete(task);
        const left = (this.#perScope.get(scope) ?? 1) - 1;
        if (left === 0) this.#perScope.delete(scope);
        else this.#perScope.set(scope, left);
        this.#startWaiting();
      });
    this.#running.add(task);
  }

  /** Starts set-aside URLs that now have room, one scope after another; drops them after a stop. */
  #startWaiting(): void {
    if (this.#stop.aborted || this.#failure) {
      this.#waiting.clear();
      this.#waitingCount = 0;
      return;
    }
    for (const scope of [...this.#waiting.keys()]) {
      if (this.#running.size >= this.#limits.window) return;
      const waiting = this.#waiting.get(scope);
      const url = waiting?.[0];
      if (waiting === undefined || url === undefined || !this.#hasRoom(scope)) continue;
      waiting.shift();
      this.#waitingCount--;
      this.#start(url, scope);
      // The scope goes to the back of the line: scopes take turns for the window's free slots.
      this.#waiting.delete(scope);
      if (waiting.length > 0) this.#waiting.set(scope, waiting);
    }
  }

  #throwFailure(): void {
    if (this.#failure) throw this.#failure.error;
  }
}
