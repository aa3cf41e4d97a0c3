import { InvalidArgumentError } from 'commander';

/** Rules for a numeric command-line value. */
export interface NumberArg {
  /** Smallest value allowed (inclusive). @default 0 */
  min?: number;
  /** Whether only whole numbers are allowed. @default false */
  integer?: boolean;
}

/**
 * A commander argument parser for a number; a bad value is a usage error
 * that names what was expected (`--rate: expected a number > 0`).
 */
export function numberArg({ min = 0, integer = false }: NumberArg = {}): (text: string) => number {
  return (text) => {
    const value = Number(text);
    const ok =
      text.trim() !== '' &&
      Number.isFinite(value) &&
      value >= min &&
      (!integer || Number.isInteger(value));
    if (!ok)
      throw new InvalidArgumentError(`expected ${integer ? 'an integer' : 'a number'} >= ${min}.`);
    return value;
  };
}

/** A commander argument parser for a number strictly greater than 0. */
export function positiveArg(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError('expected a number > 0.');
  }
  return value;
}

/** A commander collector for a repeatable option (`--param a=1 --param b=2`). */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}
