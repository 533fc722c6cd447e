/**
 * Lucene's BM25 over posting lists. Pure: the caller supplies the postings of the query's terms (from
 * memory or IndexedDB) and the corpus statistics.
 *
 *   idf(t)      = ln(1 + (N - df + 0.5) / (df + 0.5))
 *   score(d, q) = sum over t in q of  w_t * idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len / avgLen))
 */

export interface Bm25Params {
  /** Term-frequency saturation. Lucene's default. */
  k1: number;
  /** Length normalisation (0 = none, 1 = full). Lucene's default. */
  b: number;
}

/** k1 1.5 (Lucene: 1.2) was chosen on training data with the field boost; see tests/eval/README.md. */
export const DEFAULT_BM25: Readonly<Bm25Params> = { k1: 1.5, b: 0.75 };

export interface CorpusStats {
  /** Number of indexed chunks. */
  N: number;
  /** Sum of all chunk lengths, in terms. */
  totalLength: number;
}

/** One term's postings, sorted by chunk id. */
export interface PostingList {
  ids: Uint32Array;
  tfs: Uint32Array;
  /** Length (in terms) of each chunk, so scoring never has to look a chunk up. */
  lens: Uint32Array;
}

export interface QueryTerm {
  term: string;
  postings: PostingList;
  /** Per-term weight (1 by default). */
  weight?: number;
}

export interface LexicalHit {
  id: number;
  score: number;
  /** The distinct query terms that contributed to the score. */
  terms: string[];
}

export interface Bm25SearchOptions {
  k: number;
  /** When given, only these chunk ids are scored (filters are applied before scoring). */
  allowed?: ReadonlySet<number> | null;
  params?: Bm25Params;
}

export function idf(N: number, df: number): number {
  return Math.log(1 + (N - df + 0.5) / (df + 0.5));
}

/** Maximum number of distinct query terms (the "why matched" mask is 32 bits). */
export const MAX_QUERY_TERMS = 32;

/** Reusable scratch space: allocating score arrays per query would dominate latency. */
class Scratch {
  scores = new Float64Array(1024);
  masks = new Uint32Array(1024);
  touched = new Uint32Array(1024);
  nTouched = 0;
  ensure(maxId: number, total: number): void {
    if (maxId >= this.scores.length) {
      const size = Math.max(maxId + 1, this.scores.length * 2);
      this.scores = new Float64Array(size);
      this.masks = new Uint32Array(size);
    }
    if (total > this.touched.length) this.touched = new Uint32Array(Math.max(total, this.touched.length * 2));
  }
}
const scratch = new Scratch();

/** Dense accumulation when ids are compact; a Map when they are sparse (ids far above the corpus size). */
export function bm25Search(query: readonly QueryTerm[], stats: CorpusStats, options: Bm25SearchOptions): LexicalHit[] {
  const { k1, b } = options.params ?? DEFAULT_BM25;
  const allowed = options.allowed ?? null;
  // Drop absent terms before capping, so words the index lacks do not use up the 32 mask bits.
  const terms = query.filter((q) => q.postings.ids.length > 0).slice(0, MAX_QUERY_TERMS);
  if (!terms.length || stats.N <= 0 || options.k <= 0) return [];
  const avgLen = stats.totalLength / stats.N || 1;
  let maxId = 0;
  let total = 0;
  for (const q of terms) {
    const ids = q.postings.ids;
    total += ids.length;
    if (ids[ids.length - 1]! > maxId) maxId = ids[ids.length - 1]!;
  }
  const dense = maxId < 4 * total + 65536;
  const sparseScores = dense ? null : new Map<number, number>();
  const sparseMasks = dense ? null : new Map<number, number>();
  if (dense) scratch.ensure(maxId, total);
  const { scores, masks, touched } = scratch;
  let nTouched = 0;
  const k1p1 = k1 + 1;
  const norm0 = k1 * (1 - b);
  const normL = (k1 * b) / avgLen;
  for (let t = 0; t < terms.length; t++) {
    const q = terms[t]!;
    const { ids, tfs, lens } = q.postings;
    const w = (q.weight ?? 1) * idf(stats.N, ids.length);
    const bit = 1 << t;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!;
      if (allowed !== null && !allowed.has(id)) continue;
      const tf = tfs[i]!;
      const s = (w * tf * k1p1) / (tf + norm0 + normL * lens[i]!);
      if (dense) {
        if (masks[id] === 0) touched[nTouched++] = id;
        scores[id] = scores[id]! + s;
        masks[id] = masks[id]! | bit;
      } else {
        sparseScores!.set(id, (sparseScores!.get(id) ?? 0) + s);
        sparseMasks!.set(id, (sparseMasks!.get(id) ?? 0) | bit);
      }
    }
  }
  const heap = new TopK(options.k);
  if (dense) {
    for (let i = 0; i < nTouched; i++) {
      const id = touched[i]!;
      heap.push(id, scores[id]!, masks[id]!);
      scores[id] = 0;
      masks[id] = 0;
    }
  } else {
    for (const [id, s] of sparseScores!) heap.push(id, s, sparseMasks!.get(id)!);
  }
  return heap.sorted().map((e) => ({ id: e.id, score: e.score, terms: termsOf(e.mask, terms) }));
}

function termsOf(mask: number, terms: readonly QueryTerm[]): string[] {
  const out: string[] = [];
  for (let t = 0; t < terms.length; t++) if (mask & (1 << t)) out.push(terms[t]!.term);
  return out;
}

interface HeapEntry {
  id: number;
  score: number;
  mask: number;
}

/**
 * A bounded min-heap keeping the k best (score desc, then id asc so results are deterministic).
 */
export class TopK {
  private readonly items: HeapEntry[] = [];
  constructor(private readonly k: number) {}

  private static worse(a: HeapEntry, b: HeapEntry): boolean {
    return a.score < b.score || (a.score === b.score && a.id > b.id);
  }

  push(id: number, score: number, mask = 0): void {
    const items = this.items;
    if (items.length < this.k) {
      items.push({ id, score, mask });
      let i = items.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!TopK.worse(items[i]!, items[p]!)) break;
        [items[i], items[p]] = [items[p]!, items[i]!];
        i = p;
      }
      return;
    }
    const root = items[0]!;
    const cand = { id, score, mask };
    if (!TopK.worse(root, cand)) return;
    items[0] = cand;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && TopK.worse(items[l]!, items[m]!)) m = l;
      if (r < items.length && TopK.worse(items[r]!, items[m]!)) m = r;
      if (m === i) break;
      [items[i], items[m]] = [items[m]!, items[i]!];
      i = m;
    }
  }

  get size(): number {
    return this.items.length;
  }

  /** Best first. */
  sorted(): HeapEntry[] {
    return [...this.items].sort((a, b) => (TopK.worse(a, b) ? 1 : TopK.worse(b, a) ? -1 : 0));
  }
}
