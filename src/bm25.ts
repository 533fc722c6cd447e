/**
 * BM25F over posting lists (Lucene's BM25 idf; fields as in src/indexing.ts). Pure: the caller supplies
 * the postings of the query's terms (from memory or IndexedDB) and the corpus statistics.
 *
 *   idf(t)      = ln(1 + (N - df + 0.5) / (df + 0.5))
 *   tf~(t, d)   = body tf / (1 - b + b * len / avgLen)
 *                 + heading * [t in heading] + ancestors * [t in a heading above] + title * [t in the page title]
 *   score(d, q) = sum over t in q of  w_t * idf(t) * tf~ * (k1 + 1) / (tf~ + k1)
 *
 * The field weights are added before saturation, so a word in the heading and the body is not counted
 * twice over (what repeating the heading's words in the text did).
 */
import { ANCESTORS_BIT, FIELD_BITS, HEADING_BIT, TITLE_BIT } from './indexing.js';

export interface Bm25Params {
  /** Term-frequency saturation. Lucene's default. */
  k1: number;
  /** Length normalisation (0 = none, 1 = full). Lucene's default. */
  b: number;
}

/**
 * Lucene's defaults. k1 1.5 (chosen on the former SciFact harness with a title boost) lost to 1.2 on
 * every class of the evaluation's tuning corpora (tests/eval/README.md, "Questions: k1"): a lower k1
 * saturates a word's repeats sooner, so a question's several words count more than one word repeated.
 */
export const DEFAULT_BM25: Readonly<Bm25Params> = { k1: 1.2, b: 0.75 };

/** Weights of the short fields, in body occurrences (length-normalised) they are worth. */
export interface FieldWeights {
  heading: number;
  ancestors: number;
  title: number;
}

export const DEFAULT_FIELDS: Readonly<FieldWeights> = { heading: 4, ancestors: 1, title: 1 };

/** What each combination of field bits adds to the normalised body count. */
function fieldBonus(fw: FieldWeights): Float64Array {
  const bonus = new Float64Array(1 << FIELD_BITS);
  for (let f = 0; f < bonus.length; f++) bonus[f] = (f & HEADING_BIT ? fw.heading : 0) + (f & ANCESTORS_BIT ? fw.ancestors : 0) + (f & TITLE_BIT ? fw.title : 0);
  return bonus;
}

export interface CorpusStats {
  /** Number of indexed chunks. */
  N: number;
  /** Sum of all chunks' body lengths, in terms. */
  totalLength: number;
}

/** One term's postings, sorted by chunk id. */
export interface PostingList {
  ids: Uint32Array;
  /** Term frequency codes (src/indexing.ts tfCode: body count and field bits), each >= 1. */
  tfs: Uint32Array;
  /** Body length (in terms) of each chunk, so scoring never has to look a chunk up. */
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
  /** The short fields (src/indexing.ts bits: heading, ancestors, title) any of those terms is in. */
  fields?: number;
}

export interface Bm25SearchOptions {
  k: number;
  /** When given, only these chunk ids are scored (filters are applied before scoring). */
  allowed?: ReadonlySet<number> | null;
  params?: Bm25Params;
  fields?: FieldWeights;
}

export function idf(N: number, df: number): number {
  return Math.log(1 + (N - df + 0.5) / (df + 0.5));
}

/** Maximum number of distinct query terms scored (the rest are dropped, absent terms first). */
export const MAX_QUERY_TERMS = 32;

/**
 * Reusable scratch space: allocating a score array per query would dominate latency. Between queries
 * every score is 0; a scored document's score is > 0 (see `bm25Search`), so 0 also means "not touched".
 */
class Scratch {
  scores = new Float64Array(1024);
  touched = new Uint32Array(1024);
  /** The top-k heap, emptied and reused by every search (allocating its arrays per query showed in profiles). */
  readonly heap = new TopK(0);
  /** The winners, best first (ids, scores), and keyed by id for the "which terms matched" walk. */
  ids = new Float64Array(256);
  best = new Float64Array(256);
  byId = new Float64Array(256);
  /** Per winner (by rank): a bit per query term it holds, and the short fields those terms are in. */
  termBits = new Uint32Array(256);
  fields = new Uint8Array(256);
  /** bm25Ranked: the ranks of the winners kept, their raised scores, id keys and order. */
  kept = new Uint32Array(256);
  raised = new Float64Array(256);
  keys = new Float64Array(256);
  order = new Uint32Array(256);
  ensure(maxId: number, total: number): void {
    if (maxId >= this.scores.length) this.scores = new Float64Array(Math.max(maxId + 1, this.scores.length * 2));
    if (total > this.touched.length) this.touched = new Uint32Array(Math.max(total, this.touched.length * 2));
  }
  ensureWinners(k: number): void {
    if (k <= this.ids.length) return;
    const n = Math.max(k, this.ids.length * 2);
    this.ids = new Float64Array(n);
    this.best = new Float64Array(n);
    this.byId = new Float64Array(n);
    this.termBits = new Uint32Array(n);
    this.fields = new Uint8Array(n);
  }
}
let scratchSpace: Scratch | undefined;
/** Created on first use: TopK (below) must be defined first. */
const scratchOf = (): Scratch => (scratchSpace ??= new Scratch());

/**
 * The k best chunks for `query`, best first (ties by smaller id).
 *
 * The hot loop only adds into one score per chunk. Which query terms a hit matched ("why matched") is
 * worked out afterwards for the k winners alone, by binary search in each term's ids: keeping a term
 * mask per touched chunk instead costs a second random read-modify-write per posting.
 *
 * Dense accumulation (a Float64Array indexed by id, reused across queries) when ids are compact (up to
 * a few times the number of chunks or of postings); a Map when they are sparse or when a term's or field's weight is not positive, since the
 * dense path recognises untouched chunks by a score of 0. Postings have a tf code >= 1 (a term is posted
 * where it occurs, in some field).
 */
export function bm25Search(query: readonly QueryTerm[], stats: CorpusStats, options: Bm25SearchOptions): LexicalHit[] {
  // Drop absent terms before capping, so words the index lacks do not use up slots.
  const terms = query.filter((q) => q.postings.ids.length > 0).slice(0, MAX_QUERY_TERMS);
  if (!terms.length || stats.N <= 0 || options.k <= 0) return [];
  const scratch = scratchOf();
  scoreInto(scratch.heap, terms, stats, options, scratch);
  return winners(scratch.heap, terms, scratch);
}

/** Scores `terms` (present, at most MAX_QUERY_TERMS) into `heap`, emptied first and keeping options.k. */
function scoreInto(heap: TopK, terms: readonly QueryTerm[], stats: CorpusStats, options: Bm25SearchOptions, scratch: Scratch): void {
  const { k1, b } = options.params ?? DEFAULT_BM25;
  const fw = options.fields ?? DEFAULT_FIELDS;
  const allowed = options.allowed ?? null;
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
  const norm0 = 1 - b;
  const normL = b / avgLen;
  const bonus = fieldBonus(fw);
  heap.reset(options.k);

  // Dense whenever the score array stays proportional to the corpus (as the floor's is): ids up to a
  // few times N. Rare terms' short lists used to fall to the Map path here, at several times the cost.
  const compact = maxId < 4 * total + 65536 || maxId < 4 * stats.N + 65536;
  if (compact && weights.every((w) => w > 0) && fw.heading > 0 && fw.ancestors > 0 && fw.title > 0) {
    scratch.ensure(maxId, total);
    const { scores, touched } = scratch;
    let nTouched = 0;
    for (let t = 0; t < terms.length; t++) {
      const p = terms[t]!.postings;
      const wk = weights[t]! * k1p1;
      nTouched = allowed === null ? accumulate(p.ids, p.tfs, p.lens, scores, touched, nTouched, wk, k1, norm0, normL, bonus) : accumulateAllowed(p.ids, p.tfs, p.lens, allowed, scores, touched, nTouched, wk, k1, norm0, normL, bonus);
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
        const code = tfs[i]!;
        let add: number;
        if ((code & 7) === 0) {
          const body = code >>> FIELD_BITS;
          add = (w * k1p1 * body) / (body + k1 * (norm0 + normL * lens[i]!));
        } else {
          const tf = (code >>> FIELD_BITS) / (norm0 + normL * lens[i]!) + bonus[code & 7]!;
          add = (w * k1p1 * tf) / (tf + k1);
        }
        scores.set(id, (scores.get(id) ?? 0) + add);
      }
    }
    for (const [id, s] of scores) heap.push(id, s);
  }
}

export interface RankedOptions extends Bm25SearchOptions {
  /**
   * Per term of the query (in order): the query word it stands for (0-30), or -1. With `need`, a
   * winner is kept only when its terms stand for at least `need` distinct words.
   */
  words?: readonly number[];
  /**
   * Words a set of terms stands for only together: per entry, the word (0-30) and the indexes in the
   * query of the terms a winner must hold all of (a compound's parts, when its whole is in `words`).
   */
  together?: readonly { word: number; terms: readonly number[] }[];
  need?: number;
  /** Terms whose scores are added to the winners kept but that retrieve nothing (addScores). */
  scoring?: readonly QueryTerm[];
  /** How many of them to return, at most (the best after `scoring`). */
  keep: number;
  /**
   * Whether the winners holding fewer than `need` words are returned too (`below`, ranked the same way,
   * at most `keep`): what a list the minimum left short is filled with, without a second pass.
   */
  below?: boolean;
}

/**
 * bm25Search's `k` winners, filtered to those holding `need` of the query's words, raised by the
 * `scoring` terms' scores and cut to the best `keep`: the same hits, scores and order as
 * `addScores(bm25Search(...).filter(...), scoring).slice(0, keep)`, but only the hits returned are
 * made objects (the rest stay in the scratch space's typed arrays). `found` is how many winners there
 * were before the filter; with `below`, the winners the filter left out, ranked the same way.
 */
export function bm25Ranked(query: readonly QueryTerm[], stats: CorpusStats, options: RankedOptions): { hits: LexicalHit[]; found: number; below?: LexicalHit[] } {
  const present: number[] = [];
  for (let i = 0; i < query.length && present.length < MAX_QUERY_TERMS; i++) if (query[i]!.postings.ids.length > 0) present.push(i);
  const need = options.need ?? 1;
  const wantBelow = !!options.below && need > 1;
  if (!present.length || stats.N <= 0 || options.k <= 0) return { hits: [], found: 0, ...(wantBelow ? { below: [] } : {}) };
  const terms = present.map((i) => query[i]!);
  const scratch = scratchOf();
  scoreInto(scratch.heap, terms, stats, options, scratch);
  const scoring = (options.scoring ?? []).filter((q) => q.postings.ids.length > 0);
  if (scratch.heap.size > RANKS) {
    const found = winners(scratch.heap, terms, scratch);
    let out = found;
    let below: LexicalHit[] | undefined;
    if (need > 1) {
      const wordOf = new Map<string, number>();
      present.forEach((i, t) => wordOf.set(terms[t]!.term, options.words?.[i] ?? -1));
      const groups = (options.together ?? []).map((g) => ({ word: g.word, terms: g.terms.map((i) => query[i]!.term) }));
      const enough = (h: LexicalHit) => {
        const held = new Set(h.terms.map((t) => wordOf.get(t)!).filter((w) => w >= 0));
        for (const g of groups) if (g.terms.every((t) => h.terms.includes(t))) held.add(g.word);
        return held.size >= need;
      };
      out = found.filter(enough);
      if (wantBelow) below = found.filter((h) => !enough(h));
    }
    if (scoring.length) {
      out = addScores(out, scoring, stats, options);
      if (below) below = addScores(below, scoring, stats, options);
    }
    return { hits: out.slice(0, options.keep), found: found.length, ...(below ? { below: below.slice(0, options.keep) } : {}) };
  }
  const n = winnerBits(scratch.heap, terms, scratch);
  // The winners kept, by rank (best first); with `below`, those left out after them (from the end).
  const kept = scratch.kept.length >= n ? scratch.kept : (scratch.kept = new Uint32Array(Math.max(n, scratch.kept.length * 2)));
  let m = 0;
  let l = n;
  if (need > 1) {
    // A bit per query word a term stands for (the first term of a word sets it, as wordsMatched counts).
    const wordBit = present.map((i) => {
      const w = options.words?.[i] ?? -1;
      return w >= 0 ? 1 << w : 0;
    });
    // Each group as a mask of the winners' term bits (a group with a term no section holds never counts).
    const at = new Map(present.map((i, t) => [i, t]));
    const groups: { bit: number; mask: number }[] = [];
    for (const g of options.together ?? []) {
      if (!g.terms.length || !g.terms.every((i) => at.has(i))) continue;
      groups.push({ bit: 1 << g.word, mask: g.terms.reduce((mask, i) => mask | (1 << at.get(i)!), 0) });
    }
    const { termBits } = scratch;
    for (let r = 0; r < n; r++) {
      const bits = termBits[r]!;
      let words = 0;
      for (let t = 0; t < terms.length; t++) if (bits & (1 << t)) words |= wordBit[t]!;
      for (const g of groups) if ((bits & g.mask) === g.mask) words |= g.bit;
      if (popcount(words) >= need) kept[m++] = r;
      else if (wantBelow) kept[--l] = r;
    }
  } else {
    for (let r = 0; r < n; r++) kept[r] = r;
    m = n;
  }
  const hits = rankedHits(scratch, kept.subarray(0, m), terms, scoring, stats, options);
  if (!wantBelow) return { hits, found: n };
  // (Filled from the end: best first is the reverse.)
  const rest = kept.subarray(l, n).reverse();
  return { hits, found: n, below: rankedHits(scratch, rest, terms, scoring, stats, options) };
}

/** The winners at these ranks (best first) as hits, raised by the `scoring` terms and re-sorted, the best `keep`. */
function rankedHits(scratch: Scratch, ranks: Uint32Array, terms: readonly QueryTerm[], scoring: readonly QueryTerm[], stats: CorpusStats, options: RankedOptions): LexicalHit[] {
  const { ids, best } = scratch;
  const m = ranks.length;
  if (!scoring.length || m === 0) {
    const out: LexicalHit[] = new Array(Math.min(m, options.keep));
    for (let j = 0; j < out.length; j++) out[j] = hitAt(scratch, ranks[j]!, best[ranks[j]!]!, terms);
    return out;
  }
  // addScores over the kept winners, in the scratch space: the same sums in the same order (each
  // winner's score, then each scoring term's contribution in query order).
  const score = scratch.raised.length >= m ? scratch.raised : (scratch.raised = new Float64Array(Math.max(m, scratch.raised.length * 2)));
  const keys = scratch.keys.length >= m ? scratch.keys : (scratch.keys = new Float64Array(Math.max(m, scratch.keys.length * 2)));
  for (let j = 0; j < m; j++) {
    score[j] = best[ranks[j]!]!;
    keys[j] = ids[ranks[j]!]! * RANKS + j;
  }
  raise(keys.subarray(0, m), scoring, stats, options, (j, x) => {
    score[j] = score[j]! + x;
  });
  // Best first (score desc, then id), as addScores sorts.
  const order = scratch.order.length >= m ? scratch.order : (scratch.order = new Uint32Array(Math.max(m, scratch.order.length * 2)));
  for (let j = 0; j < m; j++) order[j] = j;
  const sorted = order.subarray(0, m).sort((x, y) => score[y]! - score[x]! || ids[ranks[x]!]! - ids[ranks[y]!]!);
  const out: LexicalHit[] = new Array(Math.min(m, options.keep));
  for (let j = 0; j < out.length; j++) out[j] = hitAt(scratch, ranks[sorted[j]!]!, score[sorted[j]!]!, terms);
  return out;
}

function popcount(x: number): number {
  x = x - ((x >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Ranks are packed below ids in `byId` (id * RANKS + rank): k up to this many takes the merge walk. */
const RANKS = 65536;

/**
 * The heap's entries as hits, best first, with the query terms each holds and their short fields.
 * Which terms a winner holds is found by walking the winners in id order along each term's ids
 * (galloping: a long list costs about k log(df / k), not k log df), into one bit per term (at most
 * MAX_QUERY_TERMS = 32). Same hits as binary-searching each winner in each list.
 */
function winners(heap: TopK, terms: readonly QueryTerm[], scratch: Scratch): LexicalHit[] {
  const k = heap.size;
  if (k <= RANKS) {
    const n = winnerBits(heap, terms, scratch);
    const out: LexicalHit[] = new Array(n);
    for (let r = 0; r < n; r++) out[r] = hitAt(scratch, r, scratch.best[r]!, terms);
    return out;
  }
  scratch.ensureWinners(k);
  const { ids, best } = scratch;
  const n = heap.drain(ids, best);
  const out: LexicalHit[] = new Array(n);
  for (let r = 0; r < n; r++) {
    const matched: string[] = [];
    let f = 0;
    for (const q of terms) {
      const i = indexOf(q.postings.ids, ids[r]!);
      if (i < 0) continue;
      matched.push(q.term);
      f |= q.postings.tfs[i]! & 7;
    }
    out[r] = { id: ids[r]!, score: best[r]!, terms: matched, fields: f };
  }
  return out;
}

/**
 * The heap's entries (at most RANKS), best first, into the scratch space: `ids`, `best` (scores) and,
 * per rank, a bit per term of `terms` the winner holds (`termBits`) and the short fields those terms
 * are in (`fields`). Returns how many.
 */
function winnerBits(heap: TopK, terms: readonly QueryTerm[], scratch: Scratch): number {
  scratch.ensureWinners(heap.size);
  const { ids, best, byId, termBits, fields } = scratch;
  const n = heap.drain(ids, best);
  if (n === 0) return 0;
  for (let r = 0; r < n; r++) {
    byId[r] = ids[r]! * RANKS + r;
    termBits[r] = 0;
    fields[r] = 0;
  }
  const sortedById = byId.subarray(0, n).sort();
  for (let t = 0; t < terms.length; t++) {
    const { ids: list, tfs } = terms[t]!.postings;
    const bit = (1 << t) >>> 0;
    let at = 0;
    for (let j = 0; j < n && at < list.length; j++) {
      const key = sortedById[j]!;
      // (key / RANKS floored: the id, exactly, as RANKS is a power of two; `%` on a double this large
      // is a call into the C library's fmod, and this runs for every winner and term.)
      const id = Math.floor(key / RANKS);
      const r = key - id * RANKS;
      at = seek(list, id, at);
      if (at < list.length && list[at] === id) {
        termBits[r] = (termBits[r]! | bit) >>> 0;
        fields[r] = fields[r]! | (tfs[at]! & 7);
      }
    }
  }
  return n;
}

/** Winner `r` of the scratch space (winnerBits) as a hit with this score. */
function hitAt(scratch: Scratch, r: number, score: number, terms: readonly QueryTerm[]): LexicalHit {
  const matched: string[] = [];
  const bits = scratch.termBits[r]!;
  for (let t = 0; t < terms.length; t++) if (bits & (1 << t)) matched.push(terms[t]!.term);
  return { id: scratch.ids[r]!, score, terms: matched, fields: scratch.fields[r]! };
}

/** The first index at or after `from` whose id is >= `id` in ascending ids (galloping, then binary search). */
export function seek(ids: Uint32Array, id: number, from: number): number {
  const n = ids.length;
  if (from >= n || ids[from]! >= id) return from;
  // ids[lo] < id; widen until ids[hi] >= id or the end.
  let lo = from;
  let step = 1;
  let hi = from + 1;
  while (hi < n && ids[hi]! < id) {
    lo = hi;
    step *= 2;
    hi = lo + step;
  }
  if (hi > n) hi = n;
  // ids[lo] < id, and hi is n or ids[hi] >= id: the answer is in (lo, hi].
  while (lo + 1 < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid;
    else hi = mid;
  }
  return hi;
}

/**
 * One term's postings added into the dense scores (the hot loop of bm25Search, kept small and
 * monomorphic so it optimises on its own). Returns the new number of touched chunks.
 */
function accumulate(ids: Uint32Array, tfs: Uint32Array, lens: Uint32Array, scores: Float64Array, touched: Uint32Array, nTouched: number, wk: number, k1: number, norm0: number, normL: number, bonus: Float64Array): number {
  const n = ids.length;
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    const code = tfs[i]!;
    const prev = scores[id]!;
    if (prev === 0) touched[nTouched++] = id;
    if ((code & 7) === 0) {
      // Body only (most postings): tf~ = body / norm, and w tf~ (k1 + 1) / (tf~ + k1) in one division.
      const body = code >>> 3;
      scores[id] = prev + (wk * body) / (body + k1 * (norm0 + normL * lens[i]!));
    } else {
      const tf = (code >>> 3) / (norm0 + normL * lens[i]!) + bonus[code & 7]!;
      scores[id] = prev + (wk * tf) / (tf + k1);
    }
  }
  return nTouched;
}

/** `accumulate` for the chunks in `allowed` only. */
function accumulateAllowed(ids: Uint32Array, tfs: Uint32Array, lens: Uint32Array, allowed: ReadonlySet<number>, scores: Float64Array, touched: Uint32Array, nTouched: number, wk: number, k1: number, norm0: number, normL: number, bonus: Float64Array): number {
  const n = ids.length;
  for (let i = 0; i < n; i++) {
    const id = ids[i]!;
    if (!allowed.has(id)) continue;
    const code = tfs[i]!;
    const prev = scores[id]!;
    if (prev === 0) touched[nTouched++] = id;
    if ((code & 7) === 0) {
      const body = code >>> 3;
      scores[id] = prev + (wk * body) / (body + k1 * (norm0 + normL * lens[i]!));
    } else {
      const tf = (code >>> 3) / (norm0 + normL * lens[i]!) + bonus[code & 7]!;
      scores[id] = prev + (wk * tf) / (tf + k1);
    }
  }
  return nTouched;
}

/**
 * Adds to `hits` the BM25F contributions of terms that score but do not retrieve (a question's common
 * words): each hit is looked up in each term's ids by binary search, so a long posting list costs
 * log(df) per hit, not df. The hits' scores are raised in place and the array re-sorted (score desc,
 * then id); their `terms` are left as they were.
 */
export function addScores(hits: LexicalHit[], query: readonly QueryTerm[], stats: CorpusStats, options: { params?: Bm25Params; fields?: FieldWeights } = {}): LexicalHit[] {
  const terms = query.filter((q) => q.postings.ids.length > 0);
  if (!terms.length || !hits.length || stats.N <= 0) return hits;
  const n = hits.length;
  if (n > RANKS) {
    const { k1, b } = options.params ?? DEFAULT_BM25;
    const bonus = fieldBonus(options.fields ?? DEFAULT_FIELDS);
    const avgLen = stats.totalLength / stats.N || 1;
    const w = terms.map((q) => (q.weight ?? 1) * idf(stats.N, q.postings.ids.length) * (k1 + 1));
    for (const h of hits) for (let t = 0; t < terms.length; t++) addTerm(h, terms[t]!.postings, indexOf(terms[t]!.postings.ids, h.id), w[t]!, k1, b, avgLen, bonus);
  } else {
    // The hits in id order (id * RANKS + index), walked along each term's ids as bm25Search's winners are.
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) keys[i] = hits[i]!.id * RANKS + i;
    raise(keys, terms, stats, options, (i, x) => {
      hits[i]!.score += x;
    });
  }
  return hits.sort((a, b) => b.score - a.score || a.id - b.id);
}

/**
 * Each scoring term's BM25F contribution to the hits whose keys (id * RANKS + index, any order) are
 * given, terms outer and hits in id order inner (a gallop along each term's ids): `add(index, x)` once
 * per term a hit holds, in query order, so every caller sums the same numbers in the same order.
 * Sorts `keys` in place.
 */
function raise(keys: Float64Array, terms: readonly QueryTerm[], stats: CorpusStats, options: { params?: Bm25Params; fields?: FieldWeights }, add: (index: number, x: number) => void): void {
  const { k1, b } = options.params ?? DEFAULT_BM25;
  const bonus = fieldBonus(options.fields ?? DEFAULT_FIELDS);
  const avgLen = stats.totalLength / stats.N || 1;
  const n = keys.length;
  keys.sort();
  for (let t = 0; t < terms.length; t++) {
    const p = terms[t]!.postings;
    const w = (terms[t]!.weight ?? 1) * idf(stats.N, p.ids.length) * (k1 + 1);
    let at = 0;
    for (let x = 0; x < n && at < p.ids.length; x++) {
      const key = keys[x]!;
      const id = Math.floor(key / RANKS);
      at = seek(p.ids, id, at);
      if (at < p.ids.length && p.ids[at] === id) {
        const code = p.tfs[at]!;
        const tf = (code >>> FIELD_BITS) / (1 - b + (b * p.lens[at]!) / avgLen) + bonus[code & 7]!;
        add(key - id * RANKS, (w * tf) / (tf + k1));
      }
    }
  }
}

/** Adds term posting `i`'s BM25F contribution to `h` (nothing when i < 0). */
function addTerm(h: LexicalHit, p: PostingList, i: number, w: number, k1: number, b: number, avgLen: number, bonus: Float64Array): void {
  if (i < 0) return;
  const code = p.tfs[i]!;
  const tf = (code >>> FIELD_BITS) / (1 - b + (b * p.lens[i]!) / avgLen) + bonus[code & 7]!;
  h.score += (w * tf) / (tf + k1);
}

/** Position of id in ascending ids, or -1. */
function indexOf(ids: Uint32Array, id: number): number {
  let lo = 0;
  let hi = ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = ids[mid]!;
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * A bounded min-heap keeping the k best (score desc, then id asc so results are deterministic), in
 * typed arrays that grow up to k. A push that cannot enter a full heap costs one comparison and no
 * allocation: most pushes are such once the heap is full.
 */
export class TopK {
  private ids = new Float64Array(0);
  private scores = new Float64Array(0);
  private n = 0;
  constructor(private k: number) {}

  /** Empties the heap for another search keeping `k` (its arrays are kept). */
  reset(k: number): void {
    this.k = k;
    this.n = 0;
  }

  /** Is entry i worse than entry j? */
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
    if (this.n < this.k) {
      if (this.n === this.ids.length) this.grow();
      let i = this.n++;
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
    const rootScore = this.scores[0]!;
    if (!(score > rootScore || (score === rootScore && id < this.ids[0]!))) return;
    this.ids[0] = id;
    this.scores[0] = score;
    this.siftDown(this.n);
  }

  /** Moves the root down among the first `n` entries until neither child is worse. */
  private siftDown(n: number): void {
    let i = 0;
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

  private grow(): void {
    // First to k when k is a results page's depth (the lexical lane's 90-180: one allocation instead of
    // five), else doubling from 256, so a huge k with few entries stays small.
    const size = Math.min(this.k, Math.max(256, this.ids.length * 2));
    const ids = new Float64Array(size);
    const scores = new Float64Array(size);
    ids.set(this.ids);
    scores.set(this.scores);
    this.ids = ids;
    this.scores = scores;
  }

  get size(): number {
    return this.n;
  }

  /**
   * Empties the heap into `ids` and `scores` (each at least `size` long), best first (the order of
   * `sorted`): the worst is at the root, so taking it off repeatedly fills them from the end.
   * Returns how many.
   */
  drain(ids: Float64Array, scores: Float64Array): number {
    const total = this.n;
    for (let last = total - 1; last >= 0; last--) {
      ids[last] = this.ids[0]!;
      scores[last] = this.scores[0]!;
      this.n = last;
      if (last === 0) break;
      this.ids[0] = this.ids[last]!;
      this.scores[0] = this.scores[last]!;
      this.siftDown(last);
    }
    this.n = 0;
    return total;
  }

  /** Best first. */
  sorted(): { id: number; score: number }[] {
    const out: { id: number; score: number }[] = [];
    for (let i = 0; i < this.n; i++) out.push({ id: this.ids[i]!, score: this.scores[i]! });
    // a after b when a is worse: a lower score, or the same score and a larger id (as `worse`).
    return out.sort((a, b) => (a.score < b.score ? 1 : a.score > b.score ? -1 : a.score !== b.score ? 0 : a.id > b.id ? 1 : a.id < b.id ? -1 : 0));
  }
}
