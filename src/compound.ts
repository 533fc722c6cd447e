/**
 * A word no page holds may be a compound of words pages do hold: German writes `Bauregeln` where a page
 * says "Regeln für den Bau", `Lizenzangaben` where it says "Angaben zur Lizenz". Used only when a query is
 * otherwise answered with nothing (src/search.ts): the compound is searched again as its two parts.
 */

/** The shortest part, in letters (shorter cuts are mostly prefixes and endings, not words). */
export const MIN_PART = 3;
/** The shortest word that is cut. */
export const MIN_COMPOUND = 2 * MIN_PART + 1;
/**
 * The longest word that is cut. German's long compounds are a few dozen letters; a longer run of letters
 * (a pasted identifier, garbage) would cost a cut and a lookup per letter, each part tokenized again.
 */
export const MAX_COMPOUND = 48;
/** German linking elements between the parts (`Weihnacht-s-markt`, `Seite-n-zahl`, `Frau-en-arzt`). */
const LINKS = ['s', 'es', 'n', 'en'];
const LETTERS = /^\p{L}+$/u;

export interface CompoundCut {
  left: string;
  right: string;
}

/**
 * Every way to cut `word` into two parts of at least MIN_PART letters, with and without a linking element
 * at the end of the left part; left to right. Nothing for a word that is short, longer than MAX_COMPOUND,
 * or not all letters.
 */
export function compoundCuts(word: string): CompoundCut[] {
  if (word.length < MIN_COMPOUND || word.length > MAX_COMPOUND || !LETTERS.test(word)) return [];
  const out: CompoundCut[] = [];
  for (let i = MIN_PART; i <= word.length - MIN_PART; i++) {
    const left = word.slice(0, i);
    const right = word.slice(i);
    out.push({ left, right });
    for (const link of LINKS) {
      if (left.length - link.length >= MIN_PART && left.toLowerCase().endsWith(link)) out.push({ left: left.slice(0, -link.length), right });
    }
  }
  return out;
}

/**
 * The cut to search: both parts known (`df` > 0 for a term of each), the one whose rarer part is in the
 * most sections (a real word, not a chance fragment), then the longer left part. Null when no cut has two
 * known parts.
 */
export function bestCut(cuts: readonly CompoundCut[], df: (part: string) => number): CompoundCut | null {
  let best: CompoundCut | null = null;
  let bestScore = 0;
  for (const c of cuts) {
    const score = Math.min(df(c.left), df(c.right));
    if (score > bestScore || (score === bestScore && score > 0 && best && c.left.length > best.left.length)) {
      best = c;
      bestScore = score;
    }
  }
  return bestScore > 0 ? best : null;
}
