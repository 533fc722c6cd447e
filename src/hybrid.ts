/**
 * Hybrid retrieval policy: which lanes run, with what weights, and what the dense lane may contribute.
 *
 * Weights depend on the query's class and on the active model's measured quality (see models.ts and
 * `npm run eval`): identifier-like queries lean lexical, long natural-language questions lean dense.
 * A dense-only hit must clear the model's calibrated similarity floor, so nonsense finds nothing.
 */
import { rrfFuse, type FusedHit, type LaneHit } from './rrf.js';

export type QueryClass = 'identifier' | 'natural' | 'phrase';

/** Codes, snake_case, CamelCase, dotted paths, numbers: the lexical lane's territory. */
const IDENTIFIER =
  /(?:^|\s)(?:[\p{L}\p{N}]+_[\p{L}\p{N}_]+|\p{Ll}+\p{Lu}[\p{L}\p{N}]*|\p{Lu}{2,}[\p{Ll}\p{N}][\p{L}\p{N}]*|[\p{L}_][\p{L}\p{N}_]*(?:\.[\p{L}_][\p{L}\p{N}_]*)+\(?\)?|[\p{L}]*\d[\p{L}\p{N}]*|__\w+__|--?[a-z][\w-]*|%\(?\w+\)?\w?|\w+\(\))(?=\s|$)/u;

export function classifyQuery(text: string): QueryClass {
  const t = text.trim();
  const words = t.split(/\s+/).filter(Boolean);
  if (words.some((w) => IDENTIFIER.test(` ${w} `))) return 'identifier';
  if (words.length >= 5 || /\?$/.test(t) || /^(how|what|why|when|where|which|who|can|is|does|do|should)\b/i.test(t)) return 'natural';
  return 'phrase';
}

export interface LaneWeights {
  lexical: number;
  dense: number;
}

/** Per-model calibration, measured by `npm run eval` (see models.ts for the figures). */
export interface DenseCalibration {
  weights: Record<QueryClass, LaneWeights>;
  /** Cosine below which a hit found only by the dense lane is dropped. */
  floor: number;
}

export interface HybridInput {
  lexical: readonly LaneHit[];
  dense: readonly LaneHit[];
  queryClass: QueryClass;
  calibration: DenseCalibration | null;
  rrfK: number;
  /** User multipliers from the options page. */
  userWeights?: LaneWeights;
}

export function fuseHybrid(input: HybridInput): FusedHit[] {
  const cal = input.calibration;
  const base = cal ? cal.weights[input.queryClass] : { lexical: 1, dense: 0 };
  const lexW = base.lexical * (input.userWeights?.lexical ?? 1);
  const denW = cal ? base.dense * (input.userWeights?.dense ?? 1) : 0;
  const lexicalIds = new Set(input.lexical.map((h) => h.id));
  // Dense hits under the floor survive only if the lexical lane found them too (then they only add rank).
  const dense = cal ? input.dense.filter((h) => h.score >= cal.floor || lexicalIds.has(h.id)) : [];
  return rrfFuse(
    [
      { name: 'lexical', hits: input.lexical, weight: lexW },
      { name: 'dense', hits: dense, weight: denW },
    ],
    input.rrfK,
  );
}
