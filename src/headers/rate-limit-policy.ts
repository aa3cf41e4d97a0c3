import { parseSfList, type SfBareItem, type SfItem, sfName } from './structured-field.js';

/** A quota policy: `"burst";q=100;w=60` (current IETF draft) or `100;w=60` (earlier drafts). */
export interface QuotaPolicy {
  /** The policy's name (current draft); `undefined` for the bare-integer form. */
  name: string | undefined;
  /** Quota units allowed per window. */
  quota: number;
  /** The window (`w`, seconds) in ms, when stated and positive. */
  windowMs: number | undefined;
  /** False when `qu` names another unit (bytes, concurrent requests): not a request quota. */
  inRequests: boolean;
}

/** The policies of a `RateLimit-Policy` field; none when it is absent or malformed. */
export function fieldPolicies(field: string | undefined): QuotaPolicy[] {
  return itemPolicies(parseSfList(field ?? '') ?? []);
}

/** Items carrying a quota, as a bare integer or in a `q` parameter, with their window `w`. */
export function itemPolicies(items: readonly SfItem[]): QuotaPolicy[] {
  const policies: QuotaPolicy[] = [];
  for (const { value, params } of items) {
    const name = sfName(value);
    const quota = name === undefined ? value : params.get('q');
    if (!isCount(quota)) continue;
    const window = params.get('w');
    const unit = params.get('qu');
    policies.push({
      name,
      quota,
      windowMs: typeof window === 'number' && window > 0 ? window * 1000 : undefined,
      inRequests: unit === undefined || sfName(unit) === 'requests',
    });
  }
  return policies;
}

/** The lowest quota per second; policies without a window rank last; ties go to the smaller quota. */
export function mostRestrictive(policies: readonly QuotaPolicy[]): QuotaPolicy | undefined {
  const perMs = (policy: QuotaPolicy): number =>
    policy.windowMs === undefined ? Infinity : policy.quota / policy.windowMs;
  let best: QuotaPolicy | undefined;
  for (const policy of policies) {
    if (best === undefined) best = policy;
    else if (perMs(policy) !== perMs(best)) best = perMs(policy) < perMs(best) ? policy : best;
    else if (policy.quota < best.quota) best = policy;
  }
  return best;
}

/** A request count: a non-negative safe integer. */
export function isCount(value: SfBareItem | undefined): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
