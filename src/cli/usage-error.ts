import { RatewiseError } from '../errors.js';

/**
 * A problem with how the CLI was called that shows only once it runs — an
 * unreadable input file, a directory where a file was expected. The CLI
 * prints its message in one line and exits with code 2, as for a bad option.
 */
export class UsageError extends RatewiseError {
  constructor(message: string) {
    super('ERR_RATEWISE_USAGE', message);
  }

  /**
   * `cannot <verb> <path>: <code>` (`cannot read urls.txt: ENOENT`): a file
   * named on the command line that cannot be used. A `UsageError` passes
   * through unchanged.
   */
  static file(verb: string, path: string, error: unknown): UsageError {
    if (error instanceof UsageError) return error;
    const code = (error as NodeJS.ErrnoException | null)?.code;
    return new UsageError(`cannot ${verb} ${path}: ${code ?? oneLine(error)}`);
  }
}

/** Exit code of a usage error (bad option or argument, unreadable file). */
export const USAGE_EXIT = 2;
/** Exit code of a runtime failure. */
export const FAILURE_EXIT = 1;

/** The first line of an error's message: the CLI never prints a stack trace. */
export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? '';
}
