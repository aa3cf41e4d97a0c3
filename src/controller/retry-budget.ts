import { number } from '../option-rules.js';
import { defineOptions } from '../option-spec.js';
import { sharedSettings } from '../options.js';

/** Options for {@link RetryBudget}. */
export interface RetryBudgetOptions {
  /**
   * Retries earned per first attempt: 0.2 lets retries add at most 20 % to the
   * traffic of a scope, however many requests fail.
   * @default 0.2
   */
  ratio?: number;
  /**
   * Retries available before any are earned (and the floor a quiet scope keeps),
   * so a scope with little traffic can still retry.
   * @default 10
   */
  reserve?: number;
  /**
   * Most retries that can be saved up.
   * @default 100
   */
  max?: number;
}

const readOptions = defineOptions<RetryBudgetOptions>()('RetryBudget', {
  ratio: number(0.2, { min: 0 }),
  reserve: number(10, { min: 0 }),
  max: number(100, (earlier) => ({ min: earlier.reserve as number })),
});

/** Validated once per options object: every scope's budget built from it shares one record. */
const budgetSettings = sharedSettings((options: RetryBudgetOptions) =>
  Object.freeze(readOptions(options)),
);
/** The default options: one object, so every default budget shares one settings record. */
const NO_OPTIONS: RetryBudgetOptions = Object.freeze({});

/**
 * A scope's allowance of retries. Every first attempt deposits `ratio` of a
 * retry, every retry withdraws one; when the allowance is spent, failures are
 * returned to the caller instead of retried, so retries cannot amplify an
 * outage. Time-free: it counts requests, not seconds.
 */
export class RetryBudget {
  readonly #s: Readonly<Required<RetryBudgetOptions>>;
  #balance: number;

  constructor(options: RetryBudgetOptions = NO_OPTIONS) {
    this.#s = budgetSettings(options);
    this.#balance = this.#s.reserve;
  }

  /** Retries that can be spent now. */
  get balance(): number {
    return this.#balance;
  }

  /** Records a first attempt: earns `ratio` of a retry. */
  deposit(): void {
    this.#balance = Math.min(this.#s.max, this.#balance + this.#s.ratio);
  }

  /** Spends one retry if the allowance has one. */
  withdraw(): boolean {
    if (this.#balance < 1) return false;
    this.#balance -= 1;
    return true;
  }
}

/**
 * Spends one retry from each budget — a retry goes through every scope the
 * request spans, so each pays — or none at all when any of them has no retry
 * left.
 */
export function withdrawFromAll(budgets: readonly RetryBudget[]): boolean {
  if (budgets.some((budget) => budget.balance < 1)) return false;
  for (const budget of budgets) budget.withdraw();
  return true;
}
