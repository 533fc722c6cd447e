/**
 * The one tokenizer, used for documents and queries alike (so both sides agree by construction).
 *
 * - Words are runs of letters, digits, marks and `_`, joined by `.`, `-` or `::` into one token
 *   (`os.path.join`, `utf-8`, `3.11`, `std::vector`).
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

const WORD = /[\p{L}\p{N}\p{M}_]+(?:(?:[.\-]|::)[\p{L}\p{N}\p{M}_]+)*/gu;
const UNSPACED_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const PART_SEPARATORS = /[._\-:]+/;
const CAMEL_BOUNDARY = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
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

function segmentWords(run: string, emit: (word: string) => void): void {
  const seg = wordSegmenter();
  let start = 0;
  while (start < run.length) {
    let end = Math.min(run.length, start + SEGMENT_WINDOW);
    // Never cut a surrogate pair.
    if (end < run.length && end - start > 1 && isHighSurrogate(run.charCodeAt(end - 1))) end--;
    let last: Intl.SegmentData | undefined;
    for (const s of seg.segment(run.slice(start, end))) {
      if (last?.isWordLike) emit(last.segment);
      last = s;
    }
    if (!last) break;
    if (end < run.length && last.index > 0) {
      start += last.index; // re-segment the possibly cut last word with what follows it
    } else {
      if (last.isWordLike) emit(last.segment);
      start = end;
    }
  }
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

/** Folds case, diacritics and compatibility forms; keeps the text's length roughly (not exactly). */
export function foldText(text: string): string {
  // Lone surrogates would make normalize() keep garbage; replace them first.
  const wellFormed = text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  return wellFormed.normalize('NFKD').replace(DIACRITICS, '').normalize('NFC');
}

function emitCompound(raw: string, out: string[], opts: TokenizerOptions): void {
  const whole = raw.toLowerCase();
  push(whole, out, opts);
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
  const folded = foldText(text);
  // Consecutive unspaced runs go to the segmenter together, joined by newlines (a word boundary it
  // never crosses): one call per run costs ~10 µs, which dominated on punctuated CJK text.
  let batch = '';
  const flush = () => {
    if (batch) segmentWords(batch, (word) => emitCompound(word, out, opts));
    batch = '';
  };
  for (const m of folded.matchAll(WORD)) {
    const raw = m[0];
    if (UNSPACED_SCRIPT.test(raw)) {
      batch = batch ? `${batch}\n${raw}` : raw;
      if (batch.length >= SEGMENT_WINDOW) flush();
    } else {
      flush();
      emitCompound(raw, out, opts);
    }
  }
  flush();
  return out;
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
  if (t.endsWith('s') && !/(?:ss|us|is)$/.test(t)) return t.slice(0, -1);
  if (t.endsWith('ing') && t.length > 5) return t.slice(0, -3);
  if (t.endsWith('ed') && t.length > 4) return t.slice(0, -2);
  return t;
}

export const STOPWORDS: ReadonlySet<string> = new Set(
  ('a an and are as at be but by for if in into is it no not of on or such that the their then there ' +
    'these they this to was will with').split(' '),
);
