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
/** At most this much typed text is kept (characters, normalised): a form of megabytes is not a draft. */
export const MAX_TYPED_CHARS = 200_000;

/** Lower case, letters and digits only, one space between runs (NFKC: full-width forms as typed). */
export function mirrorNormal(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export interface TypedText {
  /** Every piece of every typed value. */
  pieces: ReadonlySet<string>;
  /** The typed values, normalised, each between spaces (for a short block's whole-word test). */
  values: readonly string[];
}

/** What the visitor typed, ready to test blocks against; null when nothing typed is long enough. */
export function typedText(values: Iterable<string>): TypedText | null {
  const pieces = new Set<string>();
  const kept: string[] = [];
  let total = 0;
  for (const v of values) {
    const n = mirrorNormal(v);
    if (n.length < MIN_TYPED_CHARS) continue;
    if (total + n.length > MAX_TYPED_CHARS) break;
    total += n.length;
    kept.push(` ${n} `);
    for (let i = 0; i + MIRROR_SHINGLE <= n.length; i++) pieces.add(n.slice(i, i + MIRROR_SHINGLE));
  }
  return kept.length ? { pieces, values: kept } : null;
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
  for (let i = 0; ; i = Math.min(i + SAMPLE_STEP, last)) {
    looked++;
    if (typed.pieces.has(n.slice(i, i + MIRROR_SHINGLE))) found++;
    if (i === last) break;
  }
  return found * 2 >= looked;
}
