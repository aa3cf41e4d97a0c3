import type { ModelReply, ModelRequest, ServerModel } from './model.js';

/**
 * A model layered over another (a refusal form, a skewed clock, noise, a
 * background consumer): it changes how requests arrive or replies look, and
 * passes `finish` and `capacity` on to the model it wraps unless it overrides them.
 */
export abstract class WrappingModel implements ServerModel {
  readonly name: string;
  /** The wrapped model. */
  protected readonly inner: ServerModel;

  /** @param name The layer's name, the wrapped model's by default. */
  protected constructor(inner: ServerModel, name = inner.name) {
    this.inner = inner;
    this.name = name;
  }

  abstract arrive(request: ModelRequest): ModelReply;

  finish(request: ModelRequest, at: number): void {
    this.inner.finish?.(request, at);
  }

  capacity(at: number): number | undefined {
    return this.inner.capacity(at);
  }
}
