import { InvalidOptionError } from './errors.js';

/** Constraints for a numeric option. */
export interface NumberRule {
  /** Smallest allowed value (inclusive). */
  min?: number;
  /** A bound the value must be strictly greater than (`above: 0` for "a number > 0"). */
  above?: number;
  /** Largest allowed value (inclusive). */
  max?: number;
  /** Whether the value must be an integer. */
  integer?: boolean;
  /** Whether `Infinity` is allowed (for "no limit"). */
  infinite?: boolean;
}

/**
 * Reads a numeric option, applying its default and checking its range.
 * Throws {@link InvalidOptionError} naming the owner, option, value and rule.
 */
export function numberOption(
  owner: string,
  name: string,
  value: unknown,
  fallback: number,
  rule: NumberRule = {},
): number {
  if (value === undefined) return fallback;
  const ok =
    typeof value === 'number' &&
    !Number.isNaN(value) &&
    (Number.isFinite(value) || (rule.infinite === true && value === Infinity)) &&
    (!rule.integer || !Number.isFinite(value) || Number.isInteger(value)) &&
    (rule.min === undefined || value >= rule.min) &&
    (rule.above === undefined || value > rule.above) &&
    (rule.max === undefined || value <= rule.max);
  if (!ok) throw InvalidOptionError.invalid(owner, name, value, describeRule(rule));
  return value as number;
}

/**
 * The object `name` nested in saved state (`saved`), or undefined when none
 * was saved. Throws {@link InvalidOptionError} when it is not an object.
 */
export function savedRecord(
  owner: string,
  name: string,
  saved: unknown,
): Readonly<Record<string, unknown>> | undefined {
  if (saved === undefined) return undefined;
  if (typeof saved !== 'object' || saved === null) {
    throw InvalidOptionError.invalid(owner, name, saved, 'an object');
  }
  return saved as Record<string, unknown>;
}

/**
 * The finite fields of `state`, for saving: JSON cannot carry `Infinity`, so
 * a field that is not finite is left out and reads back as its fallback (see
 * {@link savedNumbers}).
 */
export function finiteFields<K extends string>(
  state: Readonly<Record<K, number>>,
): Partial<Record<K, number>> {
  return Object.fromEntries(
    Object.entries<number>(state).filter(([, v]) => Number.isFinite(v)),
  ) as Partial<Record<K, number>>;
}

/**
 * Reads the numeric fields of saved state: each field `rules` names (in its
 * order), checked against its rule; a field not saved takes its `fallback`
 * (one for all fields, or one each). Throws {@link InvalidOptionError} naming
 * `owner` and the first malformed field.
 */
export function savedNumbers<K extends string>(
  owner: string,
  saved: Readonly<Record<string, unknown>>,
  rules: Readonly<Record<K, NumberRule>>,
  fallback: number | Readonly<Record<K, number>>,
): Record<K, number> {
  const read = {} as Record<K, number>;
  for (const name of Object.keys(rules) as K[]) {
    const dflt = typeof fallback === 'number' ? fallback : fallback[name];
    read[name] = numberOption(owner, name, saved[name], dflt, rules[name]);
  }
  return read;
}

function describeRule(rule: NumberRule): string {
  const kind = rule.integer ? 'an integer' : 'a number';
  const range: string[] = [];
  if (rule.min !== undefined) range.push(`>= ${rule.min}`);
  if (rule.above !== undefined) range.push(`> ${rule.above}`);
  if (rule.max !== undefined) range.push(`<= ${rule.max}`);
  const bounds = range.length > 0 ? ` ${range.join(' and ')}` : '';
  return `${kind}${bounds}${rule.infinite ? ' (or Infinity)' : ''}`;
}

/** Reads an option that must be one of a fixed set of strings. */
export function choiceOption<T extends string>(
  owner: string,
  name: string,
  value: unknown,
  fallback: T,
  choices: readonly T[],
): T {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (choices as readonly string[]).includes(value))
    return value as T;
  throw InvalidOptionError.invalid(
    owner,
    name,
    value,
    `one of ${choices.map((c) => `"${c}"`).join(', ')}`,
  );
}

/**
 * Rejects option keys the owner does not know, so a typo such as `maxConcurency`
 * is an error instead of a silently ignored setting.
 */
export function rejectUnknownOptions(
  owner: string,
  options: object,
  known: readonly string[],
): void {
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) {
      throw InvalidOptionError.unknown(owner, key, known);
    }
  }
}

/**
 * Wraps an options validator so that each options object is validated once
 * and its settings shared: a registry creating 100,000 scopes from one options
 * object then holds one settings object, not 100,000 copies.
 */
export function sharedSettings<O extends object, S>(resolve: (options: O) => S): (options: O) => S {
  const cache = new WeakMap<O, S>();
  return (options) => {
    let settings = cache.get(options);
    if (settings === undefined) {
      settings = resolve(options);
      cache.set(options, settings);
    }
    return settings;
  };
}
