/**
 * The one tokenizer, used for documents and queries alike (so both sides agree by construction).
 *
 * - Words are runs of letters, digits, marks and `_`, joined by `.`, `-` or `::` into one token
 *   (`os.path.join`, `utf-8`, `3.11`, `std::vector`). A word with `--` before it, not glued to a word
 *   on its left (`--only`, not the dash of "text--more"), is a command-line option: the token keeps the
 *   dashes and is emitted whole, then as the word without them (`--only` -> `--only`, `only`).
 * - Each token is emitted whole and, when it is compound, also as its parts: `ERR_5041` -> `err_5041`,
 *   `err`, `5041`; `getElementById` -> `getelementbyid`, `get`, `element`, `by`, `id`.
 * - Scripts written without spaces (Han, kana, Thai, Lao, Khmer, Myanmar) are split into words by
 *   `Intl.Segmenter`; everything else takes a regex fast path (Segmenter is ~10x slower on Latin text).
 * - Case folded; Latin/Greek/Cyrillic diacritics removed (NFKD, then only U+0300–U+036F are dropped so
 *   that Devanagari or Thai vowel signs, which are marks too, survive), compatibility forms folded
 *   (full-width letters, ligatures).
 */

export interface TokenizerOptions {
  /** Light English stemming (see `stem`). The extension turns it on (measured: tests/eval/README.md). */
  stem?: boolean;
  /** Drop English stop words. Off by default; BM25's idf already discounts them. */
  stopwords?: boolean;
}

/** Tokens longer than this are cut: base64 blobs and hostile strings must not bloat the index. */
export const MAX_TOKEN_LENGTH = 64;

const WORD = /(?:(?<![\p{L}\p{N}\p{M}_.\-])--(?=[\p{L}\p{N}]))?[\p{L}\p{N}\p{M}_]+(?:(?:[.\-]|::)[\p{L}\p{N}\p{M}_]+)*/gu;
const UNSPACED_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const ASCII_WORD = /(?:(?<![A-Za-z0-9_.\-])--(?=[A-Za-z0-9]))?[A-Za-z0-9_]+(?:(?:[.\-]|::)[A-Za-z0-9_]+)*/g;
const ASCII_PREFIX = /[\x00-\x7f]*/y;

/**
 * Whether `text` holds a character beyond ASCII. The sticky pattern runs once over the ASCII prefix
 * and stops at the first other character; /[^\x00-\x7f]/.test, which V8 tries at every offset of an
 * ASCII text, took 4x the time on a section of 1.3 KB (a tenth of proximity's time went there).
 */
export function hasNonAscii(text: string): boolean {
  ASCII_PREFIX.lastIndex = 0;
  ASCII_PREFIX.test(text);
  return ASCII_PREFIX.lastIndex < text.length;
}
const PLAIN_WORD = /^[A-Z]?[a-z0-9]*$/;
const ABOVE_THAI = /[\u0e00-\uffff]/;
const PART_SEPARATORS = /[._\-:]+/;
// Lower to upper (`getElement`), and an upper-case run before its last capital when a word of two or
// more lower-case letters follows (`XMLHttp` -> `XML` `Http`). Not before one letter or a digit: `URLs`,
// `APIs`, `IDs` are plurals and `IPv6`, `GHz` one word (they had been cut as `ur` `ls`, `i` `pv6`).
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll}{2})/u;
/** An acronym's plural (`APIs`, `IDs`, `URLs`): also indexed as the acronym, as a plural word is by the stemmer. */
const ACRONYM_PLURAL = /^\p{Lu}{2,}s$/u;
const DIACRITICS = /[\u0300-\u036f]/g;
const HAS_UPPER = /\p{Lu}/u;

let segmenter: Intl.Segmenter | undefined;
function wordSegmenter(): Intl.Segmenter {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'word' });
  return segmenter;
}

/**
 * ICU's dictionary segmentation of one unbroken run costs time quadratic in the run's length (16k
 * unpunctuated Han characters take ~0.2 s, 500k take minutes), so a long run is segmented in windows.
 * The last segment of a window may be a word cut in two, so the next window starts at it again.
 */
const SEGMENT_WINDOW = 256;

/**
 * A segment the tokenizer keeps: one the segmenter calls word-like, or, where the segmenter's word-likeness
 * cannot be trusted, one holding a letter or digit (the text segmented is raws of letters, digits and
 * marks joined by newlines, so such a segment is a word). Firefox ESR 153's segmenter calls a Japanese or
 * Chinese word before a space, newline or punctuation, some typed alone (书籍, 晚上) and Thai words not
 * word-like: the tokenizer dropped each raw's last word from the index, and such a query had no terms.
 * Whether to trust it is asked of the segmenter once (`概要` in `定義と概要。`); Chromium's and Node's
 * pass, and keep exactly their segments (0 of 560,103 segments of the evaluation's Japanese and Chinese
 * raws would differ by the letter rule; symbols such as Khmer's ៰ would).
 */
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
let wordLikeTrusted: boolean | undefined;
/** Whether this engine's segmenter misjudges word-likeness, so the tokenizer keeps segments by their letters (indexVersion). */
export function wordLikeByLetters(): boolean {
  wordLikeTrusted ??= [...wordSegmenter().segment('定義と概要。')].every((x) => x.isWordLike || !LETTER_OR_DIGIT.test(x.segment));
  return !wordLikeTrusted;
}
function wordLike(s: Intl.SegmentData): boolean {
  if (s.isWordLike) return true;
  return wordLikeByLetters() && LETTER_OR_DIGIT.test(s.segment);
}

/**
 * Calls `emit` with each word-like segment of `run` and its offset in `run`, in order. With `from` (a
 * piece of `run` that follows a newline, which the segmenter never looks across), only that piece's
 * words, as the whole call gives them: the windows are the same, but what lies before the newline is
 * not segmented (TextWords: the last raw of a batch).
 */
function segmentWords(run: string, emit: (word: string, index: number) => void, from = 0): void {
  const seg = wordSegmenter();
  let start = 0;
  while (start < run.length) {
    let end = Math.min(run.length, start + SEGMENT_WINDOW);
    // Never cut a surrogate pair.
    if (end < run.length && end - start > 1 && isHighSurrogate(run.charCodeAt(end - 1))) end--;
    // The window's text from the newline before `from` on (its last segment lies there).
    const skip = from > start + 1 && from - 1 < end ? from - 1 - start : 0;
    let last: Intl.SegmentData | undefined;
    let lastAt = 0;
    for (const s of seg.segment(run.slice(start + skip, end))) {
      if (last && wordLike(last)) emit(last.segment, start + lastAt);
      last = s;
      lastAt = skip + s.index;
    }
    if (!last) break;
    if (end < run.length && lastAt > 0) {
      start += lastAt; // re-segment the possibly cut last word with what follows it
    } else {
      if (wordLike(last)) emit(last.segment, start + lastAt);
      start = end;
    }
  }
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** Folds case, diacritics and compatibility forms; keeps the text's length roughly (not exactly). */
export function foldText(text: string): string {
  // Kana, ideographs and the like fold alone, to themselves or to ASCII (FOLD_STABLE, FOLD_SIMPLE).
  if (STABLE_TEXT.test(text)) return text;
  if (SIMPLE_TEXT.test(text)) return text.replace(SIMPLE_CHAR, foldCluster);
  return normalizeFold(text);
}

function normalizeFold(text: string): string {
  // Lone surrogates would make normalize() keep garbage; replace them first.
  const wellFormed = text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  return wellFormed.normalize('NFKD').replace(DIACRITICS, '').normalize('NFC');
}

function emitCompound(raw: string, out: string[], opts: TokenizerOptions): void {
  // A long option (`--only`): the option whole, then the word as if typed without its dashes, so that
  // `--only` finds the option's entry before every "only" and `only` still finds the option.
  if (raw.startsWith('--')) {
    push(raw.toLowerCase(), out, opts);
    emitCompound(raw.slice(2), out, opts);
    return;
  }
  // Most words are one plain term (no separators, no inner capitals): skip splitting them.
  if (PLAIN_WORD.test(raw)) {
    push(raw.toLowerCase(), out, opts);
    return;
  }
  const whole = raw.toLowerCase();
  push(whole, out, opts);
  if (ACRONYM_PLURAL.test(raw)) {
    const at = out.length;
    push(whole.slice(0, -1), out, opts);
    if (out[at] === out[at - 1]) out.pop();
    return;
  }
  const pieces = raw.split(PART_SEPARATORS);
  const parts: string[] = [];
  for (const piece of pieces) {
    if (!piece) continue;
    if (HAS_UPPER.test(piece)) for (const p of piece.split(CAMEL_BOUNDARY)) parts.push(p.toLowerCase());
    else parts.push(piece.toLowerCase());
  }
  if (parts.length > 1) for (const p of parts) if (p) push(p, out, opts);
}

function push(term: string, out: string[], opts: TokenizerOptions): void {
  let t = term;
  if (t.length > MAX_TOKEN_LENGTH) {
    // Cut on a code point boundary: half a surrogate pair is not text (and not valid UTF-8 on export).
    t = t.slice(0, isHighSurrogate(t.charCodeAt(MAX_TOKEN_LENGTH - 1)) ? MAX_TOKEN_LENGTH - 1 : MAX_TOKEN_LENGTH);
  }
  if (opts.stopwords && STOPWORDS.has(t)) return;
  if (opts.stem) t = stem(t);
  out.push(t);
}

/** All terms of `text` in order, duplicates kept (term frequencies come from this). */
export function tokenize(text: string, opts: TokenizerOptions = {}): string[] {
  const out: string[] = [];
  forEachWord(foldText(text), (word) => emitCompound(word, out, opts));
  return out;
}

/** The terms of one word as `forEachWordSpan` gives it: the word whole and, if compound, its parts. */
export function wordTerms(word: string, opts: TokenizerOptions = {}): string[] {
  const out: string[] = [];
  emitCompound(word, out, opts);
  return out;
}

/**
 * The words of folded text, in order, with their offsets in it: regex words, and the words that
 * `Intl.Segmenter` finds in runs of unspaced scripts.
 */
function forEachWord(folded: string, onWord: (word: string, start: number) => void): void {
  // Consecutive unspaced runs go to the segmenter together, joined by newlines (a word boundary it
  // never crosses): one call per run costs ~10 µs, which dominated on punctuated CJK text. `at` holds,
  // for each run in the batch, its offset in the batch and in `folded`.
  let batch = '';
  const at: number[] = [];
  const flush = () => {
    if (!batch) return;
    let r = 0;
    segmentWords(batch, (word, index) => {
      while (r + 2 < at.length && at[r + 2]! <= index) r += 2;
      onWord(word, at[r + 1]! + index - at[r]!);
    });
    batch = '';
    at.length = 0;
  };
  // Unspaced scripts all lie above U+0E00 (Thai): text without such characters needs no per-word
  // test. ASCII text takes an ASCII-only copy of WORD (same words there, and several times faster).
  const mayBeUnspaced = ABOVE_THAI.test(folded);
  for (const m of folded.matchAll(hasNonAscii(folded) ? WORD : ASCII_WORD)) {
    const raw = m[0];
    if (mayBeUnspaced && UNSPACED_SCRIPT.test(raw)) {
      if (batch) batch += '\n';
      at.push(batch.length, m.index);
      batch += raw;
      if (batch.length >= SEGMENT_WINDOW) flush();
    } else {
      flush();
      onWord(raw, m.index);
    }
  }
  flush();
}

/**
 * The words of `text` exactly as `tokenize` cuts them (same folding, same segmentation), each with
 * where it lies in `text`: `word` is its folded form (its terms are `wordTerms(word, opts)`), and
 * [start, end) its extent in `text`. Where folding changed a character's length (a ligature, a
 * decomposed accent), the extent covers that whole character.
 */
export function forEachWordSpan(text: string, onWord: (word: string, start: number, end: number) => void): void {
  const words = TextWords.of(text);
  const map = words.map;
  const folded = map.folded;
  if (!words.unspaced) {
    forEachWord(folded, (word, start) => onWord(word, map.start(start), map.end(start + word.length)));
    return;
  }
  const n = words.rawStart.length;
  words.prepare(0, n);
  for (let r = 0; r < n; r++) {
    const w = words.words(r);
    const at = words.rawStart[r]!;
    for (let i = 0; i < w.length; i += 2) onWord(folded.slice(at + w[i]!, at + w[i + 1]!), map.start(at + w[i]!), map.end(at + w[i + 1]!));
  }
}

/** Raws of unspaced scripts segmented alone (TextWords), by raw: its words' [start, end) in it, flattened. */
const RAW_WORDS = new Map<string, readonly number[]>();
/**
 * Characters of the raws remembered at most, the oldest forgotten first (a few MB at most; a search
 * reads some 20-60 thousand characters of Japanese or Chinese text).
 */
const RAW_WORDS_CHARS = 400_000;
let rawWordsChars = 0;

function rememberRaw(raw: string, words: readonly number[]): void {
  if (RAW_WORDS.has(raw)) return;
  RAW_WORDS.set(raw, words);
  rawWordsChars += raw.length;
  for (const old of RAW_WORDS.keys()) {
    if (rawWordsChars <= RAW_WORDS_CHARS) break;
    RAW_WORDS.delete(old);
    rawWordsChars -= old.length;
  }
}
/** Raws segmented in one call, joined by newlines, up to about this length (a call costs ~8 µs besides its characters). */
const JOIN_MAX = 512;

/**
 * The words of a text exactly as forEachWordSpan gives them, found on demand: its raws (the regex's
 * words, forEachWord) all at once, and the words the segmenter finds in a raw of an unspaced script
 * only when asked for (`prepare`, `words`). Segmenting costs ~1 µs a character (ICU's dictionary), so
 * proximity and snippets ask only for the raws around the query's words.
 *
 * forEachWord gives the segmenter consecutive raws joined by newlines, in batches of SEGMENT_WINDOW
 * characters or more. The segmenter never carries context across a newline (a mandatory word
 * boundary), so a raw is cut as it would be alone, except the last raw of a batch longer than a window
 * (segmentWords cuts a window inside it and re-segments from its last segment): that raw is segmented
 * in its batch, from the newline before it (segmentWords' `from`). Raws cut alone are remembered across
 * texts (RAW_WORDS): proximity reads a section, and its snippet reads it again; a paragraph's raws
 * recur from search to search.
 */
export class TextWords {
  /** The raws' extents in `map.folded`, in order. Only for text with an unspaced script (`unspaced`). */
  readonly rawStart: number[] = [];
  readonly rawEnd: number[] = [];
  /** Whether the folded text holds a character of an unspaced script (else no raw is listed). */
  readonly unspaced: boolean;
  /** Per raw: -1 for a raw without unspaced script (one word), else its batch. */
  private readonly rawBatch: number[] = [];
  /** Per batch: its last raw, and its length with the newlines joining its raws. */
  private readonly batchLast: number[] = [];
  private readonly batchLength: number[] = [];
  /** Per raw, once segmented: its words' [start, end) in it, flattened (shared with RAW_WORDS: never changed). */
  private readonly known: (readonly number[] | undefined)[];
  private lowered: string | undefined;

  private constructor(
    readonly text: string,
    readonly map: FoldMap,
  ) {
    const folded = map.folded;
    this.unspaced = ABOVE_THAI.test(folded) && UNSPACED_SCRIPT.test(folded);
    this.known = [];
    if (!this.unspaced) return;
    // forEachWord's raws and batches.
    let open = false;
    let length = 0;
    for (const m of folded.matchAll(hasNonAscii(folded) ? WORD : ASCII_WORD)) {
      const raw = m[0];
      this.rawStart.push(m.index);
      this.rawEnd.push(m.index + raw.length);
      if (UNSPACED_SCRIPT.test(raw)) {
        if (open) length += 1 + raw.length;
        else {
          this.batchLast.push(0);
          this.batchLength.push(0);
          length = raw.length;
          open = true;
        }
        const b = this.batchLast.length - 1;
        this.batchLast[b] = this.rawStart.length - 1;
        this.batchLength[b] = length;
        this.rawBatch.push(b);
        if (length >= SEGMENT_WINDOW) open = false;
      } else {
        this.rawBatch.push(-1);
        open = false;
      }
    }
    this.known = new Array<readonly number[] | undefined>(this.rawStart.length).fill(undefined);
  }

  private static recent = new Map<string, TextWords>();
  static forget(): void {
    TextWords.recent.clear();
  }

  /** The text's words (the last few texts asked about are kept: a section is read by several matchers in a row). */
  static of(text: string): TextWords {
    let w = TextWords.recent.get(text);
    if (w === undefined) {
      w = new TextWords(text, FoldMap.of(text));
      if (TextWords.recent.size >= 4) TextWords.recent.delete(TextWords.recent.keys().next().value!);
      TextWords.recent.set(text, w);
    }
    return w;
  }

  /** `map.folded` lower-cased. */
  get lower(): string {
    return (this.lowered ??= this.map.folded.toLowerCase());
  }

  /** The raw holding folded offset `f`, else -1. */
  rawAt(f: number): number {
    const starts = this.rawStart;
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! <= f) lo = mid + 1;
      else hi = mid;
    }
    return lo > 0 && f < this.rawEnd[lo - 1]! ? lo - 1 : -1;
  }

  /** Raw r's words: their [start, end) in the raw (add `rawStart[r]` for `map.folded`), flattened; a raw without unspaced script is one word. */
  words(r: number): readonly number[] {
    let w = this.known[r];
    if (w === undefined) {
      this.prepare(r, r + 1);
      w = this.known[r]!;
    }
    return w;
  }

  /** Segments raws [from, to) that are not yet (several raws, one segmenter call). */
  prepare(from: number, to: number): void {
    this.prepareRaws(from, to, null);
  }

  /** Segments the raws listed (ascending or not) that are not yet. */
  prepareList(raws: readonly number[]): void {
    if (raws.length) this.prepareRaws(0, raws.length, raws);
  }

  private prepareRaws(from: number, to: number, list: readonly number[] | null): void {
    const folded = this.map.folded;
    let alone: number[] | null = null;
    for (let i = from; i < to; i++) {
      const r = list ? list[i]! : i;
      if (this.known[r] !== undefined) continue;
      const s = this.rawStart[r]!;
      const b = this.rawBatch[r]!;
      if (b < 0) this.known[r] = [0, this.rawEnd[r]! - s];
      else if (r === this.batchLast[b] && this.batchLength[b]! > SEGMENT_WINDOW) this.known[r] = this.inBatch(r, b);
      else {
        const memo = RAW_WORDS.get(folded.slice(s, this.rawEnd[r]));
        if (memo) this.known[r] = memo;
        else (alone ??= []).push(r);
      }
    }
    if (alone) this.segmentAlone(alone);
  }

  /** Segments raws each as if alone: joined by newlines, about JOIN_MAX characters a call. */
  private segmentAlone(raws: readonly number[]): void {
    const folded = this.map.folded;
    for (let i = 0; i < raws.length; ) {
      let joined = '';
      const at: number[] = [];
      let j = i;
      for (; j < raws.length && (j === i || joined.length < JOIN_MAX); j++) {
        if (j > i) joined += '\n';
        at.push(joined.length);
        joined += folded.slice(this.rawStart[raws[j]!]!, this.rawEnd[raws[j]!]!);
      }
      const found: number[][] = at.map(() => []);
      let k = 0;
      for (const s of wordSegmenter().segment(joined)) {
        if (!wordLike(s)) continue;
        while (k + 1 < at.length && at[k + 1]! <= s.index) k++;
        found[k]!.push(s.index - at[k]!, s.index - at[k]! + s.segment.length);
      }
      for (let k = 0; k < found.length; k++) {
        const r = raws[i + k]!;
        const raw = folded.slice(this.rawStart[r]!, this.rawEnd[r]!);
        rememberRaw(raw, found[k]!);
        this.known[r] = found[k]!;
      }
      i = j;
    }
  }

  /** The last raw of a batch cut into windows, segmented in its batch as forEachWord does. */
  private inBatch(r: number, b: number): number[] {
    const folded = this.map.folded;
    let first = r;
    while (first > 0 && this.rawBatch[first - 1] === b) first--;
    let batch = '';
    for (let i = first; i < r; i++) batch += folded.slice(this.rawStart[i]!, this.rawEnd[i]!) + '\n';
    const at = batch.length;
    batch += folded.slice(this.rawStart[r]!, this.rawEnd[r]!);
    const out: number[] = [];
    segmentWords(batch, (word, index) => out.push(index - at, index - at + word.length), at);
    return out;
  }
}

/** Forgets the raws segmented and the texts read (benchmarks measure a search that finds none of them). */
export function forgetWords(): void {
  RAW_WORDS.clear();
  rawWordsChars = 0;
  TextWords.forget();
}

const NON_ASCII_RUN = /[\x00-\x7f]?[^\x00-\x7f]+/g;
const CLUSTER = /\P{M}\p{M}*|\p{M}+/gu;

/** A run's folding: unchanged (true), by character (base and marks), or whole when that differs. */
type RunFold = true | string | { original: string; at: number; folded: string }[];

function foldRun(run: string): RunFold {
  const whole = foldText(run);
  if (whole === run) return true;
  const clusters = [...run.matchAll(CLUSTER)].map((c) => ({ original: c[0], at: c.index, folded: foldCluster(c[0]) }));
  return clusters.map((c) => c.folded).join('') === whole ? clusters : whole;
}

/**
 * Characters that folding leaves as they are, whatever is around them: kana (but not the combining
 * sound marks U+3099-309A, the spacing ones U+309B-309C nor ゟ/ヿ, which fold to other text), CJK
 * punctuation and brackets, and the unified ideographs (not the compatibility ones). Their canonical
 * decompositions (が -> か + U+3099) compose again, and nothing composes with them. Japanese and Chinese
 * text made of them (and ASCII) folds to itself without a call to `normalize` (tokenizer.test.ts
 * checks the set).
 */
export const FOLD_STABLE = '\u3001-\u3002\u3004-\u3011\u3041-\u3096\u309d-\u309e\u30a0-\u30fe\u4e00-\u9fff';
/**
 * Characters that fold to ASCII alone, whatever is around them: the ellipsis, the ideographic space and
 * the full-width forms of ASCII (U+FF01-FF5E: Chinese text's ，：（）). Their decompositions hold no
 * mark, so text of them, FOLD_STABLE and ASCII folds character by character (tokenizer.test.ts).
 */
export const FOLD_SIMPLE = '\u2026\u3000\uff01-\uff5e';
const isSimpleFold = (c: number) => c === 0x2026 || c === 0x3000 || (c >= 0xff01 && c <= 0xff5e);
const STABLE_TEXT = new RegExp(`^[\\x00-\\x7f${FOLD_STABLE}]*$`);
const SIMPLE_RUN = new RegExp(`^[\\x00-\\x7f]?[${FOLD_STABLE}${FOLD_SIMPLE}]+$`);
const SIMPLE_TEXT = new RegExp(`^[\\x00-\\x7f${FOLD_STABLE}${FOLD_SIMPLE}]*$`);
const SIMPLE_CHAR = new RegExp(`[${FOLD_SIMPLE}]`, 'g');

/** Clusters folded (a run that folding changes is folded again cluster by cluster: the same few recur). */
const CLUSTER_FOLDS = new Map<string, string>();
function foldCluster(cluster: string): string {
  let f = CLUSTER_FOLDS.get(cluster);
  if (f === undefined) {
    f = normalizeFold(cluster);
    if (CLUSTER_FOLDS.size < 10_000) CLUSTER_FOLDS.set(cluster, f);
  }
  return f;
}

/**
 * `foldText(text)` with a map from its offsets back to `text`'s. ASCII is its own folding and never
 * combines with what precedes it, so only runs of non-ASCII characters (with the character before,
 * which a leading combining mark attaches to) are folded separately; a run whose folding changed is
 * folded again character by character (a base with its marks), which locates each change. Should
 * that differ from folding the run whole (composition across characters, e.g. Hangul jamo), the run
 * maps as one block. Japanese and Chinese text is mostly characters that fold alone, whatever is
 * around them (FOLD_STABLE, FOLD_SIMPLE): text of them maps to itself, and a run of them is folded
 * character by character without a call to `normalize`. Pieces mapped linearly that touch are one.
 */
export class FoldMap {
  /** Pieces in folded order: [foldedStart, originalStart, foldedLength, originalLength, linear (1|0)]. */
  private constructor(
    readonly folded: string,
    private readonly pieces: number[],
  ) {}
  private cursor = 0;

  static of(text: string): FoldMap {
    if (!hasNonAscii(text) || STABLE_TEXT.test(text)) return new FoldMap(text, []);
    let folded = '';
    const pieces: number[] = [];
    const piece = (original: string, o: number, f: string, linear: boolean) => {
      const n = pieces.length;
      // A linear piece right after another one extends it (the same map, fewer pieces).
      if (linear && n && pieces[n - 1] && pieces[n - 4]! + pieces[n - 2]! === o && pieces[n - 5]! + pieces[n - 3]! === folded.length) {
        pieces[n - 3]! += f.length;
        pieces[n - 2]! += original.length;
      } else if (f.length) pieces.push(folded.length, o, f.length, original.length, linear ? 1 : 0);
      folded += f;
    };
    // Runs repeat (a curly quote, an accented word): fold each distinct run once.
    const runs = new Map<string, RunFold>();
    let o = 0;
    for (const m of text.matchAll(NON_ASCII_RUN)) {
      if (m.index > o) piece(text.slice(o, m.index), o, text.slice(o, m.index), true);
      const run = m[0];
      if (SIMPLE_RUN.test(run)) {
        // Character by character, each the same alone (FOLD_STABLE, FOLD_SIMPLE): no normalize of the run.
        let from = 0;
        for (let i = 0; i < run.length; i++) {
          if (!isSimpleFold(run.charCodeAt(i))) continue;
          if (i > from) piece(run.slice(from, i), m.index + from, run.slice(from, i), true);
          const ch = run[i]!;
          piece(ch, m.index + i, foldCluster(ch), false);
          from = i + 1;
        }
        if (from < run.length) piece(run.slice(from), m.index + from, run.slice(from), true);
        o = m.index + run.length;
        continue;
      }
      let fold = runs.get(run);
      if (fold === undefined) runs.set(run, (fold = foldRun(run)));
      if (fold === true) piece(run, m.index, run, true);
      else if (typeof fold === 'string') piece(run, m.index, fold, false);
      else for (const c of fold) piece(c.original, m.index + c.at, c.folded, c.folded === c.original);
      o = m.index + run.length;
    }
    if (o < text.length) piece(text.slice(o), o, text.slice(o), true);
    return new FoldMap(folded, pieces);
  }

  /** The piece holding folded offset f (offsets mostly come in ascending order: a forward scan from the last, else a binary search). */
  private find(f: number): number {
    const p = this.pieces;
    if (p[this.cursor]! > f) {
      let lo = 0;
      let hi = p.length / 5 - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >>> 1;
        if (p[mid * 5]! <= f) lo = mid;
        else hi = mid - 1;
      }
      this.cursor = lo * 5;
    }
    while (this.cursor + 5 < p.length && p[this.cursor + 5]! <= f) this.cursor += 5;
    return this.cursor;
  }

  start(f: number): number {
    if (!this.pieces.length) return f;
    const i = this.find(f);
    const p = this.pieces;
    return p[i + 4] ? p[i + 1]! + f - p[i]! : p[i + 1]!;
  }

  /** Maps an exclusive end: a word ending inside a changed character takes the whole character. */
  end(f: number): number {
    if (!this.pieces.length) return f;
    const i = this.find(f - 1);
    const p = this.pieces;
    return p[i + 4] ? p[i + 1]! + f - p[i]! : p[i + 1]! + p[i + 3]!;
  }
}

/** Distinct query terms, in first-seen order. */
export function queryTerms(text: string, opts: TokenizerOptions = {}): string[] {
  return [...new Set(tokenize(text, opts))];
}

/** Term -> frequency for one document. */
export function termFrequencies(terms: readonly string[]): Map<string, number> {
  const tf = new Map<string, number>();
  for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
  return tf;
}

/**
 * A light English stemmer (plural and common inflection suffixes only, in the spirit of Harman's
 * S-stemmer with -ing/-ed): aggressive stemmers hurt identifiers, which are the lexical lane's job.
 */
export function stem(t: string): string {
  if (t.length < 4 || /[^a-z]/.test(t)) return t;
  if (t.endsWith('ies') && !t.endsWith('eies') && !t.endsWith('aies')) return t.slice(0, -3) + 'y';
  if (t.endsWith('es') && /(?:ss|sh|ch|x|z)es$/.test(t)) return t.slice(0, -2);
  if (t.endsWith('s') && !/(?:ss|us|is)$/.test(t)) {
    t = t.slice(0, -1);
    // The plural of a noun in -ing loses the -ing as the singular does: `settings` and `setting` are one term.
    if (!(t.endsWith('ing') && t.length > 5)) return t;
  }
  if (t.endsWith('ing') && t.length > 5) return t.slice(0, -3);
  if (t.endsWith('ed') && t.length > 4) return t.slice(0, -2);
  return t;
}

export const STOPWORDS: ReadonlySet<string> = new Set(
  ('a an and are as at be but by for if in into is it no not of on or such that the their then there ' +
    'these they this to was will with').split(' '),
);
