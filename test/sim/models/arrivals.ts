import type { ModelReply, ModelRequest, ServerModel } from '../../../src/sim/models/model.js';

/** Wall-clock epoch ms that model time 0 maps to in these tests. */
export const WALL_START = Date.UTC(2026, 0, 1);

/** Makes requests with increasing ids; `at` is model time, wall time follows it. */
export function requests(): (at: number, client?: string) => ModelRequest {
  let id = 0;
  return (at, client = 'a') => ({ id: ++id, at, wallAt: WALL_START + at, client, path: '/' });
}

/** Sends one request per arrival time (all finished at once) and returns the replies. */
export function arriveAll(
  model: ServerModel,
  times: readonly number[],
  client = 'a',
): ModelReply[] {
  const next = requests();
  return times.map((at) => {
    const request = next(at, client);
    const reply = model.arrive(request);
    model.finish?.(request, at);
    return reply;
  });
}

/** `count` arrival times spread evenly from `from`, `gapMs` apart. */
export function evenly(count: number, from = 0, gapMs = 0): number[] {
  return Array.from({ length: count }, (_, i) => from + i * gapMs);
}

/** Counts statuses, e.g. `{ 200: 30, 429: 5 }`. */
export function countStatuses(replies: readonly ModelReply[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const reply of replies) counts[reply.status] = (counts[reply.status] ?? 0) + 1;
  return counts;
}
