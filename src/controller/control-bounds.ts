/**
 * The bound and the default of `ControlOptions` that the command line checks
 * and shows in `--help`, in a module of their own: a command's options are
 * registered without loading the controller.
 */

/** The largest `refusedShare` (half the requests refused: beyond, probing is all there is). */
export const MAX_REFUSED_SHARE = 0.5;

/** The default ceiling of requests in flight per scope. */
export const DEFAULT_MAX_CONCURRENCY = 32;
