/**
 * Sections that are lists of short entries rather than text about something: a table of contents, a
 * book's index, a sitemap, a module's list of directives, a "See also" list (issue #13, item 3: pages
 * whose terms are spread thin over hundreds of tiny entries). Such a section names every topic of the
 * pages it lists, so a two- or three-word phrase finds all its words there, and once the chunker has cut
 * a 28,000-word table of contents into 300-word windows each window is as short as a real section:
 * BM25's length normalisation no longer holds it back. Measured on the tuning corpora (lexical lane,
 * session 36): a table of contents, index or glossary page was among the first three results of 17 of
 * python's 76 questions and phrases (naive per-section BM25: 3), 21 of lilypond's 120 (naive 3), 9 of
 * policy's 80 (naive 0).
 *
 * Told from the text alone, so it works for every page already stored and needs no capture change: the
 * lines of a list are short and end without a sentence's punctuation, a paragraph's do not. Code lines
 * (`=`, brackets, quotes) do not count as entries, so a section of code is not a list. What it still
 * takes for a list: a table read cell by cell (Javadoc's field summaries) and a tree of names (gtk-doc's
 * object hierarchies) — measured harmless (no identifier, heading, span or typo query moved on 17 corpora).
 */

/** Fewer lines than this and a body is not a list (a short list inside a section is part of its text). */
export const LIST_MIN_LINES = 10;
/** An entry's most words. */
export const LIST_ENTRY_MAX_WORDS = 8;
/** From this share of the body's characters in entries, a section is a list. */
export const LIST_MIN_SHARE = 0.6;
/** A list's lexical score is multiplied by 1 − LIST_WEIGHT × its share (so by 0.5 to 0.7). */
export const LIST_WEIGHT = 0.5;

/** How a sentence or a clause ends (Latin, CJK). */
const SENTENCE_END = /[.!?;:)。！？」]$/u;
/** Characters of code, never of a table of contents' entry. */
const CODE = /[=(){}[\];<>$"']/;

/**
 * The share (0..1) of a section's body characters that are in list entries: lines of at most
 * LIST_ENTRY_MAX_WORDS words that end without a sentence's punctuation and hold no code characters.
 * 0 for a body of fewer than LIST_MIN_LINES lines. `headed`: the text's first line is its heading path
 * (src/chunker.ts folds it in when the section has one), which is not part of the body.
 */
export function listShare(text: string, headed: boolean): number {
  let start = 0;
  if (headed) {
    const nl = text.indexOf('\n');
    if (nl < 0) return 0;
    start = nl + 1;
  }
  let lines = 0;
  let all = 0;
  let entries = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const line = text.slice(start, end).trim();
    start = end + 1;
    if (!line) continue;
    lines++;
    all += line.length;
    if (!SENTENCE_END.test(line) && !CODE.test(line) && wordsAtMost(line, LIST_ENTRY_MAX_WORDS)) entries += line.length;
  }
  return lines >= LIST_MIN_LINES && all > 0 ? entries / all : 0;
}

/** The factor a section's lexical score is multiplied by: 1 unless it is a list (LIST_MIN_SHARE). */
export function listWeight(text: string, headed: boolean): number {
  const share = listShare(text, headed);
  return share >= LIST_MIN_SHARE ? 1 - LIST_WEIGHT * share : 1;
}

/** Whether `line` (trimmed) has at most `max` whitespace-separated words. */
function wordsAtMost(line: string, max: number): boolean {
  let words = 1;
  for (let i = 1; i < line.length; i++) {
    if (/\s/.test(line[i]!) && !/\s/.test(line[i - 1]!)) {
      words++;
      if (words > max) return false;
    }
  }
  return true;
}
