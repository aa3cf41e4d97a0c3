import { randomBytes } from 'node:crypto';
import { link, readFile, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { UsageError } from '../errors.js';
import { processRuns } from './process-alive.js';

/** Who holds a lock, as its lock file says. */
interface Holder {
  pid: number;
  host: string;
  since: string;
}

/**
 * Takes `<path>.lock` for this process, so that two crawls never write one
 * results file at once (each would fetch and write the other's URLs). A
 * second taker fails with a {@link UsageError} naming the holder. A lock
 * whose holder is gone — a run killed with `kill -9` — is taken over at once:
 * the lock file names its process, and a process that no longer runs holds
 * nothing. (A lock taken on another machine, through a shared disk, cannot be
 * checked; the message says how to remove it.) Resolves with the release.
 */
export async function lockFile(path: string): Promise<() => Promise<void>> {
  const lockPath = `${path}.lock`;
  const me: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  const mine = `${lockPath}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(mine, JSON.stringify(me));
  try {
    await claim(mine, lockPath, path);
  } finally {
    await unlink(mine).catch(() => {});
  }
  return async () => {
    const holder = await readHolder(lockPath);
    if (holder?.pid === me.pid && holder.since === me.since) await unlink(lockPath).catch(() => {});
  };
}

/** Tries to claim a lock taken over from a stale holder this many times before giving up. */
const TAKEOVER_TRIES = 40;
const TAKEOVER_WAIT_MS = 25;

/**
 * Links our lock file in as the lock (atomic: fails if one exists), or takes
 * over a stale one. A takeover happens under a second, short-lived lock, so
 * that two runs finding the same stale lock cannot both take it.
 */
async function claim(mine: string, lockPath: string, path: string): Promise<void> {
  for (let tries = 0; tries < TAKEOVER_TRIES; tries++) {
    if (await linked(mine, lockPath)) return;
    const holder = await readHolder(lockPath);
    if (holder !== undefined && isAlive(holder)) throw busy(path, lockPath, holder);
    const takeover = `${lockPath}.takeover`;
    if (await linked(mine, takeover)) {
      try {
        const still = await readHolder(lockPath);
        if (still !== undefined && isAlive(still)) throw busy(path, lockPath, still);
        await unlink(lockPath).catch(() => {});
        if (await linked(mine, lockPath)) return;
      } finally {
        await unlink(takeover).catch(() => {});
      }
    } else {
      // Someone else is taking over; if that someone died doing it, clear its takeover.
      const other = await readHolder(takeover);
      if (other !== undefined && !isAlive(other)) await unlink(takeover).catch(() => {});
    }
    await new Promise((resolve) => setTimeout(resolve, TAKEOVER_WAIT_MS));
  }
  throw busy(path, lockPath, await readHolder(lockPath));
}

/** Links `from` to `to`; false when `to` exists. */
async function linked(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function readHolder(lockPath: string): Promise<Holder | undefined> {
  try {
    const parsed = JSON.parse(await readFile(lockPath, 'utf8')) as Partial<Holder>;
    if (typeof parsed.pid !== 'number' || typeof parsed.host !== 'string') return undefined;
    return { pid: parsed.pid, host: parsed.host, since: String(parsed.since) };
  } catch {
    return undefined;
  }
}

/** Whether the holder still runs; on another machine there is no telling, so yes. */
function isAlive(holder: Holder): boolean {
  return holder.host !== hostname() || processRuns(holder.pid);
}

function busy(path: string, lockPath: string, holder: Holder | undefined): UsageError {
  const who = holder
    ? `process ${holder.pid} on ${holder.host}, since ${holder.since}`
    : 'another process';
  return new UsageError(
    `${path} is being written by another crawl (${who}); wait for it to end, or stop it (if it is gone, delete ${lockPath})`,
  );
}
