/**
 * The lexical lane as it was before issue #13 (src/ at 514fc51), kept only so that the benchmark times
 * today's lane beside it in one run. Not product code; nothing imports it but tests/bench/lexical.ts.
 *
 * - indexedTermsBefore13: the page title and heading path repeated three times into a section's terms
 *   (a plain term frequency and a length that counts the repetitions);
 * - bm25SearchBefore13: BM25 over those plain term frequencies (the lane was this alone: no query
 *   planning, no proximity).
 */
import { DEFAULT_BM25, idf, MAX_QUERY_TERMS, TopK, type Bm25SearchOptions, type CorpusStats, type LexicalHit, type QueryTerm } from '../../../src/bm25.js';
import { indexedText } from '../../../src/indexing.js';
import { tokenize, type TokenizerOptions } from '../../../src/tokenizer.js';

export function indexedTermsBefore13(title: string, chunk: { text: string; headingPath: readonly string[] }, tok: TokenizerOptions): string[] {
  const terms = tokenize(indexedText(title, chunk.text), tok);
  const fields = tokenize(`${title}\n${chunk.headingPath.join(' > ')}`, tok);
  for (let r = 1; r < 3; r++) for (const t of fields) terms.push(t);
  return terms;
}

class Scratch {
  scores = new Float64Array(1024);
  touched = new Uint32Array(1024);
  ensure(maxId: number, total: number): void {
    if (maxId >= this.scores.length) this.scores = new Float64Array(Math.max(maxId + 1, this.scores.length * 2));
    if (total > this.touched.length) this.touched = new Uint32Array(Math.max(total, this.touched.length * 2));
  }
}
const scratch = new Scratch();

function hasId(ids: Uint32Array, id: number): boolean {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid]!;
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

export function bm25SearchBefore13(query: readonly QueryTerm[], stats: CorpusStats, options: Bm25SearchOptions): LexicalHit[] {
  const { k1, b } = options.params ?? DEFAULT_BM25;
  const allowed = options.allowed ?? null;
  const terms = query.filter((q) => q.postings.ids.length > 0).slice(0, MAX_QUERY_TERMS);
  if (!terms.length || stats.N <= 0 || options.k <= 0) return [];
  const avgLen = stats.totalLength / stats.N || 1;
  const weights = terms.map((q) => (q.weight ?? 1) * idf(stats.N, q.postings.ids.length));
  let maxId = 0;
  let total = 0;
  for (const q of terms) {
    const ids = q.postings.ids;
    total += ids.length;
    if (ids[ids.length - 1]! > maxId) maxId = ids[ids.length - 1]!;
  }
  const k1p1 = k1 + 1;
  const norm0 = k1 * (1 - b);
  const normL = (k1 * b) / avgLen;
  const heap = new TopK(options.k);
  if (maxId < 4 * total + 65536 && weights.every((w) => w > 0)) {
    scratch.ensure(maxId, total);
    const { scores, touched } = scratch;
    let nTouched = 0;
    for (let t = 0; t < terms.length; t++) {
      const { ids, tfs, lens } = terms[t]!.postings;
      const w = weights[t]!;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (allowed !== null && !allowed.has(id)) continue;
        const tf = tfs[i]!;
        const prev = scores[id]!;
        if (prev === 0) touched[nTouched++] = id;
        scores[id] = prev + (w * tf * k1p1) / (tf + norm0 + normL * lens[i]!);
      }
    }
    for (let i = 0; i < nTouched; i++) {
      const id = touched[i]!;
      heap.push(id, scores[id]!);
      scores[id] = 0;
    }
  } else {
    const scores = new Map<number, number>();
    for (let t = 0; t < terms.length; t++) {
      const { ids, tfs, lens } = terms[t]!.postings;
      const w = weights[t]!;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (allowed !== null && !allowed.has(id)) continue;
        const tf = tfs[i]!;
        scores.set(id, (scores.get(id) ?? 0) + (w * tf * k1p1) / (tf + norm0 + normL * lens[i]!));
      }
    }
    for (const [id, s] of scores) heap.push(id, s);
  }
  return heap.sorted().map((e) => ({ id: e.id, score: e.score, terms: terms.filter((q) => hasId(q.postings.ids, e.id)).map((q) => q.term) }));
}
