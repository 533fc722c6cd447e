/**
 * Typos: which index terms a word the index does not know may have meant.
 *
 * - Only words made of letters, of at least `MIN_TYPO_LENGTH` characters, in scripts written with
 *   spaces, are looked at: a number, an identifier part or a CJK word is not a misspelling of another.
 * - Distance is Damerau–Levenshtein in its optimal-string-alignment form (a swap of two neighbours
 *   costs 1: `argprase` is one edit from `argparse`), at most 1 edit for words under 7 letters and 2
 *   from 7 on (about Elasticsearch's "AUTO" fuzziness, one letter stricter for short words).
 * - Candidates share the word's first letter, or its second (a swap or an extra letter at the start):
 *   the dictionary is bucketed by first letter and length, so a look-up reads a few hundred terms, not
 *   the vocabulary (SymSpell's delete dictionary would be faster still, at several times the memory).
 */

import { UnspacedTerms } from './recut.js';

export const MIN_TYPO_LENGTH = 4;

/** At most this many edits for a word of this length (0: not corrected). */
export function maxEditsFor(word: string): number {
  const n = [...word].length;
  return n < MIN_TYPO_LENGTH ? 0 : n < 7 ? 1 : 2;
}

const LETTERS = /^\p{L}+$/u;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\p{Script=Hangul}]/u;

/** A term that could be a misspelling or the correction of one: letters only, in a spaced script. */
export function spellable(term: string): boolean {
  return term.length >= MIN_TYPO_LENGTH - 1 && term.length <= 32 && LETTERS.test(term) && !UNSPACED.test(term);
}

/**
 * Optimal string alignment distance between a and b, or max + 1 as soon as it must exceed max.
 * Works on UTF-16 units (the terms it sees are folded: no combining marks; astral letters are rare).
 */
export function editDistance(a: string, b: string, max: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (n === 0 || m === 0) return Math.min(Math.max(n, m), max + 1);
  // Three rows: i-2, i-1, i.
  let prev2 = new Uint16Array(m + 1);
  let prev = new Uint16Array(m + 1);
  let cur = new Uint16Array(m + 1);
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j <= m; j++) {
      const bj = b.charCodeAt(j - 1);
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return Math.min(prev[m]!, max + 1);
}

/** An index term near a word: how many edits away, and the ending it was compared with, if any. */
export interface NearTerm {
  term: string;
  distance: number;
  /** The ending (STEM_ENDINGS) the term was compared with: the word is a typo of `term + ending`. */
  ending?: string;
}

/** Endings the stemmer (src/tokenizer.ts `stem`) takes off a word: a term is compared with each added back. */
export const STEM_ENDINGS: readonly string[] = ['s', 'es', 'ed', 'ing'];

/**
 * The spellable terms of an index, bucketed by first character and length. Terms are only added
 * (a term whose postings were all deleted stays, and is dropped by the caller when its document
 * frequency is read as 0).
 */
export class TermDictionary {
  private readonly buckets = new Map<string, string[]>();
  private readonly known = new Set<string>();
  /** The terms of scripts without spaces, for cutting a query's unknown words in them again. */
  readonly unspaced = new UnspacedTerms();

  get size(): number {
    return this.known.size;
  }

  add(term: string): void {
    if (!spellable(term)) {
      this.unspaced.add(term);
      return;
    }
    if (this.known.has(term)) return;
    this.known.add(term);
    const key = term[0]! + term.length;
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = []));
    b.push(term);
  }

  /**
   * Terms within maxEdits of `word` that start with its first or second letter, nearest first (then by
   * term). The terms are stems, so a term also stands for itself with an ending the stemmer takes off
   * (STEM_ENDINGS): `settign` is one edit from `sett` + `ing`, though three from `sett`. Such a match
   * names its `ending`.
   */
  near(word: string, maxEdits: number): NearTerm[] {
    if (maxEdits <= 0 || !spellable(word)) return [];
    const best = new Map<string, NearTerm>();
    const firsts = new Set([word[0]!, word[1] ?? word[0]!]);
    for (const ending of ['', ...STEM_ENDINGS]) {
      for (const f of firsts) {
        const at = word.length - ending.length;
        for (let len = at - maxEdits; len <= at + maxEdits; len++) {
          for (const t of this.buckets.get(f + len) ?? []) {
            if (t === word) continue;
            const d = editDistance(word, t + ending, maxEdits);
            if (d > maxEdits) continue;
            const cur = best.get(t);
            if (!cur || d < cur.distance) best.set(t, ending ? { term: t, distance: d, ending } : { term: t, distance: d });
          }
        }
      }
    }
    return [...best.values()].sort((a, b) => a.distance - b.distance || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  }
}

/** Real words, looked up one at a time (a Set, or the worker's `SortedLexicon`). */
export interface Lexicon {
  has(word: string): boolean;
}

/**
 * Words of a text holding one a line, sorted by UTF-16 code units (scripts/lexicon.mjs writes it at build
 * time), looked up by binary search: building it is one pass over the text for the lines' starts, where a
 * Set of the same 50,000 words took 15-30 ms and parsing the tokenizer file for them 80-90 ms, paid on the
 * first search after the worker starts.
 */
export class SortedLexicon implements Lexicon {
  private readonly starts: Uint32Array;

  constructor(private readonly text: string) {
    let n = text.length ? 1 : 0;
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
    this.starts = new Uint32Array(n + 1);
    let at = 0;
    for (let k = 0; k < n; k++) {
      this.starts[k] = at;
      const nl = text.indexOf('\n', at);
      at = nl < 0 ? text.length + 1 : nl + 1;
    }
    this.starts[n] = text.length + 1;
  }

  get size(): number {
    return this.starts.length - 1;
  }

  has(word: string): boolean {
    let lo = 0;
    let hi = this.starts.length - 2;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const w = this.text.slice(this.starts[mid]!, this.starts[mid + 1]! - 1);
      if (w === word) return true;
      if (w < word) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }
}

/** The words of a tokenizer file's vocabulary (transformers.js tokenizer.json) that are made of letters. */
export function lexiconOf(tokenizerJson: unknown): ReadonlySet<string> | null {
  const vocab = (tokenizerJson as { model?: { vocab?: unknown } } | null)?.model?.vocab;
  if (!vocab || typeof vocab !== 'object') return null;
  return new Set(Object.keys(vocab).filter((w) => LETTERS.test(w)));
}
