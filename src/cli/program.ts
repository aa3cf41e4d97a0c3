import { Command, CommanderError } from 'commander';
import { FAILURE_EXIT, oneLine, USAGE_EXIT, UsageError } from './usage-error.js';

/** The version printed by `ratewise --version`. */
const VERSION = '0.1.0';

/**
 * The `ratewise` program before its commands are registered. Usage errors
 * (unknown option, bad value, missing argument) print one line on stderr and
 * throw instead of exiting, so {@link runProgram} decides the exit code.
 * Commands registered afterwards inherit this behaviour.
 */
export function createProgram(): Command {
  return new Command('ratewise')
    .description('closed-loop rate control for HTTP clients')
    .version(VERSION)
    .exitOverride()
    .configureOutput({
      outputError: (text, write) => write(`ratewise: ${text.replace(/\s*\n\s*/g, ' ').trim()}\n`),
    })
    .showSuggestionAfterError(true);
}

/**
 * Makes a command's result the program's exit code. A command's action loads
 * its implementation only when it runs, so that starting the program loads
 * no command's dependencies:
 * `.action((log: string, options: O) => exitWith(import('../report.js').then(({ runReport }) => runReport(log, options))))`.
 */
export async function exitWith(code: Promise<number>): Promise<void> {
  process.exitCode = await code;
}

/**
 * Parses `args` (without `node` and the script) and runs the command.
 * Resolves with the exit code: 0, the command's own (`process.exitCode`),
 * 2 for a usage error, 1 for a runtime failure — reported in one line on
 * stderr, never with a stack trace.
 */
export async function runProgram(program: Command, args: readonly string[]): Promise<number> {
  if (args.length === 0) {
    process.stderr.write(program.helpInformation());
    return USAGE_EXIT;
  }
  try {
    await program.parseAsync(args, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : USAGE_EXIT;
    process.stderr.write(`ratewise: ${oneLine(error)}\n`);
    return error instanceof UsageError ? USAGE_EXIT : FAILURE_EXIT;
  }
}
