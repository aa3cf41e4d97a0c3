import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../cli/cli-process.js';
import { type EntrySurface, readSurface } from './surface.js';

const ROOT = join(import.meta.dirname, '..', '..');
const LIST = join(import.meta.dirname, 'surface.json');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

/** Each entry as a user imports it (`ratewise/sim`) → its type declarations. */
const entries: Record<string, string> = Object.fromEntries(
  Object.entries(pkg.exports as Record<string, { types: string } | string>)
    .filter(([subpath]) => subpath !== './package.json')
    .map(([subpath, target]) => [
      `ratewise${subpath.slice(1)}`,
      join(ROOT, (target as { types: string }).types),
    ]),
);

let surface: Record<string, EntrySurface>;
beforeAll(() => {
  ensureBuilt();
  surface = readSurface(entries, join(ROOT, 'dist'), 'ratewise');
}, 120_000);

describe('the public surface', () => {
  it('is the checked-in list, entry by entry (change test/package/surface.json with intent)', () => {
    const names = Object.fromEntries(
      Object.entries(surface).map(([entry, { values, types }]) => [entry, { values, types }]),
    );
    expect(names).toEqual(JSON.parse(readFileSync(LIST, 'utf8')));
  });

  it('lets a user name every type an entry’s API uses, from that entry or from ratewise', () => {
    const unexported = Object.entries(surface).filter(([, { unexported }]) => unexported.length);
    expect(Object.fromEntries(unexported.map(([e, s]) => [e, s.unexported]))).toEqual({});
  });

  it('loads every value through the built package’s entries, as a user imports them', () => {
    const script = `const names = {};
for (const entry of ${JSON.stringify(Object.keys(entries))}) {
  names[entry] = Object.keys(await import(entry)).sort();
}
console.log(JSON.stringify(names));`;
    // Run from the package's own folder: Node resolves `ratewise/…` through package.json exports.
    const loaded = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: ROOT,
        encoding: 'utf8',
      }),
    );
    const declared = Object.fromEntries(
      Object.entries(surface).map(([entry, { values }]) => [entry, values]),
    );
    expect(loaded).toEqual(declared);
  });

  it('exports every error class from ratewise, whichever entry throws it', () => {
    const errors = Object.values(surface).flatMap(({ values }) =>
      values.filter((name) => name.endsWith('Error')),
    );
    const root = new Set(surface.ratewise?.values);
    expect(errors.filter((name) => !root.has(name))).toEqual([]);
  });

  it('is described entry by entry in the README API section', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const api = readme.slice(
      readme.indexOf('\n## API\n'),
      readme.indexOf('\n## ', readme.indexOf('\n## API\n') + 1),
    );
    const rows = [...api.matchAll(/^\| *`(ratewise[^`]*)` *\|[^|]*\|(.*)\|$/gm)];
    expect(rows.map((m) => m[1]).sort()).toEqual(Object.keys(entries).sort());
    // Every name a row shows is one its entry exports: the table cannot promise a name gone.
    const unexported = rows.flatMap(([, entry, cell]) => {
      const { values, types } = surface[entry as string] as EntrySurface;
      const names = [...(cell as string).matchAll(/`([A-Za-z_]\w*)`/g)].map((m) => m[1]);
      return names.filter((n) => !values.includes(n as string) && !types.includes(n as string));
    });
    expect(unexported).toEqual([]);
  });
});
