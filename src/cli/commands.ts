import type { Command } from 'commander';
import { createProgram } from './program.js';
import { registerAnalyze } from './register/analyze.js';
import { registerBaseline } from './register/baseline.js';
import { registerBench } from './register/bench.js';
import { registerCrawl } from './register/crawl.js';
import { registerDemo } from './register/demo.js';
import { registerDiagnose } from './register/diagnose.js';
import { registerFleet } from './register/fleet.js';
import { registerProbe } from './register/probe.js';
import { registerReport } from './register/report.js';
import { registerServeMock } from './register/serve-mock.js';

/**
 * The `ratewise` program with every command registered, in the order `--help`
 * lists them. A command's registration (its name, options, help text and
 * option parsers) is all that is loaded here: its action imports the
 * command's implementation when it runs, so `ratewise analyze` never loads
 * the crawler, the simulator or undici, and `--help` loads none of them.
 */
export function ratewiseProgram(): Command {
  const program = createProgram();
  registerCrawl(program);
  registerDemo(program);
  registerProbe(program);
  registerServeMock(program);
  registerAnalyze(program);
  registerReport(program);
  registerBaseline(program);
  registerDiagnose(program);
  registerBench(program);
  registerFleet(program);
  return program;
}
