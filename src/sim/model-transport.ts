import type { Clock } from '../clock.js';
import { number } from '../option-rules.js';
import { defineOptions, type OptionsOf } from '../option-spec.js';
import type { ServerModel } from './models/model.js';
import { httpDate } from './models/retry-after.js';
import { type Exchange, type ExchangeRequest, type Transport, timeoutError } from './transport.js';

const readOptions = defineOptions('ModelTransport', {
  /**
   * The client gives up on a request after this long, ms (the server still
   * counts it, as a real server would).
   * @default 30000
   */
  timeoutMs: number(30_000, { min: 1, infinite: true }),
});

/** Options for {@link ModelTransport}. */
export interface ModelTransportOptions extends OptionsOf<typeof readOptions> {}

/**
 * A server model served in virtual time: each request arrives at the model at
 * the clock's current time and completes after the reply's time to first byte
 * plus body time — one timer per request, so an hour of traffic runs in seconds.
 */
export class ModelTransport implements Transport {
  readonly #model: ServerModel;
  readonly #clock: Clock;
  readonly #origin: number;
  readonly #timeoutMs: number;
  #ids = 0;

  constructor(model: ServerModel, clock: Clock, options: ModelTransportOptions = {}) {
    this.#model = model;
    this.#clock = clock;
    this.#origin = clock.now();
    this.#timeoutMs = readOptions(options).timeoutMs;
  }

  async send({ path, client = 'client' }: ExchangeRequest): Promise<Exchange> {
    const wallAt = this.#clock.wallNow();
    const request = { id: ++this.#ids, at: this.#clock.now() - this.#origin, wallAt, client, path };
    const reply = this.#model.arrive(request);
    const totalMs = reply.ttfbMs + reply.bodyMs;
    await this.#clock.sleep(Math.min(totalMs, this.#timeoutMs));
    this.#model.finish?.(request, this.#clock.now() - this.#origin);
    if (totalMs > this.#timeoutMs) throw timeoutError(this.#timeoutMs);
    const exchange: Exchange = {
      status: reply.status,
      // A model with a clock of its own (a skewed server) states its own Date.
      headers: { date: httpDate(wallAt + reply.ttfbMs), ...reply.headers },
      timings: {
        dnsMs: 0,
        connectMs: 0,
        tlsMs: 0,
        ttfbMs: reply.ttfbMs,
        totalMs,
        bytes: reply.bodyBytes,
      },
    };
    if (reply.body !== undefined) exchange.body = reply.body;
    return exchange;
  }
}
