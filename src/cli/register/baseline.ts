import type { Command } from 'commander';
import type { CaptureCommandOptions, CheckCommandOptions } from '../baseline.js';
import { formerFlag, numberArg } from '../parsers.js';
import { exitWith } from '../program.js';

/** A count on the command line: a whole number, at least 1. */
const COUNT = numberArg({ min: 1, integer: true });
/** Where baseline files go and are read from unless `--dir` says otherwise. */
export const BASELINE_DIR = 'baselines';

/** The options `capture` and `check` share (folder, pace, window, `--json`), in each one's words. */
function sharedOptions(
  command: Command,
  help: { requests: string; requestsDefault: number; intervalMs: string; windowRequests: string },
): Command {
  return command
    .option('--dir <dir>', 'folder of baseline files', BASELINE_DIR)
    .option('--requests <n>', help.requests, COUNT, help.requestsDefault)
    .option('--interval-ms <ms>', help.intervalMs, numberArg({ min: 0 }), 1000)
    .option('--window-requests <n>', help.windowRequests, COUNT)
    .addOption(formerFlag('--window <n>', '--window-requests', COUNT))
    .option('--json', 'print one JSON object');
}

/** Registers `baseline capture` and `baseline check` on the `ratewise` program. */
export function registerBaseline(program: Command): Command {
  const baseline = program
    .command('baseline')
    .description('per-host latency baselines: capture politely, check live p95 against them');
  const capture = baseline
    .command('capture')
    .description('capture the fastest window of polite requests per host into <dir>/<host>.json')
    .argument('<url...>', 'URLs to request (cycled per host)');
  sharedOptions(capture, {
    requests: 'requests per host',
    requestsDefault: 100,
    intervalMs: 'time between two requests to a host',
    windowRequests: 'requests per window; the fastest window is kept',
  }).action((urls: string[], options: CaptureCommandOptions) =>
    exitWith(import('../baseline.js').then(({ runCapture }) => runCapture(urls, options))),
  );
  const check = baseline
    .command('check')
    .description(
      'compare live p95 per host with its baseline (exit 0 healthy, 1 alarm, 2 usage error, 3 no verdict)',
    )
    .argument(
      '<log|url...>',
      'a log file or - for stdin (last latencies per host), or URLs to request live',
    )
    .option('--threshold <x>', 'alarm when live p95 > x × baseline p95', numberArg({ min: 1 }), 2);
  sharedOptions(check, {
    requests: 'live requests per host (URL mode)',
    requestsDefault: 20,
    intervalMs: 'time between two live requests to a host (URL mode)',
    windowRequests: 'latest latencies per host compared (log mode)',
  }).action((targets: string[], options: CheckCommandOptions) =>
    exitWith(import('../baseline.js').then(({ runCheck }) => runCheck(targets, options))),
  );
  return baseline;
}
