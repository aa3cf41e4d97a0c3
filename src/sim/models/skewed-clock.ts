import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { httpDate } from './retry-after.js';
import { WrappingModel } from './wrapping-model.js';

/**
 * A server whose clock is `skewMs` ahead of the client's (behind when
 * negative): the wrapped model sees arrivals in server wall-clock time, so its
 * HTTP-date Retry-After and epoch resets are in server time, and every reply
 * carries the server's `Date` — what a client must correct by.
 */
export class SkewedClockModel extends WrappingModel {
  readonly #skewMs: number;

  constructor(inner: ServerModel, skewMs: number) {
    super(inner);
    this.#skewMs = skewMs;
  }

  arrive(request: ModelRequest): ModelReply {
    const wallAt = request.wallAt + this.#skewMs;
    const reply = this.inner.arrive({ ...request, wallAt });
    reply.headers.date = httpDate(wallAt + reply.ttfbMs);
    return reply;
  }
}
