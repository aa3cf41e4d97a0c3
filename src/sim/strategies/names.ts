/**
 * The name of every strategy `ratewise bench` compares, in the order of
 * `STRATEGIES` (a test keeps the two alike): `bench --help` lists them
 * without loading the strategies and the controller behind them.
 */
export const STRATEGY_NAMES: readonly string[] = [
  'naive',
  'fixed+jitter',
  'reference-aimd',
  'autothrottle',
  'sleep-0.5s',
  'ratewise',
];
