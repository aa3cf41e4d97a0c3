import type { ScopeRegistry } from '../controller/registry.js';
import type { RetryBudget } from '../controller/retry-budget.js';

/**
 * The retry budgets of every scope a request spans (its account and its
 * host, say): each first attempt earns in all of them, and a retry is charged
 * to all of them, so no scope's allowance is spent by another's traffic.
 */
export function retryBudgets(
  registry: ScopeRegistry,
  scopes: string | readonly string[],
): RetryBudget[] {
  const names = typeof scopes === 'string' ? [scopes] : scopes;
  const budgets: RetryBudget[] = [];
  for (const name of names) {
    const budget = registry.get(name)?.retryBudget;
    if (budget) budgets.push(budget);
  }
  return budgets;
}
