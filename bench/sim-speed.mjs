// Simulator speed: one simulated hour at 100 req/s through the real ratewise controller.
// `npm run bench` runs it; the figure goes to BENCHMARKS.md.
import { simulate } from '../dist/sim/simulate.js';
import { ratewise } from '../dist/sim/strategies/index.js';

const HOUR = 3_600_000;
const scenario = {
  name: 'speed',
  description: 'token bucket 100 req/s, burst 100, 200 ms',
  model: 'token-bucket',
  params: { rate: 100, burst: 100, latencyMs: 200, jitterMs: 50 },
  workload: { workers: 40, durationMs: HOUR },
  maxConcurrency: 40,
  timeoutMs: 30_000,
  steadyFromMs: 60_000,
};

const runs = [];
for (let i = 0; i < 3; i++) {
  const started = performance.now();
  const { summary } = await simulate(scenario, ratewise, { seed: i + 1 });
  runs.push({
    seconds: (performance.now() - started) / 1000,
    requests: summary.requests,
    okPerS: summary.okPerS,
  });
}
runs.sort((a, b) => a.seconds - b.seconds);
const median = runs[1];
console.log(
  '\nSimulator speed: one simulated hour against a 100 req/s token bucket, ratewise defaults (3 runs)',
);
console.log(
  '| requests simulated | wall time, median of 3 | simulated requests per wall second | goodput in the run |',
);
console.log('| ---: | ---: | ---: | ---: |');
console.log(
  `| ${median.requests.toLocaleString('en')} | ${median.seconds.toFixed(2)} s | ${Math.round(median.requests / median.seconds).toLocaleString('en')} | ${median.okPerS.toFixed(1)} ok/s |`,
);
