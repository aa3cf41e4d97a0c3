import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
/** The built CLI entry, as `npm ci` (prepare → build) leaves it. */
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** Longest a build may take; a lock older than this was left by a build that was killed. */
const BUILD_TIMEOUT_MS = 120_000;

/**
 * Builds dist/ when a source file is newer than the built CLI (a local run
 * after edits); test files running in parallel wait for one build. Throws —
 * with the compiler's output — when the build fails, when a stale
 * `.build-lock` is in the way, or when the build another file waited for
 * wrote nothing.
 */
export function ensureBuilt(): void {
  if (isFresh()) return;
  const lock = join(ROOT, '.build-lock');
  try {
    mkdirSync(lock);
  } catch {
    waitForOtherBuild(lock);
    return;
  }
  try {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], {
      cwd: ROOT,
      stdio: 'pipe',
      encoding: 'utf8',
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `the CLI tests need dist/, and the build failed:\n${stdout ?? ''}${stderr ?? ''}`,
    );
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function waitForOtherBuild(lock: string): void {
  const startedAt = mtime(lock) ?? Date.now();
  while (existsSync(lock)) {
    const age = Date.now() - startedAt;
    if (age > BUILD_TIMEOUT_MS) {
      throw new Error(
        `${lock} is ${Math.round(age / 1000)} s old, left by a killed build: remove it`,
      );
    }
    Atomics.wait(PAUSE, 0, 0, 100);
  }
  if ((mtime(CLI) ?? 0) < startedAt) {
    throw new Error('the build another test file ran did not write dist/: see its error');
  }
}

function isFresh(): boolean {
  const built = mtime(CLI);
  return built !== undefined && newestSource(join(ROOT, 'src')) <= built;
}

const PAUSE = new Int32Array(new SharedArrayBuffer(4));

function mtime(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : (mtime(path) ?? 0));
  }
  return newest;
}

/** What a finished CLI run printed and returned. */
export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `ratewise …args` in `cwd`; `done` resolves when it exits. */
export function startCli(
  args: readonly string[],
  cwd: string,
): { child: ChildProcess; done: Promise<CliRun> } {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => (stdout += chunk));
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<CliRun>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

/** Runs `ratewise …args` to the end (killed after `timeoutMs`). */
export async function runCli(
  args: readonly string[],
  cwd: string,
  timeoutMs = 15_000,
): Promise<CliRun> {
  const { child, done } = startCli(args, cwd);
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  try {
    return await done;
  } finally {
    clearTimeout(timer);
  }
}
