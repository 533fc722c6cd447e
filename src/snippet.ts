/**
 * Snippets as plain segments ({text, match}); the UI renders them as text nodes, never as HTML.
 * Marked words that touch (新しい|カーネル|パッケージ: an unspaced script cut into words; `½` folded
 * into two) are one marked segment, so they read, and are drawn, as one run; words with anything
 * between them (a space, a hyphen) stay separate marks. No segment is ever empty.
 */
import { QueryMatcher } from './matcher.js';
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
}

export interface Snippet {
  segments: SnippetSegment[];
  /** Offset in the body of the first match inside the snippet (-1: nothing matched): where the passage is. */
  focus: number;
}

/**
 * The window of about `maxWords` (whitespace-separated) words that holds the most of the query: the
 * sum of the weights of the distinct query words in it, then the most matching words, then the
 * earliest; with ellipses where it was cut and whitespace collapsed.
 */
export function bestSnippet(body: string, q: SnippetQuery, maxWords = 36): Snippet {
  const tokens = [...body.matchAll(/\S+/g)];
  const nWords = tokens.length;
  const tStart = (i: number) => tokens[i]!.index;
  const tEnd = (i: number) => tokens[i]!.index + tokens[i]![0].length;
  const m = q.matcher.scan(body);
  // Each match lies in one token (tokens split at whitespace, words never span it).
  const tokMask = new Uint32Array(nWords);
  const tokOf: number[] = [];
  for (let k = 0, i = 0; k < m.start.length; k++) {
    while (i < nWords && tEnd(i) <= m.start[k]!) i++;
    tokOf.push(i);
    if (i < nWords) tokMask[i]! |= m.mask[k]!;
  }
  let start = 0;
  if (nWords > maxWords && m.start.length) {
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
    let best = -1;
    let bestHits = -1;
    let bestStart = 0;
    for (let i = 0; i < nWords; i++) {
      add(tokMask[i]!, 1);
      if (i >= maxWords) add(tokMask[i - maxWords]!, -1);
      if (i >= maxWords - 1 && (weight > best + 1e-9 || (Math.abs(weight - best) <= 1e-9 && hits > bestHits))) {
        best = weight;
        bestHits = hits;
        bestStart = i - maxWords + 1;
      }
    }
    // The chosen window ends on a match. Start a little before its first match instead, for context,
    // but never so early that its last match falls out of the window.
    if (best > 0) {
      let first = bestStart;
      while (!tokMask[first]) first++;
      let last = bestStart + maxWords - 1;
      while (!tokMask[last]) last--;
      start = Math.max(0, last - maxWords + 1, first - 4);
      start = Math.max(0, Math.min(start, nWords - maxWords));
    }
  }
  const end = Math.min(nWords, start + maxWords);
  // The window's text with single spaces, and the marked extents mapped into it.
  const segs: SnippetSegment[] = [];
  let text = '';
  let plainFrom = 0;
  const focus = focusIn(tokMask, start, end, q, m, tokOf);
  let k = 0;
  for (let i = start; i < end; i++) {
    if (i > start) text += ' ';
    const base = text.length - tStart(i);
    while (k < m.start.length && tokOf[k]! < i) k++;
    for (; k < m.start.length && tokOf[k] === i; k++) {
      if (!(m.mask[k]! & q.marked)) continue;
      const s0 = Math.max(base + m.start[k]!, plainFrom);
      const e0 = base + Math.min(m.end[k]!, tEnd(i));
      if (e0 <= s0) continue;
      const prefix = text + body.slice(tStart(i), tEnd(i));
      if (s0 > plainFrom) segs.push({ text: prefix.slice(plainFrom, s0), match: false });
      const prev = segs[segs.length - 1];
      // A match that touches the one before it (新しい|カーネル) joins it: one run, one mark.
      if (s0 === plainFrom && prev?.match) prev.text += prefix.slice(s0, e0);
      else segs.push({ text: prefix.slice(s0, e0), match: true });
      plainFrom = e0;
    }
    text += body.slice(tStart(i), tEnd(i));
  }
  if (plainFrom < text.length) segs.push({ text: text.slice(plainFrom), match: false });
  if (start > 0) segs.unshift({ text: '… ', match: false });
  if (end < nWords) segs.push({ text: ' …', match: false });
  return { segments: segs, focus };
}

/** Words in the passage a snippet's focus is chosen from (about a remembered sentence). */
const FOCUS_WORDS = 12;

/**
 * Where in tokens [start, end) the query matched best: the run of FOCUS_WORDS tokens with the most
 * weight of distinct query words (then the most matching tokens, then the earliest); its first match
 * of a marked word (else of any word), as an offset in the body. -1 when nothing in the range matched.
 */
function focusIn(tokMask: Uint32Array, start: number, end: number, q: SnippetQuery, m: { start: number[]; mask: number[] }, tokOf: readonly number[]): number {
  let best = -1;
  let bestHits = -1;
  let bestAt = -1;
  for (let i = start; i < end; i++) {
    if (!tokMask[i]) continue;
    let seen = 0;
    let weight = 0;
    let hits = 0;
    for (let j = i; j < Math.min(end, i + FOCUS_WORDS); j++) {
      const mask = tokMask[j]!;
      if (!mask) continue;
      hits++;
      for (let b = 0, x = mask & ~seen; x; b++, x >>>= 1) if (x & 1) weight += q.weights[b] ?? 1;
      seen |= mask;
    }
    if (weight > best + 1e-9 || (Math.abs(weight - best) <= 1e-9 && hits > bestHits)) {
      best = weight;
      bestHits = hits;
      bestAt = i;
    }
  }
  if (bestAt < 0) return -1;
  let any = -1;
  for (let k = 0; k < m.start.length; k++) {
    const t = tokOf[k]!;
    if (t < bestAt || t >= bestAt + FOCUS_WORDS) continue;
    if (m.mask[k]! & q.marked) return m.start[k]!;
    if (any < 0) any = m.start[k]!;
  }
  return any;
}

/** `bestSnippet` for a marker: every match weighs the same, so the window with the most matches wins. */
export function makeSnippet(body: string, marker: TermMarker, maxWords = 36): SnippetSegment[] {
  return bestSnippet(body, { matcher: marker.matcher, weights: [1], marked: 1 }, maxWords).segments;
}
