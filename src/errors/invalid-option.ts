import { RatewiseError } from './ratewise-error.js';

/** An option failed validation; the message names the option, the value and what was expected. */
export class InvalidOptionError extends RatewiseError {
  /** The option's name, e.g. `maxConcurrency`. */
  readonly option: string;

  constructor(option: string, message: string) {
    super('ERR_RATEWISE_INVALID_OPTION', message);
    this.option = option;
  }

  /** `owner: option \`name\` must be <expected>, got <value>`. */
  static invalid(
    owner: string,
    option: string,
    value: unknown,
    expected: string,
  ): InvalidOptionError {
    return new InvalidOptionError(
      option,
      `${owner}: option \`${option}\` must be ${expected}, got ${describe(value)}`,
    );
  }

  /** `owner: unknown option \`name\` (known options: …)`. */
  static unknown(owner: string, option: string, known: readonly string[]): InvalidOptionError {
    return new InvalidOptionError(
      option,
      `${owner}: unknown option \`${option}\` (known options: ${known.join(', ')})`,
    );
  }
}

/** Renders a value for an error message: `0 (number)`, `"abc" (string)`. */
export function describe(value: unknown): string {
  if (typeof value === 'string') return `${JSON.stringify(value)} (string)`;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
    return `${String(value)} (${typeof value})`;
  }
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return `a value of type ${typeof value}`;
}
