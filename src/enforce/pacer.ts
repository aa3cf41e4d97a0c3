import { type CancelTimer, type Clock, systemClock } from '../clock.js';
import { given, number } from '../option-rules.js';
import { defineOptions, type OptionsOf } from '../option-spec.js';
import { type NumberRule, numberOption } from '../options.js';
import { type WaitOptions, WaitQueue } from './wait-queue.js';

const RESOLVED = Promise.resolve();
/** A token this close to whole counts as whole, so float rounding cannot stall a wake-up. */
const WHOLE = 1 - 1e-9;

/** A rate is any number above zero, `Infinity` for none. */
const RATE: NumberRule = { min: Number.MIN_VALUE, infinite: true };

const readPacerOptions = defineOptions('Pacer', {
  /**
   * Tokens (requests) per second; `Infinity` disables pacing.
   * @default Infinity
   */
  rate: number(Infinity, RATE),
  /**
   * Bucket size: how many requests may go back to back after an idle spell.
   * 1 spaces every request evenly.
   * @default 1
   */
  burst: number(1, { min: 1 }),
  /** Time source for refills and wake-ups. @default systemClock */
  clock: given(systemClock),
});

/** Options for {@link Pacer}. */
export interface PacerOptions extends OptionsOf<typeof readPacerOptions> {}

/**
 * A token-bucket pacer whose rate can change at run time. Callers that find
 * the bucket empty park in FIFO order and are released by a timer set for
 * the moment the next token is due — never by the next unrelated event.
 * A server-requested pause ({@link Pacer.pauseUntil}) holds every caller.
 */
export class Pacer {
  #rate: number;
  readonly #burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #stamp: number;
  #pausedUntil = 0;
  #queue: WaitQueue | undefined;
  #cancelTimer: CancelTimer | undefined;
  /** When the pending wake-up is due (monotonic ms). */
  #dueAt = 0;

  constructor(options: PacerOptions = {}) {
    const settings = readPacerOptions(options);
    this.#rate = settings.rate;
    this.#burst = settings.burst;
    this.#clock = settings.clock;
    this.#tokens = this.#burst;
    this.#stamp = this.#clock.now();
  }

  /** Current rate in requests per second (`Infinity` when unpaced). */
  get rate(): number {
    return this.#rate;
  }

  /** Monotonic ms before which no token is handed out; 0 once no pause is pending. */
  get pausedUntil(): number {
    return this.#pausedUntil;
  }

  /** Callers parked waiting for a token. */
  get queued(): number {
    return this.#queue?.size ?? 0;
  }

  /** Changes the rate; tokens already earned at the old rate are kept. */
  setRate(rate: number): void {
    numberOption('Pacer', 'rate', rate, Infinity, RATE);
    if (rate === this.#rate) return;
    this.#refill();
    this.#rate = rate;
    this.#reschedule();
  }

  /** Holds every caller until `time` (monotonic ms). An earlier time than the current pause is ignored. */
  pauseUntil(time: number): void {
    if (!(time > this.#pausedUntil)) return;
    this.#pausedUntil = time;
    this.#reschedule();
  }

  /** Cancels the pending wake-up and rejects every parked caller with `reason`. */
  close(reason: unknown): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#queue?.rejectAll(reason);
  }

  /** Takes a token if one is available now and nobody is waiting ahead. */
  tryTake(): boolean {
    if (this.queued > 0 || !this.#available()) return false;
    this.#tokens -= 1;
    return true;
  }

  /** Takes a token, waiting in FIFO order until one is due. */
  take(options?: WaitOptions): Promise<void> {
    if (this.tryTake()) return RESOLVED;
    this.#queue ??= new WaitQueue();
    const waiting = this.#queue.wait(this.#clock, options, 'Pacer.take');
    this.#schedule();
    return waiting;
  }

  /**
   * Whether a token can be handed out now. `late` is for the wake-up timer:
   * timers fire a little late, and a caller who waited through that lateness
   * keeps it as credit (up to one token), so timer jitter does not slow the
   * pace below its rate. A timer may also fire a little early (Node's
   * `setTimeout` does, by `performance.now()`, on a clock without
   * `systemClock`'s correction): then the token it was due for is handed out,
   * owed, rather than the wake-up re-armed for ever shorter waits that never
   * reach it.
   */
  #available(late = false): boolean {
    if (this.#rate === Infinity && this.#pausedUntil === 0) return true;
    if (this.#pausedUntil !== 0) {
      if (this.#clock.now() < this.#pausedUntil) return false;
      this.#pausedUntil = 0; // the pause is over: its silence earns no credit
      this.#refill(this.#burst);
      return this.#tokens >= WHOLE;
    }
    if (this.#rate === Infinity) return true;
    if (!late) this.#refill();
    else this.#refill(this.#burst + 1, Math.max(this.#clock.now(), this.#dueAt));
    return this.#tokens >= WHOLE;
  }

  /** Adds the tokens earned from the last refill to `now` (later than the clock for a timer that fired early). */
  #refill(cap = this.#burst, now = this.#clock.now()): void {
    if (this.#rate !== Infinity) {
      this.#tokens = Math.min(cap, this.#tokens + ((now - this.#stamp) * this.#rate) / 1000);
    } else {
      this.#tokens = this.#burst;
    }
    this.#stamp = now;
  }

  /** Ms from now until a token can be handed out. */
  #delay(): number {
    const now = this.#clock.now();
    const pause = Math.max(0, this.#pausedUntil - now);
    if (this.#rate === Infinity) return pause;
    this.#refill();
    const refill = this.#tokens >= WHOLE ? 0 : ((1 - this.#tokens) * 1000) / this.#rate;
    // Round up to whole microseconds: the timer must never fire before the token is due.
    return Math.ceil(Math.max(pause, refill) * 1000) / 1000;
  }

  #reschedule(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#schedule();
  }

  #schedule(): void {
    if (this.#cancelTimer !== undefined || this.queued === 0) return;
    const delay = this.#delay();
    this.#dueAt = this.#clock.now() + delay;
    this.#cancelTimer = this.#clock.setTimer(delay, () => this.#release());
  }

  /** Timer callback: hands out every token that is due, then re-arms for the next. */
  #release(): void {
    this.#cancelTimer = undefined;
    const queue = this.#queue;
    while (queue !== undefined && queue.size > 0 && this.#available(true)) {
      if (!queue.wakeOne()) break;
      this.#tokens -= 1;
    }
    this.#schedule();
  }
}
