/**
 * Text a page draws back from what the visitor typed: the live preview of a Markdown editor (a question
 * or answer box, a comment form, a wiki or notes editor) renders the draft in an ordinary `div` as it is
 * typed, outside any form control, so a capture read the unsent draft as the page's text. Form controls
 * and editable regions are never read (content/extract.ts); this finds their echoes.
 *
 * The rule, on text normalised to lower-case letters and digits with one space between runs (so Markdown's
 * marks, `**`, `#`, `-`, backticks, fall away as rendering drops them): a block is an echo when at least
 * half of its MIRROR_SHINGLE-character pieces (taken every SAMPLE_STEP characters) are pieces of a typed
 * value, or, when it is shorter than one piece, when it is two or more words in a row of one. A page's own
 * paragraph shares no such run with what was typed unless the visitor typed or pasted it: then that
 * paragraph is left out too, the safe side of the choice. Values are only those the visitor typed: a text
 * field whose value differs from the page's own default, or an editable region's text.
 */

/** Characters a piece: long enough that two texts share one only by sharing words in order. */
export const MIRROR_SHINGLE = 16;
/** A block's pieces looked up: every this many characters (every piece of a typed value is kept). */
export const SAMPLE_STEP = 4;
/** A typed value shorter than this (normalised) is too short to be echoed recognisably: ignored. */
export const MIN_TYPED_CHARS = 3;
/**
 * At most this much typed text is tested (characters, normalised; a draft is rarely a tenth of it): its
 * pieces are hashed and sorted in one task, 3-7 ms for 50,000 characters (Node 20, warm).
 */
export const MAX_TYPED_CHARS = 50_000;

/** Lower case, letters and digits only, one space between runs (NFKC: full-width forms as typed). */
export function mirrorNormal(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export interface TypedText {
  /** A rolling hash of every piece of every typed value (`pieceHashes`), sorted (a Set of 100,000 numbers took 40+ ms to fill). */
  pieces: Int32Array;
  /** The typed values, normalised, each between spaces (for a short block's whole-word test). */
  values: readonly string[];
}

/** Rolling-hash base (odd): arithmetic modulo 2^32, in 32-bit integers (`Math.imul`). */
const BASE = 0x01000193;
/** BASE^(MIRROR_SHINGLE - 1) modulo 2^32: the weight of a piece's first character, taken off as the window moves. */
const LEAD = (() => {
  let x = 1;
  for (let i = 1; i < MIRROR_SHINGLE; i++) x = Math.imul(x, BASE);
  return x;
})();

/**
 * `visit(at, hash)` for each MIRROR_SHINGLE-character piece of `n`, in order (Rabin-Karp, modulo 2^32):
 * numbers, not substrings (100,000 16-character substrings in a Set took 40-50 ms, Node 20).
 */
function pieceHashes(n: string, visit: (at: number, hash: number) => void): void {
  if (n.length < MIRROR_SHINGLE) return;
  let h = 0;
  for (let i = 0; i < MIRROR_SHINGLE; i++) h = (Math.imul(h, BASE) + n.charCodeAt(i)) | 0;
  visit(0, h);
  for (let i = MIRROR_SHINGLE; i < n.length; i++) {
    h = (Math.imul(h - Math.imul(n.charCodeAt(i - MIRROR_SHINGLE), LEAD), BASE) + n.charCodeAt(i)) | 0;
    visit(i - MIRROR_SHINGLE + 1, h);
  }
}

/** What the visitor typed, ready to test blocks against; null when nothing typed is long enough. */
export function typedText(values: Iterable<string>): TypedText | null {
  const kept: string[] = [];
  let total = 0;
  for (const v of values) {
    const n = mirrorNormal(v.length > MAX_TYPED_CHARS ? v.slice(0, MAX_TYPED_CHARS) : v);
    if (n.length < MIN_TYPED_CHARS) continue;
    if (total + n.length > MAX_TYPED_CHARS) break;
    total += n.length;
    kept.push(n);
  }
  if (!kept.length) return null;
  const pieces = new Int32Array(kept.reduce((a, n) => a + Math.max(0, n.length - MIRROR_SHINGLE + 1), 0));
  let k = 0;
  for (const n of kept) pieceHashes(n, (_, h) => (pieces[k++] = h));
  pieces.sort();
  return { pieces, values: kept.map((n) => ` ${n} `) };
}

/** Whether the sorted `pieces` hold `h` (binary search). */
function holds(pieces: Int32Array, h: number): boolean {
  let lo = 0;
  let hi = pieces.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = pieces[mid]!;
    if (v === h) return true;
    if (v < h) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** Whether a block's text is an echo of what was typed (see the header). */
export function echoesTyped(text: string, typed: TypedText): boolean {
  const n = mirrorNormal(text);
  if (n.length < MIN_TYPED_CHARS) return false;
  // A single short word ("FAQ", "Contents") is the page's as likely as an echo, and tells nothing typed.
  if (n.length < MIRROR_SHINGLE) return n.includes(' ') && typed.values.some((v) => v.includes(` ${n} `));
  let looked = 0;
  let found = 0;
  const last = n.length - MIRROR_SHINGLE;
  pieceHashes(n, (at, h) => {
    // Every SAMPLE_STEP-th piece, and the last one.
    if (at % SAMPLE_STEP !== 0 && at !== last) return;
    looked++;
    if (holds(typed.pieces, h)) found++;
  });
  return found * 2 >= looked;
}
