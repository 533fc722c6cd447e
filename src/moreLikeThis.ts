/** More-like-this: the terms that best characterise a document against the corpus (tf·idf). */
import { idf } from './bm25.js';

export function topTerms(terms: readonly string[], dfOf: (t: string) => number, N: number, n = 12): string[] {
  const tf = new Map<string, number>();
  for (const t of terms) if (t.length > 2 && !/^\d+$/.test(t)) tf.set(t, (tf.get(t) ?? 0) + 1);
  return [...tf]
    .map(([t, f]) => ({ t, s: Math.log(1 + f) * idf(N, Math.max(1, dfOf(t))) }))
    .sort((a, b) => b.s - a.s || (a.t < b.t ? -1 : 1))
    .slice(0, n)
    .map((x) => x.t);
}
