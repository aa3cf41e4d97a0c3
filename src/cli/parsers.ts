import { InvalidArgumentError, Option } from 'commander';
import { MIN_WINDOW_S } from '../analyze/analyzer-options.js';

/** Rules for a numeric command-line value. */
export interface NumberArg {
  /** Smallest value allowed (inclusive); ignored when `above` is set. @default 0 */
  min?: number;
  /** A bound the value must be strictly greater than (`above: 0` for "> 0"). */
  above?: number;
  /** Largest value allowed (inclusive). @default none */
  max?: number;
  /** Whether only whole numbers are allowed. @default false */
  integer?: boolean;
}

/**
 * A commander argument parser for a number; a bad value is a usage error
 * that names what was expected (`--rate: expected a number > 0`).
 */
export function numberArg({
  min = 0,
  above,
  max,
  integer = false,
}: NumberArg = {}): (text: string) => number {
  const bounds = [above === undefined ? `>= ${min}` : `> ${above}`];
  if (max !== undefined) bounds.push(`<= ${max}`);
  const expected = `expected ${integer ? 'an integer' : 'a number'} ${bounds.join(' and ')}.`;
  return (text) => {
    const value = Number(text);
    const ok =
      text.trim() !== '' &&
      Number.isFinite(value) &&
      (above === undefined ? value >= min : value > above) &&
      (max === undefined || value <= max) &&
      (!integer || Number.isInteger(value));
    if (!ok) throw new InvalidArgumentError(expected);
    return value;
  };
}

/** A commander argument parser for a number strictly greater than 0. */
export const positiveArg = numberArg({ above: 0 });

/** Rules for a bounded numeric command-line value. */
export interface RangeArg {
  /** Smallest value allowed (inclusive). */
  min: number;
  /** Largest value allowed (inclusive). @default Infinity */
  max?: number;
  /** Whether only whole numbers are allowed. @default false */
  integer?: boolean;
}

/**
 * A commander parser for a number within `[min, max]` — the bounds of the
 * library option it feeds, so an out-of-range value is a usage error (exit
 * 2, `expected an integer from 1 to 4096.`) instead of a failure at run time.
 */
export function rangeArg({
  min,
  max = Infinity,
  integer = false,
}: RangeArg): (text: string) => number {
  const parse = numberArg({ min, integer });
  const expected = `expected ${integer ? 'an integer' : 'a number'} ${max === Infinity ? `>= ${min}` : `from ${min} to ${max}`}.`;
  return (text) => {
    let value: number | undefined;
    try {
      value = parse(text);
    } catch {
      // reported below, with both bounds
    }
    if (value === undefined || value > max) throw new InvalidArgumentError(expected);
    return value;
  };
}

/** The `--window <s>` parser of `analyze` and `report`: at least the analyser's shortest window. */
export const windowArg = rangeArg({ min: MIN_WINDOW_S });

/**
 * A commander argument parser for a share of at most `max`: a fraction
 * (`0.005`) or a percentage (`0.5%`); a bad value is a usage error that says
 * both forms.
 */
export function shareArg(max: number): (text: string) => number {
  const expected = `expected a share from 0 to ${max} (e.g. 0.005) or a percentage from 0% to ${max * 100}% (e.g. 0.5%).`;
  return (text) => {
    const percent = text.trim().endsWith('%');
    const number = Number(percent ? text.trim().slice(0, -1) : text);
    const value = percent ? number / 100 : number;
    if (text.trim() === '' || !Number.isFinite(value) || value < 0 || value > max) {
      throw new InvalidArgumentError(expected);
    }
    return value;
  };
}

/** A commander collector for a repeatable option (`--param a=1 --param b=2`). */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/**
 * A flag's former name, still accepted for scripts that use it and hidden
 * from `--help`: `formerFlag('--out <dir>', '--dir')`.
 */
export function formerFlag(
  flags: string,
  current: string,
  parse?: (value: string) => unknown,
): Option {
  const option = new Option(flags, `the former name of ${current}`).hideHelp();
  return parse ? option.argParser(parse) : option;
}
