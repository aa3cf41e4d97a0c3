import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../src/errors.js';
import { savedNumbers } from '../src/options.js';

describe('savedNumbers', () => {
  const rules = { count: { min: 0, integer: true }, at: {} };

  it('reads each field the rules name, a missing one taking its fallback, and nothing else', () => {
    const saved = { count: 3, extra: 'ignored' };
    expect(savedNumbers('Widget state', saved, rules, 7)).toEqual({ count: 3, at: 7 });
    expect(savedNumbers('Widget state', {}, rules, { count: 1, at: -5 })).toEqual({
      count: 1,
      at: -5,
    });
  });

  it('rejects the first malformed field, naming the owner, the field and the rule', () => {
    const read = () => savedNumbers('Widget state', { count: 1.5, at: 'soon' }, rules, 0);
    expect(read).toThrow(InvalidOptionError);
    expect(read).toThrow(/Widget state.*`count` must be an integer >= 0, got 1\.5/);
    expect(() => savedNumbers('Widget state', { at: 'soon' }, rules, 0)).toThrow(/`at`.*soon/);
  });
});
