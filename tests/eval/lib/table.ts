/** Plain-text tables for the terminal. */

export function table(header: readonly string[], rows: readonly (readonly string[])[], align: readonly ('l' | 'r')[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: readonly string[]) =>
    cells.map((c, i) => ((align[i] ?? (i === 0 ? 'l' : 'r')) === 'l' ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n');
}

export const f3 = (x: number): string => x.toFixed(3);
