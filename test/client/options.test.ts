import { Agent } from 'undici';
import { describe, expect, it } from 'vitest';
import { createClient } from '../../src/client/client.js';
import { ratewiseInterceptor } from '../../src/client/interceptor.js';
import { InvalidOptionError } from '../../src/errors.js';

describe('client options are validated at construction', () => {
  it.each([
    [{ maxConcurency: 3 }, /unknown option `maxConcurency`/],
    [{ timeoutMs: -1 }, /`timeoutMs` must be a number >= 1 \(or Infinity\), got -1 \(number\)/],
    [{ maxRedirects: 1.5 }, /`maxRedirects` must be an integer >= 0, got 1.5/],
    [{ maxConcurrency: 8, connections: 4 }, /`connections` must be an integer >= 8, got 4/],
    [{ maxConcurrency: 0 }, /`maxConcurrency` must be an integer >= 1, got 0/],
    [{ scope: 'host' }, /`scope` must be a scope resolver/],
    [{ retry: { maxAttempts: 0 } }, /`maxAttempts` must be an integer >= 1/],
    [{ classify: { blockMarkers: 'captcha' } }, /`blockMarkers` must be an array of RegExp/],
    [{ retry: null }, /createClient: option `retry` must be an object of retry options, got null/],
    [{ classify: 5 }, /option `classify` must be an object of classify options, got 5 \(number\)/],
    [{ retry: { retryUnsafe: 'no' } }, /option `retryUnsafe` must be a boolean, got "no"/],
    [{ retry: { backoff: 500 } }, /option `backoff` must be a Backoff such as fullJitter\(\)/],
    [{ clock: Date }, /option `clock` must be a Clock, got a value of type function/],
    [{ random: Math.random }, /option `random` must be a Random/],
    [{ store: new Map() }, /option `store` must be a StateStore/],
    [
      { dispatcher: new Agent(), connections: 64 },
      /`connections` must be left unset when `dispatcher` is given/,
    ],
  ])('%o', (options, message) => {
    const build = () => createClient(options as never);
    expect(build).toThrow(InvalidOptionError);
    expect(build).toThrow(message);
  });

  it('the interceptor rejects client-only options', () => {
    expect(() => ratewiseInterceptor({ maxRedirects: 3 } as never)).toThrow(
      /unknown option `maxRedirects`/,
    );
  });

  it('errors name the entry point that took the options', () => {
    expect(() => ratewiseInterceptor({ idleMs: -1 })).toThrow(
      /^ratewiseInterceptor: option `idleMs`/,
    );
    expect(() => createClient({ idleMs: -1 })).toThrow(/^createClient: option `idleMs`/);
    expect(() => createClient({ classify: { now: 1 } } as never)).toThrow(
      /createClient\.classify: unknown option `now`/,
    );
  });

  it('a dispatcher excludes connectTimeoutMs; a bad one is named', () => {
    expect(() => createClient({ dispatcher: new Agent(), connectTimeoutMs: 5 })).toThrow(
      /`connectTimeoutMs` must be left unset when `dispatcher` is given/,
    );
    expect(() => createClient({ dispatcher: {} as never })).toThrow(
      /option `dispatcher` must be an undici Dispatcher/,
    );
  });
});
