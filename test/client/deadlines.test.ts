import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Deadlines } from '../../src/client/deadlines.js';
import { VirtualClock } from '../../src/virtual-clock.js';

describe('Deadlines', () => {
  it('fires each deadline at its time, in order, on one timer', async () => {
    const clock = new VirtualClock();
    const deadlines = new Deadlines(clock);
    const fired: string[] = [];
    deadlines.add(100, () => fired.push(`a@${clock.now()}`));
    deadlines.add(300, () => fired.push(`b@${clock.now()}`));
    deadlines.add(50, () => fired.push(`early@${clock.now()}`));
    expect(clock.pendingTimers).toBe(1);
    await clock.run();
    expect(fired).toEqual(['early@50', 'a@100', 'b@300']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('never fires a cancelled deadline, and keeps no timer once none is left', async () => {
    const clock = new VirtualClock();
    const deadlines = new Deadlines(clock);
    const fired: number[] = [];
    const first = deadlines.add(100, () => fired.push(1));
    const second = deadlines.add(200, () => fired.push(2));
    first.cancel();
    await clock.advance(150);
    expect(fired).toEqual([]);
    second.cancel();
    second.cancel();
    expect(clock.pendingTimers).toBe(0);
    await clock.run();
    expect(fired).toEqual([]);
  });

  it('lets a firing deadline add another', async () => {
    const clock = new VirtualClock();
    const deadlines = new Deadlines(clock);
    const fired: number[] = [];
    deadlines.add(10, () => deadlines.add(10, () => fired.push(clock.now())));
    deadlines.add(100, () => fired.push(clock.now()));
    await clock.run();
    expect(fired).toEqual([20, 100]);
  });

  it('fires exactly the deadlines not cancelled in time, each at its due time', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({ at: fc.nat(50), ms: fc.nat(200), cancelAfter: fc.option(fc.nat(300)) }),
          { maxLength: 30 },
        ),
        async (plans) => {
          const clock = new VirtualClock();
          const deadlines = new Deadlines(clock);
          const fired = new Map<number, number>();
          plans.forEach(({ at, ms, cancelAfter }, index) => {
            clock.setTimer(at, () => {
              const deadline = deadlines.add(ms, () => fired.set(index, clock.now()));
              if (cancelAfter !== null) clock.setTimer(cancelAfter, () => deadline.cancel());
            });
          });
          await clock.run();
          plans.forEach(({ at, ms, cancelAfter }, index) => {
            // A cancel due at the very moment of the deadline may run either side of it.
            if (cancelAfter === null || cancelAfter > ms) expect(fired.get(index)).toBe(at + ms);
            else if (cancelAfter < ms) expect(fired.has(index)).toBe(false);
          });
          expect(clock.pendingTimers).toBe(0);
        },
      ),
    );
  });
});
