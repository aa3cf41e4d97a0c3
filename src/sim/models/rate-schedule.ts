import { InvalidOptionError } from '../../errors.js';

/** From `fromMs` (model time) on, the rate is `rate` requests/s. */
export interface RateStep {
  /** Model time at which this rate takes effect, ms. */
  readonly fromMs: number;
  /** Requests per second from then on (> 0). */
  readonly rate: number;
}

/** A rate option: a constant in requests/s, or steps whose first starts at 0. */
export type RateInput = number | readonly RateStep[];

const EXPECTED =
  'a rate > 0 in requests/s, or steps [{ fromMs, rate }, …] starting at fromMs 0, in increasing fromMs order';

/** A piecewise-constant rate over model time (e.g. 30 → 10 → 40 req/s). */
export class RateSchedule {
  readonly #steps: readonly RateStep[];

  private constructor(steps: readonly RateStep[]) {
    this.#steps = steps;
  }

  /** Validates a {@link RateInput} option; the error names the owner, option and value. */
  static from(owner: string, option: string, value: unknown, fallback: number): RateSchedule {
    if (value === undefined) return new RateSchedule([{ fromMs: 0, rate: fallback }]);
    if (isRate(value)) return new RateSchedule([{ fromMs: 0, rate: value }]);
    if (Array.isArray(value) && isStepList(value)) {
      return new RateSchedule(value.map(({ fromMs, rate }) => ({ fromMs, rate })));
    }
    throw InvalidOptionError.invalid(owner, option, value, EXPECTED);
  }

  /** The lowest rate on the schedule, requests/s. */
  get lowest(): number {
    return Math.min(...this.#steps.map((step) => step.rate));
  }

  /**
   * Checks that every step admits at least one request per `windowMs` window
   * (a rate below that would refuse everything), naming the owner's options.
   */
  requireOnePerWindow(owner: string, windowMs: number): void {
    if ((this.lowest * windowMs) / 1000 >= 1) return;
    throw InvalidOptionError.invalid(
      owner,
      'rate',
      this.lowest,
      `at least one request per window (rate × windowMs / 1000 >= 1; with windowMs ${windowMs}, >= ${1000 / windowMs}/s — or use a longer windowMs)`,
    );
  }

  /** The rate in force at model time `at` (the first step's rate before 0). */
  at(at: number): number {
    let rate = (this.#steps[0] as RateStep).rate;
    for (const step of this.#steps) {
      if (step.fromMs > at) break;
      rate = step.rate;
    }
    return rate;
  }

  /** Requests the rate allows over `[from, to]` — the rate integrated over time. */
  requestsBetween(from: number, to: number): number {
    if (to <= from) return 0;
    let total = 0;
    for (let i = 0; i < this.#steps.length; i++) {
      const step = this.#steps[i] as RateStep;
      const start = i === 0 ? -Infinity : step.fromMs;
      const end = this.#steps[i + 1]?.fromMs ?? Infinity;
      const overlap = Math.min(to, end) - Math.max(from, start);
      if (overlap > 0) total += (overlap * step.rate) / 1000;
    }
    return total;
  }
}

/** Checked settings `S` with the `rate` a {@link RateSchedule}. */
export type Scheduled<S> = Omit<S, 'rate'> & { rate: RateSchedule };

/**
 * Checked settings with their `rate` option read as a {@link RateSchedule}
 * (`fallback` requests/s when unset); a bad rate's error names `owner`.
 */
export function withRateSchedule<S extends { rate: unknown }>(
  owner: string,
  settings: S,
  fallback = 30,
): Scheduled<S> {
  return { ...settings, rate: RateSchedule.from(owner, 'rate', settings.rate, fallback) };
}

/**
 * Parses the CLI form of a rate: `30` or `30,10@10000,40@20000` (rate, then
 * `rate@fromMs` steps). Returns the text unchanged when it is not of that form,
 * so the model's validation reports it.
 */
export function parseRateInput(text: string): RateInput | string {
  const parts = text.split(',').map((part) => part.trim());
  const steps: RateStep[] = [];
  for (const [i, part] of parts.entries()) {
    const [rate, from] = part.split('@');
    const fromMs = from === undefined ? (i === 0 ? 0 : Number.NaN) : strictNumber(from);
    steps.push({ fromMs, rate: strictNumber(rate ?? '') });
  }
  if (steps.some((step) => Number.isNaN(step.fromMs) || Number.isNaN(step.rate))) return text;
  return steps.length === 1 && steps[0]?.fromMs === 0 ? (steps[0]?.rate as number) : steps;
}

function strictNumber(text: string): number {
  return /^\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : Number.NaN;
}

function isRate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}

function isStepList(list: readonly unknown[]): list is readonly RateStep[] {
  let previous = -Infinity;
  for (const [i, item] of list.entries()) {
    if (typeof item !== 'object' || item === null) return false;
    const { fromMs, rate } = item as Partial<RateStep>;
    if (!isRate(rate) || typeof fromMs !== 'number' || !Number.isFinite(fromMs)) return false;
    if ((i === 0 && fromMs !== 0) || fromMs <= previous) return false;
    previous = fromMs;
  }
  return list.length > 0;
}
