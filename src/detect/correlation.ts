/**
 * Ranks of `values` (1 = smallest), ties sharing their average rank — the
 * input of Spearman's rank correlation.
 */
export function ranks(values: readonly number[]): number[] {
  const order = values
    .map((_, i) => i)
    .sort((a, b) => (values[a] as number) - (values[b] as number));
  const out = new Array<number>(values.length);
  for (let start = 0; start < order.length; ) {
    let end = start;
    while (
      end + 1 < order.length &&
      values[order[end + 1] as number] === values[order[start] as number]
    )
      end++;
    const rank = (start + end) / 2 + 1;
    for (let k = start; k <= end; k++) out[order[k] as number] = rank;
    start = end + 1;
  }
  return out;
}

/** Centred sums of squares and cross-products of two equally long series. */
interface Moments {
  sxx: number;
  syy: number;
  sxy: number;
}

function moments(xs: readonly number[], ys: readonly number[]): Moments {
  const n = Math.min(xs.length, ys.length);
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += (xs[i] as number) / n;
    my += (ys[i] as number) / n;
  }
  const m: Moments = { sxx: 0, syy: 0, sxy: 0 };
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] as number) - mx;
    const dy = (ys[i] as number) - my;
    m.sxx += dx * dx;
    m.syy += dy * dy;
    m.sxy += dx * dy;
  }
  return m;
}

/** Pearson correlation in [−1, 1]; 0 when either series is constant or shorter than 2. */
export function pearson(xs: readonly number[], ys: readonly number[]): number {
  const { sxx, syy, sxy } = moments(xs, ys);
  if (!(sxx > 0 && syy > 0)) return 0;
  return clampUnit(sxy / Math.sqrt(sxx * syy));
}

/** Spearman rank correlation in [−1, 1] (Pearson of the ranks, ties averaged). */
export function spearman(xs: readonly number[], ys: readonly number[]): number {
  return pearson(ranks(xs), ranks(ys));
}

/**
 * Correlation of x and y with z held fixed, from the three pairwise
 * correlations; 0 when z explains x or y completely (nothing is left to correlate).
 */
export function partialCorrelation(rxy: number, rxz: number, ryz: number): number {
  const denominator = Math.sqrt((1 - rxz * rxz) * (1 - ryz * ryz));
  if (!(denominator > 1e-9)) return 0;
  return clampUnit((rxy - rxz * ryz) / denominator);
}

/** Least-squares slope of y on x; 0 when x is constant. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const { sxx, sxy } = moments(xs, ys);
  return sxx > 0 ? sxy / sxx : 0;
}

/**
 * Least-squares slopes of y on two predictors x and z together (y ≈ a + bx·x +
 * bz·z), so each slope is the effect of its predictor with the other held
 * fixed. Falls back to the simple slope on x (bz = 0) when z is constant or
 * (nearly) collinear with x.
 */
export function slopes2(
  xs: readonly number[],
  zs: readonly number[],
  ys: readonly number[],
): { bx: number; bz: number } {
  const xz = moments(xs, zs);
  const xy = moments(xs, ys);
  const zy = moments(zs, ys);
  const det = xz.sxx * xz.syy - xz.sxy * xz.sxy;
  if (!(xz.syy > 0) || !(det > 1e-9 * xz.sxx * xz.syy)) return { bx: slope(xs, ys), bz: 0 };
  const bx = (xz.syy * xy.sxy - xz.sxy * zy.sxy) / det;
  const bz = (xz.sxx * zy.sxy - xz.sxy * xy.sxy) / det;
  return { bx, bz };
}

function clampUnit(value: number): number {
  return Number.isFinite(value) ? Math.max(-1, Math.min(1, value)) : 0;
}
