/**
 * From the words a person typed to what the lexical lane scores.
 *
 * - Words, in order, as typed, each with its index terms (the index's tokenizer: the word whole and,
 *   for a compound, its parts; stemmed).
 * - Common words ("how", "do", "a", "my", and any word in more than `commonShare` of the sections):
 *   when the query has other words, they retrieve nothing: they add their (small) BM25F score to the
 *   sections the other words found, count for proximity (a remembered sentence is matched with its
 *   small words), and are never listed under "matched" nor highlighted. A query of common words only
 *   ("to be or not to be") keeps them all.
 * - Typos: a word none of whose terms the index holds (a CamelCase compound: not its whole, and not one
 *   of its parts), and which is spellable (src/spelling.ts), is replaced by the nearest index term (fewest
 *   edits, then the most sections), weighted below an exact word. A query whose words are all known costs
 *   nothing here.
 * - Words of scripts without spaces that the index does not know (a remembered span cut mid-word) are
 *   cut again against the index's terms by search() (src/recut.ts), their fragments corrected like typos.
 */
import { forEachWordSpan, wordTerms, type TokenizerOptions } from './tokenizer.js';
import { spellable } from './spelling.js';

/**
 * Function words and question words of English, German, French and Spanish, as typed, in lower case,
 * before stemming. Scripts without spaces have none here: treating Japanese particles as common words
 * cost remembered Japanese spans their best clue (debian-faq spans 0.953 -> 0.936 nDCG@10, no
 * off-topic question kept from results), so they retrieve like any word.
 */
const STOPWORDS_BY_LANGUAGE: Readonly<Record<string, string>> = {
  en:
    'a about above after again against all an and any are as at be because been before being below between both but by can ' +
    'could did do does doing down during each few for from further had has have having here how i if in into is it its just me ' +
    'more most my myself no nor not of off on once only or other our ours out over own same shall should so some such than that ' +
    'the their them then there these they this those through to too under until up us very was we were what when where which ' +
    'while who whom whose why will with would you your yours',
  de:
    'aber als am an auch auf aus bei bin bis bist da das dass dem den der des die dies diese dieser du durch ein eine einem einen ' +
    'einer eines er es für hat hatte ich ihr im in ist ja kann man mit muss nach nicht noch nur ob oder sich sie sind so über um ' +
    'und uns von vor war was welche wenn wer werden wie wird wir wo zu zum zur',
  fr:
    'à au aux avec ce ces comment dans de des du elle en est et il ils je la le les leur lui ma mais me mes mon ne nous on ou où ' +
    'par pas pour qu que quel quelle qui quoi sa se ses son sont sur ta te tu un une vos votre vous ' +
    // French conjunctions, pronouns, auxiliaries and modals a question is written with ("quand faut-il",
    // "peut-on", "quand même"), as the English list holds `when`, `can`, `should`, `same` (not `car`, `ai`,
    // `ni`: English words too)
    'quand lorsque elles eux cette cet cela ceci ça dont comme donc sans sous chez avez avons ont suis sommes êtes ' +
    'été être avoir peut peuvent pouvez dois doit doivent devez faut aussi même',
  es:
    'al como con cual cuando del el ella ellos es esta este hay las lo los mi más muy no nos para pero por porque qué que se si ' +
    'sin sobre su sus tu un una uno y ya',
};

const STOPWORD_SETS = new Map(Object.entries(STOPWORDS_BY_LANGUAGE).map(([lang, words]) => [lang, new Set(words.split(' '))]));

export const QUERY_STOPWORDS: ReadonlySet<string> = new Set([...STOPWORD_SETS.values()].flatMap((set) => [...set]));

/** French elided forms longer than one letter (`qu'il`, `jusqu'au`, `lorsqu'on`, `puisqu'il`). */
const ELIDED = /^(?:qu|jusqu|lorsqu|puisqu)$/i;
/** English clitics after an apostrophe (`user's`, `isn't`, `we'll`, `they're`, `I've`, `I'd`, `I'm`). */
const CLITICS = /^(?:s|t|d|ll|re|ve|m)$/i;
const APOSTROPHE = /['\u2019]/;
const LETTER = /\p{L}/u;

/**
 * Whether the word at [start, end) of `text` is a piece an apostrophe cut off a word: an elided
 * article, pronoun or conjunction before it (French `l'`, `d'`, `j'`, `n'`: one or two letters, or
 * `qu'`, `jusqu'`...) or an English clitic after it (`'s`, `'t`). The tokenizer makes them words of
 * their own (`d'autres` is `d` + `autres`); they are function words, never what a query is about, and
 * are never listed under "matched". Only the piece beside the apostrophe is one: `c` in `c compiler`
 * stays a word.
 */
export function apostropheFragment(text: string, start: number, end: number): boolean {
  const word = text.slice(start, end);
  if (APOSTROPHE.test(text[end] ?? '') && LETTER.test(text[end + 1] ?? '') && ([...word].length <= 2 || ELIDED.test(word))) return true;
  return start >= 2 && APOSTROPHE.test(text[start - 1]!) && LETTER.test(text[start - 2]!) && CLITICS.test(word);
}

const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** A word of a script written without spaces (its cut is the segmenter's guess, not the writer's). */
export function unspacedWord(word: string): boolean {
  return UNSPACED.test(word);
}

const KANA_FUNCTION_WORD = /^\p{Script=Hiragana}{1,2}$/u;

/**
 * A run of one or two hiragana (で, を, は, か, ます, する): what the segmenter leaves of a Japanese
 * particle or verb ending; or a Chinese function word (的, 了, 哪些, 怎么, 可以). Such words retrieve like
 * any other (see QUERY_STOPWORDS), but they are not what a query is about: they are not listed under
 * "matched", weigh less (search.ts `kanaWeight`), and a section holding only them is no result
 * (`kanaAlone`).
 */
export function kanaFunctionWord(word: string): boolean {
  return KANA_FUNCTION_WORD.test(word) || CHINESE_FUNCTION_WORDS.has(word);
}

/**
 * Chinese function words as the segmenter cuts them: structural and aspect particles, sentence-final
 * particles, pronouns and demonstratives, prepositions and conjunctions, question words, modal verbs
 * (a linguistic list, not drawn from any query set). Treated as Japanese particles are.
 */
const CHINESE_FUNCTION_WORDS: ReadonlySet<string> = new Set(
  (
    '的 地 得 了 着 过 是 在 有 和 与 或 或者 及 而 也 都 就 还 又 再 很 更 最 把 被 给 让 对 从 到 向 往 为 为了 以 之 其 等 ' +
    '吗 呢 吧 啊 呀 么 我 你 他 她 它 我们 你们 他们 它们 这 那 这个 那个 这些 那些 这样 那样 什么 怎么 怎样 怎么样 样 ' +
    '如何 为什么 哪 哪些 哪个 哪里 哪儿 能 能否 能不能 可以 可 会 要 想 我想 应该 该 一个 一些 如果 因为 所以 但是 但 然后'
  ).split(' '),
);

export interface QueryWord {
  /** The word as typed. */
  text: string;
  /** Where it lies in the query text, [start, end) (absent for words made up by the plan). */
  start?: number;
  end?: number;
  /** Its index terms. */
  terms: string[];
  /** Very common: proximity only (see above). */
  common: boolean;
  /** Cut off its word by an apostrophe (`d` of `d'autres`, `s` of `user's`): a function word. */
  fragment?: boolean;
  /** For a typo: the index term it was corrected to, how many edits away, and how to show it. */
  correction?: { term: string; distance: number; display: string; also?: string[] };
  /**
   * Other inflected forms of the word that the index holds (src/variants.ts: `Akkorde` for `Akkord`).
   * Their postings are merged into the word's own term's for scoring; the forms are what the text
   * matchers (proximity, snippets) look for besides the word itself.
   */
  variants?: string[];
}

/** The index terms that stand for a word in a section's text: its correction's, else its own and its inflected forms. */
export function textTerms(w: QueryWord): string[] {
  if (w.correction) return correctionTerms(w.correction);
  return w.variants?.length ? [...w.terms, ...w.variants] : w.terms;
}

/** The index terms a corrected word is searched as: its correction and the candidates as near as it. */
export function correctionTerms(c: { term: string; also?: string[] }): string[] {
  return c.also?.length ? [c.term, ...c.also] : [c.term];
}

export interface CommonWordOptions {
  /** A word in more than this share of the sections is common (besides the stop words). */
  commonShare: number;
  /** Whether the stop-word list applies (else only the share does). */
  stopwords: boolean;
  /** The share applies to indexes of at least this many sections (in a small one every word is "frequent"). */
  minSections: number;
  /** Whether common words add their BM25F score to the sections the other words found. */
  score: boolean;
}

export const DEFAULT_COMMON: Readonly<CommonWordOptions> = { commonShare: 1, stopwords: true, minSections: 100, score: true };

/** The query's words in order, with their index terms (words without terms are left out). */
export function queryWords(text: string, tok: TokenizerOptions): QueryWord[] {
  const out: QueryWord[] = [];
  forEachWordSpan(text, (word, start, end) => {
    const terms = [...new Set(wordTerms(word, tok))];
    if (!terms.length) return;
    out.push({ text: text.slice(start, end), start, end, terms, common: false, ...(apostropheFragment(text, start, end) ? { fragment: true } : {}) });
  });
  return out;
}

/**
 * Marks common words, given each term's document frequency. A word is common when its folded form is a
 * stop word, or when every one of its terms is in more than `commonShare` of the N sections (in an
 * index of at least `minSections`). When that would leave no known word that retrieves, only the stop
 * words are common; a query of stop words only ("to be or not to be") keeps them all. A question whose
 * other words the index does not know keeps its stop words common: "what is the capital of australia"
 * must not be answered by every section holding "what is the".
 */
export function markCommon(words: QueryWord[], df: (term: string) => number, N: number, opts: CommonWordOptions = DEFAULT_COMMON): void {
  const stop = words.map((w) => opts.stopwords && ((w.terms.length === 1 && (w.fragment === true || isStopword(w.text))) || frenchInversion(w.text)));
  const frequent = words.map((w) => N >= opts.minSections && w.terms.every((t) => df(t) > opts.commonShare * N));
  // Words the index does not know at all (typos) do not count as retrieving words here.
  const retrieves = (common: (i: number) => boolean) => words.some((w, i) => !common(i) && w.terms.some((t) => df(t) > 0));
  const either = (i: number) => stop[i]! || frequent[i]!;
  const onlyStop = (i: number) => stop[i]!;
  // An unknown word of a script without spaces is most likely the segmenter's cut through a known word
  // (a remembered span that starts mid-word), not a sign that the question is off-topic.
  const offTopicSign = (i: number) => !stop[i] && !(unspacedWord(words[i]!.text) && words[i]!.terms.every((t) => df(t) === 0));
  const rule = retrieves(either) ? either : retrieves(onlyStop) || words.some((_, i) => offTopicSign(i)) ? onlyStop : () => false;
  words.forEach((w, i) => (w.common = rule(i)));
}

/**
 * Whether a word as typed is a stop word: composed and with compatibility forms unified first, so that
 * "ｈｏｗ ｔｏ" typed full-width (a Japanese keyboard) or "à" typed as a + U+0300 is the stop word it reads as.
 */
export function isStopword(word: string): boolean {
  return QUERY_STOPWORDS.has(word.normalize('NFKC').toLowerCase());
}

/** Whether a word is a stop word of one of these languages (`queryLanguages`' codes). */
export function isStopwordOf(word: string, languages: readonly string[]): boolean {
  const w = word.normalize('NFKC').toLowerCase();
  return languages.some((lang) => STOPWORD_SETS.get(lang)?.has(w) ?? false);
}

/** A French verb and its subject pronoun inverted, as questions are written: `est-ce`, `faut-il`, `peut-on`, `a-t-il`. */
const INVERSION = /^(\p{L}+)-(?:t-)?(?:il|elle|on|ils|elles|je|tu|nous|vous|ce)$/iu;

/** Whether a word is such an inversion of a verb that is itself a stop word (an auxiliary or modal: not `refuse-t-il`). */
export function frenchInversion(word: string): boolean {
  const m = INVERSION.exec(word.normalize('NFKC'));
  return !!m && isStopword(m[1]!);
}

/**
 * A long option typed as a query word (`--only`: the tokenizer's terms `--only`, `only`) is searched as
 * the option alone when the index holds it, so that neither the ranking, nor proximity, nor the snippet
 * takes every "only" for it; else as the word without its dashes (its terms and parts, or a typo's
 * correction: `--amned` is searched as `amend`).
 */
export function narrowOptions(words: QueryWord[], df: (term: string) => number): void {
  for (const w of words) {
    const [first, ...rest] = w.terms;
    if (!first?.startsWith('--') || !rest.length) continue;
    w.terms = df(first) > 0 ? [first] : rest;
  }
}

/**
 * Indexes of the words to correct: not common, spellable, and the index holds none of its terms, or, for
 * a compound, not the whole word and not one of its parts either: its parts cannot find it (`GShurce` is
 * `g` + `shurce`; every `GList` holds a `g`). Spellable words are letters only, so of compounds only
 * CamelCase ones are corrected; `foo_bra` and `text-mdoe` are searched by their parts, as before.
 */
export function unknownWords(words: readonly QueryWord[], df: (term: string) => number): number[] {
  const out: number[] = [];
  words.forEach((w, i) => {
    const [whole, ...parts] = w.terms;
    if (w.common || whole === undefined || df(whole) > 0 || !spellable(whole)) return;
    if (!parts.length || parts.some((t) => df(t) === 0)) out.push(i);
  });
  return out;
}

/** A term the lexical lane scores, with its weight and the query word it stands for. */
export interface ScoredTerm {
  term: string;
  weight: number;
  word: number;
}

/** Weight of a corrected word's term (an exact word weighs 1). */
export const TYPO_WEIGHT = 0.7;

/** The terms to score: those of the words that are not common (or of all words, if all are), corrections included. */
export function scoredTerms(words: readonly QueryWord[]): ScoredTerm[] {
  const byTerm = new Map<string, ScoredTerm>();
  const put = (term: string, weight: number, word: number) => {
    const cur = byTerm.get(term);
    if (!cur || cur.weight < weight) byTerm.set(term, { term, weight, word });
  };
  words.forEach((w, i) => {
    if (w.common) return;
    if (w.correction) for (const t of correctionTerms(w.correction)) put(t, TYPO_WEIGHT, i);
    else for (const t of w.terms) put(t, 1, i);
  });
  return [...byTerm.values()];
}

/** The query as it was searched: corrected words replaced by their corrections' display forms. */
export function correctedText(text: string, words: readonly QueryWord[]): string | null {
  if (!words.some((w) => w.correction)) return null;
  let out = '';
  let from = 0;
  for (const w of words) {
    const at = text.indexOf(w.text, from);
    if (at < 0) continue;
    out += text.slice(from, at) + (w.correction ? w.correction.display : w.text);
    from = at + w.text.length;
  }
  return out + text.slice(from);
}
