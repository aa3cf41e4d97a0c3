import { InvalidOptionError } from './errors.js';
import type { EarlierSettings, OptionRule, OptionSpec } from './option-spec.js';
import { choiceOption, type NumberRule, numberOption } from './options.js';

// The kinds of rule a `defineOptions` declaration is made of (option-spec.ts): each reads one
// option, applies its default, and throws an InvalidOptionError naming the owner, the option,
// the value and what was expected.

/** A value, or a function of the settings read before it (a default or range that depends on an earlier option). */
type Dependent<T> = T | ((earlier: EarlierSettings) => T);

function resolve<T>(value: Dependent<T>, earlier: EarlierSettings): T {
  return typeof value === 'function' ? (value as (earlier: EarlierSettings) => T)(earlier) : value;
}

/**
 * A numeric option with its default and range; either may be a function of
 * the options declared before it (`initialLimit` at most `max`).
 */
export function number(
  fallback: Dependent<number>,
  rule?: Dependent<NumberRule>,
): OptionRule<number>;
/** A numeric option with no default: unset stays `undefined`. */
export function number(
  fallback: undefined,
  rule?: Dependent<NumberRule>,
): OptionRule<number | undefined>;
export function number(
  fallback: Dependent<number> | undefined,
  rule: Dependent<NumberRule> = {},
): OptionRule<number | undefined> {
  return {
    read(value, owner, name, earlier) {
      if (value === undefined && fallback === undefined) return undefined;
      const dflt = fallback === undefined ? 0 : resolve(fallback, earlier);
      return numberOption(owner, name, value, dflt, resolve(rule, earlier));
    },
  };
}

/** An option that must be one of a fixed set of strings. */
export function choice<const T extends string>(fallback: T, choices: readonly T[]): OptionRule<T>;
/** The same with no default: unset stays `undefined`. */
export function choice<const T extends string>(
  fallback: undefined,
  choices: readonly T[],
): OptionRule<T | undefined>;
export function choice<const T extends string>(
  fallback: T | undefined,
  choices: readonly T[],
): OptionRule<T | undefined> {
  return {
    read: (value, owner, name) =>
      value === undefined ? fallback : choiceOption(owner, name, value, choices[0] as T, choices),
  };
}

/** Whether `value` is a boolean. */
export function isBoolean(value: unknown): value is boolean {
  return typeof value === 'boolean';
}

/** A boolean option. */
export function flag(fallback: boolean): OptionRule<boolean> {
  return check('a boolean', isBoolean, fallback);
}

/**
 * An option taken as given, unchecked (a clock, an event sink the types already
 * describe), or `fallback` when unset.
 */
export function given<T>(fallback: T): OptionRule<T>;
/** An option taken as given; unset stays `undefined`. */
export function given<T>(): OptionRule<T | undefined>;
export function given<T>(fallback?: T): OptionRule<T | undefined> {
  return { read: (value) => (value === undefined ? fallback : (value as T)) };
}

/**
 * Rules that take each of `keys` as given, for options another reader checks
 * (a client passes its `ControlOptions` on to `controlSetup`).
 */
export function passedOn<O extends object>(keys: readonly (keyof O)[]): OptionSpec<O> {
  return Object.fromEntries(keys.map((key) => [key, given()])) as unknown as OptionSpec<O>;
}

/** An option that must be given. */
export function required<T>(expected: string, test: (value: unknown) => boolean): OptionRule<T> {
  return {
    read(value, owner, name) {
      if (value === undefined || !test(value)) {
        throw InvalidOptionError.invalid(owner, name, value, expected);
      }
      return value as T;
    },
  };
}

/** An option checked by `test`, described as `expected` when it fails; `fallback` when unset. */
export function check<T>(
  expected: string,
  test: (value: unknown) => value is T,
  fallback: T,
): OptionRule<T>;
/** The same with no default: unset stays `undefined`. */
export function check<T>(
  expected: string,
  test: (value: unknown) => value is T,
): OptionRule<T | undefined>;
export function check<T>(
  expected: string,
  test: (value: unknown) => value is T,
  fallback?: T,
): OptionRule<T | undefined> {
  return {
    read(value, owner, name) {
      if (value === undefined) return fallback;
      if (!test(value)) throw InvalidOptionError.invalid(owner, name, value, expected);
      return value;
    },
  };
}

/** A function option (a callback, a factory), `fallback` when unset; `expected` names it in errors. */
export function func<F>(fallback: F, expected?: string): OptionRule<F>;
/** A function option with no default: unset stays `undefined`. */
export function func<F>(fallback?: undefined, expected?: string): OptionRule<F | undefined>;
export function func<F>(fallback?: F, expected = 'a function'): OptionRule<F | undefined> {
  return check(expected, (value): value is F => typeof value === 'function', fallback);
}

/** A test that `value` is an object with these methods (`['now', 'setTimer']` for a clock). */
export function hasMethods<T>(...methods: string[]): (value: unknown) => value is T {
  return (value): value is T =>
    typeof value === 'object' &&
    value !== null &&
    methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
}

/**
 * An option read by hand, for checks the other rules do not cover: `read`
 * returns the setting or calls `fail(expected)`, which throws the usual error.
 */
export function custom<T>(
  read: (value: unknown, fail: (expected: string) => never, earlier: EarlierSettings) => T,
): OptionRule<T> {
  return {
    read(value, owner, name, earlier) {
      const fail = (expected: string): never => {
        throw InvalidOptionError.invalid(owner, name, value, expected);
      };
      return read(value, fail, earlier);
    },
  };
}
