/**
 * Runs the lanes over a dataset as the extension does and scores them: lexical alone, dense alone,
 * and the fused ranking of `fuseHybrid`, grouped to the judged unit (first appearance, like
 * groupByPage), overall and per query class.
 */
import type { Bm25Params } from '../../../src/bm25.js';
import { fuseHybrid, type DenseCalibration, type QueryClass } from '../../../src/hybrid.js';
import type { LaneHit } from '../../../src/rrf.js';
import type { TokenizerOptions } from '../../../src/tokenizer.js';
import type { DenseIndex } from '../../../src/vectors.js';
import type { Dataset, Query, Split } from './datasets.js';
import { denseSearch } from './dense.js';
import { MemoryIndex } from './lexical.js';
import { meanMetrics, scoreRanking, type Metrics } from './metrics.js';

/** Judged units ranked: Recall@100 needs 100 of them. */
export const RANK_UNITS = 100;

/**
 * Hits each lane retrieves. Like engine.search (depth = 3 x the pages wanted): a SciFact item is a
 * whole document, so 100; a Python-manual page has many chunks, so 3 x 100 chunks.
 */
export function laneDepth(ds: Dataset): number {
  return ds.name === 'python' ? 3 * RANK_UNITS : RANK_UNITS;
}

export interface LexicalConfig {
  tokenizer: TokenizerOptions;
  bm25: Bm25Params;
  fieldBoost: number;
}

export interface LaneRuns {
  lexical: LaneHit[][];
  dense: LaneHit[][];
}

export function runLexical(ds: Dataset, index: MemoryIndex, bm25: Bm25Params, depth = laneDepth(ds)): LaneHit[][] {
  return ds.queries.map((q) => index.search(q.text, depth, bm25));
}

export function buildLexical(ds: Dataset, cfg: Pick<LexicalConfig, 'tokenizer' | 'fieldBoost'>): MemoryIndex {
  return new MemoryIndex(ds.items, { tokenizer: cfg.tokenizer, fieldBoost: cfg.fieldBoost });
}

export function runDense(ds: Dataset, index: DenseIndex, queryVectors: readonly (Float32Array | null)[], depth = laneDepth(ds)): LaneHit[][] {
  return ds.queries.map((_, i) => denseSearch(index, queryVectors[i]!, depth));
}

export type LaneName = 'lexical' | 'dense' | 'hybrid';
export const LANES: readonly LaneName[] = ['lexical', 'dense', 'hybrid'];

/** Item ids -> judged units in order of first appearance, at most RANK_UNITS of them. */
export function toUnits(ds: Dataset, hits: readonly { id: number }[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const h of hits) {
    const doc = ds.items[h.id]!.doc;
    if (seen.has(doc)) continue;
    seen.add(doc);
    out.push(doc);
    if (out.length >= RANK_UNITS) break;
  }
  return out;
}

export interface FusionPolicy {
  calibration: DenseCalibration | null;
  rrfK: number;
}

export function fuseQuery(q: Query, lexical: readonly LaneHit[], dense: readonly LaneHit[], policy: FusionPolicy) {
  return fuseHybrid({ lexical, dense, queryClass: q.auto, calibration: policy.calibration, rrfK: policy.rrfK });
}

/** Per-query metrics for each lane. */
export function perQuery(ds: Dataset, runs: LaneRuns, policy: FusionPolicy): Record<LaneName, Metrics[]> {
  const out: Record<LaneName, Metrics[]> = { lexical: [], dense: [], hybrid: [] };
  ds.queries.forEach((q, i) => {
    const lex = runs.lexical[i]!;
    const den = runs.dense[i]!;
    out.lexical.push(scoreRanking(toUnits(ds, lex), q.relevant));
    out.dense.push(scoreRanking(toUnits(ds, den), q.relevant));
    out.hybrid.push(scoreRanking(toUnits(ds, fuseQuery(q, lex, den, policy)), q.relevant));
  });
  return out;
}

export type Group = 'overall' | QueryClass;
export const GROUPS: readonly Group[] = ['overall', 'identifier', 'natural', 'phrase'];

export interface Cell extends Metrics {
  n: number;
}

/** results[split][lane][group] */
export type Breakdown = Record<string, Record<LaneName, Record<Group, Cell>>>;

export function breakdown(ds: Dataset, per: Record<LaneName, Metrics[]>, splits: readonly (Split | 'all')[]): Breakdown {
  const out: Breakdown = {};
  for (const split of splits) {
    const lanes = {} as Record<LaneName, Record<Group, Cell>>;
    for (const lane of LANES) {
      const groups = {} as Record<Group, Cell>;
      for (const g of GROUPS) {
        const idx = ds.queries.flatMap((q, i) => ((split === 'all' || q.split === split) && (g === 'overall' || q.label === g) ? [i] : []));
        groups[g] = { ...meanMetrics(idx.map((i) => per[lane][i]!)), n: idx.length };
      }
      lanes[lane] = groups;
    }
    out[split] = lanes;
  }
  return out;
}

/** Mean of one metric over a subset of queries (for tuning). */
export function meanOf(values: readonly Metrics[], idx: readonly number[], metric: keyof Metrics = 'ndcg10'): number {
  if (!idx.length) return 0;
  let s = 0;
  for (const i of idx) s += values[i]![metric];
  return s / idx.length;
}
