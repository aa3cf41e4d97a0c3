import type { ModelReply, ModelRequest, ServerModel } from '../models/model.js';
import type { NoiseModel } from '../models/noise.js';

/** What the server did with one arrival. */
export const Outcome = {
  /** Served (2xx). */
  ok: 0,
  /** Refused by the limit (429, or 503 in that role). */
  refused: 1,
  /** An unrelated server error. */
  noise: 2,
  /** Anything else (another 4xx or 5xx). */
  other: 3,
} as const;

/** One of {@link Outcome}'s values. */
export type OutcomeCode = (typeof Outcome)[keyof typeof Outcome];

/** Every arrival the server answered, in columns (model time, ms). */
export interface ServerRecord {
  /** Arrival times. */
  readonly at: number[];
  /** When the reply was complete (arrival + time to first byte + body). */
  readonly doneAt: number[];
  /** What the server did. */
  readonly outcome: OutcomeCode[];
}

/**
 * A family server's model with a server-side record of every arrival: what a
 * server's own access log would show, the same in the simulator and behind the
 * loopback mock server, so figures are counted identically in both. Its time
 * starts at the first arrival, so a server started ahead of its client (on
 * loopback) steps its capacity at the same moments of the run as in the
 * simulator.
 */
export class FamilyModel implements ServerModel {
  readonly name: string;
  readonly record: ServerRecord = { at: [], doneAt: [], outcome: [] };
  readonly #inner: ServerModel;
  readonly #noise: NoiseModel | undefined;
  #origin: number | undefined;

  constructor(inner: ServerModel, noise: NoiseModel | undefined) {
    this.#inner = inner;
    this.#noise = noise;
    this.name = inner.name;
  }

  arrive(request: ModelRequest): ModelReply {
    this.#origin ??= request.at;
    const at = request.at - this.#origin;
    const reply = this.#inner.arrive({ ...request, at });
    this.record.at.push(at);
    this.record.doneAt.push(at + reply.ttfbMs + reply.bodyMs);
    this.record.outcome.push(this.#outcomeOf(reply));
    return reply;
  }

  finish(request: ModelRequest, at: number): void {
    const origin = this.#origin ?? 0;
    this.#inner.finish?.({ ...request, at: request.at - origin }, at - origin);
  }

  capacity(at: number): number | undefined {
    return this.#inner.capacity(at - (this.#origin ?? 0));
  }

  #outcomeOf(reply: ModelReply): OutcomeCode {
    if (reply.status >= 200 && reply.status < 300) return Outcome.ok;
    if (this.#noise?.isNoise(reply)) return Outcome.noise;
    if (reply.status === 429 || reply.status === 503) return Outcome.refused;
    return Outcome.other;
  }
}
