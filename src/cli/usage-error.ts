/** The CLI's exit codes; {@link UsageError} and {@link oneLine} come from the errors module. */
export { oneLine, UsageError } from '../errors.js';

/** Exit code of a usage error (bad option or argument, unreadable file). */
export const USAGE_EXIT = 2;
/** Exit code of a runtime failure. */
export const FAILURE_EXIT = 1;
