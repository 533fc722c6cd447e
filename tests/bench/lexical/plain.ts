/**
 * The floor: the plainest fast in-memory BM25 we could write. A Map from term to typed-array postings
 * (doc ids, term frequencies), per-document length norms precomputed, Lucene's BM25, dense score
 * accumulation with a touched list, and a top-k heap over typed arrays. Nothing clever.
 *
 * Also the brute-force reference: every document's tokens scanned for every query, no index at all.
 */
import { DEFAULT_BM25, idf, type CorpusStats, type PostingList } from '../../../src/bm25.js';

export interface Tokenized {
  /** Term dictionary: term -> term id. */
  dict: Map<string, number>;
  /** All documents' term ids back to back; doc d (1-based) is toks[off[d-1] .. off[d]). */
  toks: Uint32Array;
  off: Uint32Array;
  N: number;
}

/** Lucene's formula with the product's parameters (src/bm25.ts DEFAULT_BM25), so agreement tracks the product. */
const K1 = DEFAULT_BM25.k1;
const B = DEFAULT_BM25.b;

/** Interns every document's tokens (the tokenizer is the caller's: Reread's own, so both sides agree). */
export function intern(docs: readonly string[][]): Tokenized {
  const dict = new Map<string, number>();
  let total = 0;
  for (const d of docs) total += d.length;
  const toks = new Uint32Array(total);
  const off = new Uint32Array(docs.length + 1);
  let p = 0;
  for (let i = 0; i < docs.length; i++) {
    for (const t of docs[i]!) {
      let id = dict.get(t);
      if (id === undefined) dict.set(t, (id = dict.size));
      toks[p++] = id;
    }
    off[i + 1] = p;
  }
  return { dict, toks, off, N: docs.length };
}

/** A bounded min-heap of (score, id) in typed arrays; ties broken by smaller id first, as bm25.ts does. */
export class TypedTopK {
  readonly ids: Uint32Array;
  readonly scores: Float64Array;
  size = 0;
  constructor(readonly k: number) {
    this.ids = new Uint32Array(k);
    this.scores = new Float64Array(k);
  }
  reset(): void {
    this.size = 0;
  }
  private worse(i: number, j: number): boolean {
    const a = this.scores[i]!;
    const b = this.scores[j]!;
    return a < b || (a === b && this.ids[i]! > this.ids[j]!);
  }
  private swap(i: number, j: number): void {
    const s = this.scores[i]!;
    this.scores[i] = this.scores[j]!;
    this.scores[j] = s;
    const d = this.ids[i]!;
    this.ids[i] = this.ids[j]!;
    this.ids[j] = d;
  }
  push(id: number, score: number): void {
    if (this.size < this.k) {
      let i = this.size++;
      this.ids[i] = id;
      this.scores[i] = score;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!this.worse(i, p)) break;
        this.swap(i, p);
        i = p;
      }
      return;
    }
    const rs = this.scores[0]!;
    if (score < rs || (score === rs && id > this.ids[0]!)) return;
    this.ids[0] = id;
    this.scores[0] = score;
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < n && this.worse(l, m)) m = l;
      if (r < n && this.worse(r, m)) m = r;
      if (m === i) break;
      this.swap(i, m);
      i = m;
    }
  }
  /** Best first. */
  sorted(): { id: number; score: number }[] {
    const out: { id: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ id: this.ids[i]!, score: this.scores[i]! });
    return out.sort((a, b) => b.score - a.score || a.id - b.id);
  }
}

export class PlainIndex {
  private readonly postings = new Map<string, { ids: Uint32Array; tfs: Uint16Array }>();
  /** k1 * (1 - b + b * len / avgLen), per document (1-based ids). */
  private norms = new Float32Array(0);
  /** Document lengths in terms (1-based ids). */
  lens = new Uint32Array(0);
  private scores = new Float64Array(0);
  private touched = new Uint32Array(0);
  N = 0;

  /** Builds from interned documents; doc ids are 1..N. */
  build(t: Tokenized): void {
    const V = t.dict.size;
    const N = t.N;
    // Pass 1: document frequencies (last doc seen per term), pass 2: fill exact-size arrays.
    const last = new Uint32Array(V);
    const df = new Uint32Array(V);
    for (let d = 1; d <= N; d++) {
      for (let i = t.off[d - 1]!; i < t.off[d]!; i++) {
        const term = t.toks[i]!;
        if (last[term] !== d) {
          last[term] = d;
          df[term]!++;
        }
      }
    }
    const ids: Uint32Array[] = new Array(V);
    const tfs: Uint16Array[] = new Array(V);
    for (let v = 0; v < V; v++) {
      ids[v] = new Uint32Array(df[v]!);
      tfs[v] = new Uint16Array(df[v]!);
    }
    const fill = new Uint32Array(V);
    last.fill(0);
    let totalLen = 0;
    this.norms = new Float32Array(N + 1);
    for (let d = 1; d <= N; d++) {
      const s = t.off[d - 1]!;
      const e = t.off[d]!;
      totalLen += e - s;
      for (let i = s; i < e; i++) {
        const term = t.toks[i]!;
        if (last[term] !== d) {
          last[term] = d;
          ids[term]![fill[term]!++] = d;
        }
        const at = fill[term]! - 1;
        if (tfs[term]![at]! < 65535) tfs[term]![at]!++;
      }
    }
    const avg = totalLen / N;
    this.lens = new Uint32Array(N + 1);
    for (let d = 1; d <= N; d++) {
      this.lens[d] = t.off[d]! - t.off[d - 1]!;
      this.norms[d] = K1 * (1 - B + (B * this.lens[d]!) / avg);
    }
    for (const [term, v] of t.dict) this.postings.set(term, { ids: ids[v]!, tfs: tfs[v]! });
    this.N = N;
    this.scores = new Float64Array(N + 1);
    this.touched = new Uint32Array(N);
  }

  /** Every term's postings (ids ascending). */
  entries(): IterableIterator<[string, { ids: Uint32Array; tfs: Uint16Array }]> {
    return this.postings.entries();
  }

  /** A term's postings as src/bm25.ts takes them (plain term frequencies), built once per term. */
  postingList(term: string): PostingList {
    let l = this.lists.get(term);
    if (!l) {
      const p = this.postings.get(term);
      l = p ? { ids: p.ids, tfs: Uint32Array.from(p.tfs), lens: Uint32Array.from(p.ids, (d) => this.lens[d]!) } : { ids: new Uint32Array(0), tfs: new Uint32Array(0), lens: new Uint32Array(0) };
      this.lists.set(term, l);
    }
    return l;
  }
  private readonly lists = new Map<string, PostingList>();

  get stats(): CorpusStats {
    let total = 0;
    for (let d = 1; d <= this.N; d++) total += this.lens[d]!;
    return { N: this.N, totalLength: total };
  }

  df(term: string): number {
    return this.postings.get(term)?.ids.length ?? 0;
  }

  /** Distinct terms, as Reread's queryTerms gives them. */
  search(terms: readonly string[], heap: TypedTopK): { id: number; score: number }[] {
    const scores = this.scores;
    const touched = this.touched;
    const norms = this.norms;
    let nt = 0;
    for (const term of terms) {
      const p = this.postings.get(term);
      if (!p) continue;
      const { ids, tfs } = p;
      const w = idf(this.N, ids.length) * (K1 + 1);
      for (let i = 0; i < ids.length; i++) {
        const d = ids[i]!;
        const tf = tfs[i]!;
        if (scores[d] === 0) touched[nt++] = d;
        scores[d] = scores[d]! + (w * tf) / (tf + norms[d]!);
      }
    }
    heap.reset();
    for (let i = 0; i < nt; i++) {
      const d = touched[i]!;
      heap.push(d, scores[d]!);
      scores[d] = 0;
    }
    return heap.sorted();
  }
}

/**
 * Brute-force BM25 over the interned documents: one scan of every token per query. The reference the
 * indexes are checked against (same tokens, same formula, ties by smaller id).
 */
export interface Reference {
  top: { id: number; score: number }[];
  /** Every matching document's score. */
  scores: Map<number, number>;
}

export function bruteForce(t: Tokenized, terms: readonly string[], k: number): Reference {
  const qids = terms.map((x) => t.dict.get(x)).filter((x): x is number => x !== undefined);
  const uniq = [...new Set(qids)];
  if (!uniq.length) return { top: [], scores: new Map() };
  const slot = new Map<number, number>();
  uniq.forEach((q, i) => slot.set(q, i));
  const Q = uniq.length;
  const df = new Uint32Array(Q);
  const hits: { d: number; tfs: Uint32Array; len: number }[] = [];
  const tf = new Uint32Array(Q);
  let totalLen = 0;
  const lookup = new Int32Array(t.dict.size).fill(-1);
  uniq.forEach((q, i) => (lookup[q] = i));
  for (let d = 1; d <= t.N; d++) {
    const s = t.off[d - 1]!;
    const e = t.off[d]!;
    totalLen += e - s;
    let any = false;
    for (let i = s; i < e; i++) {
      const j = lookup[t.toks[i]!]!;
      if (j >= 0) {
        tf[j]!++;
        any = true;
      }
    }
    if (any) {
      for (let j = 0; j < Q; j++) if (tf[j]! > 0) df[j]!++;
      hits.push({ d, tfs: tf.slice(), len: e - s });
      tf.fill(0);
    }
  }
  const avg = totalLen / t.N;
  const w = Array.from(df, (f) => idf(t.N, f));
  const scored = hits.map((h) => {
    let score = 0;
    for (let j = 0; j < Q; j++) {
      const f = h.tfs[j]!;
      if (f) score += (w[j]! * f * (K1 + 1)) / (f + K1 * (1 - B + (B * h.len) / avg));
    }
    return { id: h.d, score };
  });
  const scores = new Map<number, number>();
  for (const x of scored) scores.set(x.id, x.score);
  scored.sort((a, b) => b.score - a.score || a.id - b.id);
  return { top: scored.slice(0, k), scores };
}

/**
 * Top-k agreement with the reference, tolerant of ties: a returned id counts when its reference score
 * is at least the reference's k-th score (a tie at the cut-off is not a disagreement).
 */
export function agreement(got: readonly number[], ref: Reference, k: number): number {
  if (!ref.top.length) return got.length === 0 ? 1 : 0;
  const want = Math.min(k, ref.top.length);
  const cutoff = ref.top[want - 1]!.score * (1 - 1e-9);
  let ok = 0;
  for (const id of got.slice(0, want)) if ((ref.scores.get(id) ?? -1) >= cutoff) ok++;
  return ok / want;
}
