// Client throughput: ratewise against raw undici, same connection count, side by side.
//
//   npm run build && node bench/client-throughput.mjs [--connections 32] [--seconds 3] [--rounds 3]
//
// A loopback server in a child process answers every request at once (200, 2-byte
// body). C workers per client loop request → read body. Each client runs for
// --seconds per round, rounds interleaved so drift hits all alike; the table shows
// the median requests/s and its ratio to the raw undici form with the same API. Rows
// with the latency guard off isolate the client's own cost from controller decisions.
import { Agent, request, fetch as undiciFetch } from 'undici';
import { createClient } from '../dist/client/client.js';
import { timedConnect } from '../dist/client/connection-timings.js';
import { ratewiseInterceptor } from '../dist/client/interceptor.js';
import { drive, driveArgs, median, startOkServer } from './harness.mjs';

await main();

async function main() {
  const { connections, seconds, rounds } = driveArgs(3);
  const server = await startOkServer();
  const url = server.url;
  const control = { maxConcurrency: connections, initialConcurrency: connections };
  // The latency guard reads sub-millisecond jitter as soft throttling and slows down;
  // without it the rows measure the client's own cost.
  const unguarded = { ...control, latencyGuard: false };

  const rawAgent = new Agent({ connections });
  // undici's compose() with an interceptor that only passes the request on: the cost of the
  // interceptor plumbing itself, the realistic ceiling of any interceptor.
  const passthroughAgent = new Agent({ connections });
  const passthrough = passthroughAgent.compose(
    (dispatch) => (opts, handler) => dispatch(opts, handler),
  );
  const interceptedAgent = new Agent({ connections, connect: timedConnect() });
  const intercepted = interceptedAgent.compose(ratewiseInterceptor(control));
  const unguardedAgent = new Agent({ connections, connect: timedConnect() });
  const interceptedUnguarded = unguardedAgent.compose(ratewiseInterceptor(unguarded));
  const fetchAgent = new Agent({ connections });
  const client = createClient(control);
  const clientUnguarded = createClient(unguarded);
  const viaRequest = (dispatcher) => () => request(url, { dispatcher }).then((r) => r.body.dump());
  const viaFetch = (fetch) => () => fetch(url).then((r) => r.arrayBuffer());

  const contenders = [
    ['undici request (raw)', viaRequest(rawAgent), undefined],
    ['undici request + do-nothing interceptor', viaRequest(passthrough), 'undici request (raw)'],
    ['undici request + ratewiseInterceptor', viaRequest(intercepted), 'undici request (raw)'],
    [
      'undici request + ratewiseInterceptor, latencyGuard off',
      viaRequest(interceptedUnguarded),
      'undici request (raw)',
    ],
    ['undici fetch (raw)', viaFetch((u) => undiciFetch(u, { dispatcher: fetchAgent })), undefined],
    ['ratewise client.fetch', viaFetch(client.fetch), 'undici fetch (raw)'],
    [
      'ratewise client.fetch, latencyGuard off',
      viaFetch(clientUnguarded.fetch),
      'undici fetch (raw)',
    ],
  ];
  const results = new Map(contenders.map(([name]) => [name, []]));
  for (const [, once] of contenders) await drive(once, connections, 0.5); // warm up
  for (let round = 0; round < rounds; round++) {
    for (const [name, once] of contenders)
      results.get(name).push((await drive(once, connections, seconds)).rate);
  }
  await Promise.all([
    rawAgent.close(),
    passthroughAgent.close(),
    interceptedAgent.close(),
    unguardedAgent.close(),
    fetchAgent.close(),
    client.close(),
    clientUnguarded.close(),
  ]);
  server.stop();

  const rate = Object.fromEntries([...results].map(([name, xs]) => [name, median(xs)]));
  const percent = (name, of) => `${((100 * rate[name]) / rate[of]).toFixed(1)} %`;
  console.log(
    `node ${process.version}, ${connections} connections, ${rounds} × ${seconds} s per client, loopback immediate 200\n`,
  );
  console.log('| client | requests/s (median) | vs raw undici, same API | vs raw undici request |');
  console.log('| --- | ---: | ---: | ---: |');
  for (const [name, , sameApi] of contenders) {
    const same = sameApi ? percent(name, sameApi) : '—';
    console.log(
      `| ${name} | ${Math.round(rate[name])} | ${same} | ${percent(name, 'undici request (raw)')} |`,
    );
  }
}
