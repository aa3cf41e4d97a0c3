import { describe, expect, it } from 'vitest';
import { RaiseTrial } from '../../src/algorithms/raise-trial.js';

describe('RaiseTrial', () => {
  it('returns to where a raise started when the held rate is refused with a reading that is only a bound', () => {
    const trial = new RaiseTrial();
    trial.raised({ ceiling: 51.5, margin: 0.03, proven: true }); // held 49.96, narrowed to 50.26
    expect(trial.refuted(25.1, 50.26, false)).toEqual({
      ceiling: 51.5,
      margin: 0.03,
      proven: true,
    });
    expect(trial.refuted(25.1, 50.26, false)).toBeUndefined(); // the next cut ended the trial
  });

  it('leaves a cut alone where its refusal read more than the deepest cut, came to a probe, or the raise started higher', () => {
    const trial = new RaiseTrial();
    trial.raised({ ceiling: 32, proven: false });
    expect(trial.refuted(40, 64, false)).toBeUndefined(); // a reading, not a bound: the cut stands
    trial.raised({ ceiling: 32, proven: false });
    expect(trial.refuted(20, 64, true)).toBeUndefined(); // a probe's refusal
    trial.raised({ ceiling: 32, proven: false });
    expect(trial.refuted(15, 30, false)).toBeUndefined(); // held lower than where the raise began
    trial.raised({ ceiling: 32, proven: false });
    expect(trial.refuted(30, 64, false)).toEqual({ ceiling: 32, proven: false });
  });
});
