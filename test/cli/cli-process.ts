import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
/** The built CLI entry, as `npm ci` (prepare → build) leaves it. */
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/**
 * Builds dist/ when a source file is newer than the built CLI (a local run
 * after edits); test files running in parallel wait for one build.
 */
export function ensureBuilt(): void {
  const built = mtime(CLI);
  if (built !== undefined && newestSource(join(ROOT, 'src')) <= built) return;
  const lock = join(ROOT, '.build-lock');
  try {
    mkdirSync(lock);
  } catch {
    const deadline = Date.now() + 120_000;
    while (existsSync(lock) && Date.now() < deadline) Atomics.wait(PAUSE, 0, 0, 100);
    return;
  }
  try {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'ignore' });
  } catch {
    // Type errors elsewhere still emit; the spawned tests show whether the CLI works.
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
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
