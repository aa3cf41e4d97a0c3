import type { Clock } from '../clock.js';
import { InvalidOptionError } from '../errors.js';
import { seededRandom } from '../random.js';
import type { Transport } from './transport.js';

/**
 * `transport` with real-world timing noise: each request reaches the server
 * 0..`maxMs` ms after it was sent, and its outcome (an answer or an error)
 * comes back 0..`maxMs` ms after the server gave it, uniformly drawn from a
 * stream of its own for the run's `seed` (the server's and the strategy's
 * draws stay as they were) — what a loaded process, loopback and a library's
 * own response handling put between a controller and a server. The
 * controller sees its send and report times, the server the arrival.
 * `maxMs` 0 returns `transport` itself.
 */
export function noisyTransport(
  transport: Transport,
  clock: Clock,
  maxMs: number,
  seed: number,
): Transport {
  if (!(Number.isFinite(maxMs) && maxMs >= 0)) {
    throw InvalidOptionError.invalid('simulate', 'timingNoiseMs', maxMs, 'a number of ms >= 0');
  }
  if (maxMs === 0) return transport;
  const random = seededRandom(`timing-noise:${seed}`);
  const late = () => clock.sleep(random.next() * maxMs);
  return {
    async send(request) {
      await late();
      try {
        return await transport.send(request);
      } finally {
        await late();
      }
    },
  };
}
