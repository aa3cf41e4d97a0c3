import { InvalidOptionError } from './errors.js';

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
 * Declares an options object once: its rules (of the kinds in
 * `option-rules.ts`), each option's TSDoc written on its rule. The result validates an options object against them, and its
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
