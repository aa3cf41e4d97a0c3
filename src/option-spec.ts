import { InvalidOptionError } from './errors.js';
import { choiceOption, type NumberRule, numberOption } from './options.js';

/** The settings read so far, for a rule whose default or range depends on an earlier option. */
export type EarlierSettings = Readonly<Record<string, unknown>>;

/** How one option is read: checked, its default applied. */
export interface OptionRule<T> {
  /**
   * Returns the setting for `value` (`undefined` when unset) or throws an
   * {@link InvalidOptionError} naming `owner`, `name`, the value and what was expected.
   */
  read(value: unknown, owner: string, name: string, earlier: EarlierSettings): T;
}

/** A rule for every key of the options type `O`, no more, no fewer. */
export type OptionSpec<O> = { readonly [K in keyof O]-?: OptionRule<O[K]> };

/** The validated settings a spec produces: each option's rule's result. */
export type SettingsOf<S> = {
  -readonly [K in keyof S]: S[K] extends OptionRule<infer T> ? T : never;
};

/** Reads one options object: rejects unknown keys, checks each option and applies its default. */
export interface OptionsReader<O, S> {
  /** `as` names another owner in the errors, for options several entry points share. */
  (options: O | undefined, as?: string): S;
  /** Who the errors name, e.g. `createClient`. */
  readonly owner: string;
  /** The known option names, in declaration order. */
  readonly keys: readonly (keyof O & string)[];
}

/**
 * The options type a spec (or the reader {@link defineOptions} made of it)
 * describes: each key optional, of the type its rule yields when set. The
 * type is derived from the one declaration, so the TSDoc written on each rule
 * is what a user's editor shows on the option. The built declarations keep the
 * TSDoc of the rules written in the options' own module, not of rules spread
 * in from another (`...latencySpec(200)`): a public options type declares its
 * rules in its module.
 */
export type OptionsOf<S> = S extends OptionsReader<infer O, unknown> ? O : RuleOptions<S>;

/** The options rules describe: each key optional, of the type its rule yields when set. */
export type RuleOptions<S> = {
  -readonly [K in keyof S]?: S[K] extends OptionRule<infer T> ? Exclude<T, undefined> : never;
};

/**
 * Declares an options object once: its rules, each option's TSDoc written
 * on its rule. The result validates an options object against them, and its
 * options type is `OptionsOf<typeof reader>`, so the type, the known keys and
 * the checks cannot drift apart. Errors name the owner, the option, the value
 * and what was expected; a typo (`maxConcurency`) is an unknown option, not a
 * setting silently ignored. Validation runs where options are taken (a
 * constructor), never per request.
 *
 * ```ts
 * const readPacerOptions = defineOptions('Pacer', {
 *   rate: number(Infinity, { above: 0, infinite: true }),
 *   burst: number(1, { min: 1 }),
 *   clock: given(systemClock),
 * });
 * export interface PacerOptions extends OptionsOf<typeof readPacerOptions> {}
 * ```
 *
 * The form `defineOptions<O>()(owner, rules)` holds the rules to an options
 * type written by hand instead (for options a rule cannot describe, such as a
 * required key): a key missing from the rules, or one the type lacks, fails to
 * compile.
 */
export function defineOptions<S extends Record<string, OptionRule<unknown>>>(
  owner: string,
  spec: S,
): OptionsReader<RuleOptions<S>, SettingsOf<S>>;
export function defineOptions<O extends object>(): <S extends OptionSpec<O>>(
  owner: string,
  spec: S & Record<Exclude<keyof S, keyof O>, never>,
) => OptionsReader<O, SettingsOf<S>>;
export function defineOptions(owner?: string, spec?: Record<string, OptionRule<unknown>>) {
  if (owner !== undefined && spec !== undefined) return reader(owner, spec);
  return reader;
}

function reader(
  owner: string,
  spec: Record<string, OptionRule<unknown>>,
): OptionsReader<object, Record<string, unknown>> {
  const keys = Object.keys(spec);
  const rules = Object.entries(spec);
  const read = (options: object | undefined = {}, as = owner): Record<string, unknown> => {
    if (typeof options !== 'object' || options === null) {
      throw InvalidOptionError.invalid(as, 'options', options, 'an object');
    }
    for (const key of Object.keys(options)) {
      if (!keys.includes(key)) throw InvalidOptionError.unknown(as, key, keys);
    }
    const settings: Record<string, unknown> = {};
    for (const [key, rule] of rules) {
      settings[key] = rule.read((options as Record<string, unknown>)[key], as, key, settings);
    }
    return settings;
  };
  return Object.assign(read, { owner, keys: keys as never[] });
}

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

/**
 * The settings that are set, as options to pass on: unset (`undefined`) keys
 * left out, as `exactOptionalPropertyTypes` wants of an options object.
 */
export function definedOnly<T extends object>(
  settings: T,
): {
  [K in keyof T]?: Exclude<T[K], undefined>;
} {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(settings)) if (value !== undefined) out[key] = value;
  return out as { [K in keyof T]?: Exclude<T[K], undefined> };
}
