/**
 * Query words of scripts written without spaces (Japanese, Chinese, Thai…) that the index does not know,
 * cut again against the index's own vocabulary.
 *
 * The tokenizer's words in those scripts are `Intl.Segmenter`'s guesses, and the same characters cut
 * differently in a query than in the page they came from: a remembered span starts or ends mid-word
 * (「新しいカーネルパッケ」 of 「新しいカーネルパッケージを…」, 「トールかは」 of 「インストールかは」), and a
 * katakana run the segmenter keeps whole (「カーネルパッケ」) is one unknown word. Such a word retrieves
 * nothing today. Here an unknown run (adjacent unknown words of such scripts, joined) is cut into the
 * index terms it starts with, longest first (「カーネル」), and what is left, a fragment of 2+ characters,
 * stands for the nearest index term that contains it (fewest extra characters, then the most sections):
 * 「パッケ」 → 「パッケージ」, 「トール」 → 「インストール」. The fragment is then treated like a corrected
 * typo (weighted below an exact word, shown in "Showing results for …"). Queries whose words are all
 * known cost nothing; the index is unchanged (no re-indexing).
 */

const UNSPACED_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** Terms longer than this are not looked at (a run of text, not a word). */
const MAX_TERM_CHARS = 24;

/** The index's terms of scripts without spaces, by each character they contain. */
export class UnspacedTerms {
  private readonly known = new Set<string>();
  private readonly byChar = new Map<string, string[]>();

  get size(): number {
    return this.known.size;
  }

  /** Adds an index term (terms of other scripts, and very long ones, are ignored). */
  add(term: string): void {
    if (this.known.has(term) || !UNSPACED_CHAR.test(term)) return;
    const chars = [...term];
    if (chars.length > MAX_TERM_CHARS) return;
    this.known.add(term);
    for (const c of new Set(chars)) {
      let b = this.byChar.get(c);
      if (!b) this.byChar.set(c, (b = []));
      b.push(term);
    }
  }

  has(term: string): boolean {
    return this.known.has(term);
  }

  /**
   * Terms that contain `fragment` and are longer, fewest extra characters first (then by term), at most
   * `limit`. Reads the terms holding the fragment's rarest character only.
   */
  containing(fragment: string, limit: number): { term: string; extra: number }[] {
    const chars = [...new Set(fragment)];
    let bucket: string[] | undefined;
    for (const c of chars) {
      const b = this.byChar.get(c);
      if (!b) return [];
      if (!bucket || b.length < bucket.length) bucket = b;
    }
    const out: { term: string; extra: number }[] = [];
    const n = [...fragment].length;
    for (const t of bucket ?? []) if (t !== fragment && t.includes(fragment)) out.push({ term: t, extra: [...t].length - n });
    out.sort((a, b) => a.extra - b.extra || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
    return out.slice(0, limit);
  }
}

/** One piece of a re-cut run: an index term as it is, or a fragment to stand for a term containing it. */
export interface RecutPiece {
  /** The piece's characters (folded, as the run's term). */
  text: string;
  known: boolean;
}

/**
 * Cuts a run into index terms, taking at each place the longest known term of 2+ characters that starts
 * there; characters where none starts gather into fragments. Single characters are never taken as
 * terms on their own (most are particles and kana that every page holds), so they join a fragment.
 */
export function recutRun(run: string, terms: UnspacedTerms): RecutPiece[] {
  const chars = [...run];
  const out: RecutPiece[] = [];
  let fragment = '';
  let i = 0;
  while (i < chars.length) {
    let end = -1;
    for (let j = Math.min(chars.length, i + MAX_TERM_CHARS); j >= i + 2; j--) {
      if (terms.has(chars.slice(i, j).join(''))) {
        end = j;
        break;
      }
    }
    if (end < 0) {
      fragment += chars[i];
      i++;
      continue;
    }
    if (fragment) out.push({ text: fragment, known: false });
    fragment = '';
    out.push({ text: chars.slice(i, end).join(''), known: true });
    i = end;
  }
  if (fragment) out.push({ text: fragment, known: false });
  return out;
}
