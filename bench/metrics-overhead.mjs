// The cost of metrics on client.fetch throughput: the same client without and with the
// Prometheus collector (and its diagnostics_channel subscriptions), side by side.
//
//   npm run build && node bench/metrics-overhead.mjs [--connections 32] [--seconds 3] [--rounds 5]
//
// Two measures, rounds alternating the two clients so drift hits both alike, a scrape once a
// second during the metered rounds as Prometheus would do:
// - in process: a dispatcher that answers at once without a socket, so the figure is
//   ratewise's own CPU per request, the part metrics add to (steady on a shared machine);
// - loopback: a server in a child process answering every request at once (200, 2-byte body),
//   C workers per client looping request → read body (noisy on a shared machine).
// Each metered round is compared with the plain round just before it (paired ratios: drift
// between rounds cancels); the table gives their median and range.
// Target: metrics cost ≤ 3 % of client.fetch throughput.
import { Registry } from 'prom-client';
import { createClient } from '../dist/client/client.js';
import { prometheusMetrics } from '../dist/integrations/prometheus.js';
import { drive, driveArgs, instantDispatcher, median, startOkServer } from './harness.mjs';

await main();

async function main() {
  const { connections, seconds, rounds } = driveArgs(5);
  const server = await startOkServer();
  const url = server.url;
  // The latency guard reads loopback jitter as soft throttling; off, the rows measure cost.
  const control = {
    maxConcurrency: connections,
    initialConcurrency: connections,
    latencyGuard: false,
  };
  const viaFetch = (client) => () => client.fetch(url).then((r) => r.arrayBuffer());
  const clients = [];
  const pair = (label, extra) => {
    const plain = createClient({ ...control, ...extra });
    const metered = createClient({ ...control, ...extra });
    const register = new Registry();
    const scrape = async () => (await register.metrics()).length;
    clients.push(plain, metered, prometheusMetrics({ registry: metered.registry, register }));
    return [
      [`${label}: client.fetch`, viaFetch(plain), undefined],
      [`${label}: client.fetch + prometheusMetrics`, viaFetch(metered), scrape],
    ];
  };
  const contenders = [
    ...pair('in process', { dispatcher: instantDispatcher() }),
    ...pair('loopback', {}),
  ];
  const results = new Map(contenders.map(([name]) => [name, []]));
  for (const [, once] of contenders) await drive(once, connections, 0.5); // warm up
  let bytes = 0;
  for (let round = 0; round < rounds; round++) {
    for (const [name, once, scraper] of contenders) {
      const timer = scraper && setInterval(() => scraper().then((n) => (bytes = n)), 1000);
      results.get(name).push(await drive(once, connections, seconds));
      if (timer) clearInterval(timer);
    }
  }
  await Promise.all(clients.map((c) => c.close()));
  server.stop();

  console.log(
    `node ${process.version}, ${connections} connections, ${rounds} × ${seconds} s per client, loopback immediate 200; last scrape ${bytes} bytes\n`,
  );
  console.log(
    '| client | requests/s (median) | vs client.fetch, paired (median [min–max]) | CPU µs/request (median) | vs client.fetch, paired (median [min–max]) |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [name, , scraper] of contenders) {
    const rounds = results.get(name);
    const base = results.get(scraper ? name.replace(' + prometheusMetrics', '') : name);
    const paired = (key) => {
      const ratios = rounds.map((r, i) => (100 * r[key]) / base[i][key]).sort((a, b) => a - b);
      return `${median(ratios).toFixed(1)} % [${ratios[0].toFixed(1)}–${ratios.at(-1).toFixed(1)}]`;
    };
    const rate = median(rounds.map((r) => r.rate));
    const cpu = median(rounds.map((r) => r.cpuUs));
    console.log(
      `| ${name} | ${Math.round(rate)} | ${paired('rate')} | ${cpu.toFixed(1)} | ${paired('cpuUs')} |`,
    );
  }
}
