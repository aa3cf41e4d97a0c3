import type { ModelReply, ModelRequest, ServerModel } from '../../src/sim/models/model.js';
import { textReply } from '../../src/sim/models/reply.js';

/**
 * A server with `workers` workers and an unbounded FIFO queue (M/D/c):
 * beyond `workers` in flight requests wait their turn, so latency grows with
 * concurrency and requests/s does not — a knee without a single error.
 */
export function fifoModel(
  workers: number,
  serviceMs: number,
): ServerModel & { setServiceMs(ms: number): void } {
  const busyUntil = new Array<number>(workers).fill(0);
  let service = serviceMs;
  return {
    name: 'fifo',
    setServiceMs(ms: number) {
      service = ms;
    },
    arrive(request: ModelRequest): ModelReply {
      let worker = 0;
      for (let i = 1; i < workers; i++)
        if ((busyUntil[i] as number) < (busyUntil[worker] as number)) worker = i;
      const start = Math.max(request.at, busyUntil[worker] as number);
      busyUntil[worker] = start + service;
      return textReply(200, { ttfbMs: start + service - request.at });
    },
    capacity: () => (1000 * workers) / service,
  };
}
