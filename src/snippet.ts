/**
 * Snippets as plain segments ({text, match}); the UI renders them as text nodes, never as HTML.
 */
import { forEachWordSpan, wordTerms, type TokenizerOptions } from './tokenizer.js';

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

  /** Does this word (folded, as `forEachWordSpan` gives it) carry a query term? */
  private marks(word: string): boolean {
    let hit = this.memo.get(word);
    if (hit === undefined) {
      hit = wordTerms(word, this.tokenizer).some((t) => this.terms.has(t));
      this.memo.set(word, hit);
    }
    return hit;
  }

  /** The extents [start, end) of the marked words of `text`, ascending and disjoint, flattened. */
  spans(text: string): number[] {
    const out: number[] = [];
    if (!this.terms.size) return out;
    forEachWordSpan(text, (word, start, end) => {
      if (!this.marks(word)) return;
      const n = out.length;
      // Two words inside one changed character (`½` folds to `1⁄2`) share its extent.
      if (n && start < out[n - 1]!) out[n - 1] = Math.max(out[n - 1]!, end);
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

/**
 * The window of about `maxWords` words with the most marked words, with ellipses where it
 * was cut. Skips the heading path line (shown separately).
 */
export function makeSnippet(body: string, marker: TermMarker, maxWords = 36): SnippetSegment[] {
  const text = body.replace(/\s+/g, ' ').trim();
  const spans = marker.spans(text);
  // Words are what lies between the single spaces left; starts[i] is word i's offset.
  const starts: number[] = text ? [0] : [];
  for (let i = text.indexOf(' '); i !== -1; i = text.indexOf(' ', i + 1)) starts.push(i + 1);
  const nWords = starts.length;
  const wordEnd = (i: number) => (i + 1 < nWords ? starts[i + 1]! - 1 : text.length);
  if (nWords <= maxWords) return segments(text, spans, 0, text.length);
  // A word is a hit when a marked span overlaps it.
  const hits = new Uint8Array(nWords);
  for (let i = 0, s = 0; i < nWords && s < spans.length; i++) {
    const start = starts[i]!;
    while (s < spans.length && spans[s + 1]! <= start) s += 2;
    if (s < spans.length && spans[s]! < wordEnd(i)) hits[i] = 1;
  }
  let best = 0;
  let bestStart = 0;
  let cur = 0;
  for (let i = 0; i < nWords; i++) {
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
    start = Math.max(0, Math.min(start, nWords - maxWords));
  }
  const end = Math.min(nWords, start + maxWords);
  const segs = segments(text, spans, starts[start]!, wordEnd(end - 1));
  if (start > 0) segs.unshift({ text: '… ', match: false });
  if (end < nWords) segs.push({ text: ' …', match: false });
  return segs;
}
