/**
 * Snippets as plain segments ({text, match}); the UI renders them as text nodes, never as HTML.
 * Marked words that touch (新しい|カーネル|パッケージ: an unspaced script cut into words; `½` folded
 * into two) are one marked segment, so they read, and are drawn, as one run; words with anything
 * between them (a space, a hyphen) stay separate marks. No segment is ever empty.
 */
import { QueryMatcher, type TextMatches } from './matcher.js';
import { forEachWordSpan, TextWords, wordTerms, type TokenizerOptions } from './tokenizer.js';

export interface SnippetSegment {
  text: string;
  match: boolean;
}

/**
 * Which words of a text to mark for one query: exactly those whose index terms (the tokenizer with the
 * index's options, so `cats` marks `cat` when stemming is on) are among the query's terms. One marker
 * serves a whole results page: each distinct word is tokenized once.
 */
export class TermMarker {
  private readonly memo = new Map<string, boolean>();

  constructor(
    readonly terms: ReadonlySet<string>,
    private readonly tokenizer: TokenizerOptions,
  ) {}

  /** The same question as a one-word query matcher (for bestSnippet). */
  get matcher(): QueryMatcher {
    return (this.asMatcher ??= new QueryMatcher([[...this.terms]], this.tokenizer));
  }
  private asMatcher: QueryMatcher | undefined;

  /** Does this word (folded, as `forEachWordSpan` gives it) carry a query term? */
  private marks(word: string): boolean {
    let hit = this.memo.get(word);
    if (hit === undefined) {
      hit = wordTerms(word, this.tokenizer).some((t) => this.terms.has(t));
      this.memo.set(word, hit);
    }
    return hit;
  }

  /** The extents [start, end) of the marked runs of `text` (touching words joined), ascending and disjoint, flattened. */
  spans(text: string): number[] {
    const out: number[] = [];
    if (!this.terms.size) return out;
    forEachWordSpan(text, (word, start, end) => {
      if (!this.marks(word)) return;
      const n = out.length;
      // Two words inside one changed character (`½` folds to `1⁄2`) share its extent; words that touch
      // (unspaced scripts) are one run.
      if (n && start <= out[n - 1]!) out[n - 1] = Math.max(out[n - 1]!, end);
      else out.push(start, end);
    });
    return out;
  }
}

/** Segments of text[from, to), marking the given spans (clipped to the range). */
function segments(text: string, spans: readonly number[], from: number, to: number): SnippetSegment[] {
  const out: SnippetSegment[] = [];
  let last = from;
  for (let i = 0; i < spans.length; i += 2) {
    const start = Math.max(spans[i]!, last);
    const end = Math.min(spans[i + 1]!, to);
    if (start >= end) {
      if (spans[i]! >= to) break;
      continue;
    }
    if (start > last) out.push({ text: text.slice(last, start), match: false });
    out.push({ text: text.slice(start, end), match: true });
    last = end;
  }
  if (last < to) out.push({ text: text.slice(last, to), match: false });
  return out;
}

/** Splits text into segments, marking the words `marker` marks. */
export function highlight(text: string, marker: TermMarker): SnippetSegment[] {
  return segments(text, marker.spans(text), 0, text.length);
}

/** What a snippet looks for: which words carry which query words, what each is worth, which to mark. */
export interface SnippetQuery {
  matcher: QueryMatcher;
  /** Weight of query word i (bit i of a mask). */
  weights: readonly number[];
  /** Bits of the query words to highlight (common words count for the window, unmarked). */
  marked: number;
  /**
   * Bits of marked words highlighted only as part of a run with another highlighted word (Japanese
   * particles and endings: を in カーネルをインストール, not every lone を of the passage). Absent: none.
   */
  weak?: number;
}

export interface Snippet {
  segments: SnippetSegment[];
  /** Offset in the body of the first match inside the snippet (-1: nothing matched): where the passage is. */
  focus: number;
}

/**
 * Where a snippet window may start or end: its units. A word of a spaced script ends at whitespace;
 * a run of an unspaced script (Japanese, Chinese, Thai…) has no whitespace for hundreds of characters,
 * so it is cut at the starts of the words the tokenizer's segmenter finds there (punctuation stays with
 * the word before it: a window never opens on 。). Any piece still longer than MAX_UNIT_CHARS (a long
 * URL, base64, one endless hostile word) is cut by length, never inside a surrogate pair nor before a
 * combining mark. A window is then a run of units, so its length is bounded.
 */
const MAX_UNIT_CHARS = 48;
/** What a unit of an unspaced script costs in a window, in fifths of a word (see bestSnippet). */
const UNSPACED_COST = 3;
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
/** Context before the first match: at most this many spaced words, this wide (a wide character counts 2), and not past a sentence's start. */
const CONTEXT_WORDS = 4;
const CONTEXT_WIDTH = 24;
/**
 * Where a snippet is shown: `row` (one line cut by an ellipsis: a "more" row) opens within CONTEXT_WIDTH
 * of the first match; `passage` (the result's own snippet: two lines in the popup, whole on the results
 * page) may show text from its start, or more of what comes before when the text ends, while the first
 * match stays within PASSAGE_LEAD (about the popup's first line).
 */
export type SnippetLead = 'passage' | 'row';
const PASSAGE_LEAD = 96;
/** A unit that ends a sentence of an unspaced script: the window may open right after it. */
const SENTENCE_END = /[。．！？]$/;
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff01-\uff60]/u;
const MARK = /\p{M}/u;

interface Units {
  start: number[];
  end: number[];
  /** Whitespace lies before unit i (it begins a whitespace-separated token). */
  spaced: boolean[];
  /** Unit i is (holds) a word of an unspaced script. */
  unspaced: boolean[];
}

/**
 * The body's units, in order; they cover every non-whitespace character. `wordStarts`: where the
 * tokenizer's words start (forEachWordSpan), needed when the body has an unspaced script.
 */
function snippetUnits(body: string, wordStarts: readonly number[]): Units {
  const u: Units = { start: [], end: [], spaced: [], unspaced: [] };
  // Words of unspaced scripts were found only if the body has some: else no token needs the test.
  const mayBe = wordStarts.length > 0;
  let w = 0;
  for (const t of body.matchAll(/\S+/g)) {
    const ts = t.index;
    const te = ts + t[0].length;
    const cuts = [ts];
    const unspaced = mayBe && UNSPACED.test(t[0]);
    if (unspaced && t[0].length > 1) {
      while (w < wordStarts.length && wordStarts[w]! <= ts) w++;
      for (; w < wordStarts.length && wordStarts[w]! < te; w++) if (wordStarts[w]! > cuts[cuts.length - 1]!) cuts.push(wordStarts[w]!);
    }
    cuts.push(te);
    for (let c = 0; c + 1 < cuts.length; c++) {
      let from = cuts[c]!;
      const to = cuts[c + 1]!;
      while (to - from > MAX_UNIT_CHARS) {
        const cut = lengthCut(body, from, from + MAX_UNIT_CHARS);
        pushUnit(u, from, cut, from === ts, unspaced && UNSPACED.test(body.slice(from, cut)));
        from = cut;
      }
      pushUnit(u, from, to, from === ts, unspaced && ((cuts.length === 2 && from === ts) || UNSPACED.test(body.slice(from, to))));
    }
  }
  return u;
}

/**
 * `matcher.scan(body)`'s matches, and the starts of all the body's words when it has an unspaced
 * script. Segmenting Japanese is most of a snippet's cost (~1 µs a character): the body's raws are
 * segmented once (TextWords), and not again where proximity did it for the same section. Every word's
 * start is needed: the window is chosen over all the body's units. (Segmenting only the text near the
 * matches would leave little out: in the evaluation's Japanese and Chinese queries, whose particles
 * match everywhere, 93-97% of the snippets' text lies within 200 characters of a match.)
 */
function scanWords(body: string, matcher: QueryMatcher): { m: TextMatches; wordStarts: number[] } {
  const wordStarts: number[] = [];
  if (!UNSPACED.test(body)) return { m: matcher.scan(body), wordStarts };
  const words = TextWords.of(body);
  if (words.unspaced) {
    // Every word's start, and the matches as locate finds them (scan's, through the probes' hits: no
    // word is looked up that holds none). Raws segmented by proximity are not segmented again.
    const n = words.rawStart.length;
    words.prepare(0, n);
    const map = words.map;
    for (let r = 0; r < n; r++) {
      const w = words.words(r);
      const at = words.rawStart[r]!;
      for (let i = 0; i < w.length; i += 2) wordStarts.push(map.start(at + w[i]!));
    }
    return { m: matcher.locate(body), wordStarts };
  }
  const m: TextMatches = { words: 0, pos: [], start: [], end: [], mask: [] };
  const empty = matcher.empty;
  forEachWordSpan(body, (word, s, e) => {
    wordStarts.push(s);
    const bits = empty ? 0 : matcher.mask(word);
    if (bits) {
      m.pos.push(m.words);
      m.start.push(s);
      m.end.push(e);
      m.mask.push(bits);
    }
    m.words++;
  });
  return { m, wordStarts };
}

function pushUnit(u: Units, start: number, end: number, spaced: boolean, unspaced: boolean): void {
  u.start.push(start);
  u.end.push(end);
  u.spaced.push(spaced);
  u.unspaced.push(unspaced);
}

/** A cut at or before `at` (and after `from`) that splits neither a surrogate pair nor a base from its marks. */
function lengthCut(text: string, from: number, at: number): number {
  const splitsPair = (i: number) => {
    const c = text.charCodeAt(i);
    return c >= 0xdc00 && c <= 0xdfff && i > 0 && text.charCodeAt(i - 1) >= 0xd800 && text.charCodeAt(i - 1) <= 0xdbff;
  };
  let cut = at;
  while (cut > from + 1 && (splitsPair(cut) || MARK.test(String.fromCodePoint(text.codePointAt(cut)!)))) cut--;
  if (cut > from + 1) return cut;
  // Nothing but marks: cut by length, still never inside a pair.
  return splitsPair(at) ? at - 1 : at;
}

/** Unit k ends a sentence: `。！？`, or `.!?` before whitespace and a capital (not `e.g. foo`). */
function endsSentence(body: string, units: Units, k: number): boolean {
  const text = body.slice(units.start[k]!, units.end[k]!);
  if (SENTENCE_END.test(text)) return true;
  const next = units.start[k + 1];
  return next !== undefined && units.spaced[k + 1]! && /[.!?]["')\]]?$/.test(text) && /^["'(]?\p{Lu}/u.test(body.slice(next, next + 2));
}

function width(text: string): number {
  let n = 0;
  for (const ch of text) n += WIDE.test(ch) ? 2 : 1;
  return n;
}

/**
 * The window of about `maxWords` words (units, see `snippetUnits`; one of an unspaced script counts
 * 3/5) that holds the most of the query: the sum of the weights of the distinct query words in it,
 * then the most matching words, then the earliest. It opens a little before its first match
 * (CONTEXT_*: a few words, or the start of the sentence), so the match shows where a surface cuts the
 * snippet short (a one-line "more" row, the popup's two lines); how much more may come before it
 * depends on the surface (`lead`). Ellipses where it was cut (`… ` at whitespace, `…` inside an
 * unspaced run) and whitespace collapsed.
 */
export function bestSnippet(body: string, q: SnippetQuery, maxWords = 36, lead: SnippetLead = 'passage'): Snippet {
  const { m, wordStarts } = scanWords(body, q.matcher);
  const units = snippetUnits(body, wordStarts);
  const nWords = units.start.length;
  const tStart = (i: number) => units.start[i]!;
  const tEnd = (i: number) => units.end[i]!;
  // Each match counts in the unit it starts in.
  const tokMask = new Uint32Array(nWords);
  const tokOf: number[] = [];
  for (let k = 0, i = 0; k < m.start.length; k++) {
    while (i < nWords && tEnd(i) <= m.start[k]!) i++;
    tokOf.push(i);
    if (i < nWords) tokMask[i]! |= m.mask[k]!;
  }
  // Window sizes in fifths of a word: a word of an unspaced script (often one or two characters: の,
  // カーネル) is 3/5 of one, so a Japanese window is about as long on screen as an English one.
  const pre = new Float64Array(nWords + 1);
  for (let i = 0; i < nWords; i++) pre[i + 1] = pre[i]! + (units.unspaced[i] ? UNSPACED_COST : 5);
  const budget = maxWords * 5;
  const fits = (from: number, to: number) => pre[to]! - pre[from]! <= budget; // units [from, to)
  let start = 0;
  if (m.start.length) {
    let bestStart = 0;
    let bestEnd = nWords;
    let best = -1;
    if (!fits(0, nWords)) {
      const counts = new Int32Array(32);
      let weight = 0;
      let hits = 0;
      const add = (mask: number, d: number) => {
        if (!mask) return;
        hits += d;
        for (let b = 0; mask; b++, mask >>>= 1) {
          if (!(mask & 1)) continue;
          const before = counts[b]!;
          counts[b] = before + d;
          if (before === 0 && d > 0) weight += q.weights[b] ?? 1;
          else if (before + d === 0) weight -= q.weights[b] ?? 1;
        }
      };
      let bestHits = -1;
      for (let i = 0, lo = 0; i < nWords; i++) {
        add(tokMask[i]!, 1);
        while (!fits(lo, i + 1)) add(tokMask[lo++]!, -1);
        if (weight > best + 1e-9 || (Math.abs(weight - best) <= 1e-9 && hits > bestHits)) {
          best = weight;
          bestHits = hits;
          bestStart = lo;
          bestEnd = i + 1;
        }
      }
    } else best = 1;
    if (best > 0) {
      // The chosen window's first and last matches; open a little before the first, never so early
      // that the last falls out.
      let first = bestStart;
      while (first < nWords && !tokMask[first]) first++;
      let last = bestEnd - 1;
      while (last > first && !tokMask[last]) last--;
      let s = first;
      let wide = 0;
      let words = 0;
      while (s > 0 && fits(s - 1, last + 1)) {
        const k = s - 1;
        const text = body.slice(tStart(k), tEnd(k));
        if (SENTENCE_END.test(text)) break;
        wide += width(text) + (units.spaced[s] ? 1 : 0);
        if (!units.unspaced[k]) words++;
        if (wide > CONTEXT_WIDTH || words > CONTEXT_WORDS) break;
        s = k;
      }
      // How much may come before the first match: a row shows the match only that near its start.
      const leadMax = lead === 'row' ? CONTEXT_WIDTH + 4 : PASSAGE_LEAD;
      if (s > 0 && fits(0, last + 1) && width(body.slice(tStart(0), tStart(first))) <= leadMax) start = 0; // shown from its start
      else {
        start = s;
        if (lead === 'passage') {
          // A window the text's end leaves short takes more of what comes before, within the lead.
          let wide = width(body.slice(tStart(start), tStart(first)));
          const from = start;
          while (start > 0 && fits(start - 1, nWords)) {
            wide += width(body.slice(tStart(start - 1), tEnd(start - 1))) + (units.spaced[start] ? 1 : 0);
            if (wide > leadMax) break;
            start--;
          }
          // Opened mid-sentence: from the first sentence that starts in what was added, if one does.
          if (start > 0) {
            for (let k = start; k < from; k++) {
              if (endsSentence(body, units, k)) {
                start = k + 1;
                break;
              }
            }
          }
        }
      }
    }
  }
  let end = start;
  while (end < nWords && fits(start, end + 1)) end++;
  // The window's text (a single space where there was whitespace) and the marked extents mapped into it.
  const segs: SnippetSegment[] = [];
  let text = '';
  let plainFrom = 0;
  const focus = focusIn(tokMask, start, end, q, m, tokOf);
  const drawn = drawnMatches(m, q);
  let k = 0;
  for (let i = start; i < end; i++) {
    if (i > start && units.spaced[i]) text += ' ';
    const base = text.length - tStart(i);
    const prefix = text + body.slice(tStart(i), tEnd(i));
    // Matches that overlap this unit, clipped to it (a match cut by a length cut spans two units).
    while (k < m.start.length && m.end[k]! <= tStart(i)) k++;
    for (let j = k; j < m.start.length && m.start[j]! < tEnd(i); j++) {
      if (!drawn[j] || m.end[j]! <= tStart(i)) continue;
      const s0 = Math.max(base + Math.max(m.start[j]!, tStart(i)), plainFrom);
      const e0 = base + Math.min(m.end[j]!, tEnd(i));
      if (e0 <= s0) continue;
      if (s0 > plainFrom) segs.push({ text: prefix.slice(plainFrom, s0), match: false });
      const prev = segs[segs.length - 1];
      // A match that touches the one before it (新しい|カーネル) joins it: one run, one mark.
      if (s0 === plainFrom && prev?.match) prev.text += prefix.slice(s0, e0);
      else segs.push({ text: prefix.slice(s0, e0), match: true });
      plainFrom = e0;
    }
    text = prefix;
  }
  if (plainFrom < text.length) segs.push({ text: text.slice(plainFrom), match: false });
  if (start > 0) segs.unshift({ text: units.spaced[start] ? '… ' : '…', match: false });
  if (end < nWords) segs.push({ text: units.spaced[end] ? ' …' : '…', match: false });
  return { segments: segs, focus };
}

/**
 * Which matches are highlighted: those of marked words, except a weak word's (SnippetQuery.weak) that
 * neither touches nor overlaps another highlighted match, directly or through a run of weak ones.
 */
function drawnMatches(m: { start: number[]; end: number[]; mask: number[] }, q: SnippetQuery): boolean[] {
  const weak = q.weak ?? 0;
  const n = m.start.length;
  const drawn = m.mask.map((mask) => (mask & q.marked & ~weak) !== 0);
  if (!weak) return drawn;
  const candidate = (j: number) => !drawn[j] && (m.mask[j]! & q.marked) !== 0;
  for (let j = 1; j < n; j++) if (candidate(j) && drawn[j - 1] && m.start[j]! <= m.end[j - 1]!) drawn[j] = true;
  for (let j = n - 2; j >= 0; j--) if (candidate(j) && drawn[j + 1] && m.start[j + 1]! <= m.end[j]!) drawn[j] = true;
  return drawn;
}

/** Words in the passage a snippet's focus is chosen from (about a remembered sentence). */
const FOCUS_WORDS = 12;
/** Matched tokens this close (one unmatched token between them: a dropped stop word) continue a run in order. */
const IN_ORDER_GAP = 2;
/** A chain counts from this many neighbouring pairs (three words in order): one pair is too common to say where a phrase is. */
const MIN_CHAIN = 2;
/** Index of a mask's lowest bit: the first query word a token matches. */
const firstWord = (mask: number): number => 31 - Math.clz32(mask & -mask);

/**
 * Where in tokens [start, end) the query matched best: the run of FOCUS_WORDS tokens with the most
 * weight of distinct query words, then the longest chain of three or more matches in the query's
 * order, each close to the one before (the words of a remembered phrase as they are written, not the same words
 * scattered over the sentence before it: merged sub-sections of one option each share most of their
 * words), then the most matching tokens, then the earliest. Its longest chain's first match (a run
 * without a chain: its first match of a marked word, else of any word), as an offset in the body. -1
 * when nothing in the range matched.
 */
function focusIn(tokMask: Uint32Array, start: number, end: number, q: SnippetQuery, m: { start: number[]; mask: number[] }, tokOf: readonly number[]): number {
  let best = -1;
  let bestChain = -1;
  let bestHits = -1;
  let bestAt = -1;
  let bestChainAt = -1;
  for (let i = start; i < end; i++) {
    if (!tokMask[i]) continue;
    let seen = 0;
    let weight = 0;
    let hits = 0;
    let prev = -1;
    let chain = 0;
    let chainFrom = -1;
    let longest = 0;
    let longestFrom = -1;
    for (let j = i; j < Math.min(end, i + FOCUS_WORDS); j++) {
      const mask = tokMask[j]!;
      if (!mask) continue;
      hits++;
      if (prev >= 0 && j - prev <= IN_ORDER_GAP && firstWord(mask) > firstWord(tokMask[prev]!)) {
        if (!chain) chainFrom = prev;
        chain++;
        if (chain > longest) {
          longest = chain;
          longestFrom = chainFrom;
        }
      } else chain = 0;
      prev = j;
      for (let b = 0, x = mask & ~seen; x; b++, x >>>= 1) if (x & 1) weight += q.weights[b] ?? 1;
      seen |= mask;
    }
    if (longest < MIN_CHAIN) {
      longest = 0;
      longestFrom = -1;
    }
    const same = Math.abs(weight - best) <= 1e-9;
    if (weight > best + 1e-9 || (same && longest > bestChain) || (same && longest === bestChain && hits > bestHits)) {
      best = weight;
      bestChain = longest;
      bestHits = hits;
      bestAt = i;
      bestChainAt = longestFrom;
    }
  }
  if (bestAt < 0) return -1;
  const from = bestChainAt >= 0 ? bestChainAt : bestAt;
  let any = -1;
  for (let k = 0; k < m.start.length; k++) {
    const t = tokOf[k]!;
    if (t < from || t >= bestAt + FOCUS_WORDS) continue;
    if (m.mask[k]! & q.marked) return m.start[k]!;
    if (any < 0) any = m.start[k]!;
  }
  return any;
}

/** `bestSnippet` for a marker: every match weighs the same, so the window with the most matches wins. */
export function makeSnippet(body: string, marker: TermMarker, maxWords = 36, lead: SnippetLead = 'passage'): SnippetSegment[] {
  return bestSnippet(body, { matcher: marker.matcher, weights: [1], marked: 1 }, maxWords, lead).segments;
}
