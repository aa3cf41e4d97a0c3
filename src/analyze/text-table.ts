/** A column of a {@link textTable}: its header and whether numbers align right. */
export interface TextColumn {
  header: string;
  /** @default 'right' */
  align?: 'left' | 'right';
}

/**
 * Renders rows as a plain-text table with a header line, columns padded to
 * their widest cell and separated by two spaces. Cells are strings already
 * formatted by the caller; trailing spaces are trimmed.
 */
export function textTable(
  columns: readonly TextColumn[],
  rows: readonly (readonly string[])[],
): string {
  const widths = columns.map((column, i) =>
    Math.max(column.header.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    columns
      .map((column, i) => {
        const cell = cells[i] ?? '';
        const width = widths[i] ?? 0;
        return column.align === 'left' ? cell.padEnd(width) : cell.padStart(width);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((c) => c.header)), ...rows.map(line)].join('\n');
}

/** A number of ms rounded for a table (`-` when unknown). */
export function formatMs(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-';
  return value >= 100 ? String(Math.round(value)) : value.toFixed(1);
}

/** A rate or ratio with one or two decimals (`-` when unknown). */
export function formatNumber(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-';
  return value.toFixed(digits);
}

/** `+m:ss` (or `+h:mm:ss`) from seconds; `-m:ss` before the start. */
export function formatOffset(seconds: number): string {
  const rounded = Math.round(seconds);
  const sign = rounded < 0 ? '-' : '+';
  const total = Math.abs(rounded);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, '0');
  return h > 0 ? `${sign}${h}:${String(m).padStart(2, '0')}:${s}` : `${sign}${m}:${s}`;
}
