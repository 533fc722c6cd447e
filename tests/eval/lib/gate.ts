/**
 * The quality gate (`npm test` runs it through tests/eval/gate.test.ts; `npm run eval:gate` prints it):
 * the held-out corpus through the shipped path (hybrid lane: search() with the bundled model), every
 * query class, against tests/eval/gate-baseline.json. It fails when nDCG@10 or the section hit rate
 * (first result's link on the right section) falls more than TOLERANCE below the baseline.
 *
 * The baseline changes only in a commit that says why: `npm run eval:gate -- --write-baseline "why"`
 * records the reason and the commit it was measured on.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { corpus, GATED } from './corpora.js';
import { loadModel } from './dense.js';
import { evaluateCorpus, type CorpusResult } from './evaluate.js';
import type { Cell } from './judge.js';
import { ROOT } from './paths.js';

export const BASELINE_FILE = path.join(ROOT, 'tests/eval/gate-baseline.json');
export const TOLERANCE = 0.02;

export interface GateMetrics {
  /** Mean nDCG@10 over every judged query (off-topic queries have nothing to rank). */
  ndcg10: number;
  /** Share of queries with a target section whose first result's link lands on it. */
  sectionHit1: number;
  queries: number;
  sectionQueries: number;
  /** Per class, for the report (not gated: too few queries each). */
  classes: Record<string, { n: number; ndcg10: number; sectionHit1: number | null; noResults?: number }>;
}

export interface Baseline {
  corpus: string;
  lane: 'hybrid';
  metrics: GateMetrics;
  /** Why the baseline is what it is (required when it changes). */
  why: string;
  commit: string;
  date: string;
}

export interface GateRun {
  metrics: GateMetrics;
  seconds: number;
  captureFromCache: boolean;
  result: CorpusResult;
}

function metricsOf(r: CorpusResult): GateMetrics {
  const cells = r.cells.hybrid!;
  const all = cells.all!;
  const classes: GateMetrics['classes'] = {};
  for (const [k, c] of Object.entries(cells) as [string, Cell][]) {
    if (k === 'all') continue;
    classes[k] = k === 'offtopic' ? { n: c.n, ndcg10: 0, sectionHit1: null, noResults: round(c.noResults) } : { n: c.n, ndcg10: round(c.ndcg10), sectionHit1: c.nSection ? round(c.sectionHit1) : null };
  }
  return { ndcg10: round(all.ndcg10), sectionHit1: round(all.sectionHit1), queries: all.n, sectionQueries: all.nSection, classes };
}

const round = (x: number) => Math.round(x * 10000) / 10000;

export async function runGate(opts: { cache?: boolean } = {}): Promise<GateRun> {
  const t0 = Date.now();
  const model = await loadModel();
  const result = await evaluateCorpus(corpus(GATED), { lanes: ['hybrid'], model, cache: opts.cache ?? true });
  if (result.problems.length) throw new Error(`gate queries do not match the corpus: ${result.problems.slice(0, 5).join('; ')}`);
  return { metrics: metricsOf(result), seconds: (Date.now() - t0) / 1000, captureFromCache: result.captureFromCache, result };
}

export function readBaseline(): Baseline {
  return JSON.parse(fs.readFileSync(BASELINE_FILE, 'utf8')) as Baseline;
}

/** What is wrong with `m` against the baseline (empty: the gate passes). */
export function verdict(m: GateMetrics, b: Baseline): string[] {
  const out: string[] = [];
  if (m.queries !== b.metrics.queries || m.sectionQueries !== b.metrics.sectionQueries) {
    out.push(`the held-out query set changed (${m.queries} queries, ${m.sectionQueries} with a section; baseline ${b.metrics.queries}, ${b.metrics.sectionQueries}): re-measure the baseline in a commit that says why`);
  }
  for (const k of ['ndcg10', 'sectionHit1'] as const) {
    if (m[k] < b.metrics[k] - TOLERANCE) out.push(`held-out ${k} ${m[k].toFixed(3)} is more than ${TOLERANCE} below the baseline ${b.metrics[k].toFixed(3)}`);
  }
  return out;
}

export function describe(m: GateMetrics, b: Baseline | null): string {
  const lines = [`held-out corpus ${GATED}, hybrid lane, ${m.queries} queries (${m.sectionQueries} with a section)`];
  const d = (x: number, y: number | undefined | null) => (y === undefined || y === null ? '' : ` (baseline ${y.toFixed(3)}, ${x - y >= 0 ? '+' : ''}${(x - y).toFixed(3)})`);
  lines.push(`  nDCG@10 ${m.ndcg10.toFixed(3)}${d(m.ndcg10, b?.metrics.ndcg10)}`);
  lines.push(`  section hit@1 ${m.sectionHit1.toFixed(3)}${d(m.sectionHit1, b?.metrics.sectionHit1)}`);
  for (const [k, c] of Object.entries(m.classes)) {
    const bc = b?.metrics.classes[k];
    if (c.noResults !== undefined) {
      lines.push(`    ${k} (${c.n}): answered with no results ${c.noResults.toFixed(3)}${d(c.noResults, bc?.noResults)} (reported, not gated)`);
      continue;
    }
    lines.push(`    ${k} (${c.n}): nDCG@10 ${c.ndcg10.toFixed(3)}${d(c.ndcg10, bc?.ndcg10)}${c.sectionHit1 === null ? '' : `, section hit@1 ${c.sectionHit1.toFixed(3)}${d(c.sectionHit1, bc?.sectionHit1)}`}`);
  }
  return lines.join('\n');
}

export function writeBaseline(m: GateMetrics, why: string): Baseline {
  if (why.trim().length < 10) throw new Error('say why the baseline changes (at least a sentence)');
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    /* not a git checkout */
  }
  const b: Baseline = { corpus: GATED, lane: 'hybrid', metrics: m, why: why.trim(), commit, date: new Date().toISOString().slice(0, 10) };
  fs.writeFileSync(BASELINE_FILE, JSON.stringify(b, null, 1) + '\n');
  return b;
}
