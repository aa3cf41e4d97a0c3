// Reads the runs `bench/fleet-timeline.mjs --trace FILE` recorded and tells, per run, where its
// steady goodput went: the fleet rate algorithm's decisions (from its stored state, polled every
// 20 ms) beside the refusals a fixed window of 30 per second gave the sends (replayed as
// serve-mock's fixed-window counts them: a window starts at the first send after the last one
// ended). Seconds are counted from when the timeline started.
//   node bench/fleet-trace.mjs FILE [--run N] [--from 20] [--to 90] [--all] (--all: every change of the state)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    run: { type: 'string' },
    from: { type: 'string', default: '20' },
    to: { type: 'string', default: '90' },
    all: { type: 'boolean', default: false },
  },
});
const CAPACITY = 30;
const WINDOW_MS = 1000;

/** Every send of the run in time order, each marked refused or not by the replayed window. */
function replay(sends) {
  const times = sends.flat().sort((a, b) => a - b);
  let [start, n] = [Number.NEGATIVE_INFINITY, 0];
  return times.map((t) => {
    if (t - start >= WINDOW_MS) [start, n] = [t, 0];
    n++;
    return { t, refused: n > CAPACITY };
  });
}

/** What one stored state says, in a line: ceiling, margin, the rate held, probe, budget. */
function describe(state) {
  const budget = state.budget ?? {};
  const probe = state.probeMs >= 0 ? `probing for ${Math.round(state.probeMs)} ms` : 'holding';
  return `ceiling ${state.ceiling.toFixed(2)}, margin ${state.margin.toFixed(4)} (held ${(state.ceiling * (1 - state.margin)).toFixed(2)}/s), ${probe}; patience ${budget.patience ?? '-'}, pause credit ${Math.round(budget.pauseCreditMs ?? 0)} ms`;
}

function report(run, index) {
  const s = (t) => (t - run.startedAt) / 1000;
  const [from, to] = [Number(values.from), Number(values.to)];
  const sends = replay(run.sends);
  const inSteady = (t) => s(t) >= from && s(t) < to;
  const steadyOk = sends.filter((x) => inSteady(x.t) && !x.refused).length;
  const first = run.learned.find(([, state]) => state.ceiling > 0);
  console.log(
    `run ${index} (${run.workers} workers): ${steadyOk} sends accepted in ${from}-${to} s (${((100 * steadyOk) / CAPACITY / (to - from)).toFixed(1)} % of ${CAPACITY}/s); first ceiling read ${first ? first[1].ceiling.toFixed(2) : '-'} at ${first ? s(first[0]).toFixed(2) : '-'} s`,
  );
  const lines = [];
  for (const x of sends) {
    if (!x.refused) continue;
    const lastSecond = sends.filter((y) => y.t > x.t - WINDOW_MS && y.t <= x.t).length;
    lines.push([x.t, `REFUSED (sends in the 1 s before it: ${lastSecond})`]);
  }
  let shown;
  for (const [at, state] of run.learned) {
    const key = values.all
      ? JSON.stringify(state)
      : `${state.ceiling} ${state.margin} ${state.probeMs >= 0} ${state.budget?.patience}`;
    if (key !== shown) lines.push([at, describe(state)]);
    shown = key;
  }
  lines.sort((a, b) => a[0] - b[0]);
  for (const [at, line] of lines) console.log(`  ${s(at).toFixed(2).padStart(6)} ${line}`);
}

const runs = readFileSync(positionals[0], 'utf8').trim().split('\n').map(JSON.parse);
runs.forEach((run, i) => {
  if (values.run === undefined || Number(values.run) === i) report(run, i);
});
