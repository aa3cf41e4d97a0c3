import { InvalidOptionError } from '../../errors.js';
import type { ModelReply, ModelRequest, ServerModel } from './model.js';
import { isRejection } from './reply.js';

/**
 * Layers models like middleware: a request passes through the layers in order.
 * Each layer that lets it pass (status < 400) adds its delays; the first layer
 * that rejects answers, and the layers after it never see the request.
 *
 * Merging, layer by layer: time to first byte and body drip time add up;
 * headers merge (a later layer's value wins); the status is the last layer's
 * that saw the request; the body is the rejecting layer's, else the largest
 * body among the layers (with its content type). Capacity is the smallest of
 * the layers' capacities.
 *
 * Examples: `combine(fixedWindow, ramp)` — the window's 429s come at once and
 * served requests pay the ramp's delay (give the window `latencyMs: 0` to take
 * the latency from the ramp alone); `combine(ramp, fixedWindow)` — every
 * request, rejected or not, is slowed by the ramp first.
 */
export function combine(...layers: ServerModel[]): ServerModel {
  if (layers.length === 0) {
    throw InvalidOptionError.invalid('combine', 'layers', 0, 'at least one model');
  }
  for (const [i, layer] of layers.entries()) {
    if (typeof layer?.arrive !== 'function' || typeof layer.capacity !== 'function') {
      throw InvalidOptionError.invalid('combine', `layers[${i}]`, layer, 'a ServerModel');
    }
  }
  return new CombinedModel(layers);
}

class CombinedModel implements ServerModel {
  readonly name: string;
  readonly #layers: readonly ServerModel[];
  readonly #tracksFinish: boolean;
  /** Request id → how many layers saw it, for the layers that need `finish`. */
  readonly #reached = new Map<number, number>();

  constructor(layers: readonly ServerModel[]) {
    this.name = layers.map((layer) => layer.name).join('+');
    this.#layers = layers;
    this.#tracksFinish = layers.some((layer) => layer.finish !== undefined);
  }

  arrive(request: ModelRequest): ModelReply {
    let merged: ModelReply | undefined;
    let reached = 0;
    for (const layer of this.#layers) {
      const reply = layer.arrive(request);
      reached++;
      merged = merged === undefined ? reply : mergeReplies(merged, reply);
      if (isRejection(reply)) break;
    }
    if (this.#tracksFinish) this.#reached.set(request.id, reached);
    return merged as ModelReply;
  }

  finish(request: ModelRequest, at: number): void {
    const reached = this.#reached.get(request.id) ?? 0;
    this.#reached.delete(request.id);
    for (const layer of this.#layers.slice(0, reached)) layer.finish?.(request, at);
  }

  capacity(at: number): number | undefined {
    let smallest: number | undefined;
    for (const layer of this.#layers) {
      const capacity = layer.capacity(at);
      if (capacity !== undefined && (smallest === undefined || capacity < smallest)) {
        smallest = capacity;
      }
    }
    return smallest;
  }
}

/** Merges the reply of a later layer into what the earlier layers decided. */
function mergeReplies(earlier: ModelReply, later: ModelReply): ModelReply {
  const rejected = isRejection(later);
  const bodySource = rejected || later.bodyBytes >= earlier.bodyBytes ? later : earlier;
  const headers = { ...earlier.headers, ...later.headers };
  const contentType = bodySource.headers['content-type'];
  if (contentType !== undefined) headers['content-type'] = contentType;
  const merged: ModelReply = {
    status: later.status,
    headers,
    ttfbMs: earlier.ttfbMs + later.ttfbMs,
    bodyBytes: bodySource.bodyBytes,
    bodyMs: rejected ? later.bodyMs : earlier.bodyMs + later.bodyMs,
  };
  if (bodySource.body !== undefined) merged.body = bodySource.body;
  return merged;
}
