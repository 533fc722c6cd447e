/**
 * What of a section is indexed: the one place that says which text BM25 and the embedding model see
 * for a section, and with which tokenizer options. The write path (background/pageStore.ts), deletes,
 * verification, the dense lane, the evaluation and the benchmarks all call these, so they cannot drift.
 */
import { countWords } from './chunker.js';
import { tokenize, type TokenizerOptions } from './tokenizer.js';

/** Light stemming on: +0.013 nDCG@10 on SciFact train, +0.03 on the Python-manual tuning half (npm run eval). */
export const TOKENIZER: TokenizerOptions = { stem: true };

/** Pages with less main text than this are not worth a result. */
export const MIN_PAGE_WORDS = 12;

/** Whether a page with these sections is too small to store (capture and the evaluation both ask). */
export function tooLittleText(title: string, chunks: readonly { text: string }[]): boolean {
  const words = chunks.reduce((n, c) => n + countWords(c.text), 0);
  return words < MIN_PAGE_WORDS && countWords(title) + words < MIN_PAGE_WORDS;
}

/** The text embedded for a section: the page title folded in, so title words find every section. */
export function indexedText(title: string, chunkText: string): string {
  return title ? `${title}\n${chunkText}` : chunkText;
}

/**
 * Title and heading-path terms count this many times in a chunk (a BM25F-style field weight). 3 was
 * chosen on training data (SciFact train, Python-manual odd ids): nDCG@10 0.686 / 0.687 against
 * 0.683 / 0.642 without (see tests/eval/README.md).
 */
export const FIELD_BOOST = 3;

/** The terms BM25 indexes for a chunk. Writes, deletes and verification must all use this. */
export function indexedTerms(title: string, chunk: { text: string; headingPath: readonly string[] }, tok: TokenizerOptions = TOKENIZER): string[] {
  const terms = tokenize(indexedText(title, chunk.text), tok);
  const fields = tokenize(`${title}\n${chunk.headingPath.join(' > ')}`, tok);
  for (let r = 1; r < FIELD_BOOST; r++) for (const t of fields) terms.push(t);
  return terms;
}
