/** How often the watch ticks, ms. */
const TICK_MS = 5;
/** A tick this much later than due is a stall (shorter lateness is timer jitter, within the tests' own allowance). */
const STALL_MS = 10;

/** A stall of this process's event loop: when it ended (local ms) and how long it held things up. */
interface Stall {
  readonly endedAt: number;
  readonly ms: number;
}

/**
 * Watches this process's event loop for stalls (a loaded machine not running it): while
 * stalled, nothing here runs, and timers due meanwhile — sends paced by them — all fire at
 * its end, so a window of real time holds more of them than the pace allows. `stalledIn`
 * gives the stalls' total that ended within `[from, to)`, ms; `stop` ends the watch.
 */
export function watchStalls(): {
  stalledIn: (from: number, to: number) => number;
  stop: () => void;
} {
  const stalls: Stall[] = [];
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    if (late >= STALL_MS) stalls.push({ endedAt: now, ms: late });
    last = now;
  }, TICK_MS);
  timer.unref();
  return {
    stalledIn: (from, to) =>
      stalls.filter((s) => s.endedAt >= from && s.endedAt < to).reduce((sum, s) => sum + s.ms, 0),
    stop: () => clearInterval(timer),
  };
}
