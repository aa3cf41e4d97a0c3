import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type BenchRow, runBench } from '../sim/bench.js';
import { benchMarkdown } from '../sim/bench-table.js';
import type { ServerSet } from '../sim/family/sets.js';
import { SCENARIOS, type Scenario } from '../sim/scenarios.js';
import { ratewise, STRATEGIES, type Strategy, withBudget } from '../sim/strategies/index.js';
import { benchFamily } from './bench-family.js';
import { requireFileTarget, writeFailure } from './output-file.js';
import { UsageError } from './usage-error.js';

/** Options of `ratewise bench`, as commander parses them. */
export interface BenchCommandOptions {
  scenario?: string;
  strategy?: string;
  seed: number;
  duration?: number;
  real?: boolean;
  json?: boolean;
  write?: string;
  family?: number;
  /** Servers of the field set to sample (limits as deployed, never tuned on). */
  field?: number;
  timingNoiseMs?: number;
  /** ratewise's probing budget (see `ControlOptions.refusedShare`). */
  refusedShare?: number;
  /** The former name of `timingNoiseMs`, kept for scripts that use it. */
  timingNoise?: number;
}

/** Runs `ratewise bench`; resolves with the exit code. */
export async function benchCommand(
  options: BenchCommandOptions,
  argv: readonly string[],
): Promise<number> {
  const strategies = budgeted(pick(options.strategy, STRATEGIES, 'strategy'), options.refusedShare);
  if (options.write !== undefined) await requireWriteTarget(options.write);
  const timingNoiseMs = options.timingNoiseMs ?? options.timingNoise;
  if (options.family !== undefined && options.field !== undefined) {
    throw new UsageError('--family and --field each sample their own servers: give one of them');
  }
  if (options.family !== undefined || options.field !== undefined) {
    return familyCommand(options, strategies, argv, timingNoiseMs ?? 0);
  }
  if (timingNoiseMs !== undefined) {
    throw new UsageError('--timing-noise-ms applies to --family and --field runs only');
  }
  const scenarios = pick(options.scenario, SCENARIOS, 'scenario');
  const rows = await runBench({
    scenarios,
    strategies,
    seed: options.seed,
    real: options.real ?? false,
    ...(options.duration ? { durationMs: options.duration * 1000 } : {}),
    onRun: (row) => process.stderr.write(`${progressLine(row)}\n`),
  });
  const tables = benchMarkdown(rows, scenarios);
  // Results first: a failing --write must not lose a long run.
  process.stdout.write(options.json ? `${JSON.stringify({ rows })}\n` : `${tables}\n`);
  if (options.write) {
    const section = `${options.real ? 'real' : 'sim'}${options.duration ? `-${options.duration}s` : ''}`;
    await writeSection(options.write, section, argv, tables);
  }
  return 0;
}

async function familyCommand(
  options: BenchCommandOptions,
  strategies: Strategy[],
  argv: readonly string[],
  timingNoiseMs: number,
): Promise<number> {
  const set: ServerSet = options.field === undefined ? 'family' : 'field';
  if (options.real || options.scenario !== undefined || options.duration !== undefined) {
    throw new UsageError(
      `--${set} runs its own servers in virtual time: drop --real, --scenario and --duration`,
    );
  }
  const count = (options.family ?? options.field) as number;
  const text = await benchFamily({
    count,
    set,
    seed: options.seed,
    strategies,
    timingNoiseMs,
    ...(options.refusedShare === undefined ? {} : { refusedShare: options.refusedShare }),
    json: options.json ?? false,
  });
  if (options.write) {
    const noise = timingNoiseMs ? `-noise-${timingNoiseMs}` : '';
    await writeSection(options.write, `${set}-${count}-seed-${options.seed}${noise}`, argv, text);
  }
  return 0;
}

/** The strategies, ratewise's with the probing budget `refusedShare` when one is given. */
function budgeted(strategies: Strategy[], refusedShare: number | undefined): Strategy[] {
  if (refusedShare === undefined) return strategies;
  if (!strategies.some((strategy) => strategy.name === ratewise.name)) {
    throw new UsageError("--refused-share is ratewise's budget: add ratewise to --strategy");
  }
  return strategies.map((strategy) => withBudget(strategy, refusedShare));
}

function pick<T extends Scenario | Strategy>(
  list: string | undefined,
  all: readonly T[],
  what: string,
): T[] {
  if (list === undefined) return [...all];
  return list.split(',').map((name) => {
    const found = all.find((item) => item.name === name.trim());
    if (!found)
      throw new UsageError(
        `unknown ${what} "${name}" (known: ${all.map((item) => item.name).join(', ')})`,
      );
    return found;
  });
}

function progressLine(row: BenchRow): string {
  const { summary } = row;
  const share =
    summary.capacityShare === null
      ? ''
      : `, ${(summary.capacityShare * 100).toFixed(1)} % of capacity`;
  const rejected =
    summary.rejectedShare === null
      ? 'no request in the steady state'
      : `${(summary.rejectedShare * 100).toFixed(2)} % rejected`;
  return `bench: ${row.scenario} × ${row.strategy}: ${summary.okPerS.toFixed(1)} ok/s${share}, ${rejected} (${row.wallS.toFixed(1)} s)`;
}

/**
 * Replaces the `<!-- bench:MODE -->` … `<!-- /bench:MODE -->` section of a
 * Markdown file (or appends one) with the command and the tables.
 */
async function writeSection(
  file: string,
  mode: string,
  argv: readonly string[],
  tables: string,
): Promise<void> {
  const open = `<!-- bench:${mode} -->`;
  const close = `<!-- /bench:${mode} -->`;
  const command = ['ratewise', ...argv.filter((_, i) => !isWriteArg(argv, i))].join(' ');
  const section = `${open}\nCommand: \`${command}\`\n\n${tables}\n${close}`;
  const current = await readFile(file, 'utf8').catch(() => '');
  const start = current.indexOf(open);
  const end = current.indexOf(close);
  const next =
    start >= 0 && end > start
      ? `${current.slice(0, start)}${section}${current.slice(end + close.length)}`
      : `${current.trimEnd()}\n\n${section}\n`;
  await writeFile(file, next).catch((error: unknown) => {
    throw writeFailure(error, file);
  });
}

/**
 * Fails with a {@link UsageError} before the runs when `--write` cannot be
 * written (a folder, a file in the way of its folder); makes its folder.
 */
async function requireWriteTarget(file: string): Promise<void> {
  await requireFileTarget(file);
  await mkdir(dirname(file), { recursive: true }).catch((error: unknown) => {
    throw writeFailure(error, file);
  });
}

function isWriteArg(argv: readonly string[], i: number): boolean {
  return (
    argv[i] === '--write' || argv[i - 1] === '--write' || (argv[i] ?? '').startsWith('--write=')
  );
}
