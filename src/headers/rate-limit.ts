import { defineOptions } from '../option-spec.js';
import { type HeadersInput, headerIndex, headerValue } from './header-value.js';
import { DATE_OPTION, NOW_OPTION, parseHttpDate } from './http-date.js';
import type { RateLimitQuota, RateLimitSource } from './quota.js';
import { fieldPolicies, isCount, itemPolicies, mostRestrictive } from './rate-limit-policy.js';
import { parseSfDictionary, parseSfList, type SfBareItem, sfName } from './structured-field.js';

/** Reset values below this are delta seconds (up to ~31.7 years). */
const EPOCH_SECONDS_FROM = 1e9;
/** Reset values from this up are epoch milliseconds; between the two, epoch seconds. */
const EPOCH_MS_FROM = 1e12;

const COUNT = /^[ \t]*(\d+)[ \t]*$/;
const SECONDS = /^[ \t]*(\d+(?:\.\d+)?)[ \t]*$/;

/** Options of {@link parseRateLimit}. */
export interface RateLimitOptions {
  /**
   * The current wall-clock time in epoch ms, needed only to turn an epoch
   * reset into a relative one when the response has no parseable `Date`.
   * No default: parsers never read the clock, so without `now` or `Date`
   * epoch resets are left out.
   */
  now?: number;
  /**
   * The response's `Date` header. Preferred over `now` as the reference for
   * epoch resets, so a skewed local clock does not matter.
   * @default the `Date` header found in `headers`
   */
  date?: string | null | undefined;
}

const readOptions = defineOptions<RateLimitOptions>()('parseRateLimit', {
  now: NOW_OPTION,
  date: DATE_OPTION,
});

/**
 * Longest reset reported, ms (24 h, as for Retry-After): a quota that resets
 * in a month, or a hostile reset decades away, would otherwise pause a scope
 * for that long.
 */
const MAX_RESET_MS = 86_400_000;

/** One field-per-header family: the header prefix and the source it reports. */
interface FieldFamily {
  source: RateLimitSource;
  prefix: string;
}

/** The field-per-header families, in the order they are tried after the IETF `RateLimit` fields. */
const FIELD_FAMILIES: readonly FieldFamily[] = [
  { source: 'ietf-draft', prefix: 'ratelimit-' },
  { source: 'x-ratelimit', prefix: 'x-ratelimit-' },
  { source: 'x-rate-limit', prefix: 'x-rate-limit-' },
];

/** What a family yields before empty fields are dropped. */
type QuotaFields = { [K in keyof Omit<RateLimitQuota, 'source'>]?: RateLimitQuota[K] | undefined };

/** Reads one header; the reference instant for epoch resets travels along (worked out when first needed). */
interface Context {
  read(name: string): string | undefined;
  referenceMs(): number | undefined;
}

/**
 * Reads a server's published rate-limit state from response headers.
 *
 * Header families are tried in this order; the first that yields any number wins:
 * 1. `ietf` — the IETF `RateLimit` field, in the current draft's list form
 *    (`"default";r=50;t=30`) or the intermediate dictionary form
 *    (`limit=100, remaining=50, reset=30`), with `RateLimit-Policy`
 *    (`"default";q=100;w=60`). When several quotas are listed, the one with
 *    the fewest remaining requests is reported, with the policy it names;
 *    with no `RateLimit` field, the policy with the lowest quota per second.
 *    Policies in units other than requests (`qu`) are ignored.
 * 2. `ietf-draft` — `RateLimit-Limit`, `-Remaining`, `-Reset` and
 *    `RateLimit-Policy: 100;w=60` of the older drafts.
 * 3. `x-ratelimit` — `X-RateLimit-Limit`, `-Remaining`, `-Reset`, `-Used`,
 *    `-Resource` (GitHub and most APIs).
 * 4. `x-rate-limit` — the same fields spelled `X-Rate-Limit-*`.
 *
 * Limit fields may carry policies (`100, 100;w=60`): the first number is the
 * limit, and the `w` of a policy with that quota gives `windowMs`.
 * Resets are told apart by magnitude: below 1e9 they are delta seconds,
 * below 1e12 epoch seconds, above that epoch milliseconds; epoch resets are
 * measured from the response's `Date` (else `now`) and never go below 0.
 * Malformed fields are ignored one by one; returns `undefined` when nothing
 * usable is present. Never throws on header values; invalid options throw.
 */
export function parseRateLimit(
  headers: HeadersInput | null | undefined,
  options: RateLimitOptions = {},
): RateLimitQuota | undefined {
  const { now, date } = readOptions(options);
  return rateLimitQuota(headers, now, date);
}

/**
 * {@link parseRateLimit} with its options already checked, for callers that
 * read every response.
 */
export function rateLimitQuota(
  headers: HeadersInput | null | undefined,
  now: number | undefined,
  date?: string | null,
): RateLimitQuota | undefined {
  if (!mentionsRateLimit(headers)) return undefined; // most responses: one pass over the names
  const read = (name: string): string | undefined => headerValue(headers, name);
  let known: { value: number | undefined } | undefined;
  const context: Context = {
    read,
    // The reference instant for epoch resets: the `Date` header, else `now` (parsed only when needed).
    referenceMs: () => {
      known ??= { value: parseHttpDate(date ?? read('date'), now) ?? finite(now) };
      return known.value;
    },
  };
  const found = ietfQuota(context);
  if (found !== undefined) return found;
  for (const family of FIELD_FAMILIES) {
    const quota = fieldFamilyQuota(context, family);
    if (quota !== undefined) return quota;
  }
  return undefined;
}

/** Whether any header name belongs to a rate-limit family (`ratelimit`, `rate-limit`). */
function mentionsRateLimit(headers: HeadersInput | null | undefined): boolean {
  if (headers === null || typeof headers !== 'object') return false;
  const index = headerIndex(headers);
  if (typeof index.keys !== 'function') return true; // a get/has view: look the names up
  for (const name of index.keys()) {
    if (name.includes('ratelimit') || name.includes('rate-limit')) return true;
  }
  return false;
}

function ietfQuota(context: Context): RateLimitQuota | undefined {
  const listed = fieldPolicies(context.read('ratelimit-policy'));
  const policies = listed.filter((policy) => policy.inRequests);
  const otherUnits = new Set(listed.filter((policy) => !policy.inRequests).map((p) => p.name));
  const field = context.read('ratelimit');
  const current = field === undefined ? undefined : ietfCurrent(field, context, otherUnits);
  if (current === undefined) {
    const named = mostRestrictive(policies.filter((policy) => policy.name !== undefined));
    return (
      named && build('ietf', { limit: named.quota, windowMs: named.windowMs, name: named.name })
    );
  }
  const policy =
    current.name !== undefined
      ? policies.find((candidate) => candidate.name === current.name)
      : (policies.find((candidate) => candidate.quota === current.limit) ??
        mostRestrictive(policies));
  return build('ietf', {
    ...current,
    limit: current.limit ?? policy?.quota,
    windowMs: policy?.windowMs,
  });
}

/** The `RateLimit` field: list form (the tightest listed quota), else dictionary form. */
function ietfCurrent(
  field: string,
  context: Context,
  otherUnits: ReadonlySet<string | undefined>,
): QuotaFields | undefined {
  let tightest: QuotaFields | undefined;
  for (const item of parseSfList(field) ?? []) {
    const name = sfName(item.value);
    const remaining = item.params.get('r');
    if (name === undefined || !isCount(remaining) || otherUnits.has(name)) continue;
    const resetMs = toResetMs(item.params.get('t'), context.referenceMs);
    if (tightest === undefined || remaining < (tightest.remaining ?? Infinity)) {
      tightest = { name, remaining, resetMs };
    }
  }
  if (tightest !== undefined) return tightest;
  const members = parseSfDictionary(field);
  if (members === undefined) return undefined;
  const limit = members.get('limit')?.value;
  const remaining = members.get('remaining')?.value;
  return {
    limit: isCount(limit) ? limit : undefined,
    remaining: isCount(remaining) ? remaining : undefined,
    resetMs: toResetMs(members.get('reset')?.value, context.referenceMs),
  };
}

function fieldFamilyQuota(
  context: Context,
  { source, prefix }: FieldFamily,
): RateLimitQuota | undefined {
  const limitItems = parseSfList(context.read(`${prefix}limit`) ?? '') ?? [];
  const first = limitItems[0]?.value;
  const limit = isCount(first) ? first : undefined;
  const policies = [...itemPolicies(limitItems), ...fieldPolicies(context.read(`${prefix}policy`))];
  const reset = SECONDS.exec(context.read(`${prefix}reset`) ?? '')?.[1];
  return build(source, {
    limit,
    remaining: countField(context.read(`${prefix}remaining`)),
    resetMs: toResetMs(reset === undefined ? undefined : Number(reset), context.referenceMs),
    windowMs: policies.find((p) => p.inRequests && p.quota === limit && p.windowMs)?.windowMs,
    used: countField(context.read(`${prefix}used`)),
    name: context.read(`${prefix}resource`)?.trim() || undefined,
  });
}

/** Converts a reset (delta s, epoch s or epoch ms by magnitude) to ms from the response. */
function toResetMs(
  value: SfBareItem | undefined,
  reference: () => number | undefined,
): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return undefined;
  if (value < EPOCH_SECONDS_FROM) return Math.min(value * 1000, MAX_RESET_MS);
  const referenceMs = reference();
  if (referenceMs === undefined) return undefined;
  const at = value < EPOCH_MS_FROM ? value * 1000 : value;
  return Math.min(Math.max(0, at - referenceMs), MAX_RESET_MS);
}

function countField(text: string | undefined): number | undefined {
  const digits = COUNT.exec(text ?? '')?.[1];
  const count = Number(digits);
  return digits !== undefined && Number.isSafeInteger(count) ? count : undefined;
}

/** Drops empty fields; `undefined` unless at least one number is present. */
function build(source: RateLimitSource, fields: QuotaFields): RateLimitQuota | undefined {
  const quota: RateLimitQuota = { source };
  let usable = false;
  for (const key of ['limit', 'remaining', 'resetMs', 'windowMs', 'used'] as const) {
    const value = fields[key];
    if (value === undefined) continue;
    quota[key] = value;
    usable = true;
  }
  if (usable && fields.name !== undefined) quota.name = fields.name;
  return usable ? quota : undefined;
}

/** `value` when it is a finite number (a broken clock's NaN is no reference), else undefined. */
function finite(value: number | undefined): number | undefined {
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}
