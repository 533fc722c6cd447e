/**
 * Pseudo-relevance feedback (RM3, Lavrenko & Croft 2001; Abdul-Jaleel et al. 2004) for questions:
 * the best sections of a first pass are taken as relevant, the words they use most (weighted by how
 * well each section scored, and by idf so that the language's glue does not win) are added to the
 * query with a smaller weight, and the query runs again. Off unless `ExpansionParams.terms` > 0;
 * `npm run eval` decides (tests/eval/README.md).
 */
import { idf } from './bm25.js';
import { QUERY_STOPWORDS } from './queryPlan.js';
import { tokenize, type TokenizerOptions } from './tokenizer.js';

export interface ExpansionParams {
  /** Sections of the first pass taken as relevant. */
  docs: number;
  /** Terms added (0: no expansion). */
  terms: number;
  /** Weight of the added terms, all together, against the query's own (each of which weighs 1). */
  weight: number;
}

export const DEFAULT_EXPANSION: Readonly<ExpansionParams> = { docs: 10, terms: 0, weight: 0.5 };

/**
 * The relevance model over the feedback sections: P(t | R) = sum over sections d of w_d tf(t, d) / |d|,
 * w_d proportional to exp(score_d - best score). Returns the `3 * terms` most likely terms that could
 * be added: not the query's, not stop words, numbers, or one- and two-letter terms.
 */
export function relevanceModel(feedback: readonly { text: string; score: number }[], queryTerms: ReadonlySet<string>, params: ExpansionParams, tok: TokenizerOptions): { term: string; p: number }[] {
  if (params.terms <= 0 || !feedback.length) return [];
  const best = Math.max(...feedback.map((f) => f.score));
  const w = feedback.map((f) => Math.exp(f.score - best));
  const total = w.reduce((a, b) => a + b, 0) || 1;
  const p = new Map<string, number>();
  feedback.forEach((f, i) => {
    const terms = tokenize(f.text, tok);
    if (!terms.length) return;
    const share = w[i]! / total / terms.length;
    for (const t of terms) p.set(t, (p.get(t) ?? 0) + share);
  });
  return [...p]
    .filter(([t]) => !queryTerms.has(t) && t.length >= 3 && !/^\d+$/.test(t) && !QUERY_STOPWORDS.has(t))
    .map(([term, pt]) => ({ term, p: pt }))
    .sort((a, b) => b.p - a.p || (a.term < b.term ? -1 : 1))
    .slice(0, params.terms * 3);
}

/**
 * The terms added and their weights: the candidates ranked by P(t | R) * idf(t) (so that the language's
 * glue does not win), terms in more than a tenth of the sections left out; the chosen terms' weights
 * sum to `weight`, in proportion.
 */
export function expansionTerms(candidates: readonly { term: string; p: number }[], df: (term: string) => number, N: number, params: ExpansionParams): { term: string; weight: number }[] {
  const scored: { term: string; s: number }[] = [];
  for (const c of candidates) {
    const f = df(c.term);
    if (f <= 0 || f > N / 10) continue;
    scored.push({ term: c.term, s: c.p * idf(N, f) });
  }
  scored.sort((a, b) => b.s - a.s || (a.term < b.term ? -1 : 1));
  const chosen = scored.slice(0, params.terms);
  const sum = chosen.reduce((a, c) => a + c.s, 0) || 1;
  return chosen.map((c) => ({ term: c.term, weight: (params.weight * c.s) / sum }));
}
