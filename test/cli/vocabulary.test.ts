import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { ratewiseProgram } from '../../src/cli/commands.js';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

/** Every command that takes options, by its path (`baseline check`). */
function leaves(command: Command, path: string[] = []): Map<string, Command> {
  const found = new Map<string, Command>();
  for (const sub of command.commands) {
    const subPath = [...path, sub.name()];
    if (sub.commands.length > 0) for (const [k, v] of leaves(sub, subPath)) found.set(k, v);
    else found.set(subPath.join(' '), sub);
  }
  return found;
}

const commands = leaves(ratewiseProgram());

/** The flags `--help` shows (a former name, still accepted, is hidden). */
function shownFlags(command: Command): { flags: string; long?: string; short?: string }[] {
  return command.options.filter((option) => !option.hidden);
}

/** The Flag column of the README's "One vocabulary" table: `crawl --out`, `report -o/--out`… */
function tableFlags(): string[] {
  const section = README.slice(README.indexOf('### One vocabulary'));
  const start = section.indexOf('| Option');
  const table = section.slice(start, section.indexOf('\n\n', start));
  return table
    .split('\n')
    .slice(2)
    .flatMap((row) => [...(row.split(/(?<!\\)\|/)[2] ?? '').matchAll(/`([^`]+)`/g)])
    .map((m) => m[1] as string);
}

describe('the command line keeps one vocabulary', () => {
  it('names every flag in milliseconds `-ms`, and only --duration and --window take seconds', () => {
    const misnamed: string[] = [];
    for (const [path, command] of commands) {
      for (const option of shownFlags(command)) {
        const long = option.long ?? '';
        if (/<ms>/.test(option.flags) && !long.endsWith('-ms')) misnamed.push(`${path} ${long}`);
        if (/<s>/.test(option.flags) && !['--duration', '--window'].includes(long))
          misnamed.push(`${path} ${long}`);
      }
    }
    expect(misnamed).toEqual([]);
  });

  it('every flag the README table names is one its commands show', () => {
    const flags = tableFlags();
    expect(flags.length).toBeGreaterThan(10);
    const missing: string[] = [];
    for (const entry of flags) {
      const words = entry.split(' ');
      const firstFlag = words.findIndex((w) => w.startsWith('-'));
      const path = words.slice(0, firstFlag).join(' ');
      const named = words.filter((w) => w.startsWith('-')).flatMap((w) => w.split('/'));
      // `baseline --dir`: every subcommand of baseline shows it.
      const under = [...commands].filter(([p]) => p === path || p.startsWith(`${path} `));
      if (under.length === 0) missing.push(entry);
      for (const [p, command] of under) {
        const shown = shownFlags(command).flatMap((o) => [o.long, o.short]);
        for (const flag of named) if (!shown.includes(flag)) missing.push(`${p} ${flag}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
