import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ControlEvent } from '../../src/events/event.js';
import { findScenario, type Scenario } from '../../src/sim/scenarios.js';
import { simulate } from '../../src/sim/simulate.js';
import {
  fixedJitter,
  naive,
  ratewise,
  type StrategyContext,
} from '../../src/sim/strategies/index.js';

const scenario = (name: string): Scenario => {
  const found = findScenario(name);
  if (!found) throw new Error(`no scenario ${name}`);
  return found;
};

async function fingerprint(seed: number): Promise<string> {
  const events: ControlEvent[] = [];
  const { summary, log } = await simulate(scenario('reference-000'), ratewise, {
    seed,
    durationMs: 60_000,
    events: (event) => events.push(event),
  });
  const hash = createHash('sha256');
  hash.update(JSON.stringify(summary));
  hash.update(JSON.stringify([log.sentAt, log.doneAt, log.status]));
  for (const event of events) hash.update(JSON.stringify(event));
  return hash.digest('hex');
}

describe('simulate', () => {
  it('is deterministic: the same seed gives the same exchanges, events and summary, byte for byte', async () => {
    const first = await fingerprint(7);
    expect(await fingerprint(7)).toBe(first);
    expect(await fingerprint(8)).not.toBe(first);
  });

  it('records every exchange of every strategy and stops at the deadline', async () => {
    const { summary, log } = await simulate(scenario('reference-000'), naive, {
      seed: 1,
      durationMs: 20_000,
    });
    expect(log.size).toBe(summary.requests);
    expect(summary.requests).toBeGreaterThan(500);
    expect(Math.max(...log.sentAt)).toBeLessThan(20_000);
    // naive retries 429s without waiting for Retry-After: the herd shows as rejections
    expect(summary.rejectedShare).toBeGreaterThan(0.3);
  });

  it('rejects with the error of a strategy that fails, once the clock has run', async () => {
    const broken = {
      name: 'broken',
      description: 'fails after its first request',
      run: async (context: StrategyContext) => {
        await context.transport.send({ path: '/x' });
        throw new Error('strategy bug');
      },
    };
    await expect(simulate(scenario('healthy'), broken, { durationMs: 1000 })).rejects.toThrow(
      'strategy bug',
    );
  });

  it('puts seeded timing noise between a strategy and the server when asked', async () => {
    // One request at a time: the strategy sees each exchange take the server's time (the log's)
    // plus 0..N ms before the server and 0..N ms after it.
    const run = async (timingNoiseMs?: number) => {
      const seen: number[] = [];
      const sequential = {
        name: 'sequential',
        description: 'one request at a time',
        run: async ({ clock, transport, work }: StrategyContext) => {
          for (let path = work.next(); path !== undefined; path = work.next()) {
            const sentAt = clock.now();
            await transport.send({ path });
            seen.push(clock.now() - sentAt);
            work.complete();
          }
        },
      };
      const options = { seed: 3, durationMs: 5000, ...(timingNoiseMs ? { timingNoiseMs } : {}) };
      const { log } = await simulate(scenario('healthy'), sequential, options);
      const server = log.doneAt.map((done, i) => done - (log.sentAt[i] as number));
      return { seen, added: seen.map((ms, i) => ms - (server[i] as number)), log };
    };
    const quiet = await run();
    expect(quiet.added.every((ms) => ms === 0)).toBe(true);
    const noisy = await run(30);
    expect(Math.min(...noisy.added)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...noisy.added)).toBeLessThanOrEqual(60);
    expect(Math.max(...noisy.added)).toBeGreaterThan(40); // spread over the whole range
    expect(noisy.log.sentAt[1]).toBeGreaterThan(quiet.log.sentAt[1] as number); // arrivals late
    expect((await run(30)).seen).toEqual(noisy.seen); // seeded
    await expect(run(-1)).rejects.toThrow(/timingNoiseMs.*>= 0/);
  });

  it('runs a batch to completion and times it', async () => {
    const { summary } = await simulate(scenario('ramp'), fixedJitter, { seed: 1 });
    expect(summary.ok).toBe(2000);
    expect(summary.batchS).toBeGreaterThan(30);
    expect(summary.finalQuarterRate).toBeGreaterThan(0);
  });
});
