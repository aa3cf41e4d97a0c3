import type { Clock } from '../clock.js';
import type { Exchange, ExchangeRequest, Transport } from './transport.js';

/** Status recorded for a request that got no response (timeout, reset). */
export const NO_RESPONSE = 0;

/**
 * Every exchange of a run, in compact columns (send time, completion time,
 * status), recorded by wrapping the transport so that every strategy is
 * measured the same way.
 */
export class ExchangeLog {
  /** Send times, ms since the run began. */
  readonly sentAt: number[] = [];
  /** Completion times, ms since the run began. */
  readonly doneAt: number[] = [];
  /** HTTP statuses; {@link NO_RESPONSE} when none arrived. */
  readonly status: number[] = [];
  /** Most exchanges in flight at once. */
  maxInflight = 0;
  #inflight = 0;

  /** Number of exchanges recorded. */
  get size(): number {
    return this.status.length;
  }

  /** Wraps `transport` so every exchange through it is recorded against `clock`, relative to `origin`. */
  wrap(transport: Transport, clock: Clock, origin: number): Transport {
    return {
      send: async (request: ExchangeRequest): Promise<Exchange> => {
        const sentAt = clock.now() - origin;
        this.maxInflight = Math.max(this.maxInflight, ++this.#inflight);
        try {
          const exchange = await transport.send(request);
          this.#record(sentAt, clock.now() - origin, exchange.status);
          return exchange;
        } catch (error) {
          this.#record(sentAt, clock.now() - origin, NO_RESPONSE);
          throw error;
        } finally {
          this.#inflight--;
        }
      },
    };
  }

  #record(sentAt: number, doneAt: number, status: number): void {
    this.sentAt.push(sentAt);
    this.doneAt.push(doneAt);
    this.status.push(status);
  }
}
