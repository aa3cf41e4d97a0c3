import { describe, expect, it } from 'vitest';
import { noJitter } from '../../src/backoff/no-jitter.js';
import { type AttemptSpec, runAttempts } from '../../src/client/attempts.js';
import { type RetryOptions, retryPolicy } from '../../src/client/retry-policy.js';
import { controlSetup } from '../../src/controller/defaults.js';
import { ScopeRegistry } from '../../src/controller/registry.js';
import type { RetryBudgetOptions } from '../../src/controller/retry-budget.js';
import { RetryAfterTooLongError } from '../../src/errors.js';
import { seededRandom } from '../../src/random.js';
import type { Signal } from '../../src/signal.js';
import { VirtualClock } from '../../src/virtual-clock.js';

/** What the scripted server answers: a status, with a Retry-After in ms if any. */
interface Reply {
  status: number;
  retryAfterMs?: number;
}

const BACKOFF_MS = 1000;

function setup(retry: RetryOptions = {}, retryBudget?: RetryBudgetOptions) {
  const clock = new VirtualClock();
  const registry = new ScopeRegistry({
    setup: controlSetup({
      breaker: false,
      latencyGuard: false,
      ...(retryBudget && { retryBudget }),
    }),
    clock,
    random: seededRandom(1),
  });
  const context = {
    registry,
    clock,
    random: seededRandom(2),
    retry: retryPolicy({ backoff: noJitter({ baseMs: BACKOFF_MS, capMs: BACKOFF_MS }), ...retry }),
  };
  return { clock, registry, context };
}

/** A request answered by `replies` in turn, recording when each attempt went and what was discarded. */
function scripted(clock: VirtualClock, replies: Reply[], extra: Partial<AttemptSpec<Reply>> = {}) {
  const sentAt: number[] = [];
  const discarded: Reply[] = [];
  let next = 0;
  const spec: AttemptSpec<Reply> = {
    url: 'http://127.0.0.1/x',
    method: 'GET',
    scopes: 'host:x',
    send: async () => {
      sentAt.push(clock.now());
      const reply = replies[next++];
      if (reply === undefined) throw new Error('the script ran out of replies');
      return reply;
    },
    classify: signalOf,
    discard: (reply) => {
      discarded.push(reply);
    },
    ...extra,
  };
  return { spec, sentAt, discarded };
}

function signalOf(reply: Reply): Signal {
  const kind = reply.status === 200 ? 'ok' : reply.status === 429 ? 'throttled' : 'server-error';
  const signal: Signal = { kind, reason: String(reply.status), status: reply.status };
  if (reply.retryAfterMs !== undefined) signal.retryAfterMs = reply.retryAfterMs;
  return signal;
}

/** Moves virtual time on until `promise` settles (waits for admission and backoffs are timers). */
async function settle<T>(clock: VirtualClock, promise: Promise<T>): Promise<T> {
  let done = false;
  const watched = promise.finally(() => {
    done = true;
  });
  watched.catch(() => undefined);
  for (let i = 0; i < 10_000 && !done; i++) await clock.advance(50);
  return watched;
}

describe('runAttempts', () => {
  it('retries a refusal through the controller until it succeeds, freeing each refused result', async () => {
    const { clock, registry, context } = setup();
    const request = scripted(clock, [{ status: 429 }, { status: 429 }, { status: 200 }]);
    const outcome = await settle(clock, runAttempts(context, request.spec));
    expect(outcome.attempts).toBe(3);
    expect(outcome.result?.status).toBe(200);
    expect(request.discarded.map((r) => r.status)).toEqual([429, 429]);
    expect(outcome.firstSentAt).toBe(request.sentAt[0]);
    expect(registry.get('host:x')?.inflight).toBe(0); // every attempt reported
    expect(registry.get('host:x')?.rate).toBeLessThan(Infinity); // the controller learned from them
  });

  it('returns the last outcome, undiscarded, when the attempts run out', async () => {
    const { clock, context } = setup({ maxAttempts: 2 });
    const request = scripted(clock, [{ status: 500 }, { status: 500 }, { status: 200 }]);
    const outcome = await settle(clock, runAttempts(context, request.spec));
    expect(outcome.attempts).toBe(2);
    expect(outcome.signal.kind).toBe('server-error');
    expect(outcome.result?.status).toBe(500);
    expect(request.discarded).toHaveLength(1);
  });

  it('sleeps the backoff before retrying a server error', async () => {
    const { clock, context } = setup();
    const request = scripted(clock, [{ status: 500 }, { status: 200 }]);
    await settle(clock, runAttempts(context, request.spec));
    const [first = 0, second = 0] = request.sentAt;
    expect(second - first).toBeGreaterThanOrEqual(BACKOFF_MS);
  });

  it('fails fast on a Retry-After longer than it may wait, freeing the result', async () => {
    const { clock, context } = setup({ maxRetryAfterMs: 60_000 });
    const request = scripted(clock, [{ status: 429, retryAfterMs: 600_000 }]);
    await expect(settle(clock, runAttempts(context, request.spec))).rejects.toThrow(
      RetryAfterTooLongError,
    );
    expect(request.discarded).toHaveLength(1);
  });

  it('retries a POST only when the server provably did not process it', async () => {
    const failed = setup();
    const post = scripted(failed.clock, [{ status: 500 }, { status: 200 }], { method: 'POST' });
    expect((await settle(failed.clock, runAttempts(failed.context, post.spec))).attempts).toBe(1);
    const refused = setup();
    const again = scripted(refused.clock, [{ status: 429 }, { status: 200 }], { method: 'POST' });
    expect((await settle(refused.clock, runAttempts(refused.context, again.spec))).attempts).toBe(
      2,
    );
  });

  it('charges each retry to every scope the request spans, and stops when one has none left', async () => {
    const { clock, registry, context } = setup({}, { reserve: 1, ratio: 0 });
    await registry.admit('host:b').then((permit) => permit.release()); // host:b exists first
    const request = scripted(clock, [{ status: 500 }, { status: 500 }, { status: 500 }], {
      scopes: ['account:a', 'host:b'],
    });
    const outcome = await settle(clock, runAttempts(context, request.spec));
    expect(outcome.attempts).toBe(2); // one retry in each budget
    expect(registry.get('account:a')?.retryBudget.balance).toBe(0);
    expect(registry.get('host:b')?.retryBudget.balance).toBe(0);
  });

  it('rejects with the caller’s reason when aborted during a backoff, sending nothing more', async () => {
    const { clock, context } = setup();
    const caller = new AbortController();
    const request = scripted(clock, [{ status: 500 }, { status: 200 }], { signal: caller.signal });
    const running = runAttempts(context, request.spec);
    running.catch(() => undefined);
    await clock.advance(BACKOFF_MS / 2);
    caller.abort(new Error('user gave up'));
    await expect(running).rejects.toThrow('user gave up');
    await clock.advance(2 * BACKOFF_MS);
    expect(request.sentAt).toHaveLength(1);
  });

  it('releases, without reporting, an attempt the caller aborted', async () => {
    const { clock, registry, context } = setup();
    const caller = new AbortController();
    const request = scripted(clock, [], {
      signal: caller.signal,
      send: async () => {
        caller.abort(new Error('cancelled mid-request'));
        throw new Error('aborted');
      },
    });
    await expect(settle(clock, runAttempts(context, request.spec))).rejects.toThrow('aborted');
    const scope = registry.get('host:x');
    const untouched = await registry.open('host:untouched');
    expect(scope?.inflight).toBe(0);
    // No outcome reached the algorithms: the scope is as one that never sent anything.
    expect(scope?.snapshot().limit).toEqual(untouched.snapshot().limit);
    expect(scope?.snapshot().rate).toEqual(untouched.snapshot().rate);
  });

  it('keeps the scope’s slot busy until a held result reports', async () => {
    const { clock, registry, context } = setup();
    let finish: (() => void) | undefined;
    const request = scripted(clock, [{ status: 200 }], {
      hold: (_reply, report) => {
        finish = () => report({});
      },
    });
    const outcome = await settle(clock, runAttempts(context, request.spec));
    expect(outcome.result?.status).toBe(200);
    expect(registry.get('host:x')?.inflight).toBe(1); // the body is still streaming
    finish?.();
    expect(registry.get('host:x')?.inflight).toBe(0);
  });
});
