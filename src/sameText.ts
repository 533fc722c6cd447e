/**
 * Results whose passage is, all but a few words, an earlier result's: a page's translation that kept a
 * section untranslated (a manual's German and Japanese editions carry its English text, with only their
 * cross-references translated), the same documentation under two versions' addresses (`/3/` and
 * `/3.12/`), an article on two sites. Such a card is kept where the ranking put it (that address may be
 * the one the user wants) but says "same text as … above" instead of repeating the passage
 * (src/search.ts present, popup/components/ResultCard.tsx).
 *
 * Compared: the section's text below its heading, spaces and ASCII case folded, as sets of overlapping
 * 8-character pieces (any script: Japanese has no spaces to cut words at), by their Jaccard similarity
 * estimated from each text's 64 smallest piece hashes; and the later card's snippet must be word for word
 * in the earlier card's section (holdsSnippet), so that the words a card would show are never hidden.
 * Short texts are never called the same passage: a "See also" line or a one-line stub is the same on
 * many unrelated pages.
 */

/** Fewest characters (spaces folded) of a text that can be called a repeated passage. */
export const SAME_TEXT_MIN_CHARS = 160;
/** Estimated Jaccard similarity of two texts' pieces from which they are the same passage. */
export const SAME_TEXT_SIMILARITY = 0.7;
/** Characters of a text compared, at most (a long section's opening decides; its length is compared too). */
const COMPARED_CHARS = 2000;
const PIECE = 8;
/** Pieces kept of a text: the ones with the smallest hashes (a bottom-k sketch), so that two texts keep the same pieces of what they share. */
const SKETCH = 64;
const B = 0x01000193;
/** B to the PIECE-th power, modulo 2^32 (to take the character leaving the window out of the hash). */
const B_PIECE = (() => {
  let p = 1;
  for (let i = 0; i < PIECE; i++) p = Math.imul(p, B);
  return p;
})();

export interface TextPrint {
  /** Length of the whole text, spaces folded. */
  length: number;
  /** The SKETCH smallest distinct piece hashes, ascending (all of them for a text with fewer). */
  sketch: Uint32Array;
}

/** Spreads a rolling hash's bits (murmur3's finaliser), so that the smallest hashes are a fair sample. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * What `sameTextAs` compares of a section's text; null for a text too short to be called a passage. The
 * text is folded as it is read and its 8-character pieces hashed rolling (measured: about 40 µs for a
 * section of 2,000 characters or more; the rest of a long section is only counted).
 */
export function textPrint(body: string): TextPrint | null {
  const codes = new Uint16Array(Math.min(body.length, COMPARED_CHARS));
  let n = 0;
  let length = 0;
  let space = false;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c <= 32 || c === 0xa0 || c === 0x3000) {
      space = true;
      continue;
    }
    // A run of spaces before a character counts (and is kept) as one; trailing spaces not at all.
    if (space && length > 0) {
      length++;
      if (n < codes.length) codes[n++] = 32;
    }
    length++;
    if (n < codes.length) codes[n++] = c >= 65 && c <= 90 ? c + 32 : c;
    space = false;
  }
  if (n > 0 && codes[n - 1] === 32) n--;
  if (n < SAME_TEXT_MIN_CHARS) return null;
  const hashes = new Uint32Array(n - PIECE + 1);
  let h = 0;
  for (let i = 0; i < n; i++) {
    h = (Math.imul(h, B) + codes[i]!) | 0;
    if (i >= PIECE) h = (h - Math.imul(codes[i - PIECE]!, B_PIECE)) | 0;
    if (i >= PIECE - 1) hashes[i - PIECE + 1] = mix(h);
  }
  return { length, sketch: smallest(hashes, SKETCH) };
}

/** The k smallest distinct values, ascending: those below a bound expected to hold about 2k of them, else (a repetitive text) all. */
function smallest(hashes: Uint32Array, k: number): Uint32Array {
  if (hashes.length > 4 * k) {
    const bound = Math.floor((2 ** 32 * 2 * k) / hashes.length);
    const pool = new Uint32Array(hashes.length);
    let m = 0;
    for (let i = 0; i < hashes.length; i++) if (hashes[i]! < bound) pool[m++] = hashes[i]!;
    const got = distinctSorted(pool.subarray(0, m).sort(), k);
    if (got.length === k) return got;
  }
  return distinctSorted(Uint32Array.from(hashes).sort(), k);
}

function distinctSorted(sorted: Uint32Array, k: number): Uint32Array {
  const out = new Uint32Array(Math.min(k, sorted.length));
  let n = 0;
  for (let i = 0; i < sorted.length && n < out.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) out[n++] = sorted[i]!;
  return out.subarray(0, n);
}

/**
 * Whether two prints are of the same passage: lengths within a tenth, and most pieces shared (Jaccard
 * estimated from the smallest hashes of both texts together, as a bottom-k sketch does).
 */
export function samePassage(a: TextPrint, b: TextPrint): boolean {
  if (Math.min(a.length, b.length) < 0.9 * Math.max(a.length, b.length)) return false;
  const x = a.sketch;
  const y = b.sketch;
  let i = 0;
  let j = 0;
  let seen = 0;
  let both = 0;
  while (seen < SKETCH && (i < x.length || j < y.length)) {
    if (j >= y.length || (i < x.length && x[i]! < y[j]!)) i++;
    else if (i >= x.length || y[j]! < x[i]!) j++;
    else {
      both++;
      i++;
      j++;
    }
    seen++;
  }
  return seen > 0 && both / seen >= SAME_TEXT_SIMILARITY;
}

/**
 * For each card, the first earlier card (index) that is not itself a repeat, holds the same passage and
 * is accepted as its original (`accept(i, j)`: card i's snippet is in card j's section), or -1. A card
 * none accepts is an original for the cards after it.
 */
export function sameTextAs(prints: readonly (TextPrint | null)[], accept: (i: number, j: number) => boolean = () => true): number[] {
  const out: number[] = [];
  const firsts: number[] = [];
  prints.forEach((p, i) => {
    const at = p === null ? -1 : (firsts.find((j) => samePassage(prints[j]!, p) && accept(i, j)) ?? -1);
    out.push(at);
    if (p !== null && at < 0) firsts.push(i);
  });
  return out;
}

/** Text folded as `textPrint` folds it (runs of spaces as one, ASCII letters in lower case). */
function fold(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/**
 * Whether a card's snippet (the words it would show, without the "…" at its ends) is word for word in
 * the earlier card's section: only then is the card said to repeat it. Two versions of a section that
 * differ by the line the query matched ("Changed in version 3.12: …") keep their own snippets.
 */
export function holdsSnippet(sectionText: string, snippet: readonly { text: string }[]): boolean {
  return snippetIn(fold(sectionText), snippet);
}

function snippetIn(foldedSection: string, snippet: readonly { text: string }[]): boolean {
  const shown = fold(snippet.map((s) => s.text).join('').replace(/^\s*…\s*|\s*…\s*$/g, ''));
  return shown.length > 0 && foldedSection.includes(shown);
}

/** `holdsSnippet` for one search's cards: each section is folded once, however many cards are checked against it. */
export function snippetChecker(): (section: { id: number; text: string }, snippet: readonly { text: string }[]) => boolean {
  const folded = new Map<number, string>();
  return (section, snippet) => {
    let f = folded.get(section.id);
    if (f === undefined) folded.set(section.id, (f = fold(section.text)));
    return snippetIn(f, snippet);
  };
}

/**
 * How a repeat names the card it repeats: by title in quotes, or by address when the title is none or
 * the same as the repeat's own (the same manual under two versions' addresses).
 */
export function sameTextName(own: { title: string }, first: { url: string; title: string }, address: (url: string) => string): { name: string; quoted: boolean } {
  const title = first.title.trim();
  if (title && title !== own.title.trim()) return { name: title.length > 80 ? `${title.slice(0, 79)}…` : title, quoted: true };
  return { name: address(first.url), quoted: false };
}

/** The note a repeat shows in place of its passage. */
export function sameTextWords(n: { name: string; quoted: boolean }): string {
  return `Same text as ${n.quoted ? `“${n.name}”` : n.name} above.`;
}
