/**
 * Calibrating the dense lane's similarity floor: the dense lane always has a nearest neighbour, even
 * for nonsense, so hits only it found must clear a floor. Compare the top-1 cosine of real queries
 * with that of off-topic and garbage queries, and count what each candidate floor keeps.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { LaneHit } from '../../../src/rrf.js';
import type { DenseIndex } from '../../../src/vectors.js';
import type { Dataset } from './datasets.js';
import { denseSearch, embedAll, type DenseModel } from './dense.js';
import { toUnits } from './evaluate.js';
import { ROOT } from './paths.js';

export interface OfftopicSet {
  offtopic: string[];
  garbage: string[];
}

export function loadOfftopic(): OfftopicSet {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'tests/eval/offtopic-queries.json'), 'utf8')) as OfftopicSet;
}

export interface Distribution {
  n: number;
  /** Queries with no vector at all (no known word): the dense lane is empty for them. */
  noVector: number;
  min: number;
  p10: number;
  p50: number;
  p90: number;
  p95: number;
  max: number;
}

function quantile(sorted: readonly number[], q: number): number {
  if (!sorted.length) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

export function distribution(values: readonly (number | null)[]): Distribution {
  const v = values.filter((x): x is number => x !== null).sort((a, b) => a - b);
  return { n: values.length, noVector: values.length - v.length, min: v[0] ?? NaN, p10: quantile(v, 0.1), p50: quantile(v, 0.5), p90: quantile(v, 0.9), p95: quantile(v, 0.95), max: v[v.length - 1] ?? NaN };
}

export interface FloorData {
  /** Top-1 cosine per real query (null: no vector). */
  real: (number | null)[];
  offtopic: (number | null)[];
  garbage: (number | null)[];
  /**
   * Per real query, the cosine of each relevant unit's best chunk that the dense lane found but the
   * lexical lane did not: exactly the hits a floor can drop.
   */
  denseOnlyRelevant: number[][];
}

export async function floorData(ds: Dataset, model: DenseModel, index: DenseIndex, queryVectors: readonly (Float32Array | null)[], dense: readonly LaneHit[][], lexical: readonly LaneHit[][], queryIdx: readonly number[]): Promise<FloorData> {
  const off = loadOfftopic();
  const top1 = (vs: readonly (Float32Array | null)[]) => vs.map((v) => denseSearch(index, v, 1)[0]?.score ?? null);
  const [ov, gv] = await Promise.all([embedAll(model, off.offtopic, 'query', 'offtopic'), embedAll(model, off.garbage, 'query', 'garbage')]);
  const denseOnlyRelevant = queryIdx.map((i) => {
    const q = ds.queries[i]!;
    const lexUnits = new Set(toUnits(ds, lexical[i]!));
    const out: number[] = [];
    const seen = new Set<string>();
    for (const h of dense[i]!) {
      const doc = ds.items[h.id]!.doc;
      if (seen.has(doc)) continue;
      seen.add(doc);
      if ((q.relevant.get(doc) ?? 0) > 0 && !lexUnits.has(doc)) out.push(h.score);
    }
    return out;
  });
  return { real: top1(queryIdx.map((i) => queryVectors[i]!)), offtopic: top1(ov), garbage: top1(gv), denseOnlyRelevant };
}

export interface FloorRow {
  floor: number;
  /** Share of off-topic / garbage queries that would still show a dense-only hit. */
  offtopicShown: number;
  garbageShown: number;
  /** Share of real queries whose dense top-1 clears the floor (the lane is not emptied). */
  realKept: number;
  /** Share of relevant dense-only hits kept. */
  relevantKept: number;
}

export function floorRow(d: FloorData, floor: number): FloorRow {
  const share = (xs: readonly (number | null)[]) => (xs.length ? xs.filter((x) => x !== null && x >= floor).length / xs.length : 0);
  const rel = d.denseOnlyRelevant.flat();
  return { floor, offtopicShown: share(d.offtopic), garbageShown: share(d.garbage), realKept: share(d.real), relevantKept: rel.length ? rel.filter((x) => x >= floor).length / rel.length : 0 };
}
