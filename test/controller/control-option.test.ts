import { Writable } from 'node:stream';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdaptiveRate } from '../../src/algorithms/adaptive-rate.js';
import { GradientLimit } from '../../src/algorithms/gradient.js';
import { createClient } from '../../src/client/client.js';
import { ratewiseInterceptor } from '../../src/client/interceptor.js';
import { controlSetup } from '../../src/controller/defaults.js';
import type { ScopeFactory } from '../../src/controller/registry.js';
import { runCrawl } from '../../src/crawl/run-crawl.js';
import { InvalidOptionError } from '../../src/errors.js';
import { startServer, type TestServer } from '../client/helpers.js';

let server: TestServer;
let scope: string;
beforeAll(async () => {
  server = await startServer((_req, res) => res.end('ok'));
  scope = `host:${new URL(server.url).host}`;
});
afterAll(() => server.close());

/** A factory that builds a gradient limit and records the scopes it was called for. */
function gradient(): { control: ScopeFactory; scopes: string[] } {
  const scopes: string[] = [];
  const control: ScopeFactory = (name) => {
    scopes.push(name);
    return { limit: new GradientLimit({ initialLimit: 3 }), rate: new AdaptiveRate() };
  };
  return { control, scopes };
}

/** Whether the scope's saved limit state is a gradient limit's (AIMD's has no round-trip times). */
function usesGradient(state: Record<string, unknown> | undefined): boolean {
  return state !== undefined && 'noLoadRtt' in state && 'shortRtt' in state;
}

describe('the control option', () => {
  it('lets createClient run the algorithms it builds, once per scope', async () => {
    const { control, scopes } = gradient();
    const client = createClient({ control });
    for (let i = 0; i < 3; i++) await (await client.fetch(`${server.url}/a${i}`)).text();
    const snapshot = client.registry.get(scope)?.snapshot();
    await client.close();
    expect(scopes).toEqual([scope]);
    expect(usesGradient(snapshot?.limit)).toBe(true);
    // Without it, the default: AIMD.
    const plain = createClient();
    await (await plain.fetch(`${server.url}/b`)).text();
    const aimd = plain.registry.get(scope)?.snapshot();
    await plain.close();
    expect(usesGradient(aimd?.limit)).toBe(false);
  });

  it('lets ratewiseInterceptor and runCrawl run them too', async () => {
    const viaInterceptor = gradient();
    const interceptor = ratewiseInterceptor({ control: viaInterceptor.control });
    const dispatcher = new Agent().compose(interceptor);
    await (await request(`${server.url}/c`, { dispatcher })).body.text();
    expect(usesGradient(interceptor.registry.get(scope)?.snapshot().limit)).toBe(true);
    await dispatcher.close();
    await interceptor.registry.close();

    const viaCrawl = gradient();
    const summary = await runCrawl({
      urls: [`${server.url}/d`, `${server.url}/e`],
      out: new Writable({ write: (_chunk, _encoding, done) => done() }),
      control: viaCrawl.control,
    });
    expect(viaCrawl.scopes).toEqual([scope]);
    expect(summary.ok).toBe(2);
  });

  it('hands the factory the scope and fills in the scope settings it leaves out', () => {
    const calls: unknown[] = [];
    const setup = controlSetup({
      control: (name) => {
        calls.push(name);
        return { limit: new GradientLimit(), rate: new AdaptiveRate(), breaker: false };
      },
      breaker: { threshold: 3 },
      retryBudget: { reserve: 1 },
    });
    const built = setup('host:a');
    expect(calls).toEqual(['host:a']);
    expect(built.breaker).toBe(false); // the factory's own choice wins
    expect(built.retryBudget).toEqual({ reserve: 1 });
  });

  it('rejects the default algorithms’ options beside it, and a control that is not a function', () => {
    const control: ScopeFactory = () => ({ limit: new GradientLimit(), rate: new AdaptiveRate() });
    for (const options of [{ maxConcurrency: 8 }, { rate: 2 }, { refusedShare: 0 }, { aimd: {} }]) {
      const key = Object.keys(options)[0];
      expect(() => createClient({ control, ...options })).toThrow(InvalidOptionError);
      expect(() => createClient({ control, ...options })).toThrow(
        new RegExp(`option \`${key}\` configures the default algorithms`),
      );
    }
    expect(() => createClient({ control: 'gradient' as never })).toThrow(
      /option `control` must be a function/,
    );
  });

  it('checks refusedShare, the probing budget, naming the value and what it must be', () => {
    expect(() => createClient({ refusedShare: 1 })).toThrow(InvalidOptionError);
    expect(() => createClient({ refusedShare: 1 })).toThrow(
      /option `refusedShare` must be a number >= 0 and <= 0\.5, got 1/,
    );
    expect(() => createClient({ refusedShare: -0.01 })).toThrow(/refusedShare/);
    expect(() => controlSetup({ refusedShare: 0.005, aimd: { refusedShare: 0.2 } })).not.toThrow();
  });
});
