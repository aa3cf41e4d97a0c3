import type { Command } from 'commander';
import { registerAnalyze } from './analyze.js';
import { registerBaseline } from './baseline.js';
import { registerBench } from './bench.js';
import { registerCrawl } from './crawl.js';
import { registerDemo } from './demo.js';
import { registerDiagnose } from './diagnose.js';
import { registerFleet } from './fleet.js';
import { registerProbe } from './probe.js';
import { createProgram } from './program.js';
import { registerReport } from './report.js';
import { registerServeMock } from './serve-mock.js';

/** The `ratewise` program with every command registered, in the order `--help` lists them. */
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
