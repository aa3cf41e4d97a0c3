// Client throughput: ratewise against raw undici, same connection count, side by side.
//
//   npm run build && node bench/client-throughput.mjs [--connections 32] [--seconds 3] [--rounds 3]
//
// A loopback server in a child process answers every request at once (200, 2-byte
// body). C workers per client loop request → read body. Each client runs for
// --seconds per round, rounds interleaved so drift hits all alike; the table shows
// the median requests/s and its ratio to the raw undici form with the same API.
import { fork } from 'node:child_process';
import { parseArgs } from 'node:util';
import { Agent, request, fetch as undiciFetch } from 'undici';
import { createClient } from '../dist/client/client.js';
import { timedConnect } from '../dist/client/connection-timings.js';
import { ratewiseInterceptor } from '../dist/client/interceptor.js';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '32' },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    server: { type: 'boolean', default: false },
  },
});

if (values.server) {
  const { createServer } = await import('node:http');
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-length': '2' });
    res.end('ok');
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send?.(server.address().port));
  process.on('disconnect', () => process.exit(0));
} else {
  await main();
}

async function main() {
  const connections = Number(values.connections);
  const seconds = Number(values.seconds);
  const rounds = Number(values.rounds);
  const child = fork(new URL(import.meta.url).pathname, ['--server'], { stdio: 'inherit' });
  const port = await new Promise((resolve) => child.once('message', resolve));
  const url = `http://127.0.0.1:${port}/`;
  const control = { maxConcurrency: connections, initialConcurrency: connections };

  const rawAgent = new Agent({ connections });
  const interceptedAgent = new Agent({ connections, connect: timedConnect() });
  const intercepted = interceptedAgent.compose(ratewiseInterceptor(control));
  const fetchAgent = new Agent({ connections });
  const client = createClient(control);

  const contenders = [
    [
      'undici request (raw)',
      () => request(url, { dispatcher: rawAgent }).then((r) => r.body.dump()),
    ],
    [
      'undici request + ratewiseInterceptor',
      () => request(url, { dispatcher: intercepted }).then((r) => r.body.dump()),
    ],
    [
      'undici fetch (raw)',
      () => undiciFetch(url, { dispatcher: fetchAgent }).then((r) => r.arrayBuffer()),
    ],
    ['ratewise client.fetch', () => client.fetch(url).then((r) => r.arrayBuffer())],
  ];
  const results = new Map(contenders.map(([name]) => [name, []]));
  for (const [, once] of contenders) await drive(once, connections, 0.5); // warm up
  for (let round = 0; round < rounds; round++) {
    for (const [name, once] of contenders)
      results.get(name).push(await drive(once, connections, seconds));
  }
  await Promise.all([
    rawAgent.close(),
    interceptedAgent.close(),
    fetchAgent.close(),
    client.close(),
  ]);
  child.disconnect();

  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const rate = Object.fromEntries([...results].map(([name, xs]) => [name, median(xs)]));
  const baseline = {
    'undici request + ratewiseInterceptor': 'undici request (raw)',
    'ratewise client.fetch': 'undici fetch (raw)',
  };
  console.log(
    `node ${process.version}, ${connections} connections, ${rounds} × ${seconds} s per client, loopback immediate 200\n`,
  );
  console.log('| client | requests/s (median) | vs raw undici, same API | vs raw undici request |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name] of contenders) {
    const same = baseline[name]
      ? `${((100 * rate[name]) / rate[baseline[name]]).toFixed(1)} %`
      : '—';
    const vsRequest = `${((100 * rate[name]) / rate['undici request (raw)']).toFixed(1)} %`;
    console.log(`| ${name} | ${Math.round(rate[name])} | ${same} | ${vsRequest} |`);
  }
}

/** Runs `connections` loops of `once` for `seconds`; returns completed requests/s. */
async function drive(once, connections, seconds) {
  const until = performance.now() + seconds * 1000;
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        await once();
        done++;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
}
