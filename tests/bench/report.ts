/** Statistics, markdown tables, the machine description and result files. */
import { cpus, totalmem, loadavg, release } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './corpus.js';

export const RESULTS = join(ROOT, 'bench/results');

export interface Dist {
  n: number;
  median: number;
  p95: number;
  mean: number;
  max: number;
}

/** Nearest-rank percentiles. */
export function dist(xs: readonly number[]): Dist {
  if (!xs.length) return { n: 0, median: NaN, p95: NaN, mean: NaN, max: NaN };
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))]!;
  return { n: s.length, median: at(0.5), p95: at(0.95), mean: s.reduce((a, b) => a + b, 0) / s.length, max: s[s.length - 1]! };
}

export function mean(xs: readonly number[]): number {
  return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
}

/** Milliseconds, with precision that suits the magnitude. */
export function ms(x: number): string {
  if (!Number.isFinite(x)) return '–';
  if (x < 1) return x.toFixed(3);
  if (x < 10) return x.toFixed(2);
  if (x < 100) return x.toFixed(1);
  return x.toFixed(0);
}

export function num(x: number, digits = 0): string {
  if (!Number.isFinite(x)) return '–';
  return x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function mb(bytes: number): string {
  if (!Number.isFinite(bytes)) return '–';
  return (bytes / 1048576).toFixed(bytes < 10 * 1048576 ? 2 : 1) + ' MB';
}

export function table(headers: string[], rows: (string | number)[][]): string {
  const cells = rows.map((r) => r.map(String));
  const w = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) => '| ' + r.map((c, i) => c.padEnd(w[i]!)).join(' | ') + ' |';
  return [line(headers), '| ' + w.map((x) => '-'.repeat(x)).join(' | ') + ' |', ...cells.map(line)].join('\n');
}

/** Prints a section and keeps it for summary.md. */
export class Report {
  readonly lines: string[] = [];
  heading(s: string): void {
    this.out(`\n## ${s}\n`);
  }
  sub(s: string): void {
    this.out(`\n### ${s}\n`);
  }
  text(s: string): void {
    this.out(s);
  }
  table(headers: string[], rows: (string | number)[][]): void {
    this.out(table(headers, rows) + '\n');
  }
  private out(s: string): void {
    console.log(s);
    this.lines.push(s);
  }
}

export interface Machine {
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  v8: string;
  os: string;
  loadAvg: number[];
  chromium?: string;
}

export function machine(): Machine {
  const c = cpus();
  return {
    cpus: c.length,
    cpuModel: c[0]?.model ?? 'unknown',
    memoryGb: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    v8: process.versions.v8,
    os: `${process.platform} ${release()}`,
    loadAvg: loadavg().map((x) => Math.round(x * 100) / 100),
  };
}

export function writeJson(part: string, data: unknown): string {
  mkdirSync(RESULTS, { recursive: true });
  const file = join(RESULTS, `${part}.json`);
  writeFileSync(file, JSON.stringify(data, null, 2) + '\n');
  return file;
}

export function gc(): void {
  const g = (globalThis as { gc?: () => void }).gc;
  if (g) {
    g();
    g();
  }
}

/** Bytes held by JS objects and array buffers, after a full collection. */
export function heldBytes(): number {
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

export function now(): number {
  return performance.now();
}

export interface Target {
  what: string;
  target: string;
  measured: string;
  met: boolean;
}

export function targetTable(report: Report, targets: readonly Target[]): void {
  if (!targets.length) return;
  report.text('\nTargets:\n');
  report.table(['target', 'wanted', 'measured', 'met'], targets.map((t) => [t.what, t.target, t.measured, t.met ? 'yes' : 'NO']));
}

/**
 * An option's cost, measured side by side: `run(item, on)` for every item with the option on and off,
 * one right after the other (which goes first alternates by round), after a gc. Samples (ms) by
 * `group(item)`, on and off.
 */
export async function timeOnOff<T>(items: readonly T[], rounds: number, group: (item: T) => string, run: (item: T, on: boolean) => Promise<unknown>): Promise<Map<string, { on: number[]; off: number[] }>> {
  const times = new Map<string, { on: number[]; off: number[] }>();
  gc();
  for (let r = 0; r < rounds; r++) {
    for (const item of items) {
      const key = group(item);
      let g = times.get(key);
      if (!g) times.set(key, (g = { on: [], off: [] }));
      for (const on of r % 2 ? [false, true] : [true, false]) {
        const t = now();
        await run(item, on);
        (on ? g.on : g.off).push(now() - t);
      }
    }
  }
  return times;
}
