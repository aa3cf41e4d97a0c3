import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { classify, isAbort } from '../../src/classify.js';
import type { Signal } from '../../src/signal.js';
import { REACTIONS } from '../../src/signal.js';

function expectWellFormed(signal: Signal | undefined): void {
  if (signal === undefined) return;
  expect(Object.keys(REACTIONS)).toContain(signal.kind);
  expect(typeof signal.reason).toBe('string');
  expect(signal.reason.length).toBeGreaterThan(0);
  if (signal.status !== undefined) expect(Number.isInteger(signal.status)).toBe(true);
  if (signal.retryAfterMs !== undefined) {
    expect(Number.isFinite(signal.retryAfterMs)).toBe(true);
    expect(signal.retryAfterMs).toBeGreaterThanOrEqual(0);
  }
}

/** An object whose every property read, `in` check and key listing throws. */
function hostileProxy(): object {
  const fail = (): never => {
    throw new Error('hostile');
  };
  return new Proxy(
    {},
    { get: fail, has: fail, ownKeys: fail, getPrototypeOf: fail, getOwnPropertyDescriptor: fail },
  );
}

function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function throwingGetters(keys: readonly string[]): object {
  const target = {};
  for (const key of keys) {
    Object.defineProperty(target, key, {
      enumerable: true,
      get() {
        throw new Error(`getter ${key}`);
      },
    });
  }
  return target;
}

const HOSTILE_KEYS = [
  'status',
  'statusCode',
  'headers',
  'body',
  'code',
  'name',
  'message',
  'cause',
  'errors',
  'response',
];

/** fast-check cannot carry hostile objects, so it generates tokens that {@link materialize} builds. */
const hostile = fc.oneof(
  fc.constant({ __hostile: 'proxy' }),
  fc.constant({ __hostile: 'revoked' }),
  fc.subarray(HOSTILE_KEYS, { minLength: 1 }).map((keys) => ({ __hostile: keys })),
);

function materialize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(materialize);
  if (
    typeof value !== 'object' ||
    value === null ||
    Object.getPrototypeOf(value) !== Object.prototype
  ) {
    return value;
  }
  if (Object.hasOwn(value, '__hostile')) {
    const spec = (value as { __hostile: unknown }).__hostile;
    if (spec === 'proxy') return hostileProxy();
    if (spec === 'revoked') return revokedProxy();
    return throwingGetters(spec as string[]);
  }
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, materialize(inner)]));
}

const headerValue = fc.oneof(fc.string(), fc.array(fc.string(), { maxLength: 3 }), fc.anything());
const headerName = fc.oneof(
  fc.constantFrom(
    'retry-after',
    'date',
    'x-ratelimit-remaining',
    'x-ratelimit-reset',
    'ratelimit',
    'ratelimit-policy',
    'cf-mitigated',
  ),
  fc.string(),
);
const headers = fc.oneof(
  fc.dictionary(headerName, headerValue),
  fc.array(fc.tuple(headerName, fc.string()), { maxLength: 5 }),
  fc.anything(),
  hostile,
);
const status = fc.oneof(
  fc.integer({ min: 100, max: 599 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.NaN, Infinity, -0),
);
const body = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme' }),
  fc.constantFrom(
    '<title>Just a moment...</title>',
    'rate limit exceeded',
    'captcha',
    'Error 1015',
  ),
  fc.anything(),
);

describe('classify never throws', () => {
  it('on arbitrary responses', () => {
    fc.assert(
      fc.property(
        status,
        headers,
        body,
        fc.option(fc.integer(), { nil: undefined }),
        (s, h, b, now) => {
          const options = now === undefined ? {} : { now };
          const signal = classify(
            { status: s, headers: materialize(h) as never, body: b },
            options,
          );
          expect(signal).toBeDefined();
          expectWellFormed(signal);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('on arbitrary thrown values, including cause chains', () => {
    const thrown = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.anything(),
        hostile,
        fc.record({
          code: fc.oneof(fc.string(), fc.constantFrom('ECONNRESET', 'ENOTFOUND', 'ABORT_ERR')),
          message: fc.string(),
        }),
        fc.record({
          name: fc.constantFrom('AbortError', 'TimeoutError', 'Error'),
          cause: tie('value'),
        }),
        fc.record({ errors: fc.array(tie('value'), { maxLength: 3 }) }),
        fc.record({ response: fc.record({ status, headers }) }),
      ),
    }));
    fc.assert(
      fc.property(thrown.value, (generated) => {
        const error = materialize(generated);
        expectWellFormed(classify(error));
        expect(typeof isAbort(error)).toBe('boolean');
      }),
      { numRuns: 2000 },
    );
  });

  it('on hostile values at every level, and with a throwing predicate', () => {
    const throwingPredicate = () => {
      throw new Error('predicate bug');
    };
    for (const make of [hostileProxy, revokedProxy, () => throwingGetters(HOSTILE_KEYS)]) {
      expectWellFormed(classify(make()));
      expect(isAbort(make())).toBe(false);
      expectWellFormed(
        classify(
          { status: 403, headers: make(), body: 'captcha' },
          { isBlocked: throwingPredicate },
        ),
      );
      expectWellFormed(classify(new TypeError('fetch failed', { cause: make() })));
      expectWellFormed(classify({ response: make() }));
      expectWellFormed(classify(new AggregateError([make(), make()])));
    }
    const headersWithThrowingGet = {
      get: () => {
        throw new Error('get');
      },
      has: () => true,
    };
    expect(classify({ status: 429, headers: headersWithThrowingGet as never })).toEqual({
      kind: 'throttled',
      reason: '429',
      status: 429,
    });
    expect(
      classify({ status: 403, headers: {}, body: 'captcha' }, { isBlocked: throwingPredicate })
        .kind,
    ).toBe('blocked');
  });
});

describe('classify options', () => {
  it('are validated with a message naming the option and the value', () => {
    const response = { status: 200, headers: {} };
    expect(() => classify(response, { now: Number.NaN })).toThrow(
      /classify: option `now` must be a number, got NaN/,
    );
    expect(() => classify(response, { isBlocked: true as never })).toThrow(
      /`isBlocked` must be a function/,
    );
    expect(() => classify(response, { blockMarkers: ['captcha'] as never })).toThrow(
      /`blockMarkers` must be an array of RegExp/,
    );
    expect(() => classify(response, { blockMarker: [] } as never)).toThrow(
      /unknown option `blockMarker`/,
    );
    expect(() => classify(response, null as never)).toThrow(
      /`options` must be an object, got null/,
    );
  });
});
