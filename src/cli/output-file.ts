import { stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';
import { UsageError } from './usage-error.js';

/**
 * Fails with a {@link UsageError} (`cannot write /tmp: EISDIR`) when `path`
 * names a directory: checked before long work, so a typo fails at once.
 */
export async function requireFileTarget(path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) throw new UsageError(`cannot write ${path}: EISDIR (a directory)`);
}

/**
 * A file-system error met while writing `path` (or creating its folder) as
 * a {@link UsageError} — `cannot write /sys/x.html: EACCES`, exit 2, as for
 * every file named on the command line; any other error unchanged.
 */
export function writeFailure(error: unknown, path: string): unknown {
  const failed = (error as NodeJS.ErrnoException | null)?.path;
  if (typeof failed !== 'string') return error;
  const target = resolve(path);
  const mine = resolve(failed);
  const onTheWay = mine === target || target.startsWith(`${mine}${sep}`);
  if (!onTheWay) return error;
  // mkdir -p reports a file in the way of a folder as EEXIST.
  if ((error as NodeJS.ErrnoException).code === 'EEXIST' && mine !== target) {
    return new UsageError(`cannot write ${path}: ENOTDIR (${failed} is a file)`);
  }
  return UsageError.file('write', path, error);
}
