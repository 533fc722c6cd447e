/**
 * Results whose passage is, all but a few words, an earlier result's: a page's translation that kept a
 * section untranslated (a manual's German and Japanese editions carry its English text, with only their
 * cross-references translated), the same documentation under two versions' addresses (`/3/` and
 * `/3.12/`), an article on two sites. Such a card is kept where the ranking put it (that address may be
 * the one the user wants) but says "same text as … above" instead of repeating the passage
 * (src/search.ts present, popup/components/ResultCard.tsx).
 *
 * Compared: the section's text below its heading, spaces and ASCII case folded, as sets of overlapping
 * 8-character pieces (any script: Japanese has no spaces to cut words at), by their Jaccard similarity.
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
/** Pieces kept of a text, about (a sample by hash value: the same piece is kept in every text that has it). */
const SAMPLED = 96;
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
  /** Pieces whose hash is below `below` (a sample: about SAMPLED of them, all of a short text's). */
  pieces: Set<number>;
  below: number;
}

/** Spreads a rolling hash's bits (murmur3's finaliser), so that a threshold on it is a fair sample. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * What `sameTextAs` compares of a section's text; null for a text too short to be called a passage. A
 * sample of its 8-character pieces by hash value, hashed rolling: a few microseconds a text, as a search
 * pays it for every card.
 */
export function textPrint(body: string): TextPrint | null {
  // The text folded on the fly (runs of spaces as one, ASCII letters in lower case): no copy of a long
  // section is made. Its opening is kept; the rest is only counted.
  const codes = new Uint16Array(Math.min(body.length, COMPARED_CHARS));
  let n = 0;
  let length = 0;
  let space = true; // (leading spaces dropped)
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c <= 32 || c === 0xa0 || c === 0x3000) {
      if (!space) {
        length++;
        if (n < codes.length) codes[n++] = 32;
      }
      space = true;
      continue;
    }
    length++;
    if (n < codes.length) codes[n++] = c >= 65 && c <= 90 ? c + 32 : c;
    space = false;
  }
  if (space && length > 0) length--;
  if (n > 0 && codes[n - 1] === 32) n--;
  if (n < SAME_TEXT_MIN_CHARS) return null;
  const windows = n - PIECE + 1;
  // A hash below this is kept: all of them for a text of SAMPLED windows or fewer.
  const below = windows <= SAMPLED ? 2 ** 32 : Math.floor((2 ** 32 * SAMPLED) / windows);
  const pieces = new Set<number>();
  let h = 0;
  for (let i = 0; i < n; i++) {
    h = (Math.imul(h, B) + codes[i]!) | 0;
    if (i >= PIECE) h = (h - Math.imul(codes[i - PIECE]!, B_PIECE)) | 0;
    if (i >= PIECE - 1) {
      const m = mix(h);
      if (m < below) pieces.add(m);
    }
  }
  return { length, pieces, below };
}

/** Whether two prints are of the same passage: lengths within a tenth, and most pieces shared. */
export function samePassage(a: TextPrint, b: TextPrint): boolean {
  if (Math.min(a.length, b.length) < 0.9 * Math.max(a.length, b.length)) return false;
  // Both samples cut at the lower threshold: then a piece of both texts is in both samples or in neither.
  const below = Math.min(a.below, b.below);
  let shared = 0;
  let union = 0;
  for (const p of a.pieces) {
    if (p >= below) continue;
    union++;
    if (b.pieces.has(p)) shared++;
  }
  for (const p of b.pieces) if (p < below && !a.pieces.has(p)) union++;
  return union > 0 && shared / union >= SAME_TEXT_SIMILARITY;
}

/** For each card, the first earlier card (index) that is not itself a repeat and holds the same passage, or -1. */
export function sameTextAs(prints: readonly (TextPrint | null)[]): number[] {
  const out: number[] = [];
  const firsts: number[] = [];
  prints.forEach((p, i) => {
    const at = p === null ? -1 : (firsts.find((j) => samePassage(prints[j]!, p)) ?? -1);
    out.push(at);
    if (p !== null && at < 0) firsts.push(i);
  });
  return out;
}
