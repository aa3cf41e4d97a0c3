import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { WrappingModel } from './wrapping-model.js';

/** A span of model time, ms: [fromMs, toMs). */
export interface Span {
  readonly fromMs: number;
  readonly toMs: number;
}

/** How an unseen consumer shares a server's limit with the client. */
export interface BackgroundOptions {
  /** Share of the server's capacity the consumer uses while active, in (0, 1). */
  readonly share: number;
  /** When it is active (model time, ascending, not overlapping). */
  readonly active: readonly Span[];
}

/**
 * Another client of the same limit, invisible to ours: while active it sends
 * `share × capacity` requests/s, evenly spaced, into the wrapped model, which
 * counts them against the budget it shares with everyone. Its requests are fed
 * in just before each of ours, at the times they would have arrived, and its
 * replies go nowhere. What is left for us is `(1 − share) × capacity`.
 */
export class BackgroundModel extends WrappingModel {
  readonly #share: number;
  readonly #active: readonly Span[];
  #nextAt = 0;
  #ids = 0;

  constructor(inner: ServerModel, options: BackgroundOptions) {
    super(inner, `${inner.name}+background`);
    this.#share = options.share;
    this.#active = options.active;
  }

  arrive(request: ModelRequest): ModelReply {
    this.#catchUp(request);
    return this.inner.arrive(request);
  }

  override capacity(at: number): number | undefined {
    const capacity = this.inner.capacity(at);
    if (capacity === undefined || this.#spanAt(at) === undefined) return capacity;
    return capacity * (1 - this.#share);
  }

  /** Feeds the consumer's requests due before `request` into the wrapped model. */
  #catchUp(request: ModelRequest): void {
    while (this.#nextAt <= request.at) {
      const span = this.#spanAt(this.#nextAt);
      if (span === undefined) {
        const next = this.#active.find((s) => s.fromMs > this.#nextAt);
        if (next === undefined) {
          this.#nextAt = Infinity;
          return;
        }
        this.#nextAt = next.fromMs;
        continue;
      }
      const at = this.#nextAt;
      const mine = {
        id: -++this.#ids,
        at,
        wallAt: request.wallAt - (request.at - at),
        client: 'background',
        path: '/background',
      };
      this.inner.arrive(mine);
      this.inner.finish?.(mine, at);
      const rate = this.#share * (this.inner.capacity(at) ?? 0);
      this.#nextAt = rate > 0 ? at + 1000 / rate : span.toMs;
    }
  }

  #spanAt(at: number): Span | undefined {
    return this.#active.find((span) => at >= span.fromMs && at < span.toMs);
  }
}
