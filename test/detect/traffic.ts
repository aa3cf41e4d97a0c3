import type { AlarmTransition } from '../../src/detect/transition.js';
import type { Random } from '../../src/random.js';

/** One synthetic request: when it was sent and when it finished (ms). */
export interface Exchange {
  sentAt: number;
  at: number;
}

/** A value that may change over (virtual) time. */
export type Curve = (t: number) => number;

/** Multiplies `value` by a uniform factor in [1 − spread, 1 + spread). */
export function jitter(random: Random, value: number, spread: number): number {
  return value * (1 + spread * (2 * random.next() - 1));
}

/** Closed loop: `workers(t)` workers each send the next request as soon as the last one finishes. */
export function closedLoop(options: {
  durationMs: number;
  maxWorkers: number;
  workers: Curve;
  latencyMs: Curve;
  noise: number;
  random: Random;
}): Exchange[] {
  const out: Exchange[] = [];
  for (let w = 0; w < options.maxWorkers; w++) {
    let t = 0;
    while (t < options.durationMs) {
      if (w >= options.workers(t)) {
        t += 250;
        continue;
      }
      const latency = jitter(options.random, options.latencyMs(t), options.noise);
      out.push({ sentAt: t, at: t + latency });
      t += latency;
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/** Open loop: requests leave at `rateRps(t)` whatever the latency. */
export function openLoop(options: {
  durationMs: number;
  rateRps: Curve;
  latencyMs: Curve;
  noise: number;
  random: Random;
}): Exchange[] {
  const out: Exchange[] = [];
  for (let t = 0; t < options.durationMs; t += 1000 / options.rateRps(t)) {
    const latency = jitter(options.random, options.latencyMs(t), options.noise);
    out.push({ sentAt: t, at: t + latency });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** A linear ramp from `from` to `to` between `start` and `end` ms, flat outside. */
export function ramp(start: number, end: number, from: number, to: number): Curve {
  return (t) =>
    t <= start ? from : t >= end ? to : from + ((to - from) * (t - start)) / (end - start);
}

/** The detector surface {@link replay} drives. */
export interface Observer {
  observe(completion: Exchange): AlarmTransition | undefined;
  tick(at: number, inflight: number): AlarmTransition | undefined;
}

/** A transition and when it happened. */
export interface Timed {
  at: number;
  transition: AlarmTransition;
}

/** Feeds `exchanges` (sorted by `at`) to `detector`, with a tick every `tickMs`; returns the transitions. */
export function replay(detector: Observer, exchanges: readonly Exchange[], tickMs = 1000): Timed[] {
  const sends = exchanges.map((e) => e.sentAt).sort((a, b) => a - b);
  const events: Timed[] = [];
  let sent = 0;
  let done = 0;
  let nextTick = tickMs;
  const record = (at: number, transition: AlarmTransition | undefined): void => {
    if (transition) events.push({ at, transition });
  };
  for (const exchange of exchanges) {
    while (nextTick < exchange.at) {
      while (sent < sends.length && (sends[sent] as number) <= nextTick) sent++;
      record(nextTick, detector.tick(nextTick, sent - done));
      nextTick += tickMs;
    }
    done++;
    record(exchange.at, detector.observe(exchange));
  }
  return events;
}
