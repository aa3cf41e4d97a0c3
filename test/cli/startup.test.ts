import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ratewiseProgram } from '../../src/cli/commands.js';
import { STRATEGIES } from '../../src/sim/strategies/index.js';
import { STRATEGY_NAMES } from '../../src/sim/strategies/names.js';
import { CLI, ensureBuilt } from './cli-process.js';

/** The modules of dist/cli/ that carry out a command (its action imports one when it runs). */
const IMPLEMENTATIONS = [
  'crawl',
  'demo',
  'probe',
  'serve-mock',
  'analyze',
  'report',
  'baseline',
  'diagnose',
  'bench',
  'fleet',
];
const LIST_MODULES = join(import.meta.dirname, 'list-modules.mjs');

let dir: string;
beforeAll(() => {
  ensureBuilt();
  dir = mkdtempSync(join(tmpdir(), 'ratewise-startup-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `ratewise …args` and returns its exit code and the files it loaded. */
function loadedBy(args: readonly string[]): { code: number | null; files: string[] } {
  const list = join(dir, 'modules.txt');
  writeFileSync(list, '');
  const run = spawnSync(process.execPath, ['--import', LIST_MODULES, CLI, ...args], {
    cwd: dir,
    env: { ...process.env, LIST_MODULES: list },
    encoding: 'utf8',
  });
  const urls = readFileSync(list, 'utf8').split('\n').filter(Boolean);
  return { code: run.status, files: [...new Set(urls.map((url) => fileURLToPath(url)))] };
}

/** The command implementations among `files`, by name. */
function implementations(files: readonly string[]): string[] {
  const cli = realpathSync(join(CLI, '..'));
  return IMPLEMENTATIONS.filter((name) => files.includes(join(cli, `${name}.js`)));
}

/** The files among `files` in folder `folder` of dist/ (`crawl`). */
function inDist(files: readonly string[], folder: string): string[] {
  const root = realpathSync(join(CLI, '..', '..', folder));
  return files.filter((file) => file.startsWith(`${root}/`));
}

/** The packages among `files`, by name. */
function packages(files: readonly string[]): string[] {
  const names = files.flatMap(
    (file) => file.match(/.*node_modules\/((?:@[^/]+\/)?[^/.][^/]*)\//)?.[1] ?? [],
  );
  return [...new Set(names)].sort();
}

describe('starting ratewise loads only the command it runs', () => {
  it('--help and a usage error load no command implementation and no package but commander', () => {
    for (const args of [
      ['--help'],
      ['crawl', '--help'],
      ['crawl', 'urls.txt', '--max-concurrency', 'x'],
    ]) {
      const { code, files } = loadedBy(args);
      expect(code, args.join(' ')).toBe(args.includes('--help') ? 0 : 2);
      expect(implementations(files), args.join(' ')).toEqual([]);
      expect(packages(files), args.join(' ')).toEqual(['commander']);
    }
  });

  it('analyze loads its own implementation, not the crawler, the HTTP client or any package but commander', () => {
    const log = join(dir, 'small.log');
    writeFileSync(log, '2026-01-01T00:00:00Z https://a.example/ 120\n');
    const { code, files } = loadedBy(['analyze', log]);
    expect(code).toBe(0);
    expect(implementations(files)).toEqual(['analyze']);
    expect([...inDist(files, 'crawl'), ...inDist(files, 'client')]).toEqual([]);
    expect(packages(files)).toEqual(['commander']);
  });
});

/** Every command of `command`, itself first, each with its words (`baseline check`). */
function everyCommand(command: Command, path: string[] = []): [string[], Command][] {
  return [
    [path, command],
    ...command.commands.flatMap((sub) => everyCommand(sub, [...path, sub.name()])),
  ];
}

/** What `ratewise …path --help` prints, on a stdout of 80 columns without colours. */
function helpOf(command: Command): string {
  let text = '';
  command.configureOutput({
    writeOut: (chunk) => {
      text += chunk;
    },
    getOutHelpWidth: () => 80,
    getOutHasColors: () => false,
  });
  command.outputHelp();
  return text;
}

describe('--help', () => {
  it("every command's help reads as recorded", async () => {
    const text = everyCommand(ratewiseProgram())
      .map(([path, command]) => `$ ratewise ${[...path, '--help'].join(' ')}\n${helpOf(command)}`)
      .join('\n');
    await expect(text).toMatchFileSnapshot('./__snapshots__/help.txt');
  });

  it('bench --help names every strategy bench runs, in its order', () => {
    expect(STRATEGY_NAMES).toEqual(STRATEGIES.map((strategy) => strategy.name));
  });
});
