/**
 * Hybrid retrieval policy: which lanes run, with what weights, and what the dense lane may contribute.
 *
 * Weights depend on the query's class and on the active model's measured quality (see models.ts and
 * `npm run eval`): identifier-like queries lean lexical, long natural-language questions lean dense.
 * A dense-only hit must clear the model's calibrated similarity floor, so nonsense finds nothing.
 * A model too weak to reorder lexical results for a class gets weight 0 there; what it alone found
 * above the floor still follows the lexical results (a paraphrase sharing no word with the page).
 */
import { rrfFuse, type FusedHit, type LaneHit } from './rrf.js';

export type QueryClass = 'identifier' | 'natural' | 'phrase';

/**
 * Codes, snake_case, camelCase and PascalCase (TypeError), dotted and `::` paths (`Read::bytes`), numbers: the lexical lane's
 * territory. A query that is one upper-case word (PYTHONPATH, SIGINT) is a constant's name; inside a
 * sentence an upper-case word is usually an acronym ("over HTTP").
 */
const IDENTIFIER =
  /(?:^|\s)(?:[\p{L}\p{N}]+_[\p{L}\p{N}_]+|\p{Ll}+\p{Lu}[\p{L}\p{N}]*|\p{Lu}\p{Ll}+(?:\p{Lu}[\p{Ll}\p{N}]*)+|\p{Lu}{2,}[\p{Ll}\p{N}][\p{L}\p{N}]*|[\p{L}_][\p{L}\p{N}_]*(?:(?:\.|::)[\p{L}_][\p{L}\p{N}_]*)+\(?\)?|[\p{L}]*\d[\p{L}\p{N}]*|__\w+__|--?[a-z][\w-]*|%\(?\w+\)?\w?|\w+\(\))(?=\s|$)/u;

const CONSTANT = /^\p{Lu}[\p{Lu}\p{N}]{2,}$/u;

export function classifyQuery(text: string): QueryClass {
  const t = text.trim();
  const words = t.split(/\s+/).filter(Boolean);
  if (words.some((w) => IDENTIFIER.test(` ${w} `))) return 'identifier';
  if (words.length === 1 && CONSTANT.test(t)) return 'identifier';
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
  /**
   * The languages (ISO 639-1) the model learned from; absent: every language. A query that shows
   * another language gets nothing from the lane (src/queryLanguage.ts).
   */
  languages?: readonly string[];
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
  const userDense = input.userWeights?.dense ?? 1;
  const denW = cal ? base.dense * userDense : 0;
  const lexicalIds = new Set(input.lexical.map((h) => h.id));
  // Dense hits under the floor survive only if the lexical lane found them too (then they only add rank).
  const dense = cal ? input.dense.filter((h) => h.score >= cal.floor || lexicalIds.has(h.id)) : [];
  const fused = rrfFuse(
    [
      { name: 'lexical', hits: input.lexical, weight: lexW },
      { name: 'dense', hits: dense, weight: denW },
    ],
    input.rrfK,
  );
  // Weight 0 from the calibration (not from the user switching the lane off): the dense lane may not
  // reorder anything, but its hits above the floor follow the fused ones, in its own order, score 0.
  if (!cal || denW > 0 || !(userDense > 0) || !dense.length) return fused;
  const byId = new Map(fused.map((f) => [f.id, f]));
  dense.forEach((h, i) => {
    const f = byId.get(h.id);
    if (f) {
      f.ranks.dense ??= i + 1;
      f.laneScores.dense ??= h.score;
    } else if (h.score >= cal.floor) {
      const tail: FusedHit = { id: h.id, score: 0, ranks: { dense: i + 1 }, laneScores: { dense: h.score }, terms: [] };
      byId.set(h.id, tail);
      fused.push(tail);
    }
  });
  return fused;
}
