import { runFamilyBench } from '../sim/family/bench.js';
import type { ServerSet } from '../sim/family/sets.js';
import { familyMarkdown, familyTargets } from '../sim/family/table.js';
import type { Strategy } from '../sim/strategies/strategy.js';

/** What `ratewise bench --family` needs. */
export interface FamilyBenchCommand {
  /** Servers to sample. */
  count: number;
  /** The set they are drawn from. */
  set: ServerSet;
  seed: number;
  strategies: readonly Strategy[];
  json: boolean;
  /** Timing noise between each strategy and the server, ms (0: none). */
  timingNoiseMs: number;
  /** ratewise's probing budget (see `ControlOptions.refusedShare`); its default when absent. */
  refusedShare?: number;
  /** Worker threads (default: the machine's parallelism). */
  threads?: number;
}

/**
 * Runs `ratewise bench --family N` (or `--field N`): samples N servers of the
 * randomized family (or the field set), runs every strategy on each in virtual time and prints the
 * distribution of each figure, the worst servers for ratewise and, when
 * ratewise ran, its verdict against the targets. Returns the Markdown (or the
 * JSON line) printed, for `--write`.
 */
export async function benchFamily(command: FamilyBenchCommand): Promise<string> {
  const started = Date.now();
  const tty = process.stderr.isTTY === true;
  const result = await runFamilyBench({
    count: command.count,
    set: command.set,
    seed: command.seed,
    strategies: command.strategies,
    ...(command.timingNoiseMs > 0 ? { timingNoiseMs: command.timingNoiseMs } : {}),
    ...(command.threads ? { threads: command.threads } : {}),
    ...budget(command),
    onServer: (_server, done) => {
      const line = `bench --${command.set}: ${done}/${command.count} servers`;
      if (tty) process.stderr.write(`\r${line}`);
      else if (done % 50 === 0 || done === command.count) process.stderr.write(`${line}\n`);
    },
  });
  if (tty) process.stderr.write('\n');
  const ratewise = result.figures.find((figures) => figures.strategy === 'ratewise');
  const targets = ratewise ? familyTargets(ratewise) : [];
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (command.json) {
    const noiseMs = command.timingNoiseMs > 0 ? { timingNoiseMs: command.timingNoiseMs } : {};
    const output = JSON.stringify({
      set: command.set,
      seed: command.seed,
      ...noiseMs,
      ...budget(command),
      figures: result.figures,
      targets,
    });
    process.stdout.write(`${output}\n`);
    return output;
  }
  const verdict = targets.map((t) =>
    // "—": no server of the kind the figure needs was drawn; not a miss.
    t.value === '—'
      ? `- not measured: ${t.name} ${t.goal} (—: no server of its kind in the sample)`
      : `- ${t.met ? 'met' : 'MISSED'}: ${t.name} ${t.goal} (${t.value})`,
  );
  const noise = command.timingNoiseMs > 0 ? `, timing noise 0–${command.timingNoiseMs} ms` : '';
  const share = command.refusedShare;
  const shared =
    share === undefined ? '' : `, ratewise's refusedShare ${+(share * 100).toFixed(4)} %`;
  const text = [
    `${command.count} servers of the ${command.set} set, seed ${command.seed}${noise}${shared}, virtual time (${seconds} s of wall time)`,
    '',
    familyMarkdown(result),
    ...(verdict.length > 0 ? ['', 'ratewise against the targets:', ...verdict] : []),
  ].join('\n');
  process.stdout.write(`${text}\n`);
  return text;
}

/** The probing budget to pass on, only when given. */
function budget(command: FamilyBenchCommand): { refusedShare?: number } {
  return command.refusedShare === undefined ? {} : { refusedShare: command.refusedShare };
}
