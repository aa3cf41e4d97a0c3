import type { CancelTimer, Clock } from '../clock.js';

/** One scheduled deadline; `cancel` takes it out (doing nothing once it fired). */
export interface Deadline {
  /** When it is due, monotonic ms. */
  readonly dueAt: number;
  cancel(): void;
}

interface Entry extends Deadline {
  fire: () => void;
  prev: Entry | undefined;
  next: Entry | undefined;
  live: boolean;
}

/**
 * Deadlines that share one clock timer. Every attempt has a timeout, and a
 * timer of its own cost more than the rest of the attempt's bookkeeping
 * (Node creates, links and reference-counts a `Timeout` for each, only to
 * clear it a millisecond later). Here an attempt's deadline is an entry in
 * a list sorted by due time — attempts start in order and share one timeout,
 * so an entry lands at the tail — and one timer waits for the earliest.
 * Leaving is O(1); the timer is re-armed only when an earlier deadline
 * arrives or the earliest one is due, and cancelled when the list empties,
 * so an idle client keeps no timer (and no process) alive.
 */
export class Deadlines {
  readonly #clock: Clock;
  #head: Entry | undefined;
  #tail: Entry | undefined;
  #cancelTimer: CancelTimer | undefined;
  /** When the armed timer fires (it may be earlier than the head: it then re-arms). */
  #timerDueAt = Infinity;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Calls `fire` (which must not throw) once `ms` have passed on the clock, unless cancelled first. */
  add(ms: number, fire: () => void): Deadline {
    const now = this.#clock.now();
    const entry: Entry = {
      dueAt: now + ms,
      fire,
      prev: undefined,
      next: undefined,
      live: true,
      cancel: () => this.#remove(entry),
    };
    this.#insert(entry);
    this.#armForHead(now);
    return entry;
  }

  /** Links `entry` after the last one due no later (usually the tail). */
  #insert(entry: Entry): void {
    let after = this.#tail;
    while (after !== undefined && after.dueAt > entry.dueAt) after = after.prev;
    entry.prev = after;
    entry.next = after === undefined ? this.#head : after.next;
    if (entry.next === undefined) this.#tail = entry;
    else entry.next.prev = entry;
    if (after === undefined) this.#head = entry;
    else after.next = entry;
  }

  #remove(entry: Entry): void {
    if (!entry.live) return;
    entry.live = false;
    if (entry.prev === undefined) this.#head = entry.next;
    else entry.prev.next = entry.next;
    if (entry.next === undefined) this.#tail = entry.prev;
    else entry.next.prev = entry.prev;
    entry.prev = undefined;
    entry.next = undefined;
    if (this.#head === undefined) this.#disarm();
  }

  /** Makes sure the timer fires no later than the earliest deadline (`now` is the clock's time). */
  #armForHead(now: number): void {
    const head = this.#head;
    if (head === undefined || head.dueAt >= this.#timerDueAt) return;
    this.#cancelTimer?.();
    this.#timerDueAt = head.dueAt;
    this.#cancelTimer = this.#clock.setTimer(head.dueAt - now, () => this.#due());
  }

  #disarm(): void {
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#timerDueAt = Infinity;
  }

  /**
   * The timer fired: takes out every deadline that is due, re-arms for the
   * next, then fires them (a `fire` that adds a deadline finds the list in order).
   */
  #due(): void {
    this.#cancelTimer = undefined;
    this.#timerDueAt = Infinity;
    const now = this.#clock.now();
    const due: Entry[] = [];
    for (let entry = this.#head; entry !== undefined && entry.dueAt <= now; entry = this.#head) {
      this.#remove(entry);
      due.push(entry);
    }
    this.#armForHead(now);
    for (const entry of due) entry.fire();
  }
}
