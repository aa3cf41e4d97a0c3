// Lists every module file a process loads: `LIST_MODULES=FILE node --import ./list-modules.mjs
// SCRIPT` appends one file: URL a line to FILE (ES modules as they load, through loader hooks;
// CommonJS modules, which `require` loads past the hooks, at exit). Used by test/cli/startup.test.ts
// and bench/cli-startup.mjs to see what starting the CLI loads.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

const file = process.env.LIST_MODULES;
if (!file) throw new Error('list-modules.mjs: set LIST_MODULES to the file to append to');
register('./list-modules-hooks.mjs', import.meta.url, { data: { file } });
process.on('exit', () => {
  const required = Object.keys(Module._cache).map((path) => `${pathToFileURL(path).href}\n`);
  appendFileSync(file, required.join(''));
});
