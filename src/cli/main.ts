#!/usr/bin/env node
import { ratewiseProgram } from './commands.js';
import { runProgram } from './program.js';

process.exitCode = await runProgram(ratewiseProgram(), process.argv.slice(2));
