/**
 * What of a section is indexed: the one place that says which text BM25 and the embedding model see
 * for a section, and with which tokenizer options. The write path (background/pageStore.ts), deletes,
 * verification, the dense lane, the evaluation and the benchmarks all call these, so they cannot drift.
 *
 * Fields (BM25F, Robertson, Zaragoza & Taylor 2004): a section is indexed as four fields,
 * - body: the section's text (merged sub-sections included), the only field counted and length-normalised;
 * - heading: the section's own heading;
 * - ancestors: the headings above it;
 * - title: the page's title.
 * A posting's term frequency packs the body count with one bit per short field: `body << 3 | heading << 2
 * | ancestors << 1 | title` (see `tfCode`), so a posting costs no more bytes than a plain count below 16
 * occurrences. The short fields are presence bits because a heading or title rarely repeats a word;
 * their weights (src/bm25.ts) are added to the normalised body count before saturation.
 */
import { tokenize, type TokenizerOptions } from './tokenizer.js';

/** Light stemming on: +0.013 nDCG@10 on SciFact train, +0.03 on the Python-manual tuning half (npm run eval). */
export const TOKENIZER: TokenizerOptions = { stem: true };

// Where a page is too small to keep: in src/chunker.ts, which the content script has too.
export { MIN_PAGE_WORDS, tooLittleText } from './chunker.js';

/** The text embedded for a section: the page title folded in, so title words find every section. */
export function indexedText(title: string, chunkText: string): string {
  return title ? `${title}\n${chunkText}` : chunkText;
}

/** Field bits of a term frequency code. */
export const HEADING_BIT = 4;
export const ANCESTORS_BIT = 2;
export const TITLE_BIT = 1;
/** Bits below the body count. */
export const FIELD_BITS = 3;

/** Packs a section's counts of one term: body occurrences, and whether it is in the heading, the headings above, the title. */
export function tfCode(body: number, heading: boolean, ancestors: boolean, title: boolean): number {
  return body * 8 + (heading ? HEADING_BIT : 0) + (ancestors ? ANCESTORS_BIT : 0) + (title ? TITLE_BIT : 0);
}

/** Body occurrences in a tf code. */
export function bodyTf(code: number): number {
  return Math.floor(code / 8);
}

/** What BM25 indexes for one section. */
export interface IndexedSection {
  /** Body length in terms (BM25's document length). */
  len: number;
  /** Term -> tf code (`tfCode`), in first-seen order. */
  tfs: Map<string, number>;
}

/** A section's text split into its fields: the first line is the heading path when it has one. */
export function sectionFields(title: string, chunk: { text: string; headingPath: readonly string[] }): { body: string; heading: string; ancestors: string; title: string } {
  const path = chunk.headingPath;
  const nl = chunk.text.indexOf('\n');
  const hasHeadingLine = path.length > 0 && (nl >= 0 ? chunk.text.slice(0, nl) : chunk.text) === path.join(' > ');
  const body = hasHeadingLine ? (nl >= 0 ? chunk.text.slice(nl + 1) : '') : chunk.text;
  return { body, heading: path[path.length - 1] ?? '', ancestors: path.slice(0, -1).join('\n'), title };
}

/** The postings of one section. Writes, deletes and verification must all use this. */
export function indexSection(title: string, chunk: { text: string; headingPath: readonly string[] }, tok: TokenizerOptions = TOKENIZER): IndexedSection {
  const f = sectionFields(title, chunk);
  const body = tokenize(f.body, tok);
  const counts = new Map<string, number>();
  for (const t of body) counts.set(t, (counts.get(t) ?? 0) + (1 << FIELD_BITS));
  for (const [text, bit] of [[f.heading, HEADING_BIT], [f.ancestors, ANCESTORS_BIT], [f.title, TITLE_BIT]] as const) {
    for (const t of new Set(tokenize(text, tok))) counts.set(t, (counts.get(t) ?? 0) + bit);
  }
  // A long option's dashed term (`--only`, src/tokenizer.ts) names the word emitted after it: it does not
  // lengthen the section (lengths, and so every other query's ranking, are as without it).
  let options = 0;
  for (const t of body) if (t.charCodeAt(0) === 45 && t.startsWith('--')) options++;
  return { len: body.length - options, tfs: counts };
}
