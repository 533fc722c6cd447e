/**
 * Snippets as plain segments ({text, match}); the UI renders them as text nodes, never as HTML.
 */
import { tokenize } from './tokenizer.js';

export interface SnippetSegment {
  text: string;
  match: boolean;
}

const WORD = /[\p{L}\p{N}\p{M}_]+(?:(?:[.\-]|::)[\p{L}\p{N}\p{M}_]+)*/gu;

/** Splits text into segments, marking the words whose terms are among `terms`. */
export function highlight(text: string, terms: ReadonlySet<string>): SnippetSegment[] {
  const out: SnippetSegment[] = [];
  let last = 0;
  for (const m of text.matchAll(WORD)) {
    const start = m.index ?? 0;
    if (!tokenize(m[0]).some((t) => terms.has(t))) continue;
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
export function makeSnippet(body: string, terms: ReadonlySet<string>, maxWords = 36): SnippetSegment[] {
  const text = body.replace(/\s+/g, ' ').trim();
  const words = [...text.matchAll(/\S+/g)];
  if (words.length <= maxWords) return highlight(text, terms);
  const hits = words.map((w) => (terms.size && tokenize(w[0]).some((t) => terms.has(t)) ? 1 : 0));
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
  const segs = highlight(text.slice(from, to), terms);
  if (start > 0) segs.unshift({ text: '… ', match: false });
  if (end < words.length) segs.push({ text: ' …', match: false });
  return segs;
}
