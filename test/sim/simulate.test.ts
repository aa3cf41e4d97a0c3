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

  it('runs a batch to completion and times it', async () => {
    const { summary } = await simulate(scenario('ramp'), fixedJitter, { seed: 1 });
    expect(summary.ok).toBe(2000);
    expect(summary.batchS).toBeGreaterThan(30);
    expect(summary.finalQuarterRate).toBeGreaterThan(0);
  });
});
