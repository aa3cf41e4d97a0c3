import { describe, expect, it } from 'vitest';
import { Silence } from '../../src/redis/silence.js';
import { VirtualClock } from '../../src/virtual-clock.js';

describe('Silence', () => {
  it('counts the time since Redis answered, less the time the worker itself was not running', async () => {
    const clock = new VirtualClock();
    const silence = new Silence(clock);
    await clock.advance(700);
    silence.timerRan(100, 650); // descheduled from 100 to 650 ms
    silence.timerRan(120, 652); // a second timer of the same stall counts only past the first
    expect(silence.sinceHeardMs).toBe(700);
    expect(silence.ownDelayMs).toBe(552);
    expect(silence.ms).toBe(148);
    silence.heard();
    await clock.advance(300);
    silence.timerRan(650, 660); // before Redis last answered: not part of this silence
    expect(silence.ms).toBe(300);
  });
});
