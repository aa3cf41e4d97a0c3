import { number } from '../option-rules.js';
import { defineOptions, type OptionsOf } from '../option-spec.js';
import type { ControlEvent, ControlEventType, EventSink } from './event.js';

const readOptions = defineOptions('EventRecorder', {
  /**
   * Most events kept. When full, each new event replaces the oldest one (a ring),
   * so a long run's memory stays bounded; {@link EventRecorder.dropped} counts
   * the replaced events. An integer ≥ 1, or `Infinity` to keep everything.
   * @default Infinity
   */
  capacity: number(Infinity, { min: 1, integer: true, infinite: true }),
});

/** Options of {@link EventRecorder}. */
export interface EventRecorderOptions extends OptionsOf<typeof readOptions> {}

/**
 * An in-memory event sink for tests and run summaries.
 *
 * ```ts
 * const recorder = new EventRecorder({ capacity: 10_000 });
 * const client = createClient({ events: recorder.sink });
 * recorder.filter('limit'); // the limit changes, oldest first
 * ```
 */
export class EventRecorder {
  /** The sink to hand to whatever emits events; records each event it receives. */
  readonly sink: EventSink = (event) => this.record(event);
  /** The configured capacity (`Infinity` when unbounded). */
  readonly capacity: number;
  readonly #ring: ControlEvent[] = [];
  /** Index of the oldest event once the ring is full. */
  #start = 0;
  #dropped = 0;

  constructor(options: EventRecorderOptions = {}) {
    this.capacity = readOptions(options).capacity;
  }

  /** Records one event, replacing the oldest when the recorder is full. */
  record(event: ControlEvent): void {
    if (this.#ring.length < this.capacity) {
      this.#ring.push(event);
      return;
    }
    this.#ring[this.#start] = event;
    this.#start = (this.#start + 1) % this.#ring.length;
    this.#dropped += 1;
  }

  /** A snapshot of the kept events, oldest first (a copy: O(n) per call). */
  get events(): ControlEvent[] {
    if (this.#start === 0) return this.#ring.slice();
    return this.#ring.slice(this.#start).concat(this.#ring.slice(0, this.#start));
  }

  /** The kept events of one type, oldest first. */
  filter(type: ControlEventType): ControlEvent[] {
    return this.events.filter((event) => event.type === type);
  }

  /** Number of events kept right now. */
  get size(): number {
    return this.#ring.length;
  }

  /** Number of events replaced because the recorder was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /** Forgets every kept event and resets {@link EventRecorder.dropped}. */
  clear(): void {
    this.#ring.length = 0;
    this.#start = 0;
    this.#dropped = 0;
  }
}
