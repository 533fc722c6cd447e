/**
 * A query that names a heading. Someone who types a heading they remember ("Updating the package",
 * "git-am(1) Manual Page", "互換性の問題") wants the link to land on that heading, not on whichever
 * section under it holds the most of the words. Every section under a chapter carries the chapter's
 * heading in its heading path, so ranking alone picks a sub-section (one whose body repeats the words),
 * and a chapter heading with no text of its own has no section at all (src/chunker.ts mergeTiny).
 *
 * A heading is named by the query when it holds the query's words verbatim, in order and adjacent
 * (folded as the tokenizer folds, punctuation ignored, whole words; in scripts without spaces, as a
 * run of characters), and the query is most of the heading: at least `NAMED_SHARE` of its letters
 * (outside brackets: a signature's parameters do not count), so
 * "git" does not name "git-am(1) Manual Page" while "Envoi de paquet" names "Chapitre 9. Envoi de
 * paquet". A word typed with punctuation inside it (`--untracked-cache`, `git-am(1)`, `fs.readFile`)
 * must be in the heading as typed: `--untracked-cache` names an option, not the heading "UNTRACKED
 * CACHE". Pure; used by src/search.ts when it builds each page's card.
 */
import { unspacedWord } from './queryPlan.js';
import { foldText } from './tokenizer.js';

/** The query must hold at least this share of the heading's letters (numbers and punctuation do not count). */
export const NAMED_SHARE = 0.6;

/** Queries longer than this (characters) are not headings; the test is skipped. */
const MAX_QUERY_CHARS = 200;

const WORD = /[\p{L}\p{M}\p{N}]+/gu;
const LETTER = /\p{L}/gu;

export interface NamedHeadingQuery {
  /** The query's words, folded, lower case, space-separated, with a space at each end. */
  spaced: string;
  /** The same without spaces (how text in scripts without spaces is compared). */
  squeezed: string;
  unspaced: boolean;
  letters: number;
  /** Words typed with punctuation inside (folded, lower case): the heading must hold each as is. */
  exact: string[];
  /** Headings judged for this query so far. */
  judged: Map<string, boolean>;
  /** The query's longest word, any case, when the query is plain ASCII (null otherwise): a heading without it is not named. */
  longest: RegExp | null;
  /**
   * When the query is plain ASCII: a line (of a multi-line text) opening with its first word, any case
   * (a line whose first word differs only by accents is not looked at: names are typed as written).
   */
  lineStart: RegExp | null;
  /**
   * A member typed with its type, `UdpSocket::send_to`, `Project.setBasedir`, `Array#map` (lower case): a
   * heading that is the member's signature names it when a heading above it names the type (rustdoc's
   * `pub fn send_to<A: ToSocketAddrs>(…)` under "Struct std::net::UdpSocket", Javadoc's `setBasedir` under
   * "Class Project"). Null for any other query.
   */
  member: { name: string; owner: string } | null;
}

const words = (s: string): string[] => foldText(s).toLowerCase().match(WORD) ?? [];
/** One kind of apostrophe and of double quote. */
const quotes = (s: string): string => s.replace(/[\u2018\u2019\u02bc]/g, "'").replace(/[\u201c\u201d]/g, '"');
/** Folded, lower case, `quotes`: what a word typed with punctuation is looked for in. */
const plain = (s: string): string => quotes(foldText(s).toLowerCase());
// Sentence punctuation and brackets around a word are not part of it, nor a permalink mark after it
// (a heading copied from the page with its "#", "¶" or "§").
const EDGES = /^[("'«\[{¿¡]+|[.,;:!?)"'»\]}#¶§]+$/gu;
const INNER = /[^\p{L}\p{M}\p{N}]/u;
const letterCount = (s: string): number => s.match(LETTER)?.length ?? 0;

/** The query as the test compares it, or null when it cannot name a heading (empty, too long, no letters). */
export function namedHeadingQuery(text: string): NamedHeadingQuery | null {
  if (text.length > MAX_QUERY_CHARS) return null;
  const w = words(text);
  const squeezed = w.join('');
  const letters = letterCount(squeezed);
  if (!w.length || letters < 2) return null;
  const exact = plain(text)
    .split(/\s+/)
    .map((t) => t.replace(EDGES, ''))
    .filter((t) => INNER.test(t));
  const word = ASCII.test(squeezed) ? w.reduce((a, b) => (b.length > a.length ? b : a), '') : '';
  const longest = word ? new RegExp(word.replace(/[^a-z0-9]/g, '\\$&'), 'i') : null;
  const lineStart = word ? new RegExp(`^[^\\p{L}\\p{N}\\n]*${w[0]!.replace(/[^a-z0-9]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'gimu') : null;
  const m = MEMBER.exec(text.trim());
  const member = m ? { owner: m[1]!.toLowerCase(), name: m[2]!.toLowerCase() } : null;
  return { spaced: ` ${w.join(' ')} `, squeezed, unspaced: unspacedWord(squeezed), letters, exact, judged: new Map(), longest, lineStart, member };
}

/** `Type::member`, `pkg.Type.member`, `Type#member`, with `()` after it or not: the type and the member. */
const MEMBER = /^(?:[A-Za-z_$][\w$]*(?:::|\.))*([A-Za-z_$][\w$]*)(?:::|\.|#)([A-Za-z_$][\w$]*)(?:\(\))?$/;
/** A heading that is one name (Javadoc's `setBasedir`). */
const BARE_NAME = /^[A-Za-z_$][\w$]*$/;
/** The name a signature declares: the first name followed by its parameter list, type parameters between (`send_to<A: ToSocketAddrs>(`). */
const SIGNATURE = /([A-Za-z_$][\w$]*)\s*(?:<[^()]*>)?\s*\(/;

/** The name a heading declares when it is a signature or one name, lower case; else null. */
export function declaredName(heading: string): string | null {
  const h = heading.trim();
  if (BARE_NAME.test(h)) return h.toLowerCase();
  return SIGNATURE.exec(h)?.[1]?.toLowerCase() ?? null;
}

const hasWord = (heading: string, word: string): boolean => heading.toLowerCase().split(/[^\w$]+/).includes(word);

/**
 * Whether the query names `path[i]`: the heading itself (namesHeading), or, for a member typed with its
 * type, a heading declaring that member under one that names the type (`member` above).
 */
export function namesAt(q: NamedHeadingQuery, path: readonly string[], i = path.length - 1): boolean {
  const heading = path[i];
  if (heading === undefined) return false;
  if (namesHeading(q, heading)) return true;
  const m = q.member;
  if (!m || declaredName(heading) !== m.name) return false;
  for (let k = 0; k < i; k++) if (hasWord(path[k]!, m.owner)) return true;
  return false;
}

/**
 * Letters, and unless `inBrackets` only those outside brackets: a signature's parameters (`class codecs.IncrementalEncoder(errors='strict')`,
 * `fs.readFile(path[, options], callback)`) do not make the name a smaller part of its heading.
 */
function nameLetters(folded: string, ascii: boolean, inBrackets: boolean): number {
  let depth = 0;
  let n = 0;
  for (const ch of folded) {
    if (inBrackets) {
      if (ascii ? ch >= 'a' && ch <= 'z' : /\p{L}/u.test(ch)) n++;
    } else if (ch === '(' || ch === '[') depth++;
    else if ((ch === ')' || ch === ']') && depth > 0) depth--;
    else if (depth === 0 && (ascii ? ch >= 'a' && ch <= 'z' : /\p{L}/u.test(ch))) n++;
  }
  return n;
}

const ASCII = /^[\x00-\x7f]*$/;

/** Whether `heading` is what the query names (above). Each heading is judged once per query. */
export function namesHeading(q: NamedHeadingQuery, heading: string): boolean {
  if (!heading) return false;
  let named = q.judged.get(heading);
  if (named === undefined) {
    named = judge(q, heading, false);
    if (q.judged.size < 4096) q.judged.set(heading, named);
  }
  return named;
}

/** Lines longer than this (characters) are not terms: the test is skipped. */
const MAX_LINE_CHARS = 200;

/**
 * Whether a line of a section's text (a block: a definition term, a list item) is what the query names,
 * by the same rule as a heading except that letters in brackets count and the line must open with the
 * query's words: `[-o | --only-matching]` in a synopsis line and "You can also fetch branches from other
 * repositories; so" are mentions, the term `--only-matching` that opens its definition is the place.
 */
export function namesLine(q: NamedHeadingQuery, line: string): boolean {
  if (!line || line.length > MAX_LINE_CHARS) return false;
  const key = '\u0000' + line;
  let named = q.judged.get(key);
  if (named === undefined) {
    named = judge(q, line, true);
    if (q.judged.size < 4096) q.judged.set(key, named);
  }
  return named;
}

/** Whether some line of a section's text, its heading line aside, is named by the query. */
export function namedLineIn(q: NamedHeadingQuery, section: { text: string; headingPath: readonly string[] }): boolean {
  const text = section.text;
  const from = section.headingPath.length ? text.indexOf('\n') + 1 : 0;
  if (section.headingPath.length && from === 0) return false;
  if (q.lineStart) {
    // A plain ASCII query: only lines that open with its first word (as typed, any case) are read.
    q.lineStart.lastIndex = from;
    for (let m = q.lineStart.exec(text); m; m = q.lineStart.exec(text)) {
      const end = text.indexOf('\n', m.index);
      if (namesLine(q, text.slice(m.index, end < 0 ? text.length : end).trim())) return true;
      if (end < 0) break;
      q.lineStart.lastIndex = end + 1;
    }
    return false;
  }
  const lines = text.slice(from).split('\n');
  return lines.some((l) => namesLine(q, l.trim()));
}

function judge(q: NamedHeadingQuery, heading: string, line: boolean): boolean {
  // Most headings hold no query word: in plain ASCII that shows without folding anything.
  const ascii = ASCII.test(heading);
  if (ascii && q.longest && !q.longest.test(heading)) return false;
  const folded = ascii ? heading.toLowerCase() : foldText(heading).toLowerCase();
  const letters = nameLetters(folded, ascii, line);
  if (!letters || q.letters < NAMED_SHARE * letters) return false;
  if (q.exact.length) {
    const h = quotes(folded);
    if (!q.exact.every((t) => h.includes(t))) return false;
  }
  const w = folded.match(WORD) ?? [];
  // A line must open with the query, as a term opens its definition; a heading may hold it anywhere.
  if (line) return q.unspaced ? w.join('').startsWith(q.squeezed) : ` ${w.join(' ')} `.startsWith(q.spaced);
  return q.unspaced ? w.join('').includes(q.squeezed) : ` ${w.join(' ')} `.includes(q.spaced);
}

/**
 * The deepest heading of `path` that the query names, as an index into it, or -1. A heading below it
 * that the query names too wins (the most specific place).
 */
export function namedInPath(q: NamedHeadingQuery, path: readonly string[]): number {
  for (let i = path.length - 1; i >= 0; i--) if (namesAt(q, path, i)) return i;
  return -1;
}
