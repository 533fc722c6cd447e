/**
 * Proximity for queries typed without quotes, computed over the lexical lane's best candidates only
 * (their text is read anyway, for snippets), in the spirit of the sequential dependence model
 * (Metzler & Croft 2005) on top of BM25F:
 *
 *   prox(d) = sum over consecutive content words (a, b) of the query of
 *             (w_a + w_b) / 2 * (ordered * sat(#a then b within the query's gap + 1)
 *                                + unordered * sat(#a and b within `window` words))
 *   sat(x)  = x (k1 + 1) / (x + k1)
 *
 * where w is the word's BM25 weight (idf). A section that holds every word of the query in order,
 * side by side (a remembered sentence typed without quotes), ranks before those that do not
 * (`sequenceMinWords`), then by BM25F + prox + heading * headingMatch * (sum of the words' w): a
 * heading that is the query ("Runtime penalty") over one that merely holds its words.
 */
import type { TextMatches } from './matcher.js';
import { MAX_MATCH_WORDS } from './matcher.js';

export interface ProximityParams {
  /** Weight of the ordered feature (consecutive query words in order, at most one word apart beyond the query's own gap). */
  ordered: number;
  /** Weight of the unordered feature (both words within `window` words, any order). */
  unordered: number;
  window: number;
  /** Queries of at least this many words put sections holding their exact sequence first (0: never). */
  sequenceMinWords: number;
  /** Weight of the heading match (headingMatch): how exactly the section's heading is the query. */
  heading: number;
  /** How many of the lexical lane's best candidates are rescored. */
  candidates: number;
}

/**
 * Tuned on the evaluation's training corpora (python, git, debian-faq; tests/eval/README.md): the exact
 * sequence is worth 0.018 nDCG@10 over all classes (spans 0.870 -> 0.966 on python); the pair weights and
 * the unordered window were within noise (ordered 0.25-1 and unordered 0-0.2 within 0.002), so the
 * unordered feature is off; 30 candidates are within 0.001 of 100 at a third of the cost.
 */
export const DEFAULT_PROXIMITY: Readonly<ProximityParams> = { ordered: 0.5, unordered: 0, window: 8, sequenceMinWords: 3, heading: 1, candidates: 30 };

export interface ProximityQuery {
  /** Number of query words (in order; bit i of a match mask is word i). */
  words: number;
  /** Which words form the pairs (common words only join the exact sequence). */
  content: readonly boolean[];
  /** Each word's BM25 weight. */
  weight: readonly number[];
  k1: number;
}

export interface ProximityScore {
  score: number;
  /** The text holds every query word in order, side by side. */
  sequence: boolean;
}

/** Positions of each query word, ascending. */
function positions(m: TextMatches, words: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < words; i++) out.push([]);
  for (let k = 0; k < m.pos.length; k++) {
    const bits = m.mask[k]!;
    for (let i = 0; i < words && i < MAX_MATCH_WORDS; i++) if (bits & (1 << i)) out[i]!.push(m.pos[k]!);
  }
  return out;
}

/** Does some position p hold word 0, p + 1 word 1, ...? */
function hasSequence(pos: readonly number[][]): boolean {
  const n = pos.length;
  if (n > MAX_MATCH_WORDS || pos.some((p) => !p.length)) return false;
  const sets = pos.map((p) => new Set(p));
  outer: for (const p of pos[0]!) {
    for (let i = 1; i < n; i++) if (!sets[i]!.has(p + i)) continue outer;
    return true;
  }
  return false;
}

/** Occurrences of a followed by b at a distance in [1, maxGap]; each a counted once. */
function orderedCount(a: readonly number[], b: readonly number[], maxGap: number): number {
  let n = 0;
  let j = 0;
  for (const p of a) {
    while (j < b.length && b[j]! <= p) j++;
    if (j < b.length && b[j]! - p <= maxGap) n++;
  }
  return n;
}

/** Occurrences of a with some b within `window` words either side (the same word counts); each a counted once. */
function unorderedCount(a: readonly number[], b: readonly number[], window: number): number {
  let n = 0;
  let j = 0;
  for (const p of a) {
    while (j < b.length && b[j]! < p - window) j++;
    if (j < b.length && b[j]! <= p + window) n++;
  }
  return n;
}

/** `sequence`: whether to look for the exact sequence (when false, `sequence` is false and the score the same). */
export function proximityScore(m: TextMatches, q: ProximityQuery, params: ProximityParams, sequence = true): ProximityScore {
  if (q.words < 2 || !m.pos.length) return { score: 0, sequence: false };
  const pos = positions(m, Math.min(q.words, MAX_MATCH_WORDS));
  sequence &&= q.words <= MAX_MATCH_WORDS && hasSequence(pos);
  const k1 = q.k1;
  let score = 0;
  let prev = -1;
  for (let i = 0; i < pos.length; i++) {
    if (!q.content[i]) continue;
    if (prev >= 0 && pos[prev]!.length && pos[i]!.length) {
      const w = (q.weight[prev]! + q.weight[i]!) / 2;
      const o = orderedCount(pos[prev]!, pos[i]!, i - prev + 1);
      const u = unorderedCount(pos[prev]!, pos[i]!, params.window);
      score += w * (params.ordered * ((o * (k1 + 1)) / (o + k1)) + params.unordered * ((u * (k1 + 1)) / (u + k1)));
    }
    prev = i;
  }
  return { score, sequence };
}

/**
 * Whether `m` (a scan for the query's content words only) leaves room for the exact sequence: some
 * position p holds each content word i at p + i. The common words' places are not checked: a text
 * that passes needs a scan for every word to tell (`proximityScore`'s `sequence`), one that fails
 * cannot hold the sequence. Probing common words ("in", "the") in every candidate's text is most of a
 * scan's cost, and only the sequence needs them.
 */
export function maySequence(m: TextMatches, q: ProximityQuery): boolean {
  if (q.words > MAX_MATCH_WORDS) return false;
  const pos = positions(m, q.words);
  const content: number[] = [];
  for (let i = 0; i < q.words; i++) if (q.content[i]) content.push(i);
  if (!content.length) return true;
  if (content.some((i) => !pos[i]!.length)) return false;
  const sets = content.map((i) => new Set(pos[i]));
  const first = content[0]!;
  outer: for (const p of pos[first]!) {
    for (let k = 1; k < content.length; k++) if (!sets[k]!.has(p - first + content[k]!)) continue outer;
    return true;
  }
  return false;
}

/**
 * How exactly a heading is the query: the share of the query's weight (its words' idf) the heading
 * holds times the share of the heading's words that are the query's (1 when they are the same words,
 * in any order; "Runtime penalty" is 1 for the query "runtime penalty", "Avoiding runtime penalty" 2/3;
 * "git-read-tree(1) Manual Page" holds little of "git-ls-tree(1) Manual Page", whose weight is in
 * `git-ls-tree`). `m` is the heading scanned with the query's matcher.
 */
export function headingMatch(m: TextMatches, weights: readonly number[]): number {
  if (!m.words || !weights.length || !m.pos.length) return 0;
  let bits = 0;
  for (const b of m.mask) bits |= b;
  let found = 0;
  let total = 0;
  for (let i = 0; i < Math.min(weights.length, MAX_MATCH_WORDS); i++) {
    total += weights[i]!;
    if (bits & (1 << i)) found += weights[i]!;
  }
  return total > 0 ? (found / total) * (new Set(m.pos).size / m.words) : 0;
}
