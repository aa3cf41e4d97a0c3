import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../cli/cli-process.js';

const ROOT = join(import.meta.dirname, '..', '..');

// A user of the package (the built declarations) and an engineer of this repository (the sources).
const SOURCE = `import type { RetryOptions } from '../dist/index.js';
import type { BlockOptions } from '../src/sim/models/index.js';
export const retry: RetryOptions = { maxAttempts: 2 };
export const block: BlockOptions = { threshold: 1, jitterMs: 5 };
`;

let hover: (at: string) => { text: string; tags: string[] };

/**
 * What an editor shows on an option of an options type derived from its rules
 * (`interface RetryOptions extends OptionsOf<typeof readOptions> {}`), asked of a
 * language service as an editor asks it.
 */
beforeAll(() => {
  ensureBuilt();
  const file = join(ROOT, 'node_modules', '.option-docs.ts');
  writeFileSync(file, SOURCE);
  const options: ts.CompilerOptions = {
    strict: true,
    exactOptionalPropertyTypes: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    types: ['node'],
  };
  const service = ts.createLanguageService({
    getScriptFileNames: () => [file],
    getScriptVersion: () => '1',
    getScriptSnapshot: (name) =>
      ts.sys.fileExists(name)
        ? ts.ScriptSnapshot.fromString(ts.sys.readFile(name) ?? '')
        : undefined,
    getCurrentDirectory: () => ROOT,
    getCompilationSettings: () => options,
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
  });
  hover = (at) => {
    const info = service.getQuickInfoAtPosition(file, SOURCE.indexOf(at));
    return {
      text: ts.displayPartsToString(info?.documentation),
      tags: (info?.tags ?? []).map((tag) => `@${tag.name} ${ts.displayPartsToString(tag.text)}`),
    };
  };
  hover('maxAttempts'); // loads the program
}, 240_000);

describe('an options type derived from its rules', () => {
  it('shows each option’s TSDoc and default from the built declarations', () => {
    const shown = hover('maxAttempts');
    expect(shown.text).toMatch(/^Attempts per request, the first included/);
    expect(shown.tags).toEqual(['@default 6']);
  });

  // In the sources; the built declarations keep the TSDoc of the rules written in the same module.
  it('shows the TSDoc of rules spread in from another module (a model’s latency options)', () => {
    expect(hover('threshold').tags).toEqual(['@default 300']);
    expect(hover('jitterMs').text).toMatch(/^Seeded jitter/);
  });
});
