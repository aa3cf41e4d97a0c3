import { describe, expect, it, vi } from 'vitest';
import { classify } from '../src/classify.js';
import {
  AdmissionTimeoutError,
  ClosedError,
  type ErrorCode,
  FetchFailedError,
  InvalidOptionError,
  RatewiseError,
  RedirectError,
  RedisTimeoutError,
  RedisUnreachableError,
  ReleaseError,
  ResponseTooLargeError,
  RetryAfterTooLongError,
  ScopePausedError,
  SinkClosedError,
  TooManyWindowsError,
  UnusableLogError,
  UsageError,
} from '../src/errors.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
  code: 'ECONNREFUSED',
});
const tried = { attempts: 2, elapsedMs: 300, capOption: 'refusedAttempts' };

/** One instance per code: the `satisfies` fails to compile when a code has no class here. */
const examples = {
  ERR_RATEWISE_INVALID_OPTION: () => InvalidOptionError.invalid('x', 'limit', -1, 'a number'),
  ERR_RATEWISE_TIMEOUT: () => new AdmissionTimeoutError('host:a', 10),
  ERR_RATEWISE_SCOPE_PAUSED: () => new ScopePausedError('host:a', 0, 1000, '429', '1 s'),
  ERR_RATEWISE_RETRY_AFTER_TOO_LONG: () => new RetryAfterTooLongError('http://a/', 9e6, 6e4),
  ERR_RATEWISE_CLOSED: () => new ClosedError('closed'),
  ERR_RATEWISE_RELEASE: () => new ReleaseError('no permit is held'),
  ERR_RATEWISE_FETCH_FAILED: () =>
    new FetchFailedError('http://a/', tried, { kind: 'refused', reason: 'ECONNREFUSED' }, refused),
  ERR_RATEWISE_RESPONSE_TOO_LARGE: () => new ResponseTooLargeError('http://a/', 10, 11),
  ERR_RATEWISE_REDIRECT: () => new RedirectError('http://a/', 'too many redirects'),
  ERR_RATEWISE_SINK_CLOSED: () => new SinkClosedError('events.jsonl: event after close()'),
  ERR_RATEWISE_UNUSABLE_LOG: () =>
    new UnusableLogError('x.log', { total: 0, understood: 0, malformed: 0 }),
  ERR_RATEWISE_TOO_MANY_WINDOWS: () => new TooManyWindowsError(1, 100),
  ERR_RATEWISE_USAGE: () => new UsageError('cannot read urls.txt: ENOENT'),
  ERR_RATEWISE_REDIS_TIMEOUT: () => new RedisTimeoutError(50),
  ERR_RATEWISE_REDIS_UNREACHABLE: () => new RedisUnreachableError('redis://x', refused),
} satisfies Record<ErrorCode, () => Error>;

describe('the errors module', () => {
  it.each(Object.entries(examples))(
    '%s: a RatewiseError with its own class and code',
    (code, make) => {
      const error = make();
      expect(error).toBeInstanceOf(RatewiseError);
      expect(error).toBeInstanceOf(Error);
      expect((error as RatewiseError).code).toBe(code);
      expect(error.name).toBe(error.constructor.name);
      expect(error.message.length).toBeGreaterThan(0);
    },
  );

  it('gives every code its own class', () => {
    const classes = Object.values(examples).map((make) => make().constructor);
    expect(new Set(classes).size).toBe(classes.length);
  });

  it('keeps FetchFailedError a TypeError, as fetch fails, and classifies it by its cause', () => {
    const error = examples.ERR_RATEWISE_FETCH_FAILED();
    expect(error).toBeInstanceOf(TypeError);
    expect(new ClosedError('x')).not.toBeInstanceOf(FetchFailedError);
    expect(classify(error)?.kind).toBe('refused');
    expect(classify(new ClosedError('x'))).toBeUndefined();
  });

  it('recognises errors from a second copy of the module, subclasses by name', async () => {
    vi.resetModules();
    const other = await import('../src/errors.js');
    expect(other.ClosedError).not.toBe(ClosedError);
    const closed = new other.ClosedError('closed');
    expect(closed).toBeInstanceOf(RatewiseError);
    expect(closed).toBeInstanceOf(ClosedError);
    expect(closed).not.toBeInstanceOf(UsageError);
    const failed = new other.FetchFailedError(
      'http://a/',
      tried,
      { kind: 'refused', reason: 'ECONNREFUSED' },
      refused,
    );
    expect(failed).toBeInstanceOf(FetchFailedError);
    expect(failed).toBeInstanceOf(RatewiseError);
    expect(new Error('plain')).not.toBeInstanceOf(RatewiseError);
    expect(Object.assign(new Error('x'), { name: 'ClosedError' })).not.toBeInstanceOf(ClosedError);
  });
});
