// `npm run bench`: every benchmark, each in its own process, one after another.
// Results (with the machine they ran on) belong in BENCHMARKS.md.
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';

const benches = [
  ['--expose-gc', 'bench/core.mjs'],
  ['bench/sim-speed.mjs'],
  ['bench/client-throughput.mjs'],
  ['bench/memory.mjs'],
  ['dist/cli/main.js', 'bench'],
];

console.log(
  `# ratewise benchmarks — node ${process.version}, ${cpus()[0]?.model} × ${cpus().length}`,
);
for (const args of benches) {
  console.log(`\n## node ${args.join(' ')}`);
  const { status } = spawnSync(process.execPath, args, { stdio: 'inherit' });
  if (status !== 0) process.exitCode = status ?? 1;
}
