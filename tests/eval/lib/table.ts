/** Plain-text tables for the terminal. */

export function table(header: readonly string[], rows: readonly (readonly string[])[], align: readonly ('l' | 'r')[] = []): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmt = (cells: readonly string[]) =>
    cells.map((c, i) => ((align[i] ?? (i === 0 ? 'l' : 'r')) === 'l' ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n');
}

export const f3 = (x: number): string => x.toFixed(3);

/** JSON with arrays of plain values on one line (per-query rows stay one line each) and numbers to 4 places. */
export function formatJson(value: unknown): string {
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 10000) / 10000 : v), 1);
  return text.replace(/\[\s+([^[\]{}]*?)\s+\]/g, (_m, inner: string) => `[${inner.replace(/\s*\n\s*/g, ' ')}]`) + '\n';
}
