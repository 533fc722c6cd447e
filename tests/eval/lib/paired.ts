import type { CorpusResult } from './evaluate.js';
import { CLASSES, type QueryClass } from './queries.js';
import { f3, table } from './table.js';

/**
 * Paired comparison of two configurations over the same queries: the mean of b − a with a 95% bootstrap
 * interval (resampling the queries, seeded by a label so that a run prints the same interval again), and
 * how many queries each side won.
 */
export interface PairedDifference {
  n: number;
  mean: number;
  lo: number;
  hi: number;
  won: number;
  lost: number;
}

export function pairedDifference(a: readonly number[], b: readonly number[], label: string, resamples = 4000): PairedDifference {
  if (a.length !== b.length) throw new Error(`paired lists differ in length: ${a.length} and ${b.length}`);
  const d = a.map((x, i) => b[i]! - x);
  const n = d.length;
  if (!n) return { n: 0, mean: 0, lo: 0, hi: 0, won: 0, lost: 0 };
  const mean = d.reduce((s, x) => s + x, 0) / n;
  let seed = [...label].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7) || 1;
  const rand = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const means: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += d[Math.floor(rand() * n)]!;
    means.push(s / n);
  }
  means.sort((x, y) => x - y);
  const at = (q: number) => means[Math.min(resamples - 1, Math.max(0, Math.round(q * resamples) - 1))]!;
  return { n, mean, lo: at(0.025), hi: at(0.975), won: d.filter((x) => x > 1e-9).length, lost: d.filter((x) => x < -1e-9).length };
}

/** `+0.012 [-0.004, +0.030] +5/-2` */
export function formatPaired(p: PairedDifference): string {
  const sign = (x: number) => (x >= 0 ? '+' : '') + x.toFixed(3);
  return `${sign(p.mean)} [${sign(p.lo)}, ${sign(p.hi)}] +${p.won}/-${p.lost}`;
}

/**
 * Hybrid against naive per class and language, pooled over corpora (tuning apart from held out): a
 * language's weakness spread over corpora of 8–20 queries each (Japanese topical phrases, session 33) is
 * noise in every corpus's row and shows only pooled. Paired per query, 4,000 bootstrap resamples;
 * "<<<" where the interval is below zero.
 */
export function pooledLanguageTable(results: readonly CorpusResult[]): string | null {
  const groups = new Map<string, { hybrid: number[]; naive: number[]; corpora: Set<string> }>();
  for (const r of results) {
    const h = r.perQuery.hybrid;
    const n = r.perQuery.naive;
    if (!h || !n) continue;
    const naiveOf = new Map(n.map((s) => [s.id, s.ndcg10]));
    for (const s of h) {
      const cls = r.queryClass[s.id];
      const lang = r.queryLang[s.id];
      const b = naiveOf.get(s.id);
      if (!cls || cls === 'offtopic' || !lang || b === undefined) continue;
      const key = `${r.heldOut ? 'held out' : 'tuning'}\u0000${cls}\u0000${lang}`;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { hybrid: [], naive: [], corpora: new Set() }));
      g.hybrid.push(s.ndcg10);
      g.naive.push(b);
      g.corpora.add(r.corpus);
    }
  }
  // Only languages that some multilingual corpus has: English alone says what the corpus rows say.
  const langs = new Set<string>();
  for (const key of groups.keys()) langs.add(key.split('\u0000')[2]!);
  if (langs.size < 2) return null;
  const order = (key: string) => {
    const [role, cls, lang] = key.split('\u0000') as [string, QueryClass, string];
    return `${role === 'tuning' ? 0 : 1}${String(CLASSES.indexOf(cls)).padStart(2, '0')}${lang}`;
  };
  const rows: string[][] = [];
  for (const key of [...groups.keys()].sort((a, b) => (order(a) < order(b) ? -1 : 1))) {
    const [role, cls, lang] = key.split('\u0000') as [string, string, string];
    const g = groups.get(key)!;
    const p = pairedDifference(g.naive, g.hybrid, key);
    const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
    rows.push([role, `${cls} ${lang} (${p.n})`, String(g.corpora.size), f3(mean(g.hybrid)), f3(mean(g.naive)), formatPaired(p) + (p.hi < 0 ? ' <<<' : '')]);
  }
  return table(['set', 'class lang (n)', 'corpora', 'hybrid', 'naive', 'hybrid − naive [95%] won/lost'], rows, ['l', 'l']);
}
