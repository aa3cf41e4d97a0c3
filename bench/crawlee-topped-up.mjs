// Crawlee's HttpCrawler as the integrations benchmarks run it: its queue starts at 200 URLs of
// `base` and gets 100 more whenever fewer are left, so a run enqueues what it uses (18,000 up front
// cost 1.4 s of CPU).
import { Configuration } from '@crawlee/core';
import { HttpCrawler } from '@crawlee/http';

/** Builds the crawler with `options` (client, pool); `start()` runs it from its first 200 URLs. */
export function toppedUpCrawler(base, options) {
  let [enqueued, finished] = [0, 0];
  const more = (n) => Array.from({ length: n }, () => `${base}/item/${enqueued++}`);
  const topUp = async () => {
    if (enqueued - ++finished < 100) await crawler.addRequests(more(100));
  };
  const crawler = new HttpCrawler(
    {
      ...options,
      additionalMimeTypes: ['text/plain'],
      requestHandler: () => topUp(),
      failedRequestHandler: () => topUp(),
    },
    new Configuration({ persistStorage: false, purgeOnStart: true }),
  );
  return { crawler, start: () => crawler.run(more(200)) };
}
