import { describe, expect, it } from 'vitest';
import { InvalidOptionError } from '../src/errors.js';
import {
  check,
  choice,
  custom,
  flag,
  given,
  hasMethods,
  number,
  passedOn,
} from '../src/option-rules.js';
import { defineOptions } from '../src/option-spec.js';

interface WidgetOptions {
  size?: number;
  most?: number;
  mode?: 'fast' | 'slow';
  loud?: boolean;
  name?: string;
  tick?: { next(): number };
  even?: number;
  label?: string;
}

const readWidget = defineOptions<WidgetOptions>()('Widget', {
  size: number(4, { min: 1, integer: true }),
  most: number(
    (earlier) => 2 * (earlier.size as number),
    (earlier) => ({
      min: earlier.size as number,
    }),
  ),
  mode: choice('fast', ['fast', 'slow']),
  loud: flag(false),
  name: given(),
  tick: check('an object with next()', hasMethods<{ next(): number }>('next')),
  even: custom((value = 0, fail) => {
    if (typeof value !== 'number' || value % 2 !== 0) fail('an even number');
    return value as number;
  }),
  label: given('widget'),
});

function errorOf(run: () => unknown): InvalidOptionError {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidOptionError) return error;
    throw error;
  }
  throw new Error('no error');
}

describe('defineOptions', () => {
  it('applies each default, a later one computed from an earlier setting', () => {
    expect(readWidget({})).toEqual({
      size: 4,
      most: 8,
      mode: 'fast',
      loud: false,
      name: undefined,
      tick: undefined,
      even: 0,
      label: 'widget',
    });
    expect(readWidget(undefined).most).toBe(8);
    expect(readWidget({ size: 10 }).most).toBe(20);
  });

  it('keeps what is given', () => {
    const tick = { next: () => 1 };
    const settings = readWidget({ size: 2, most: 3, mode: 'slow', loud: true, tick, even: 6 });
    expect(settings).toMatchObject({ size: 2, most: 3, mode: 'slow', loud: true, tick, even: 6 });
  });

  it('names the owner, the option, the value and what was expected', () => {
    expect(errorOf(() => readWidget({ size: 0.5 })).message).toBe(
      'Widget: option `size` must be an integer >= 1, got 0.5 (number)',
    );
    expect(errorOf(() => readWidget({ size: 5, most: 4 })).message).toBe(
      'Widget: option `most` must be a number >= 5, got 4 (number)',
    );
    expect(errorOf(() => readWidget({ mode: 'quick' as 'fast' })).message).toBe(
      'Widget: option `mode` must be one of "fast", "slow", got "quick" (string)',
    );
    expect(errorOf(() => readWidget({ loud: 1 as unknown as boolean })).option).toBe('loud');
    expect(errorOf(() => readWidget({ tick: {} as { next(): number } })).message).toBe(
      'Widget: option `tick` must be an object with next(), got a value of type object',
    );
    expect(errorOf(() => readWidget({ even: 3 })).message).toBe(
      'Widget: option `even` must be an even number, got 3 (number)',
    );
  });

  it('rejects an unknown key, listing the known ones in declaration order', () => {
    const error = errorOf(() => readWidget({ sise: 3 } as WidgetOptions));
    expect(error.option).toBe('sise');
    expect(error.message).toBe(
      'Widget: unknown option `sise` (known options: size, most, mode, loud, name, tick, even, label)',
    );
    expect(readWidget.keys).toEqual([
      'size',
      'most',
      'mode',
      'loud',
      'name',
      'tick',
      'even',
      'label',
    ]);
    expect(readWidget.owner).toBe('Widget');
  });

  it('rejects options that are not an object', () => {
    expect(errorOf(() => readWidget(7 as WidgetOptions)).message).toBe(
      'Widget: option `options` must be an object, got 7 (number)',
    );
  });

  it('names another owner when the reader is shared (as)', () => {
    expect(() => readWidget({ size: 0 }, 'Gadget')).toThrow(/^Gadget: option `size`/);
    expect(() => readWidget({ sise: 1 } as never, 'Gadget')).toThrow(
      /^Gadget: unknown option `sise`/,
    );
  });

  it('passes options another reader checks on as given, unknown keys still rejected', () => {
    interface Inner {
      depth?: number;
      tag?: string;
    }
    const readOuter = defineOptions<Inner & { size?: number }>()('Outer', {
      ...passedOn<Inner>(['depth', 'tag']),
      size: number(1),
    });
    expect(readOuter({ depth: -5 })).toEqual({ depth: -5, tag: undefined, size: 1 });
    expect(() => readOuter({ deep: 1 } as never)).toThrow(/unknown option `deep`/);
  });
});
