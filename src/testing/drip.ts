import type { ServerResponse } from 'node:http';
import type { Clock } from '../clock.js';

/** The bytes of a reply body: its text, or `bodyBytes` filler bytes. */
export function bodyBuffer(body: string | undefined, bodyBytes: number): Buffer {
  return body === undefined ? Buffer.alloc(bodyBytes, 'x') : Buffer.from(body, 'utf8');
}

/** How a body is dripped: over `bodyMs`, one chunk every `intervalMs` at most. */
export interface DripPlan {
  bodyMs: number;
  intervalMs: number;
}

/** Chunk count for a drip: one per interval, at least 1, at most one per byte. */
export function chunkCount(bytes: number, plan: DripPlan): number {
  if (plan.bodyMs <= 0) return 1;
  return Math.max(1, Math.min(bytes, Math.ceil(plan.bodyMs / plan.intervalMs)));
}

/**
 * Sends the headers already set on `response`, then the body in equal chunks
 * spread over `bodyMs` (the last chunk lands at `bodyMs`), and ends the
 * response. Waits run on `clock`; an abort stops the drip by rejecting.
 */
export async function dripBody(
  response: ServerResponse,
  bytes: Buffer,
  plan: DripPlan,
  clock: Clock,
  signal: AbortSignal,
): Promise<void> {
  if (plan.bodyMs <= 0) {
    response.end(bytes);
    return;
  }
  response.flushHeaders();
  const chunks = chunkCount(bytes.length, plan);
  for (let i = 0; i < chunks; i++) {
    await clock.sleep(plan.bodyMs / chunks, signal);
    const start = Math.floor((i * bytes.length) / chunks);
    const end = Math.floor(((i + 1) * bytes.length) / chunks);
    if (end > start) response.write(bytes.subarray(start, end));
  }
  response.end();
}
