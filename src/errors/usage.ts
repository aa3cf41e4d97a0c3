import { RatewiseError } from './ratewise-error.js';

/**
 * A problem with how the CLI or a crawl was called that shows only once it
 * runs — an unreadable input file, a directory where a file was expected, a
 * results file another crawl holds. The CLI prints its message in one line
 * and exits with code 2, as for a bad option.
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

/** The first line of an error's message: the CLI never prints a stack trace. */
export function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? '';
}
