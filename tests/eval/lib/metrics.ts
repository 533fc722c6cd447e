/**
 * Ranking metrics over a ranked list of item ids (documents or pages) and graded judgments.
 * Gains are linear in the grade (trec_eval's and BEIR's nDCG); "relevant" means grade >= 1.
 */

export type Judgments = ReadonlyMap<string, number>;

export interface Metrics {
  ndcg10: number;
  mrr10: number;
  recall5: number;
  recall100: number;
}

export const METRIC_NAMES: readonly (keyof Metrics)[] = ['ndcg10', 'mrr10', 'recall5', 'recall100'];

export function ndcgAt(ranked: readonly string[], rel: Judgments, k: number): number {
  let dcg = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) dcg += (rel.get(ranked[i]!) ?? 0) / Math.log2(i + 2);
  const ideal = [...rel.values()].filter((g) => g > 0).sort((a, b) => b - a);
  let idcg = 0;
  for (let i = 0; i < Math.min(k, ideal.length); i++) idcg += ideal[i]! / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : 0;
}

export function mrrAt(ranked: readonly string[], rel: Judgments, k: number): number {
  for (let i = 0; i < Math.min(k, ranked.length); i++) if ((rel.get(ranked[i]!) ?? 0) > 0) return 1 / (i + 1);
  return 0;
}

export function recallAt(ranked: readonly string[], rel: Judgments, k: number): number {
  let total = 0;
  for (const g of rel.values()) if (g > 0) total++;
  if (!total) return 0;
  let found = 0;
  for (let i = 0; i < Math.min(k, ranked.length); i++) if ((rel.get(ranked[i]!) ?? 0) > 0) found++;
  return found / total;
}

export function scoreRanking(ranked: readonly string[], rel: Judgments): Metrics {
  return { ndcg10: ndcgAt(ranked, rel, 10), mrr10: mrrAt(ranked, rel, 10), recall5: recallAt(ranked, rel, 5), recall100: recallAt(ranked, rel, 100) };
}

export function meanMetrics(all: readonly Metrics[]): Metrics {
  const out: Metrics = { ndcg10: 0, mrr10: 0, recall5: 0, recall100: 0 };
  if (!all.length) return out;
  for (const m of all) for (const k of METRIC_NAMES) out[k] += m[k];
  for (const k of METRIC_NAMES) out[k] /= all.length;
  return out;
}
