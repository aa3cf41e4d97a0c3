import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

let work: string;
/** A copy of the package with a fresh build: what `npm pack` would see on a clean clone. */
let stage: string;
/** A new project that installed the packed tarball. */
let consumer: string;
let packed: { path: string; size: number }[];

/** Runs a command in `cwd`; rejects with its output when it fails. */
async function sh(cwd: string, file: string, args: string[], timeout = 120_000) {
  try {
    return await run(file, args, { cwd, timeout, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed:\n${stdout ?? ''}\n${stderr ?? ''}`);
  }
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'ratewise-pack-'));
  stage = join(work, 'stage');
  mkdirSync(stage);
  for (const file of ['package.json', 'README.md', 'LICENSE']) {
    cpSync(join(ROOT, file), join(stage, file));
  }
  await sh(ROOT, process.execPath, [
    TSC,
    '-p',
    'tsconfig.build.json',
    '--outDir',
    join(stage, 'dist'),
  ]);
  const listing = await sh(stage, 'npm', ['pack', '--dry-run', '--json', '--ignore-scripts']);
  packed = JSON.parse(listing.stdout)[0].files;
  const tarball = await sh(stage, 'npm', ['pack', '--ignore-scripts', '--pack-destination', work]);
  consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), '{ "name": "consumer", "private": true }\n');
  await sh(consumer, 'npm', [
    'install',
    join(work, tarball.stdout.trim()),
    '--prefer-offline',
    '--no-audit',
    '--no-fund',
  ]);
}, 240_000);
// Removing the consumer's installed packages can take longer than the default 10 s on a loaded machine.
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

describe('the published package', () => {
  it('npm pack lists the build, README, LICENSE and package.json — no source maps, sources or tests', () => {
    const paths = packed.map((f) => f.path);
    for (const file of [
      'LICENSE',
      'README.md',
      'package.json',
      'dist/index.js',
      'dist/index.d.ts',
    ]) {
      expect(paths).toContain(file);
    }
    expect(paths).toContain('dist/cli/main.js');
    expect(paths.filter((p) => !/^dist\/.+\.(js|d\.ts)$/.test(p)).sort()).toEqual([
      'LICENSE',
      'README.md',
      'package.json',
    ]);
    expect(readFileSync(join(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(pkg.license).toBe('MIT');
  });

  it('every entry point is packed, can be imported and required, and has types for node10 too', () => {
    const paths = packed.map((f) => f.path);
    for (const [entry, target] of Object.entries(pkg.exports)) {
      if (entry === './package.json') continue;
      expect(target, entry).toEqual({ types: expect.any(String), default: expect.any(String) });
      for (const file of Object.values(target as Record<string, string>)) {
        expect(paths, entry).toContain(file.replace(/^\.\//, ''));
      }
      if (entry !== '.') {
        const types = (target as { types: string }).types.replace(/^\.\//, '');
        expect(pkg.typesVersions['*'][entry.slice(2)], entry).toEqual([types]);
      }
    }
    expect(pkg.types).toBe(pkg.exports['.'].types);
  });

  it('runs `npx ratewise demo` in the new project', async () => {
    const demo = await sh(consumer, 'npx', ['--no-install', 'ratewise', 'demo', '--duration', '2']);
    expect(demo.stdout).toMatch(/^ratewise demo: /);
    expect(demo.stdout).toMatch(/report: +.*ratewise-demo\/report\.html/);
    expect(readFileSync(join(consumer, 'ratewise-demo', 'report.html'), 'utf8')).toMatch(
      /^<!doctype html>/,
    );
  }, 60_000);

  const client = `const server = await startMockServer({ model: createModel('healthy', {}) });
const client = createClient({ maxConcurrency: 2 });
const response = await client.fetch(server.url + '/x');
console.log(response.status, typeof ratewiseInterceptor);
await response.arrayBuffer();
await client.close();
await server.close();`;

  it('imports as an ES module', async () => {
    const esm = `import { createClient, ratewiseInterceptor } from 'ratewise';
import { createModel, startMockServer } from 'ratewise/testing';
${client}`;
    writeFileSync(join(consumer, 'esm.mjs'), esm);
    expect((await sh(consumer, process.execPath, ['esm.mjs'])).stdout).toBe('200 function\n');
  });

  it('loads with require() from CommonJS, without a warning', async () => {
    const cjs = `const { createClient, ratewiseInterceptor } = require('ratewise');
const { createModel, startMockServer } = require('ratewise/testing');
(async () => {
${client}
})();`;
    writeFileSync(join(consumer, 'cjs.cjs'), cjs);
    const { stdout, stderr } = await sh(consumer, process.execPath, ['cjs.cjs']);
    expect(stdout).toBe('200 function\n');
    expect(stderr).toBe('');
  });

  // The Node projects without the DOM library, which is 2 of the 5.1 MB of declarations the first
  // check parses (all of it CPU time, 4-5 s at load 8): the bundler project keeps it.
  it.each([
    { module: 'nodenext', resolution: 'nodenext', files: ['esm.mts', 'cjs.cts'], lib: NODE_LIB },
    { module: 'esnext', resolution: 'bundler', files: ['esm.mts'], lib: undefined },
    { module: 'commonjs', resolution: 'node10', files: ['cjs.ts'], lib: NODE_LIB },
  ])(
    'type-checks with module $module, moduleResolution $resolution, lib $lib',
    ({ module, resolution, files, lib }) => {
      const body = `const client: RatewiseClient = createClient({ maxConcurrency: 2 });
// @ts-expect-error: the options are typed (this fails to compile if the types were not found)
createClient({ maxConcurrency: 'many' });
const server: MockServer = await startMockServer({ model: createModel('healthy', {}) });
void client.close();
void server.close();`;
      const esm = `import { createClient, type RatewiseClient } from 'ratewise';
import { createModel, startMockServer, type MockServer } from 'ratewise/testing';
${body}
export {};`;
      const cjs = `import ratewise = require('ratewise');
import testing = require('ratewise/testing');
const { createClient } = ratewise;
const { createModel, startMockServer } = testing;
type RatewiseClient = ratewise.RatewiseClient;
type MockServer = testing.MockServer;
async function main() {
${body}
}
void main();`;
      const dir = join(consumer, `ts-${resolution}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'esm.mts'), esm);
      writeFileSync(join(dir, 'cjs.cts'), cjs);
      writeFileSync(join(dir, 'cjs.ts'), cjs);
      const errors = typeErrors(
        files.map((file) => join(dir, file)),
        { module, moduleResolution: resolution, ...(lib ? { lib } : {}) },
      );
      expect(errors).toEqual([]);
    },
  );
});

/** The standard library of a Node project: no DOM (Node's fetch types come with @types/node). */
const NODE_LIB = ['es2022'];

/** Parsed files shared by the checks: the standard library and @types/node are parsed once. */
const parsed = new Map<string, ts.SourceFile | undefined>();

/** Type-checks `files` as a strict project of the new folder would (skipLibCheck); returns the errors. */
function typeErrors(
  files: string[],
  settings: { module: string; moduleResolution: string; lib?: string[] },
) {
  const { options, errors } = ts.convertCompilerOptionsFromJson(
    {
      ...settings,
      target: 'es2022',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules', '@types')],
    },
    consumer,
  );
  expect(errors).toEqual([]);
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, ...rest) => {
    const key = `${name} ${JSON.stringify(version)}`;
    if (!parsed.has(key)) parsed.set(key, read(name, version, ...rest));
    return parsed.get(key);
  };
  const program = ts.createProgram(files, options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`,
    );
}
