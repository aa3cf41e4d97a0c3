import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../../src/errors.js';
import { readFleetOptions } from '../../src/redis/fleet-options.js';

describe('readFleetOptions', () => {
  it('applies the defaults, horizonMs following leaseMs', () => {
    const settings = readFleetOptions({ url: 'redis://127.0.0.1:6379', leaseMs: 3000 });
    expect(settings).toMatchObject({
      prefix: 'rw',
      leaseMs: 3000,
      horizonMs: 3000,
      renewMs: 1000,
      callTimeoutMs: 100,
      rateLeaseMinRequests: 16,
    });
    expect(settings.workerId).toMatch(/-\d+-[0-9a-f]{6}$/);
  });

  it.each([
    [{}, /option `url` must be given alone \(or `client`, or `link`\)/],
    [{ url: 'redis://a', client: {} }, /option `url` must be given alone/],
    [{ url: 'http://a' }, /option `url` must be a redis:\/\/ or rediss:\/\/ URL/],
    [{ url: 'redis://a', prefix: 'a b' }, /option `prefix` must be letters, digits, _ \. or -/],
    [{ url: 'redis://a', leaseMs: 50 }, /option `leaseMs` must be an integer >= 100, got 50/],
    [{ url: 'redis://a', log: 'x' }, /option `log` must be a function/],
    [{ url: 'redis://a', leaseMS: 5000 }, /unknown option `leaseMS`/],
  ])('%o', (options, message) => {
    const read = () => readFleetOptions(options as never);
    expect(read).toThrow(InvalidOptionError);
    expect(read).toThrow(message);
  });
});
