/**
 * Which query words the words of a text carry, exactly as the index would match them: a text word
 * matches a query word when one of its index terms (the tokenizer with the index's options, so `cats`
 * carries `cat` when stemming is on) is among that query word's terms. One matcher serves a whole
 * query: each distinct text word is tokenized once.
 */
import { forEachWordSpan, wordTerms, type TokenizerOptions } from './tokenizer.js';

/** Query words beyond this many are not told apart (they share the last bit). */
export const MAX_MATCH_WORDS = 31;

export class QueryMatcher {
  private readonly byTerm = new Map<string, number>();
  private readonly memo = new Map<string, number>();

  /** `groups[i]`: the terms that match query word i. */
  constructor(
    groups: readonly (readonly string[])[],
    private readonly tokenizer: TokenizerOptions,
  ) {
    groups.forEach((terms, i) => {
      const bit = 1 << Math.min(i, MAX_MATCH_WORDS - 1);
      for (const t of terms) this.byTerm.set(t, (this.byTerm.get(t) ?? 0) | bit);
    });
  }

  get empty(): boolean {
    return this.byTerm.size === 0;
  }

  /** Bits of the query words this word (folded, as forEachWordSpan gives it) carries; 0 for none. */
  mask(word: string): number {
    let m = this.memo.get(word);
    if (m === undefined) {
      m = 0;
      for (const t of wordTerms(word, this.tokenizer)) m |= this.byTerm.get(t) ?? 0;
      if (this.memo.size < 50_000) this.memo.set(word, m);
    }
    return m;
  }

  /**
   * The words of `text` that carry query words: their ordinal among all the text's words, extent
   * [start, end) in `text` and bits. `words` is the text's word count.
   */
  scan(text: string): TextMatches {
    const pos: number[] = [];
    const start: number[] = [];
    const end: number[] = [];
    const mask: number[] = [];
    let n = 0;
    if (!this.empty) {
      forEachWordSpan(text, (word, s, e) => {
        const m = this.mask(word);
        if (m) {
          pos.push(n);
          start.push(s);
          end.push(e);
          mask.push(m);
        }
        n++;
      });
    }
    return { words: n, pos, start, end, mask };
  }
}

export interface TextMatches {
  words: number;
  pos: number[];
  start: number[];
  end: number[];
  mask: number[];
}
