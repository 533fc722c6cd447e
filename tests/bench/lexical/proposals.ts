/**
 * Proposed fixes to src/ measured side by side with the code as it stands (prototypes only: src/ is
 * not changed by the benchmark). Each is a copy of the src/ function with one change, marked "PATCH".
 *
 * bm25SearchPatched: src/bm25.ts bm25Search with TopK.push comparing against the heap root before
 * allocating the candidate entry (the original allocates one object per touched document, so a query
 * with a common term makes ~N short-lived objects and its latency is dominated by scavenges).
 */
import { idf, MAX_QUERY_TERMS, type Bm25SearchOptions, type CorpusStats, type LexicalHit, type QueryTerm, DEFAULT_BM25 } from '../../../src/bm25.js';

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
export function bm25SearchPatched(query: readonly QueryTerm[], stats: CorpusStats, options: Bm25SearchOptions): LexicalHit[] {
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
  const heap = new TopKPatched(options.k);
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
export class TopKPatched {
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
        if (!TopKPatched.worse(items[i]!, items[p]!)) break;
        [items[i], items[p]] = [items[p]!, items[i]!];
        i = p;
      }
      return;
    }
    const root = items[0]!;
    // PATCH: reject before allocating: most pushes lose to the root once the heap is full.
    if (score < root.score || (score === root.score && id >= root.id)) return;
    const cand = { id, score, mask };
    items[0] = cand;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < items.length && TopKPatched.worse(items[l]!, items[m]!)) m = l;
      if (r < items.length && TopKPatched.worse(items[r]!, items[m]!)) m = r;
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
    return [...this.items].sort((a, b) => (TopKPatched.worse(a, b) ? 1 : TopKPatched.worse(b, a) ? -1 : 0));
  }
}

// ---------------------------------------------------------------------------------------------
// appendToBlockPatched: src/postings.ts appendToBlock without decoding the last block into objects and
// re-encoding it. Varint deltas are append-only: the new entries are encoded after the last block's
// bytes, delta from its last id (found by skipping varints, no allocation), and the bytes are
// concatenated. The output is byte-for-byte what appendToBlock returns (checked in the benchmark).

import { BLOCK_SIZE, type EncodedBlock, type PostingEntry } from '../../../src/postings.js';

/** Last chunk id in a block: sum of its id deltas (every third varint). */
function lastIdOf(block: EncodedBlock): number {
  const d = block.data;
  let pos = 0;
  let id = block.first;
  for (let i = 0; i < block.n; i++) {
    let shift = 1;
    let delta = 0;
    let byte: number;
    do {
      byte = d[pos++]!;
      delta += (byte & 0x7f) * shift;
      shift *= 128;
    } while (byte & 0x80);
    id += delta;
    while (d[pos++]! & 0x80); // tf
    while (d[pos++]! & 0x80); // len
  }
  return id;
}

function writeVarint(out: Uint8Array, pos: number, v: number): number {
  while (v >= 0x80) {
    out[pos++] = (v & 0x7f) | 0x80;
    v = Math.floor(v / 128);
  }
  out[pos++] = v;
  return pos;
}

/** Encodes entries [from, to) after `prefix` bytes, deltas starting from `prev`. */
function encodeAfter(prefix: Uint8Array | null, entries: readonly PostingEntry[], from: number, to: number, prev: number): Uint8Array {
  const pre = prefix ? prefix.length : 0;
  const buf = new Uint8Array(pre + (to - from) * 15);
  if (prefix) buf.set(prefix);
  let pos = pre;
  for (let i = from; i < to; i++) {
    const e = entries[i]!;
    pos = writeVarint(buf, pos, e.id - prev);
    pos = writeVarint(buf, pos, e.tf);
    pos = writeVarint(buf, pos, e.len);
    prev = e.id;
  }
  return buf.slice(0, pos);
}

export function appendToBlockPatched(last: EncodedBlock | undefined, entries: readonly PostingEntry[]): EncodedBlock[] {
  const out: EncodedBlock[] = [];
  let i = 0;
  if (last) {
    const lastId = lastIdOf(last);
    if (entries.length && entries[0]!.id <= lastId) throw new Error('posting ids must grow');
    const take = Math.min(Math.max(0, BLOCK_SIZE - last.n), entries.length);
    out.push({ first: last.first, n: last.n + take, data: encodeAfter(last.data, entries, 0, take, lastId) });
    i = take;
  }
  while (i < entries.length) {
    const end = Math.min(entries.length, i + BLOCK_SIZE);
    out.push({ first: entries[i]!.id, n: end - i, data: encodeAfter(null, entries, i, end, entries[i]!.id) });
    i = end;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// makeSnippetPatched: src/snippet.ts makeSnippet with the per-word tokenize (every word of the chunk,
// for every result section) replaced by a fast path for plain lower-case words and a per-call memo.
// Same output (checked in the benchmark).

import type { SnippetSegment } from '../../../src/snippet.js';
import { tokenize } from '../../../src/tokenizer.js';

/** A word that is one plain term: ASCII letters and digits, at most a leading capital (no camelCase parts). */
const SIMPLE_WORD = /^[(\[{"'\u201c\u2018]*([A-Za-z]?[a-z0-9]*)[.,;:!?)\]}"'\u201d\u2019]*$/;

function isHit(word: string, terms: ReadonlySet<string>, memo: Map<string, number>): number {
  let h = memo.get(word);
  if (h === undefined) {
    const m = SIMPLE_WORD.exec(word);
    h = (m && m[1] ? terms.has(m[1].toLowerCase()) : tokenize(word).some((t) => terms.has(t))) ? 1 : 0;
    memo.set(word, h);
  }
  return h;
}

const WORD_RE = /[\p{L}\p{N}\p{M}_]+(?:(?:[.\-]|::)[\p{L}\p{N}\p{M}_]+)*/gu;

/** src/snippet.ts highlight with the same per-word fast path. */
function highlightPatched(text: string, terms: ReadonlySet<string>, memo: Map<string, number>): SnippetSegment[] {
  const out: SnippetSegment[] = [];
  let last = 0;
  for (const m of text.matchAll(WORD_RE)) {
    const start = m.index ?? 0;
    if (!isHit(m[0], terms, memo)) continue;
    if (start > last) out.push({ text: text.slice(last, start), match: false });
    out.push({ text: m[0], match: true });
    last = start + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), match: false });
  return out;
}

/**
 * The window of about `maxWords` words with the most distinct matched terms, with ellipses where it
 * was cut. Skips the heading path line (shown separately).
 */
export function makeSnippetPatched(body: string, terms: ReadonlySet<string>, maxWords = 36): SnippetSegment[] {
  const text = body.replace(/\s+/g, ' ').trim();
  const words = [...text.matchAll(/\S+/g)];
  if (words.length <= maxWords) return highlightPatched(text, terms, new Map());
  // PATCH: a plain lower-case word (punctuation around it aside) is its own only term; tokenize only
  // the others, and each distinct word once.
  const memo = new Map<string, number>();
  const hits = words.map((w) => (terms.size ? isHit(w[0], terms, memo) : 0));
  let best = 0;
  let bestStart = 0;
  let cur = 0;
  for (let i = 0; i < words.length; i++) {
    cur += hits[i]!;
    if (i >= maxWords) cur -= hits[i - maxWords]!;
    if (i >= maxWords - 1 && cur > best) {
      best = cur;
      bestStart = i - maxWords + 1;
    }
  }
  // The first window with the most matches ends on a match. Start a little before its first match
  // instead, for context, but never so early that its last match falls out of the window.
  let start = 0;
  if (best > 0) {
    let first = bestStart;
    while (!hits[first]) first++;
    let last = bestStart + maxWords - 1;
    while (!hits[last]) last--;
    start = Math.max(0, last - maxWords + 1, first - 4);
    start = Math.max(0, Math.min(start, words.length - maxWords));
  }
  const end = Math.min(words.length, start + maxWords);
  const from = words[start]!.index ?? 0;
  const lastWord = words[end - 1]!;
  const to = (lastWord.index ?? 0) + lastWord[0].length;
  const segs = highlightPatched(text.slice(from, to), terms, memo);
  if (start > 0) segs.unshift({ text: '… ', match: false });
  if (end < words.length) segs.push({ text: ' …', match: false });
  return segs;
}

// ---------------------------------------------------------------------------------------------
// bm25SearchLean: src/bm25.ts bm25Search with the per-document term mask out of the hot loop. The
// original keeps a Uint32 mask per touched document beside its Float64 score (two random
// read-modify-writes a posting, and a third array to clear), and a heap of objects. Here the loop
// touches the score array only (a score is never 0 once touched: idf and tf are positive), the top k
// are kept in a typed-array heap, and the "why matched" terms are found afterwards for the k winners
// only, by binary search in each term's ids. Same ids, scores and terms as bm25Search (checked in the
// benchmark). Filters (allowed) and sparse ids are handled as in the original.

import { TypedTopK } from './plain.js';

class LeanScratch {
  scores = new Float64Array(1024);
  touched = new Uint32Array(1024);
  ensure(maxId: number, total: number): void {
    if (maxId >= this.scores.length) this.scores = new Float64Array(Math.max(maxId + 1, this.scores.length * 2));
    if (total > this.touched.length) this.touched = new Uint32Array(Math.max(total, this.touched.length * 2));
  }
}
const lean = new LeanScratch();
const leanHeaps = new Map<number, TypedTopK>();

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

export function bm25SearchLean(query: readonly QueryTerm[], stats: CorpusStats, options: Bm25SearchOptions): LexicalHit[] {
  const { k1, b } = options.params ?? DEFAULT_BM25;
  const allowed = options.allowed ?? null;
  const terms = query.filter((q) => q.postings.ids.length > 0).slice(0, MAX_QUERY_TERMS);
  if (!terms.length || stats.N <= 0 || options.k <= 0) return [];
  let maxId = 0;
  let total = 0;
  for (const q of terms) {
    const ids = q.postings.ids;
    total += ids.length;
    if (ids[ids.length - 1]! > maxId) maxId = ids[ids.length - 1]!;
  }
  // Sparse ids (far above the number of postings): the original's Map path is kept as is.
  if (maxId >= 4 * total + 65536) return bm25SearchPatched(query, stats, options);
  lean.ensure(maxId, total);
  const { scores, touched } = lean;
  const avgLen = stats.totalLength / stats.N || 1;
  const k1p1 = k1 + 1;
  const norm0 = k1 * (1 - b);
  const normL = (k1 * b) / avgLen;
  let nTouched = 0;
  for (const q of terms) {
    const { ids, tfs, lens } = q.postings;
    const w = (q.weight ?? 1) * idf(stats.N, ids.length);
    if (allowed === null) {
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        const tf = tfs[i]!;
        const prev = scores[id]!;
        if (prev === 0) touched[nTouched++] = id;
        scores[id] = prev + (w * tf * k1p1) / (tf + norm0 + normL * lens[i]!);
      }
    } else {
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (!allowed.has(id)) continue;
        const tf = tfs[i]!;
        const prev = scores[id]!;
        if (prev === 0) touched[nTouched++] = id;
        scores[id] = prev + (w * tf * k1p1) / (tf + norm0 + normL * lens[i]!);
      }
    }
  }
  let heap = leanHeaps.get(options.k);
  if (!heap) leanHeaps.set(options.k, (heap = new TypedTopK(options.k)));
  heap.reset();
  for (let i = 0; i < nTouched; i++) {
    const id = touched[i]!;
    heap.push(id, scores[id]!);
    scores[id] = 0;
  }
  return heap.sorted().map((e) => ({ id: e.id, score: e.score, terms: terms.filter((q) => hasId(q.postings.ids, e.id)).map((q) => q.term) }));
}
