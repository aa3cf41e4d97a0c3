#!/usr/bin/env node
import { registerAnalyze } from './analyze.js';
import { registerBaseline } from './baseline.js';
import { registerBench } from './bench.js';
import { registerCrawl } from './crawl.js';
import { registerDemo } from './demo.js';
import { registerDiagnose } from './diagnose.js';
import { registerFleet } from './fleet.js';
import { registerProbe } from './probe.js';
import { createProgram, runProgram } from './program.js';
import { registerReport } from './report.js';
import { registerServeMock } from './serve-mock.js';

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

process.exitCode = await runProgram(program, process.argv.slice(2));
