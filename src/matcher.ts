/**
 * Which query words the words of a text carry, exactly as the index would match them: a text word
 * matches a query word when one of its index terms (the tokenizer with the index's options, so `cats`
 * carries `cat` when stemming is on) is among that query word's terms. One matcher serves a whole
 * query: each distinct text word is tokenized once.
 *
 * Two scans: `scan` walks every word of the text (headings in scripts without spaces, text `locate`
 * cannot read); `locate` (proximity over a lane's candidates, snippets' matches: where time counts)
 * finds the candidate words by substring search for each query term's stem and checks only those:
 * the same matches without tokenizing every word, with positions exact where matches are near each
 * other. In a script written without spaces a word is the segmenter's, at ~1 µs a character: only
 * the raws holding a hit, and those between near matches, are segmented (`locateUnspaced`).
 */
import { FoldMap, forEachWordSpan, hasNonAscii, TextWords, wordTerms, type TokenizerOptions } from './tokenizer.js';

/** Query words beyond this many are not told apart (they share the last bit). */
export const MAX_MATCH_WORDS = 31;

export class QueryMatcher {
  private readonly byTerm = new Map<string, number>();
  /** Parts of strict compounds: a word needs all of a compound's parts. */
  private readonly byPart = new Map<string, number>();
  private readonly memo = new Map<string, number>();

  /** Substrings every word carrying a term contains (the term less its last letter: stems only drop endings). */
  private readonly probes: string[];
  /** Strict: compound query words (the whole term first, then its parts) and their parts. */
  private readonly compounds: { bit: number; whole: string; parts: readonly string[] }[] = [];

  /**
   * `groups[i]`: the terms of query word i (as queryWords gives them: the word whole first, then, for a
   * compound, its parts). A text word carries query word i when it carries one of them, or, if
   * `strict`, when it carries a compound's whole term or all of its parts (`git-read-tree` is not
   * `git-ls-tree` to proximity, though they share `git` and `tree`). A group for which `alternatives(i)`
   * holds is a choice of terms even if `strict` (a corrected typo's equally near words: `provdies` is
   * `provid`, `provide` or `proxy`, and "provides" carries it).
   */
  constructor(
    groups: readonly (readonly string[])[],
    private readonly tokenizer: TokenizerOptions,
    strict = false,
    alternatives: (i: number) => boolean = () => false,
  ) {
    groups.forEach((terms, i) => {
      const bit = 1 << Math.min(i, MAX_MATCH_WORDS - 1);
      if (strict && terms.length > 1 && !alternatives(i)) {
        this.compounds.push({ bit, whole: terms[0]!, parts: terms.slice(1) });
        this.byTerm.set(terms[0]!, (this.byTerm.get(terms[0]!) ?? 0) | bit);
        for (const t of terms.slice(1)) this.byPart.set(t, (this.byPart.get(t) ?? 0) | bit);
      } else for (const t of terms) this.byTerm.set(t, (this.byTerm.get(t) ?? 0) | bit);
    });
    const probes = new Set<string>();
    for (const key of [...this.byTerm.keys(), ...this.byPart.keys()]) {
      // A long option (`--only`) is probed for by its word: a hit must be at a word character (locate).
      const t = key.startsWith('--') && key.length > 2 ? key.slice(2) : key;
      probes.add(t.length > 3 ? t.slice(0, -1) : t);
    }
    // A probe that starts with another finds nothing the other does not (hits count where a term may
    // start: a probe merely inside another one's would be looked for at the wrong places).
    this.probes = [...probes].filter((p) => ![...probes].some((q) => q !== p && p.startsWith(q)));
  }

  /**
   * False when no word of `text` can carry a query word (none holds a term's stem); true is a maybe.
   * The cheap first question for many short texts (headings): a substring search per probe in the
   * lower-cased text. (A case-insensitive Unicode regular expression of the probes did the same, but
   * V8 compiles it on first use, once per query: 0.4 ms, as much as the rest of proximity.)
   */
  mayMatch(text: string): boolean {
    if (!this.probes.length) return false;
    // Other scripts: the folded text, as the tokenizer reads it (a final sigma's case depends on what
    // follows it in the text, not in the word: such text is a maybe).
    const lower = asciiLower(text) ?? TextWords.of(text).lower;
    if (lower.includes('ς')) return true;
    for (const p of this.probes) if (lower.includes(p)) return true;
    return false;
  }

  get empty(): boolean {
    return this.byTerm.size === 0 && this.byPart.size === 0;
  }

  /** Bits of the query words this word (folded, as forEachWordSpan gives it) carries; 0 for none. */
  mask(word: string): number {
    let m = this.memo.get(word);
    if (m === undefined) {
      m = 0;
      const terms = wordTerms(word, this.tokenizer);
      let parts = 0;
      for (const t of terms) {
        m |= this.byTerm.get(t) ?? 0;
        parts |= this.byPart.get(t) ?? 0;
      }
      if (parts) for (const c of this.compounds) if (!(m & c.bit) && parts & c.bit && c.parts.every((p) => terms.includes(p))) m |= c.bit;
      if (this.memo.size < 50_000) this.memo.set(word, m);
    }
    return m;
  }

  /**
   * The words of `text` that carry query words: their ordinal among all the text's words, extent
   * [start, end) in `text` and bits. `words` is the text's word count.
   */
  scan(text: string): TextMatches {
    const pos: number[] = [];
    const start: number[] = [];
    const end: number[] = [];
    const mask: number[] = [];
    let n = 0;
    if (!this.empty) {
      forEachWordSpan(text, (word, s, e) => {
        const m = this.mask(word);
        if (m) {
          pos.push(n);
          start.push(s);
          end.push(e);
          mask.push(m);
        }
        n++;
      });
    }
    return { words: n, pos, start, end, mask };
  }

  /**
   * `scan`'s matches, found faster: each probe is searched for in the folded, lower-cased text, and
   * the tokenizer's word around each hit that starts one of a word's terms (the word's start, or a
   * part's: after `.`, `-`, `::`, `_`, or at a change of case) checked. Probes are prefixes of the
   * terms they stand for, so a hit inside a part (`os` in "most") finds nothing a hit at some part's
   * start does not. Positions are exact between matches up to FAR_CHARS apart (all proximity looks
   * at) and estimated beyond; `words` is exact for text whose matches lie within FAR_CHARS of each
   * other and of its ends (a heading: headingMatch divides by it), else an estimate. Text in a script
   * without spaces takes `locateUnspaced` (the same promises); other text with characters outside the
   * BMP, or whose lower case changes length, takes `scan`.
   */
  locate(text: string): TextMatches {
    if (this.empty) return this.scan(text);
    let t = text;
    let map: FoldMap | null = null;
    let lower = asciiLower(text);
    if (lower === null) {
      const words = TextWords.of(text);
      if (words.unspaced) return this.locateUnspaced(words);
      if (ASTRAL.test(text)) return this.scan(text);
      map = words.map;
      t = map.folded;
      if (ASTRAL.test(t)) return this.scan(text);
      lower = words.lower;
    }
    // (ASCII text lower-cases to ASCII of the same length, without a sigma.)
    if (map !== null && (lower.length !== t.length || lower.includes('ς'))) return this.scan(text);
    const wide = map !== null;
    // The words found, in parallel arrays (no object per hit). One probe finds them in text order, each
    // once; several probes may find a word twice (a word carrying two query terms) and out of order.
    const hs: number[] = [];
    const he: number[] = [];
    const hm: number[] = [];
    const seen = this.probes.length > 1 ? new Set<number>() : null;
    for (const probe of this.probes) {
      for (let at = lower.indexOf(probe); at >= 0; at = lower.indexOf(probe, at + 1)) {
        if (!isWordAt(lower, at, wide) || !partStart(t, at, wide)) continue;
        const w = wordStart(t, at, wide);
        const e = wordEnd(t, w, wide);
        const s = optionStart(t, w, wide);
        if (seen === null || !seen.has(s)) {
          const m = this.mask(t.slice(s, e));
          if (m) {
            hs.push(s);
            he.push(e);
            hm.push(m);
            seen?.add(s);
          }
        }
        at = Math.max(at, e - 1);
      }
    }
    let order: number[] | null = null;
    if (seen !== null) {
      order = hs.map((_, i) => i).sort((a, b) => hs[a]! - hs[b]!);
    }
    const pos: number[] = [];
    const start: number[] = [];
    const end: number[] = [];
    const mask: number[] = [];
    // Word positions, exact where they matter (matches a few words apart: the words between are
    // counted), estimated from the characters between matches farther apart.
    let n = 0;
    let prevEnd = 0;
    for (let k = 0; k < hs.length; k++) {
      const i = order === null ? k : order[k]!;
      const s0 = hs[i]!;
      const e0 = he[i]!;
      const gap = s0 - prevEnd;
      n += pos.length ? 1 + (gap > FAR_CHARS ? Math.round(gap / CHARS_PER_WORD) : wordsIn(t, prevEnd, s0, wide)) : wordsIn(t, 0, Math.min(s0, FAR_CHARS), wide) + (s0 > FAR_CHARS ? Math.round((s0 - FAR_CHARS) / CHARS_PER_WORD) : 0);
      pos.push(n);
      start.push(map ? map.start(s0) : s0);
      end.push(map ? map.end(e0) : e0);
      mask.push(hm[i]!);
      prevEnd = e0;
    }
    // After the last match: counted when short (a heading's words, which headingMatch divides by), else estimated.
    const tail = t.length - prevEnd;
    const words = pos.length ? n + 1 + (tail > FAR_CHARS ? Math.round(tail / CHARS_PER_WORD) : wordsIn(t, prevEnd, t.length, wide)) : Math.round(t.length / CHARS_PER_WORD);
    return { words, pos, start, end, mask };
  }

  /**
   * `locate` for a heading, whose words headingMatch divides by: text with a script written without
   * spaces is scanned whole, its words counted, not estimated (CHARS_PER_WORD is no measure of a
   * Japanese word, and such headings run long: a FAQ's question). A heading is short, and its raws are
   * mostly segmented already (TextWords).
   */
  locateHeading(text: string): TextMatches {
    return asciiLower(text) === null && TextWords.of(text).unspaced ? this.scan(text) : this.locate(text);
  }

  /**
   * `locate` for text with a script written without spaces, whose words are the segmenter's (~1 µs a
   * character): each probe is searched for in the folded, lower-cased text, and only the raws (the
   * tokenizer's regex words, TextWords) holding a hit are segmented and their words checked, then the
   * raws between matches up to FAR_CHARS apart (in `text`), whose words are counted; farther gaps are
   * estimated, as in `locate`. Positions and `words` are exact where `locate` promises it.
   */
  private locateUnspaced(words: TextWords): TextMatches {
    const text = words.text;
    const map = words.map;
    const t = map.folded;
    const lower = words.lower;
    // (A final sigma's case depends on what follows it in the text, not in the word.)
    if (lower.length !== t.length || lower.includes('ς')) return this.scan(text);
    const { raw, at, start, end, mask } = this.unspacedMatches(words);
    const pos: number[] = [];
    const k = raw.length;
    if (!k) return { words: Math.round(text.length / CHARS_PER_WORD), pos, start, end, mask };
    const raws = words.rawStart.length;
    // The raws whose words are counted: between near matches, and before or after the matches near an end.
    const counted: number[] = [];
    const span = (from: number, to: number) => {
      for (let r = from; r < to; r++) counted.push(r);
    };
    if (start[0]! <= FAR_CHARS) span(0, raw[0]!);
    for (let i = 1; i < k; i++) if (start[i]! - end[i - 1]! <= FAR_CHARS) span(raw[i - 1]! + 1, raw[i]!);
    const tail = text.length - end[k - 1]!;
    if (tail <= FAR_CHARS) span(raw[k - 1]! + 1, raws);
    words.prepareList(counted);
    const wordsOf = (r: number) => words.words(r).length / 2;
    const between = (from: number, to: number) => {
      let n = 0;
      for (let r = from; r < to; r++) n += wordsOf(r);
      return n;
    };
    let n = start[0]! <= FAR_CHARS ? between(0, raw[0]!) + at[0]! : Math.round(start[0]! / CHARS_PER_WORD);
    pos.push(n);
    for (let i = 1; i < k; i++) {
      const gap = start[i]! - end[i - 1]!;
      if (raw[i] === raw[i - 1]) n += at[i]! - at[i - 1]!;
      else if (gap <= FAR_CHARS) n += wordsOf(raw[i - 1]!) - at[i - 1]! + between(raw[i - 1]! + 1, raw[i]!) + at[i]!;
      else n += 1 + Math.round(gap / CHARS_PER_WORD);
      pos.push(n);
    }
    const last = raw[k - 1]!;
    const total = tail <= FAR_CHARS ? n + wordsOf(last) - at[k - 1]! + between(last + 1, raws) : n + 1 + Math.round(tail / CHARS_PER_WORD);
    return { words: total, pos, start, end, mask };
  }

  /**
   * The words of `words`' text that carry query words, in order (as `scan` finds them), found through
   * the raws holding a probe's hit: each match's raw, its ordinal among the raw's words (`at`), its
   * extent in the text and bits. A probe is a prefix of a term, at the start of one of a word's parts,
   * so a word that carries a term holds a hit, and a word lies inside one raw.
   */
  private unspacedMatches(words: TextWords): { raw: number[]; at: number[]; start: number[]; end: number[]; mask: number[] } {
    const lower = words.lower;
    const t = words.map.folded;
    const rawEnd = words.rawEnd;
    const marked = new Uint8Array(rawEnd.length);
    const hit: number[] = [];
    for (const probe of this.probes) {
      for (let i = lower.indexOf(probe); i >= 0; i = lower.indexOf(probe, i + 1)) {
        const r = words.rawAt(i);
        if (r < 0) continue;
        if (!marked[r]) {
          marked[r] = 1;
          hit.push(r);
        }
        i = Math.max(i, rawEnd[r]! - 1);
      }
    }
    if (this.probes.length > 1) hit.sort((a, b) => a - b);
    words.prepareList(hit);
    const out = { raw: [] as number[], at: [] as number[], start: [] as number[], end: [] as number[], mask: [] as number[] };
    const map = words.map;
    for (const r of hit) {
      const w = words.words(r);
      const s = words.rawStart[r]!;
      for (let i = 0; i < w.length; i += 2) {
        const m = this.mask(t.slice(s + w[i]!, s + w[i + 1]!));
        if (!m) continue;
        out.raw.push(r);
        out.at.push(i / 2);
        out.start.push(map.start(s + w[i]!));
        out.end.push(map.end(s + w[i + 1]!));
        out.mask.push(m);
      }
    }
    return out;
  }
}

/**
 * The text last asked about, and whether it is ASCII (then also lower-cased): a heading is asked
 * `mayMatch` then `locate`, a section's text is located by the content words' matcher and then,
 * when it may hold the query's sequence, by the whole query's. Each asked twice in a row is checked
 * and lower-cased once (a scan of the whole text each). Only the last text is kept.
 */
let lastText: string | undefined;
let lastLower: string | null = null;

/** `text` lower-cased when it is all ASCII, else null. */
function asciiLower(text: string): string | null {
  if (text !== lastText) {
    lastLower = hasNonAscii(text) ? null : text.toLowerCase();
    lastText = text;
  }
  return lastLower;
}

/** Gaps longer than this (characters) between matches are counted in estimated words. */
const FAR_CHARS = 80;
const CHARS_PER_WORD = 6;

/** Words that start in text[from, to). */
function wordsIn(text: string, from: number, to: number, wide: boolean): number {
  let n = 0;
  for (let i = from; i < to; ) {
    if (!isWordAt(text, i, wide)) {
      i++;
      continue;
    }
    n++;
    i = wordEnd(text, i, wide);
  }
  return n;
}

/** The end of the word starting at i (word characters, joined by `.`, `-` or `::` before more of them). */
function wordEnd(text: string, i: number, wide: boolean): number {
  const len = text.length;
  for (;;) {
    while (i < len && isWordAt(text, i, wide)) i++;
    const c = text.charCodeAt(i);
    if ((c === 46 || c === 45) && i + 1 < len && isWordAt(text, i + 1, wide)) i += 1;
    else if (c === 58 && text.charCodeAt(i + 1) === 58 && i + 2 < len && isWordAt(text, i + 2, wide)) i += 2;
    else return i;
  }
}

/** The start of the word holding offset `at` (a word character); its end is wordEnd's. */
function wordStart(text: string, at: number, wide: boolean): number {
  let s = at;
  for (;;) {
    while (s > 0 && isWordAt(text, s - 1, wide)) s--;
    const c = text.charCodeAt(s - 1);
    if ((c === 46 || c === 45) && s >= 2 && isWordAt(text, s - 2, wide)) s -= 1;
    else if (c === 58 && text.charCodeAt(s - 2) === 58 && s >= 3 && isWordAt(text, s - 3, wide)) s -= 2;
    else break;
  }
  return s;
}

/** `s` (a word's start), or two before it when the word is a long option: its dashes are the word's, as the tokenizer cuts `--only` (not "text--more"). */
function optionStart(text: string, s: number, wide: boolean): number {
  if (s < 2 || text.charCodeAt(s - 1) !== 45 || text.charCodeAt(s - 2) !== 45) return s;
  const b = text.charCodeAt(s - 3);
  return s === 2 || !(isWordAt(text, s - 3, wide) || b === 46 || b === 45) ? s - 2 : s;
}

/**
 * Whether a term of the word around `at` may start at `at` (a word character): the word's start, a
 * part's after a separator, or a change of case ("getElement": `E`; "HTTPServer": `S`), as the
 * tokenizer cuts compounds. Conservative: any non-ASCII neighbour counts as a possible start.
 */
function partStart(text: string, at: number, wide: boolean): boolean {
  if (at === 0) return true;
  const p = text.charCodeAt(at - 1);
  const c = text.charCodeAt(at);
  if (p > 127 || c > 127) return true;
  if (!isWordAt(text, at - 1, wide) || p === 95) return true;
  if (!isUpper(c)) return false;
  if (isLower(p) || isDigit(p)) return true;
  return isUpper(p) && isLower(text.charCodeAt(at + 1));
}

const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
const isDigit = (c: number) => c >= 48 && c <= 57;
const isWordCode = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
/** The tokenizer's word characters beyond ASCII (letters, digits, marks). */
const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;
/** A word character at i: ASCII's, and in `wide` text also the tokenizer's others. */
function isWordAt(text: string, i: number, wide: boolean): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return isWordCode(c);
  return wide && WORD_CHAR.test(text[i]!);
}
const ASTRAL = /[\ud800-\udfff]/;

export interface TextMatches {
  words: number;
  pos: number[];
  start: number[];
  end: number[];
  mask: number[];
}
