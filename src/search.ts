/**
 * The search pipeline, pure: filters → allowed sections → lexical lane ∥ dense lane → fusion → text
 * filters on candidates → grouped by page → result cards. Storage is behind `SearchSource`, so the
 * extension (background/search.ts, over IndexedDB) and the evaluation (tests/eval, in memory) run this
 * same code.
 *
 * The lexical lane: the query's words (src/queryPlan.ts: common words, typos) → BM25F over the postings
 * of the words that retrieve (src/bm25.ts) → a minimum share of the words matched, for long queries →
 * proximity over the best candidates' text (src/proximity.ts). A result links to, and its snippet
 * comes from, the place in its section where the query matched best (the merged sub-section it lies
 * in, src/chunker.ts parts).
 */
import { functionWordOf, queryLanguages, queryMayBeIn } from './queryLanguage.js';
import { addScores, bm25Ranked, bm25Search, DEFAULT_FIELDS, idf, seek, type CorpusStats, type FieldWeights, type LexicalHit, type PostingList, type QueryTerm } from './bm25.js';
import type { ChunkAnchor, SectionPart } from './chunker.js';
import { groupByPage } from './group.js';
import { classifyQuery, fuseHybrid, type DenseCalibration } from './hybrid.js';
import { TOKENIZER } from './indexing.js';
import { MAX_MATCH_WORDS, QueryMatcher } from './matcher.js';
import type { ResultSection, SearchRequest, SearchResponse, SearchResult } from './protocol.js';
import { DEFAULT_PROXIMITY, headingMatch, maySequence, proximityScore, type ProximityParams } from './proximity.js';
import { namedHeadingQuery, namedInPath, namedLineIn, namesAt, type NamedHeadingQuery } from './namedHeading.js';
import { addressedQuery, parseDateOperand, parseQuery, type ParsedQuery } from './query.js';
import { correctedText, correctionTerms, DEFAULT_COMMON, isStopword, isStopwordOf, kanaFunctionWord, markCommon, narrowOptions, queryWords, scoredTerms, TYPO_WEIGHT, unknownWords, unspacedWord, textTerms, type CommonWordOptions, type QueryWord } from './queryPlan.js';
import type { FusedHit, LaneHit } from './rrf.js';
import type { Settings } from './settings.js';
import type { PageKind } from './pageKind.js';
import { bestSnippet, type SnippetLead, type SnippetQuery } from './snippet.js';
import { editDistance, maxEditsFor, type Lexicon, type NearTerm } from './spelling.js';
import { foldText, wordTerms } from './tokenizer.js';
import { mergeLists } from './postings.js';
import { germanForms } from './variants.js';
import { bestCut, compoundCuts } from './compound.js';
import { listWeight } from './listLike.js';
import { recutRun, type UnspacedTerms } from './recut.js';
import { normalizeStoredUrl, sectionHref, siteFilter } from './url.js';
import { sameTextAs, snippetChecker, textPrint } from './sameText.js';

/** A stored page as search sees it. */
export interface PageView {
  url: string;
  site: string;
  title: string;
  lastVisit: number;
  visitCount: number;
  chunkIds: readonly number[];
  kind?: PageKind;
}

/** A stored section with its text ("heading path\nbody", as the chunker made it). */
export interface SectionView {
  id: number;
  url: string;
  headingPath: string[];
  section: string;
  anchor: ChunkAnchor;
  /** Sub-sections merged into it, by offset in `text`. */
  parts?: SectionPart[];
  text: string;
}

export interface DenseResult {
  hits: LaneHit[];
  calibration: DenseCalibration;
  /** Where the lane's time went, ms (e.g. the query's embedding, the scan): copied into the response's timings as dense.*. */
  timings?: Record<string, number>;
}

/** What the dense lane answers while its index is still loading (the search goes on without it). */
export interface DenseLoading {
  loading: true;
}

export interface DenseSearchOptions {
  /**
   * Resolves once the lexical lane has done its reads: a dense index not loaded yet starts loading then
   * (its reads would queue the lexical lane's behind them), and is waited for only briefly after.
   */
  lexicalDone?: Promise<void>;
  /** Wait for the index however long it takes to load (SearchRequest.awaitDense). */
  wait?: boolean;
  /** Whether the query may be in these languages (a model's; see search()): a lane may skip the query's work if not. */
  accepts?: (languages: readonly string[] | undefined) => boolean;
}

export interface SearchSource {
  settings: Settings;
  pages(): Promise<ReadonlyMap<string, PageView>>;
  /** Allowed section ids for the query's filters, or null when nothing is filtered. */
  allowedChunks(parsed: ParsedQuery, excludeUrl?: string): Promise<ReadonlySet<number> | null>;
  corpusStats(): Promise<CorpusStats>;
  postings(terms: readonly string[]): Promise<Map<string, PostingList>>;
  /** The sections with these ids that exist (any order). */
  sections(ids: readonly number[]): Promise<SectionView[]>;
  /**
   * Which page holds a section (its URL), without reading the section; undefined for an id no live page
   * holds. With it, the result cards read only the sections they show (absent: they read every
   * candidate up to the last page shown, to learn its page).
   */
  sectionPages?: () => Promise<(id: number) => string | undefined>;
  /** The dense lane: null while the model is not loaded or the lane is off (the search runs lexical-only). */
  dense: ((text: string, k: number, allowed: ReadonlySet<number> | null, opts?: DenseSearchOptions) => Promise<DenseResult | DenseLoading | null>) | null;
  /** Index terms within maxEdits of `term`, nearest first (src/spelling.ts); absent: no typo correction. */
  similarTerms?: (term: string, maxEdits: number) => Promise<NearTerm[]>;
  /**
   * The index's terms of scripts without spaces (src/recut.ts), for query words the segmenter cut
   * differently than the pages; absent: such words are not cut again.
   */
  unspacedTerms?: () => Promise<UnspacedTerms>;
  /** Words of the language that are not typos even when the index lacks them ("bread"); absent: none known. */
  lexicon?: () => Promise<Lexicon | null>;
  /**
   * Whether a stored page is hidden by a forget whose undo window is open (`pages()` leaves it out); absent:
   * none is. An address search says such a page is left out, not that Reread never saved it.
   */
  isHidden?: (url: string) => boolean;
}

/** Everything the lexical lane's ranking depends on besides BM25's k1 and b (settings). Tuned in tests/eval. */
export interface LexicalOptions {
  fields: FieldWeights;
  common: CommonWordOptions;
  proximity: ProximityParams;
  /**
   * A query with at least `minMatchFrom` retrieving words the index knows needs at least
   * `minMatchWords` of them in a section, or `minMatchShare` of them if that is more (never more than it
   * has).
   */
  minMatchShare: number;
  minMatchWords: number;
  minMatchFrom: number;
  /**
   * A query of at most this many retrieving words (0: none) whose list the minimum left short (some
   * sections hold enough of its words, fewer than asked for) is filled with sections holding fewer,
   * ranked after all of them: a short phrase is not cut short because one of its words is paraphrased
   * away ("service startup configuration": the answer says "init script"), as a two-word one, which
   * needs one word, is not. A query no section answers with enough words still gets nothing (whether it
   * is off-topic is the minimum's and the coverage gate's question), and a longer question is not
   * filled with sections holding one of its words.
   */
  minMatchFill: number;
  /**
   * A query of two or more words gets no lexical results when even its best sections (of the first
   * ten) hold less than this share of its words' weight, counting the words the index does not know
   * at full weight: an off-topic question ("best sourdough bread recipe for beginners") matching the
   * pages only by its generic words ("best", "recipe").
   */
  minCoverage: number;
  /**
   * A section (of the first ten) holding at least this many of the query's distinct content words
   * passes the coverage gate whatever their weight (0: no such exception): a long paraphrased question
   * on a small index has words no page holds (inflections, compounds: `zurückgenommen`,
   * `Konfigurationsskript`), which weigh the most, while its answer holds three or more of its other
   * words; an off-topic question matches a section by one or two generic words (tests/eval/README.md).
   */
  coverageWords: number;
  /**
   * Whether a section (of the first ten) holding a name-shaped word of the query the index knows
   * (`kicad_wks`, `Bitmap2Component`: NAME_SHAPED) passes the coverage gate whatever the other words: a
   * question that names a file type or a tool its answer names is not an off-topic one matching by generic
   * words, though its paraphrased words ("Vorlage als kicad_wks speichern") are on no page.
   */
  coverageNames: boolean;
  /** Whether unknown words of scripts without spaces count against the coverage. */
  coverageUnspaced: boolean;
  typos: boolean;
  /** Whether unknown words of scripts without spaces are cut again against the index's terms (src/recut.ts). */
  recut: boolean;
  /**
   * Whether a query holding words of a script without spaces counts a section as holding its exact
   * sequence when the section's text holds the query's characters verbatim (spaces and punctuation
   * aside; `verbatimSpan`), and an unknown Latin piece glued to such a word at the query's edge
   * (`nges` of `.changesファイル`) does not count against the coverage. A remembered span copied from a
   * page cuts page words at its edges, so its first word may be the end of a page word and its last the
   * start of one; the segmenter then cuts it differently from the page and the word-by-word sequence fails.
   */
  unspacedEdges: boolean;
  /**
   * With `unspacedEdges`: when none of proximity's candidates holds such a query's characters verbatim,
   * up to this many hits after them are read and checked too (only then: other queries read nothing
   * more), and those holding it join the candidates. A remembered span's few distinctive characters
   * are often cut into particles and fragments that rank its section below the first candidates.
   */
  verbatimReach: number;
  /**
   * Whether a query of 4–8 words that holds two or more common words (a phrase the person remembers:
   * "which is more practical but") is looked for, in the same order, among the
   * `verbatimReach` hits after proximity's candidates when none of those holds it, as `unspacedEdges`
   * does for unspaced scripts.
   */
  phraseReach: boolean;
  /**
   * A remembered phrase (unspaced, or of common words) that neither the candidates nor `verbatimReach`
   * hits after them hold is looked for this deep in the ranking, among the sections holding every word
   * that retrieves, reading at most `phraseReads` of them ("is an Object that contains": `object` and
   * `contains` are in hundreds of sections, the one with the phrase is short and not among the first 90).
   */
  phraseDepth: number;
  phraseReads: number;
  /** A query answered with nothing is searched once more with its compounds cut in two known words (src/compound.ts). */
  compounds: boolean;
  /**
   * Whether a query that names a heading of a page links that page's card to the heading
   * (src/namedHeading.ts, liftNamedHeadings). The ranking of pages does not depend on it.
   */
  namedHeadings: boolean;
  /**
   * Weight of a Japanese particle or ending (`kanaFunctionWord`: で, が, ば, です) in the BM25F score
   * when the query has other words; it still retrieves.
   */
  kanaWeight: number;
  /**
   * Whether a section that holds only a query's particles and endings (of a query with other words) is a
   * result (false: it is not, as a section holding only an English query's stop words is not). A question
   * none of whose other words any section holds gets nothing ("東京でおすすめのラーメン屋はどこですか"
   * matched sections by で, の, は, どこ, です, か alone), and one whose other words some section holds
   * gets those sections only ("美味しいカレーの作り方を教えてください" listed 30 sections of a Linux manual,
   * 28 of them "matched: の を て くだ さい"). A query of particles only is answered by them.
   */
  kanaAlone: boolean;
  /**
   * Whether a candidate section that is a list of short entries (a table of contents, a book index, a
   * sitemap; src/listLike.ts) has its score lowered in proximity's rescoring, so the section that is text
   * about the query's words ranks above the list naming them.
   */
  lists: boolean;
  /**
   * A German query of at most this many content words (0: none) searches each word with its other
   * inflected forms the index holds (src/variants.ts: `Akkord` with `Akkorde`, `Akkorden`), as one term.
   * Measured (tests/eval/README.md): short phrases gain, as each of their few words is a large share of
   * the evidence; long questions, with words enough, lost as many queries as they won.
   */
  variantWords: number;
}

export const DEFAULT_LEXICAL: Readonly<LexicalOptions> = {
  fields: DEFAULT_FIELDS,
  common: DEFAULT_COMMON,
  proximity: DEFAULT_PROXIMITY,
  minMatchShare: 0,
  minMatchWords: 2,
  minMatchFrom: 3,
  minMatchFill: 3,
  minCoverage: 0.3,
  coverageWords: 3,
  coverageNames: true,
  coverageUnspaced: false,
  typos: true,
  recut: true,
  namedHeadings: true,
  unspacedEdges: true,
  verbatimReach: 60,
  phraseReach: true,
  phraseDepth: 1000,
  phraseReads: 30,
  compounds: true,
  kanaWeight: 0.5,
  kanaAlone: false,
  lists: true,
  variantWords: 4,
};

/** The fewest and most words of a remembered phrase (shorter: a few keywords; longer: sentences and questions). */
const PHRASE_MIN_WORDS = 4;
const PHRASE_MAX_WORDS = 8;

/** A short query with two or more common words: how a half-remembered phrase is typed. */
export function isCommonPhrase(words: readonly QueryWord[]): boolean {
  if (words.length < PHRASE_MIN_WORDS || words.length > PHRASE_MAX_WORDS) return false;
  let common = 0;
  for (const w of words) if (w.common) common++;
  return common >= 2 && common < words.length;
}

/** Merges the typed query with the filter controls / URL parameters. */
export function parseRequest(req: SearchRequest, now = Date.now()): ParsedQuery {
  const parsed = parseQuery(req.q, now);
  if (req.site) {
    for (const s of req.site.split(/[\s,]+/).filter(Boolean)) {
      const site = siteFilter(s);
      if (site && !parsed.sites.includes(site)) parsed.sites.push(site);
    }
  }
  if (req.after) {
    const t = parseDateOperand(req.after, now);
    if (t !== undefined) parsed.after = Math.max(parsed.after ?? -Infinity, t);
  }
  if (req.before) {
    const t = parseDateOperand(req.before, now);
    if (t !== undefined) parsed.before = Math.min(parsed.before ?? Infinity, t);
  }
  return parsed;
}

const round1 = (ms: number): number => Math.round(ms * 10) / 10;

export interface SearchOptions {
  /** "Now" for relative dates (after:7d). */
  now?: number;
  /** Milliseconds for tookMs (the worker passes performance.now; the pure core has no such clock). */
  clock?: () => number;
  /** What-if overrides of the lexical lane (the evaluation's tuning runs). */
  lexical?: Partial<LexicalOptions>;
  /** Set once a newer search replaced this one: the search stops at its next step (SupersededError). */
  signal?: { readonly superseded: boolean };
}

/** Thrown by search() at the step after its signal was set. */
export class SupersededError extends Error {
  constructor() {
    super('a newer search from the same search box replaced this one');
    this.name = 'SupersededError';
  }
}

/** The query's words, what the lexical lane made of them, and what the result cards need. */
interface Plan {
  words: QueryWord[];
  /** Per word: BM25 weight (idf), for proximity and snippet windows. */
  weights: number[];
  /** Term -> query word it stands for. */
  wordOfTerm: Map<string, number>;
  /**
   * Term -> query word it counts as holding: as `wordOfTerm`, without a compound's parts when the index
   * knows the compound whole (a section with "7" does not hold `UTF-7`).
   */
  countsFor: Map<string, number>;
  /** Words held only by all these terms together (a compound's parts; see `countsFor`). */
  together: readonly { word: number; terms: readonly string[] }[];
  /** Bits of the words to highlight (words 30 and after share bit 30: `bitsOf`). */
  marked: number;
  /** Bits of the marked words that are Japanese particles and endings (`kanaWeak`). */
  weak: number;
  /** Per word: to highlight, and a particle or ending (as `marked` and `weak`, for every word, however many). */
  markedAt: readonly boolean[];
  weakAt: readonly boolean[];
  /** Per word: listed under "matched" and highlighted (`markedAt` less a question's function words: `quietFunctionWords`). */
  shownAt: readonly boolean[];
}

export async function search(src: SearchSource, request: SearchRequest, opts: SearchOptions = {}): Promise<SearchResponse> {
  const clock = opts.clock ?? Date.now;
  const now = opts.now ?? Date.now();
  const started = clock();
  // A query of an address (pasted into a search box, typed after the omnibox keyword) is searched as what
  // was read there, its page name's words on its site, and the page at the address comes first.
  const addressed = addressedQuery(request.q, now);
  const req = addressed ? { ...request, q: addressed.q } : request;
  const settings = src.settings;
  let lex: LexicalOptions = { ...DEFAULT_LEXICAL, ...opts.lexical };
  // "Find related pages" asks with a page's most telling words: any of them makes a page related, so
  // neither the two-word minimum nor the off-topic gate applies.
  // "Show pages with some of these words" (`loose`) asks the same.
  if (req.excludeUrl || req.loose) lex = { ...lex, minMatchWords: 1, minMatchShare: 0, minCoverage: 0 };
  const limit = req.limit ?? 30;
  const timings: Record<string, number> = {};
  const note = (name: string) => {
    timings[name] = round1(clock() - started);
  };
  // Each step's end: noted, and the search stops there if a newer one replaced it.
  const mark = (name: string) => {
    note(name);
    if (opts.signal?.superseded) throw new SupersededError();
  };
  const parsed = parseRequest(req, now);
  const allowed = await src.allowedChunks(parsed, req.excludeUrl);
  mark('filtersAt');
  const words = queryWords(parsed.text, TOKENIZER);
  const at = addressed ? await pageAt(src, addressed.address.url) : undefined;
  /** The page at the address, if stored and left in by the filters and forgets: first in the list. */
  const first = at && (!allowed || allowed.has(at.chunkIds[0]!)) ? at : undefined;
  const addressFirst = (hits: FusedHit[]): FusedHit[] => {
    if (!first) return hits;
    // The page itself leads, opened at its top (the address was asked for, not one of its sections); the
    // page's sections that match follow it.
    const own = new Set(first.chunkIds);
    const top = first.chunkIds[0]!;
    const lead = hits.find((h) => h.id === top) ?? { id: top, score: 0, ranks: {}, laneScores: {}, terms: [] };
    return [lead, ...hits.filter((h) => own.has(h.id) && h.id !== top), ...hits.filter((h) => !own.has(h.id))];
  };
  const said = (response: SearchResponse): SearchResponse => {
    if (addressed) {
      const hidden = !at && !!src.isHidden?.(normalizeStoredUrl(addressed.address.url) ?? addressed.address.url);
      const page = first && response.results[0]?.url === first.url ? 'first' : at || hidden ? 'left-out' : 'unsaved';
      response.address = { site: addressed.address.site, words: addressed.address.words, q: addressed.q, page };
    }
    return response;
  };
  const empty = (): SearchResponse => said({ results: [], parsed, tookMs: round1(clock() - started), lanesUsed: { lexical: false, dense: false }, timings });
  if (allowed && allowed.size === 0) return empty();
  if (!words.length) {
    // Filters list pages only when one of them picks pages (a site, a day): exclusions alone (`-python`,
    // `-site:a.com`) find by nothing and list nothing (src/query.ts onlyExclusions). `-site:a.com` listed
    // every other page, and while an undo window hid some pages (`allowed` then holds all the others)
    // `-python`, or a lone `->`, listed every page too.
    const picks = parsed.sites.length > 0 || parsed.after !== undefined || parsed.before !== undefined || !!req.excludeUrl;
    if (!allowed || !picks) return empty();
    // Filters alone (`site:docs.python.org after:7d`): the matching pages, most recently visited first.
    const pages = [...(await src.pages()).values()]
      .filter((p) => p.chunkIds.length && allowed.has(p.chunkIds[0]!))
      .sort((a, b) => b.lastVisit - a.lastVisit)
      .slice(0, limit);
    const listed = pages.map((p) => ({ id: p.chunkIds[0]!, score: 0, ranks: {}, laneScores: {}, terms: [] }));
    const plan: Plan = { words: [], weights: [], wordOfTerm: new Map(), countsFor: new Map(), together: [], marked: 0, weak: 0, markedAt: [], weakAt: [], shownAt: [] };
    const results = await present(src, addressFirst(listed), parsed, plan, limit, new Map(), mark, 'headings', first?.chunkIds[0]);
    return said({ results, parsed, tookMs: round1(clock() - started), lanesUsed: { lexical: false, dense: false }, timings });
  }

  // Filters on text (phrases, excluded words) are checked on candidates, so retrieve deeper.
  const textFilters = parsed.phrases.length + parsed.excludeWords.length + parsed.excludePhrases.length > 0;
  const depth = textFilters ? Math.max(500, limit * 10) : Math.max(limit * 3, 30);
  const sections = new Map<number, SectionView>();
  const queryClass = classifyQuery(parsed.text);
  // The dense lane starts first (its query embedding runs in another process while the lexical lane
  // computes here), with the text as typed; it is asked again only if a typo was corrected.
  const denseOn = settings.denseEnabled && !!src.dense;
  let loading = false;
  const denseDone = (r: DenseResult | DenseLoading | null): DenseResult | null => {
    note('denseAt');
    if (r && 'loading' in r) {
      loading = true;
      return null;
    }
    for (const [k, v] of Object.entries(r?.timings ?? {})) timings[`dense.${k}`] = round1(v);
    return r;
  };
  let lexicalReadsDone = () => {};
  const lexicalDone = new Promise<void>((resolve) => (lexicalReadsDone = resolve));
  const accepts = (languages: readonly string[] | undefined) => queryMayBeIn(parsed.text, languages ?? null);
  const denseOpts: DenseSearchOptions = { lexicalDone, accepts, ...(req.awaitDense ? { wait: true } : {}) };
  const denseFirst = denseOn ? src.dense!(parsed.text, depth, allowed, denseOpts).then(denseDone, () => null) : Promise.resolve(null);
  let lexical: LexicalRun;
  try {
    lexical = await lexicalLane(src, words, depth, allowed, lex, req.exact === true, sections, mark);
  } finally {
    lexicalReadsDone();
  }
  // Answered with nothing, and a word no page holds is a compound of two words pages hold: once more
  // with its parts ("Bauregeln des Pakets" as "Bau regeln des Pakets"). A query that shows no language
  // ("Paketdatei umleiten") is cut too, and its answer kept only if the section it finds first is written
  // in a compounding language: English "weekend" is not "week end".
  let split: { text: string; q: string } | null = null;
  const shown = queryLanguages(parsed.text);
  const compounding = shown?.some((l) => COMPOUNDING.has(l)) ?? false;
  // A word no page holds is cut whether or not another word of the query found sections ("Paketdatei").
  if (!lexical.hits.length && !req.exact && !req.excludeUrl && lex.compounds && (compounding || shown === null || shown[0] === 'und')) {
    split = await splitCompounds(src, parsed.text, req.q, lexical);
    if (split) {
      const again = await lexicalLane(src, queryWords(split.text, TOKENIZER), depth, allowed, lex, false, sections, mark);
      if (again.hits.length && (compounding || (await writtenInCompoundingLanguage(src, again.hits[0]!.id, sections)))) lexical = again;
      else split = null;
    }
  }
  // Answered with nothing once a word no page holds was corrected: the guess led nowhere, so the query is
  // searched as typed, the unknown word left out as a word the pages lack. A word of another language
  // than the lexicon's is not a typo: "Begrüßung des Mailservers prüfen" was read as "Begründung …",
  // which no section answers with two of its words, and the section on the mail server's greeting was
  // never shown.
  if (!lexical.hits.length && !split && lexical.withheld && lexical.plan.words.some((w) => w.correction)) {
    const asTyped = await lexicalLane(src, queryWords(parsed.text, TOKENIZER), depth, allowed, { ...lex, typos: false }, req.exact === true, sections, mark);
    if (asTyped.hits.length) lexical = asTyped;
  }
  mark('lexicalAt');
  const corrected = lexical.plan.words.some((w) => w.correction);
  const answered = corrected && denseOn ? await src.dense!(correctedText(parsed.text, lexical.plan.words) ?? parsed.text, depth, allowed, denseOpts).then(denseDone, () => null) : await denseFirst;
  // A model of other languages than the query shows says nothing about it: an English model matched a
  // German question to German pages by their function words alone (src/queryLanguage.ts).
  const dense = answered && accepts(answered.calibration.languages) ? answered : null;
  mark('lanesAt');
  const fused = fuseHybrid({
    lexical: lexical.hits,
    dense: dense?.hits ?? [],
    queryClass,
    calibration: dense?.calibration ?? null,
    rrfK: settings.ranking.rrfK,
    userWeights: { lexical: settings.ranking.lexicalWeight, dense: settings.ranking.denseWeight },
  });
  mark('fusedAt');
  const results = await present(src, addressFirst(fused), parsed, lexical.plan, limit, sections, mark, lex.namedHeadings ? (queryClass === 'identifier' ? 'lines' : 'headings') : 'off', first?.chunkIds[0]);
  mark('presentAt');
  const response: SearchResponse = { results, parsed, tookMs: 0, lanesUsed: { lexical: true, dense: dense !== null }, timings };
  if (loading && dense === null) response.denseLoading = true;
  if (corrected) {
    showCorrectionsAsWritten(results, lexical.plan.words, results.length ? [] : await correctionPageTexts(src, lexical.plan.words, allowed, sections));
    const query = correctedText(split?.q ?? req.q, lexical.plan.words);
    if (query !== null) response.corrected = { query, original: req.q };
  } else if (split) response.corrected = { query: split.q, original: req.q };
  if (req.loose || (!results.length && lexical.withheld && !req.excludeUrl)) response.partial = { missing: missingWords(lexical.plan.words, lexical.df) };
  response.tookMs = round1(clock() - started);
  return said(response);
}

/** The stored page at an address (normalised as pages are stored), if any. */
async function pageAt(src: SearchSource, url: string): Promise<PageView | undefined> {
  const key = normalizeStoredUrl(url);
  const page = key ? (await src.pages()).get(key) : undefined;
  return page?.chunkIds.length ? page : undefined;
}

/**
 * A name no prose word looks like: snake_case, camelCase inside, letters and digits mixed, dotted or `::`
 * paths. Narrower than src/hybrid.ts's IDENTIFIER (which also takes numbers and `--options`): a year or
 * `--help` the pages hold says nothing about an everyday question's topic (coverageNames).
 */
const NAME_SHAPED = /^(?:[\p{L}\p{N}]+_[\p{L}\p{N}_]+|\p{L}+\p{Ll}\p{Lu}[\p{L}\p{N}]*|(?=[\p{L}\p{N}]*\p{L})(?=[\p{L}\p{N}]*\p{N})[\p{L}\p{N}]{4,}|[\p{L}_][\p{L}\p{N}_]*(?:(?:\.|::)[\p{L}_][\p{L}\p{N}_]*)+)$/u;

/** Languages that write compounds as one word, of those `queryLanguages` tells (English's "weekend" is not cut). */
const COMPOUNDING = new Set(['de', 'nl']);

/** Whether a section's text (its first 1,000 characters) reads as a language that writes compounds as one word. */
async function writtenInCompoundingLanguage(src: SearchSource, id: number, sections: Map<number, SectionView>): Promise<boolean> {
  let v = sections.get(id);
  if (!v) {
    [v] = await src.sections([id]);
    if (v) sections.set(id, v);
  }
  return !!v && (queryLanguages(v.text.slice(0, 1000))?.some((l) => COMPOUNDING.has(l)) ?? false);
}

/** At most this many compounds of a query are cut (`splitCompounds`). */
const MAX_COMPOUNDS = 2;
/** Of at most this many words no page holds that are long enough to cut, the first MAX_COMPOUNDS with a cut are cut. */
const MAX_COMPOUND_CANDIDATES = 8;

/**
 * The query with its compounds cut (src/compound.ts): words no page holds, each replaced by the two known
 * parts its best cut gives, in the parsed text and in the text as typed. Null when no word has such a cut.
 * The words cut are the first that can be: a question's first words no page holds are often ones that
 * are no compound ("Mit welchem Programm mit Fenstern kann ich … Verbindungsdaten"), and only the first
 * two unknown words were tried before.
 */
async function splitCompounds(src: SearchSource, text: string, typed: string, run: LexicalRun): Promise<{ text: string; q: string } | null> {
  const unknown = run.plan.words
    .filter((w) => !w.common && w.terms.every((t) => run.df(t) === 0))
    .map((w) => ({ w, cuts: compoundCuts(w.text) }))
    .filter((u) => u.cuts.length > 0)
    .slice(0, MAX_COMPOUND_CANDIDATES);
  const cutsOf = unknown.map((u) => u.cuts);
  const parts = [...new Set(cutsOf.flat().flatMap((c) => [c.left, c.right]))];
  if (!parts.length) return null;
  // Folded as the pages' words are (`Änderungen` is indexed as `anderungen`): a part with an umlaut or
  // an accent was never found.
  const termsOf = new Map(parts.map((p) => [p, wordTerms(foldText(p), TOKENIZER)]));
  const postings = await src.postings([...new Set([...termsOf.values()].flat())]);
  const df = (part: string) => Math.max(0, ...(termsOf.get(part) ?? []).map((t) => postings.get(t)?.ids.length ?? 0));
  let outText = text;
  let outTyped = typed;
  let cuts = 0;
  unknown.forEach(({ w }, i) => {
    if (cuts >= MAX_COMPOUNDS) return;
    const cut = bestCut(cutsOf[i]!, df);
    if (!cut) return;
    cuts++;
    const asTwo = `${cut.left} ${cut.right}`;
    outText = outText.replace(w.text, asTwo);
    outTyped = outTyped.replace(w.text, asTwo);
  });
  return cuts > 0 ? { text: outText, q: outTyped } : null;
}

interface LexicalRun {
  hits: LaneHit[];
  plan: Plan;
  /** Sections held some of the query's words, but the two-word minimum or the off-topic gate left none. */
  withheld: boolean;
  /** Sections holding each term (of the query's words, as looked up). */
  df: (term: string) => number;
}

/** The query's words (as typed, once each) that no section holds: not common, not corrected, no term found. */
function missingWords(words: readonly QueryWord[], df: (term: string) => number): string[] {
  const out: string[] = [];
  for (const w of words) if (!w.common && !w.correction && w.terms.every((t) => df(t) === 0) && !out.includes(w.text)) out.push(w.text);
  return out;
}

/** The lexical lane alone, as search() runs it for a query's free text (the benchmarks time this). */
export async function lexicalSearch(
  src: SearchSource,
  text: string,
  k: number,
  opts: { lexical?: Partial<LexicalOptions>; allowed?: ReadonlySet<number> | null; mark?: (phase: string) => void } = {},
): Promise<LaneHit[]> {
  const lex: LexicalOptions = { ...DEFAULT_LEXICAL, ...opts.lexical };
  return (await lexicalLane(src, queryWords(text, TOKENIZER), k, opts.allowed ?? null, lex, false, new Map(), opts.mark)).hits;
}

/**
 * The lexical lane: plans the query's words, scores BM25F, keeps hits with enough of the words, and
 * rescores the best with proximity. Reads sections into `sections` (the result cards reuse them).
 */
async function lexicalLane(
  src: SearchSource,
  words: QueryWord[],
  k: number,
  allowed: ReadonlySet<number> | null,
  lex: LexicalOptions,
  exact: boolean,
  sections: Map<number, SectionView>,
  mark: (phase: string) => void = () => undefined,
): Promise<LexicalRun> {
  const [postings, stats] = await Promise.all([src.postings([...new Set(words.flatMap((w) => w.terms))]), src.corpusStats()]);
  // "Search instead for" (exact) searches the words as typed: no re-cut, as no typo correction.
  if (lex.recut && !exact && src.unspacedTerms) await recutUnknown(src, words, postings);
  mark('postingsAt');
  const df = (t: string) => postings.get(t)?.ids.length ?? 0;
  narrowOptions(words, df);
  markCommon(words, df, stats.N, lex.common);
  if (lex.typos && !exact && src.similarTerms) {
    await correctTypos(src, words, df, postings);
    // Corrected to stop words only ("the ohter"): searched by them, as the words typed right would be
    // (markCommon keeps a query of stop words only as it is).
    if (words.every((w) => w.common) && words.some((w) => w.correction)) for (const w of words) w.common = false;
  }
  // After typos: a slip ("comman") is the word one edit away ("command"), not a form of a shorter one ("comma").
  if (lex.variantWords > 0 && !exact) await addVariants(src, words, postings, lex.variantWords);
  mark('typosAt');

  const scored = scoredTerms(words);
  if (lex.kanaWeight !== 1) {
    const weak = kanaWeak(words, words.map((w) => !w.common));
    for (const t of scored) if (weak[t.word]) t.weight *= lex.kanaWeight;
  }
  const wordOfTerm = new Map(scored.map((t) => [t.term, t.word]));
  // What counts as holding a word, for the minimum below and the "matched" lists: a compound (a word of
  // three terms or more: whole and parts) by its whole term when the index knows it, or by all its parts
  // together ("UTF 7", a Japanese page's 「UTF-7として」 cut into `utf` and `7`), not by one part alone.
  // "XSS via UTF-7" asked two of its words of a section, and every section with "via" and any "7"
  // passed while the one about UTF-7 (without "via") did not. A part that is another word of the query
  // too ("mod_rewrite rewrite rules") still counts for that word.
  const countsFor = new Map<string, number>();
  const together: { word: number; terms: string[] }[] = [];
  const whole = (w: QueryWord) => !w.common && !w.correction && w.terms.length >= 3 && df(w.terms[0]!) > 0;
  words.forEach((w, i) => {
    if (w.common) return;
    for (const t of whole(w) ? [w.terms[0]!] : w.correction ? correctionTerms(w.correction) : w.terms) if (!countsFor.has(t) && wordOfTerm.has(t)) countsFor.set(t, i);
  });
  words.forEach((w, i) => {
    if (whole(w)) together.push({ word: i, terms: w.terms.slice(1).filter((t) => t !== w.terms[0]) });
  });
  const weights = words.map((w) => {
    const terms = w.correction ? correctionTerms(w.correction) : w.terms;
    const best = Math.max(0, ...terms.map((t) => (df(t) ? idf(stats.N, df(t)) : 0)));
    return best * (w.correction ? TYPO_WEIGHT : 1);
  });
  const allCommon = words.every((w) => w.common);
  const markedAt = words.map((w) => allCommon || !w.common);
  const weakAt = kanaWeak(words, markedAt);
  const shownAt = quietFunctionWords(words, markedAt);
  const plan: Plan = { words, weights, wordOfTerm, countsFor, together, marked: bitsOf(shownAt, true), weak: bitsOf(weakAt, false, shownAt), markedAt, weakAt, shownAt };

  mark('planAt');
  const query: QueryTerm[] = scored.map((t) => ({ term: t.term, postings: postings.get(t.term) ?? EMPTY_LIST, weight: t.weight }));
  // Common words score the sections the other words found (Lucene's common-terms idea), never retrieve.
  const scoredSet = new Set(scored.map((t) => t.term));
  const scoringOnly: QueryTerm[] = [...new Set(words.filter((w) => w.common).flatMap((w) => w.terms))]
    .filter((t) => !scoredSet.has(t))
    .map((term) => ({ term, postings: postings.get(term) ?? EMPTY_LIST }));
  // Only words the index knows count: a word no section holds cannot be one of the two a section must
  // hold ("purge file from history" with `purge` unknown needs `file` or `history`, not both; whether
  // such a query is off-topic is the coverage gate's question, below).
  const retrieving = new Set(scored.filter((t) => df(t.term) > 0).map((t) => t.word)).size;
  const need = retrieving >= lex.minMatchFrom ? Math.min(retrieving, Math.max(lex.minMatchWords, Math.ceil(retrieving * lex.minMatchShare))) : 1;
  const params = { k1: src.settings.ranking.k1, b: src.settings.ranking.b };
  // How many distinct query words a hit's terms stand for (called for up to 2k hits: no allocation
  // while the words fit a bit mask).
  const wordsMatched = (h: LexicalHit): number => {
    if (words.length > 31) return heldWords(h.terms, countsFor, together).size;
    let bits = 0;
    for (const t of h.terms) {
      const w = countsFor.get(t);
      if (w !== undefined) bits |= 1 << w;
    }
    for (const g of together) if (!(bits & (1 << g.word)) && g.terms.length && g.terms.every((t) => h.terms.includes(t))) bits |= 1 << g.word;
    let n = 0;
    for (; bits; bits &= bits - 1) n++;
    return n;
  };
  let withheld = false;
  // Deep enough for proximity's candidates and the hits a remembered span is looked for in after them
  // (verbatimReach), whatever the caller's k: the popup's 8 results rank as the results page's 30 do.
  const deep = lex.proximity.candidates > 0 ? Math.max(k, lex.proximity.candidates + lex.verbatimReach) : k;
  // Each term's word, for bm25Ranked's filter (as wordsMatched counts them).
  const termWords = words.length > 31 ? null : query.map((q) => countsFor.get(q.term) ?? -1);
  const termIndex = new Map(query.map((q, i) => [q.term, i]));
  const togetherAt = together.filter((g) => g.terms.every((t) => termIndex.has(t))).map((g) => ({ word: g.word, terms: g.terms.map((t) => termIndex.get(t)!) }));
  // A short list is filled (minMatchFill) from the first retrieval's winners that hold too few words.
  const fills = need > 1 && retrieving <= lex.minMatchFill;
  let fewer: LexicalHit[] = [];
  const retrieve = (q: readonly QueryTerm[], depthK = deep, keepFewer = false): LexicalHit[] => {
    const k = need > 1 || scoringOnly.length ? depthK * 2 : depthK;
    const scoring = scoringOnly.length && lex.common.score ? scoringOnly : undefined;
    if (termWords !== null && q === query) {
      // The winners' filter and the common words' scores on typed arrays: only the hits kept are objects.
      const { hits: out, found, below } = bm25Ranked(q, stats, { k, allowed, params, fields: lex.fields, words: termWords, together: togetherAt, need, scoring, keep: depthK, below: keepFewer });
      if (need > 1 && found && !out.length) withheld = true;
      if (below) fewer = below;
      return out;
    }
    let out = bm25Search(q, stats, { k, allowed, params, fields: lex.fields });
    if (need > 1) {
      const found = out;
      out = found.filter((h) => wordsMatched(h) >= need);
      if (found.length && !out.length) withheld = true;
      if (keepFewer) fewer = found.filter((h) => wordsMatched(h) < need);
    }
    if (scoring) {
      out = addScores(out, scoring, stats, { params, fields: lex.fields });
      if (keepFewer) fewer = addScores(fewer, scoring, stats, { params, fields: lex.fields });
    }
    if (keepFewer) fewer = fewer.slice(0, depthK);
    return out.slice(0, depthK);
  };
  let hits = retrieve(query, deep, fills);
  mark('bm25At');

  // The query's distinct content words, each by the terms that stand for it (a repeated word counts once).
  const content = new Map<string, { terms: string[]; weight: number; name: boolean }>();
  // Only a query with a word of a script without spaces pays for its edges (below and in the proximity step).
  const edges = lex.unspacedEdges && words.some((w) => unspacedWord(w.text));
  for (const [i, w] of words.entries()) {
    if (w.common) continue;
    const terms = w.correction ? correctionTerms(w.correction) : w.terms;
    // In a script without spaces an unknown word is as likely the segmenter's cut through a known one
    // (a remembered span starting mid-word) as a word the pages lack: no evidence either way.
    if (!lex.coverageUnspaced && (unspacedWord(w.text) || (edges && gluedEdge(words, i))) && terms.every((t) => df(t) === 0)) continue;
    // idf: its best term's, or the highest possible for a word the index lacks.
    content.set(terms.join('\u0000'), { terms, weight: Math.max(...terms.map((t) => idf(stats.N, Math.max(0.5, df(t))))), name: lex.coverageNames && NAME_SHAPED.test(w.text) && terms.some((t) => df(t) > 0) });
  }
  if (lex.minCoverage > 0 && content.size >= 2 && hits.length) {
    const total = [...content.values()].reduce((a, c) => a + c.weight, 0);
    let best = 0;
    for (const h of hits.slice(0, 10)) {
      // (A hit's terms are a few: looked up in the array, no Set per hit.)
      const matched = h.terms;
      let covered = 0;
      let count = 0;
      let named = false;
      for (const c of content.values()) {
        if (c.terms.some((t) => matched.includes(t))) {
          covered += c.weight;
          count++;
          named ||= c.name;
        }
      }
      best = Math.max(best, named || (lex.coverageWords > 0 && count >= lex.coverageWords) ? 1 : covered / total);
    }
    if (best < lex.minCoverage) {
      hits = [];
      withheld = true;
    }
  }

  // A section that matched only the particles and endings of a query with other words is no result.
  const weak = plan.weakAt.some(Boolean);
  const strong = (h: LexicalHit) =>
    h.terms.some((t) => {
      const w = wordOfTerm.get(t);
      return w !== undefined && !words[w]!.common && !plan.weakAt[w];
    });
  const prox = lex.proximity;
  // Unless it holds the query's characters verbatim: a span of an unspaced script cut mid-word at both
  // ends ("れているメニュードリ") is cut by some segmenters (Firefox's: れて|いる|メニュードリ) so that its
  // section matches only the particles. Such a query's particle-only sections are dropped after
  // proximity's verbatim test (below), not before it.
  const dropWeak = !lex.kanaAlone && !!weak;
  const spanLike = edges && prox.candidates > 0 && prox.sequenceMinWords > 0 && words.length >= prox.sequenceMinWords;
  const dropWeakNow = (): void => {
    if (!hits.length) return;
    const kept = hits.filter(strong);
    if (!kept.length) withheld = true;
    hits = kept;
  };
  if (dropWeak && !spanLike) dropWeakNow();
  let weakDeferred = dropWeak && spanLike;

  mark('coverageAt');
  const useProximity = words.length >= 2;
  if ((useProximity || prox.heading > 0) && prox.candidates > 0 && hits.length > 1) {
    const top = hits.slice(0, prox.candidates);
    const unread = top.map((h) => h.id).filter((id) => !sections.has(id));
    if (unread.length) for (const v of await src.sections(unread)) sections.set(v.id, v);
    const pages = await src.pages();
    mark('proximityReadAt');
    const groups = words.map(textTerms);
    // A corrected word's terms are its equally near candidates: any one carries it.
    const corrected = (i: number) => !!words[i]!.correction;
    const matcher = new QueryMatcher(groups, TOKENIZER, true, corrected);
    // Section texts are scanned for the content words only (the pairs are theirs); the common words,
    // whose probes hit nearly every word of a text, are looked for only in a text that may hold the
    // exact sequence (maySequence). Headings are short: the whole query's matcher.
    const someCommon = words.some((w) => w.common) && !allCommon;
    const bodyMatcher = someCommon ? new QueryMatcher(groups.map((g, i) => (words[i]!.common ? [] : g)), TOKENIZER, true, corrected) : matcher;
    const pq = { words: words.length, content: words.map((w) => !w.common), weight: weights, k1: src.settings.ranking.k1 };
    const sequenceCounts = prox.sequenceMinWords > 0 && words.length >= prox.sequenceMinWords;
    // Proximity's pairs are of consecutive content words (proximityScore): with fewer than two of them
    // it adds 0 to every section ("the foo", "have the"), so a text is scanned only for the sequence.
    const pairs = pq.content.slice(0, MAX_MATCH_WORDS).filter(Boolean).length >= 2;
    const weightSum = weights.reduce((a, w, i) => a + (words[i]!.common ? 0 : w), 0);
    // Sections of one page share its title and upper headings: each heading is matched once.
    const headingMatches = new Map<string, { match: number; sequence: boolean }>();
    // One heading's match, each distinct heading once per query.
    const headingOf = (heading: string): { match: number; sequence: boolean } => {
      let m = headingMatches.get(heading);
      if (m === undefined) {
        const at = matcher.mayMatch(heading) ? matcher.locateHeading(heading) : null;
        m = { match: at ? headingMatch(at, weights) : 0, sequence: !!at && sequenceCounts && proximityScore(at, pq, prox).sequence };
        headingMatches.set(heading, m);
      }
      return m;
    };
    const verbatim = edges && sequenceCounts ? verbatimSpan(words.map((w) => w.text).join('')) : '';
    const rescored = top.map((h) => {
      const v = sections.get(h.id);
      if (!v) return { h, score: h.score, sequence: false };
      let score = h.score;
      let sequence = false;
      // Proximity needs two of the query's words in the section: the others are not read. A phrase with
      // one word that retrieves ("which is more practical but") can still be in a section holding it alone.
      if (useProximity && (pairs || sequenceCounts) && wordsMatched(h) >= Math.min(2, retrieving)) {
        const at = bodyMatcher.locate(v.text);
        // The sequence is read off this scan only when it covered every word (else maySequence, below).
        const p = proximityScore(at, pq, prox, sequenceCounts && bodyMatcher === matcher);
        score += p.score;
        if (sequenceCounts) sequence = bodyMatcher === matcher ? p.sequence : maySequence(at, pq) && proximityScore(matcher.locate(v.text), pq, prox).sequence;
      }
      if (verbatim && !sequence) sequence = verbatimSpan(v.text).includes(verbatim);
      // A heading can only be the query if a query word is in one (or in a merged sub-section's, which is body text).
      if (prox.heading > 0 && (h.fields === undefined || h.fields !== 0 || v.parts)) {
        // Any heading over the text (its own, those above, a merged sub-section's) or the page's title.
        // The exact sequence in the section's heading, a heading above it or the page's title counts as
        // in the section: a chapter's title ("Zum Debian-Projekt beitragen") must not rank below every
        // sentence elsewhere that uses the same words in the same order.
        let best = 0;
        for (const heading of v.headingPath) {
          if (!heading) continue;
          const m = headingOf(heading);
          if (m.match > best) best = m.match;
          if (m.sequence) sequence = true;
        }
        if (v.parts) {
          for (const part of v.parts) {
            for (const heading of part.headingPath) {
              if (!heading) continue;
              const m = headingOf(heading);
              if (m.match > best) best = m.match;
              if (m.sequence) sequence = true;
            }
          }
        }
        const title = pages.get(v.url)?.title ?? '';
        if (title) {
          const m = headingOf(title);
          if (m.match > best) best = m.match;
          if (m.sequence) sequence = true;
        }
        score += prox.heading * best * weightSum;
      }
      // A table of contents, a book index, a sitemap: a list that names every topic weighs less than text about one.
      if (lex.lists) score *= listWeight(v.text, v.headingPath.length > 0);
      return { h, score, sequence };
    });
    let rest = hits.slice(top.length);
    // A remembered phrase of common words ("is an object that contains"): the words that retrieve are in
    // so many sections that the one holding the phrase may rank below proximity's candidates.
    const commonPhrase = !verbatim && lex.phraseReach && sequenceCounts && isCommonPhrase(words);
    if ((verbatim || commonPhrase) && lex.verbatimReach > 0 && rest.length && !rescored.some((r) => r.sequence)) {
      // A phrase is only where every one of its words that retrieves is (`retrieving`, counted as
      // wordsMatched counts: a word typed twice is one): the others are not read.
      // And where each of its common words is: their postings were read with the others' (a few binary
      // searches a hit), so a section lacking `both` or `some` is not read for "both abstract classes and some".
      const commonLists = commonPhrase ? words.filter((w) => w.common).map((w) => w.terms.map((t) => postings.get(t)?.ids).filter((ids): ids is Uint32Array => !!ids?.length)) : [];
      const holdsCommon = (id: number): boolean => commonLists.every((lists) => lists.some((ids) => { const at = seek(ids, id, 0); return at < ids.length && ids[at] === id; }));
      const mayHold = (h: LexicalHit): boolean => !commonPhrase || (wordsMatched(h) >= retrieving && holdsCommon(h.id));
      const further = rest.slice(0, lex.verbatimReach).filter(mayHold);
      const unreadFurther = further.map((h) => h.id).filter((id) => !sections.has(id));
      if (unreadFurther.length) for (const v of await src.sections(unreadFurther)) sections.set(v.id, v);
      const holds = (v: SectionView): boolean =>
        verbatim ? verbatimSpan(v.text).includes(verbatim) : maySequence(bodyMatcher.locate(v.text), pq) && proximityScore(matcher.locate(v.text), pq, prox).sequence;
      const holding = new Set(further.filter((h) => { const v = sections.get(h.id); return !!v && holds(v); }).map((h) => h.id));
      if (holding.size) {
        for (const h of further) if (holding.has(h.id)) rescored.push({ h, score: h.score, sequence: true });
        rest = rest.filter((h) => !holding.has(h.id));
      } else if (lex.phraseDepth > deep && lex.phraseReads > 0) {
        // Not in the first hits: deeper, once, and only the sections that can hold it are read.
        const seen = new Set(hits.map((h) => h.id));
        // The first phraseReads that may hold it, in rank order (mayHold is a few seeks a hit: not all 1,000).
        const deeper: LexicalHit[] = [];
        for (const h of retrieve(query, lex.phraseDepth)) {
          if (deeper.length >= lex.phraseReads) break;
          if (!seen.has(h.id) && mayHold(h)) deeper.push(h);
        }
        const unreadDeeper = deeper.map((h) => h.id).filter((id) => !sections.has(id));
        if (unreadDeeper.length) for (const v of await src.sections(unreadDeeper)) sections.set(v.id, v);
        for (const h of deeper) {
          const v = sections.get(h.id);
          if (v && holds(v)) rescored.push({ h, score: h.score, sequence: true });
        }
        mark('phraseDeepAt');
      }
    }
    rescored.sort((a, b) => Number(b.sequence) - Number(a.sequence) || b.score - a.score || a.h.id - b.h.id);
    // Deferred particle-only sections go now, but not one that holds the span verbatim.
    const keep = (r: { h: LexicalHit; sequence: boolean }) => !weakDeferred || r.sequence || strong(r.h);
    hits = [...rescored.filter(keep).map((r) => ({ ...r.h, score: r.score })), ...(weakDeferred ? rest.filter(strong) : rest)];
    if (weakDeferred && !hits.length) withheld = true;
    weakDeferred = false;
    mark('proximityAt');
  }
  if (weakDeferred) dropWeakNow();
  if (fills && hits.length && hits.length < k && fewer.length) {
    // Sections holding fewer of the words, after every one holding enough (their own order kept).
    const seen = new Set(hits.map((h) => h.id));
    const fill = fewer.filter((h) => !seen.has(h.id) && (lex.kanaAlone || !weak || strong(h)));
    hits = [...hits, ...fill.slice(0, k - hits.length)];
  }
  return { hits: hits.length > k ? hits.slice(0, k) : hits, plan, withheld, df };
}

/**
 * Text as the exact-sequence test of unspaced scripts compares it: folded as the tokenizer folds,
 * lower case, without spaces and punctuation (a span copied across a line break or a `.` still matches).
 */
export function verbatimSpan(text: string): string {
  return foldText(text).toLowerCase().replace(/[^\p{L}\p{M}\p{N}]+/gu, '');
}

/**
 * Word i is at the query's edge (first or last of two or more) and glued, with no space, to a
 * neighbour of a script without spaces: possibly a piece of a page word the span's edge cut (`nges` of
 * `.changesファイル`).
 */
function gluedEdge(words: readonly QueryWord[], i: number): boolean {
  if (words.length < 2 || (i !== 0 && i !== words.length - 1)) return false;
  const w = words[i]!;
  const n = words[i === 0 ? 1 : i - 1]!;
  if (!unspacedWord(n.text) || w.start === undefined || n.start === undefined) return false;
  return i === 0 ? w.end === n.start : n.end === w.start;
}

const EMPTY_LIST: PostingList = { ids: new Uint32Array(0), tfs: new Uint32Array(0), lens: new Uint32Array(0) };

/** Candidate corrections of one word whose postings are read, at most (the nearest, alphabetically). */
const MAX_CANDIDATES = 16;

/**
 * Candidates as near as a typo's correction searched with it, at most. Over the tuning corpora's 457 typo
 * queries 1, 3 and 8 rank identically (ties are mostly two words); the cap bounds what a query of many
 * short unknown words adds.
 */
const MAX_ALSO = 2;
/** At most this many words of a query are corrected (`correctTypos`). */
const MAX_TYPO_WORDS = 12;

/** Fragments of unknown unspaced words looked up per query, at most (src/recut.ts). */
const MAX_RECUT_FRAGMENTS = 16;

/**
 * Cuts the query's unknown words of scripts without spaces again against the index's terms
 * (src/recut.ts), in place: each run of adjacent such words becomes the index terms it starts with
 * and fragments, each fragment corrected to the nearest term containing it (fewest extra characters,
 * then the most sections). Their postings join `postings`.
 */
async function recutUnknown(src: SearchSource, words: QueryWord[], postings: Map<string, PostingList>): Promise<void> {
  const unknown = (w: QueryWord) => unspacedWord(w.text) && w.start !== undefined && w.terms.length === 1 && !postings.get(w.terms[0]!)?.ids.length;
  if (!words.some(unknown)) return;
  const terms = await src.unspacedTerms!().catch(() => null);
  if (!terms?.size) return;
  // Runs of adjacent unknown words (spliced in last first, so the earlier indexes hold).
  const runs: [number, number][] = [];
  for (let i = 0; i < words.length; i++) {
    if (!unknown(words[i]!)) continue;
    let j = i + 1;
    while (j < words.length && unknown(words[j]!) && words[j]!.start === words[j - 1]!.end) j++;
    runs.push([i, j]);
    i = j - 1;
  }
  // Fragments looked up, at most (a hostile query of 2,000 unknown characters must not read thousands of lists).
  let budget = MAX_RECUT_FRAGMENTS;
  const replaced: { from: number; to: number; out: QueryWord[] }[] = [];
  // A known word at the query's edge, glued to the run beside it: a span cut mid-word can leave a piece
  // that happens to be a word (「ログ」 of 「プログラム」 in 「ログラムから使用でき」, cut ログ|ラム|…).
  const knownEdge = (w: QueryWord | undefined) => !!w && unspacedWord(w.text) && w.start !== undefined && w.terms.length === 1 && !!postings.get(w.terms[0]!)?.ids.length;
  for (const [runFrom, runTo] of runs) {
    let from = runFrom;
    let to = runTo;
    let whole = false;
    // The edge word and the run as one, when one index term holds them whole (the look-up counts against the budget).
    const glued = (a: number, b: number) => words.slice(a, b).map((w) => w.terms[0]!).join('');
    if (from === 1 && knownEdge(words[0]) && words[0]!.end === words[1]!.start && budget > 0) {
      budget--;
      if (terms.containing(glued(0, to), 1).length) [from, whole] = [0, true];
    }
    if (to === words.length - 1 && knownEdge(words[to]) && words[to - 1]!.end === words[to]!.start && budget > 0) {
      budget--;
      if (terms.containing(glued(from, to + 1), 1).length) [to, whole] = [to + 1, true];
    }
    const run = words.slice(from, to);
    const folded = run.map((w) => w.terms[0]!).join('');
    // Offsets in the typed text hold while folding kept the characters (not so for half-width kana).
    const asTyped = run.map((w) => w.text).join('') === folded;
    let pieces = whole ? [{ text: folded, known: false }] : recutRun(folded, terms);
    // A run that one index term holds whole stands for that term, not for the pieces it is cut into: a
    // span cut mid-word (「ァイルシステムツリー」 of 「ファイルシステムツリー」, which Firefox's segmenter keeps
    // as one word on the page) was cut 「ァイル」 + 「システムツリー」, terms the page's section does not hold.
    // (A run left whole as one fragment is looked up so below; the look-up counts against the budget.)
    if (pieces.length > 1 && budget > 0) {
      budget--;
      if (terms.containing(folded, 1).length) pieces = [{ text: folded, known: false }];
    }
    if (pieces.length === 1 && !pieces[0]!.known && [...pieces[0]!.text].length < 2) continue;
    const out: QueryWord[] = [];
    let at = run[0]!.start!;
    for (const p of pieces) {
      const w: QueryWord = { text: p.text, ...(asTyped ? { start: at, end: at + p.text.length } : {}), terms: [p.text], common: false };
      at += p.text.length;
      if (!p.known && [...p.text].length >= 2 && budget-- > 0) {
        const candidates = terms.containing(p.text, MAX_CANDIDATES);
        const fresh = candidates.map((c) => c.term).filter((t) => !postings.has(t));
        if (fresh.length) for (const [t, list] of await src.postings(fresh)) postings.set(t, list);
        let best: { term: string; extra: number } | undefined;
        for (const c of candidates) {
          const df = postings.get(c.term)?.ids.length ?? 0;
          if (!df) continue;
          if (!best || c.extra < best.extra || (c.extra === best.extra && df > (postings.get(best.term)?.ids.length ?? 0))) best = c;
        }
        if (best) w.correction = { term: best.term, distance: best.extra, display: best.term };
      }
      out.push(w);
    }
    if (pieces.some((p) => p.known)) {
      const fresh = pieces.filter((p) => p.known && !postings.has(p.text)).map((p) => p.text);
      if (fresh.length) for (const [t, list] of await src.postings(fresh)) postings.set(t, list);
    }
    replaced.push({ from, to, out });
  }
  for (const { from, to, out } of replaced.reverse()) words.splice(from, to - from, ...out);
}

/**
 * Searches a short German query's words with their other inflected forms the index holds (src/variants.ts):
 * each such word's posting list becomes the union of its forms' (`mergeLists`), so BM25 scores the word
 * as an index stemmed in German would, and the forms join the word's terms for the text matchers.
 *
 * A word gets them when the query reads as German (its function words, `queryLanguages`), or when the
 * query shows no language, or only letters beyond ASCII, and the word is no English word (the bundled
 * lexicon): "Akkord wiederholen Abkürzung" has no function word, and "parse" in an English query must not
 * find "parser". A form that is an English word is never one. Without the lexicon, only a German query.
 */
async function addVariants(src: SearchSource, words: QueryWord[], postings: Map<string, PostingList>, maxWords: number): Promise<void> {
  const content = words.filter((w) => !w.common);
  if (!content.length || content.length > maxWords) return;
  const shown = queryLanguages(words.map((w) => w.text).join(' '));
  const german = shown?.includes('de') ?? false;
  if (!german && shown !== null && !shown.includes('und')) return;
  const lexicon = src.lexicon ? await src.lexicon().catch(() => null) : null;
  if (!german && !lexicon) return;
  const wanted = new Map<QueryWord, string[]>();
  for (const w of content) {
    if (w.correction || w.terms.length !== 1 || unspacedWord(w.text) || functionWordOf(w.text, ['de'])) continue;
    const typed = wordTerms(foldText(w.text), { ...TOKENIZER, stem: false })[0];
    if (!typed || (!german && lexicon!.has(typed))) continue;
    const own = w.terms[0]!;
    const forms = [...new Set(germanForms(typed).filter((f) => !lexicon?.has(f)).map((f) => wordTerms(f, TOKENIZER)[0] ?? own))].filter((t) => t !== own);
    if (forms.length) wanted.set(w, forms);
  }
  if (!wanted.size) return;
  const fresh = [...new Set([...wanted.values()].flat())].filter((t) => !postings.has(t));
  if (fresh.length) for (const [t, list] of await src.postings(fresh)) postings.set(t, list);
  for (const [w, forms] of wanted) {
    const known = forms.filter((t) => (postings.get(t)?.ids.length ?? 0) > 0);
    if (!known.length) continue;
    const own = w.terms[0]!;
    w.variants = known;
    postings.set(own, mergeLists([postings.get(own) ?? EMPTY_LIST, ...known.map((t) => postings.get(t)!)]));
  }
}

/**
 * Corrects the words the index does not know (and the language does not either) to their nearest index
 * term: fewest edits, then the most sections. Their postings join `postings`.
 */
async function correctTypos(src: SearchSource, words: QueryWord[], df: (t: string) => number, postings: Map<string, PostingList>): Promise<void> {
  // The first few scanned only (below): each costs a scan of the term dictionary and a read (200 unknown
  // words took half a second), and a query with more unknown words than that is a paste, not a few slips.
  const unknown = unknownWords(words, df);
  if (!unknown.length) return;
  const lexicon = src.lexicon ? await src.lexicon().catch(() => null) : null;
  // The languages the query shows (null: none): a correction to a stop word of another is no correction.
  const shown = queryLanguages(words.map((w) => w.text).join(' '));
  let scans = 0;
  for (const i of unknown) {
    const w = words[i]!;
    // A long option the index lacks is corrected as its word (narrowOptions): `--amedn` is searched, and
    // shown, as `amend`.
    const option = w.text.startsWith('--') ? '--' : '';
    const typedWord = w.text.slice(option.length);
    if (lexicon?.has(foldText(typedWord).toLowerCase())) continue;
    if (scans++ >= MAX_TYPO_WORDS) break;
    // The index holds stems; edits are counted on the word as typed (`loging` is one edit from
    // `logging`, whose stem is `logg`), comparing a candidate with the typed word's own ending.
    const term = w.terms[0]!;
    const raw = wordTerms(foldText(typedWord), { ...TOKENIZER, stem: false })[0] ?? term;
    const max = maxEditsFor(raw);
    const suffix = raw.startsWith(term) ? raw.slice(term.length) : '';
    // A candidate compared with an ending added back (`settign`: `sett` + `ing`) is shown with it. Not
    // when the typed word had an ending of its own taken off: both endings at once make a form no page
    // writes (`unclosed` is `unclos` + `ed`, and `unclos` two edits from `undo` + `s`: "undosed"), so such a
    // candidate counts by the word as typed against that form (four edits from `undos`).
    const stemmed = raw !== term;
    const near = (await src.similarTerms!(term, max))
      .map((c) => {
        const typed = suffix ? editDistance(raw, c.term + suffix, max) : max + 1;
        if (typed <= c.distance) return { term: c.term, distance: typed, shown: c.term + suffix };
        if (c.ending && stemmed) return { term: c.term, distance: editDistance(raw, c.term + c.ending, max), shown: c.term + c.ending };
        return { term: c.term, distance: c.distance, shown: c.term + (c.ending ?? '') + suffix };
      })
      .filter((c) => c.distance <= max)
      .sort((a, b) => a.distance - b.distance || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
    // The nearest candidates first; among the equally near (at most MAX_CANDIDATES read), the most used.
    let best: { term: string; distance: number; shown: string } | undefined;
    let also: string[] = [];
    for (let from = 0; from < near.length && !best; ) {
      const d = near[from]!.distance;
      let to = from;
      while (to < near.length && near[to]!.distance === d) to++;
      const level = near.slice(from, Math.min(to, from + MAX_CANDIDATES));
      const fresh = level.map((c) => c.term).filter((t) => !postings.has(t));
      if (fresh.length) for (const [t, list] of await src.postings(fresh)) postings.set(t, list);
      for (const c of level) if (df(c.term) > 0 && (!best || df(c.term) > df(best.term))) best = c;
      // The others as near are searched too, as the corrected word: which one was meant is for the other
      // words to say (`indee` in "word is indee the name" is `index` by use, `indeed` by the sequence).
      if (best) also = [...new Set(level.filter((c) => c.term !== best!.term && df(c.term) > 0).sort((a, b) => df(b.term) - df(a.term)).map((c) => c.term))].slice(0, MAX_ALSO);
      from = to;
    }
    if (best) {
      // Shown in the typed word's form: the stem with the ending the person typed (`contaienrs` ->
      // `container` + `s`), in capitals only if they typed some.
      const display = best.shown;
      // A word corrected to a stop word of the query's language ("commit wiht message") is that stop word:
      // common, as if typed right, not a content word every section is listed and highlighted for. One
      // "corrected" to a stop word of another language is a word of the query's own that the pages lack
      // ("weich" in a German question is no slip for "which"): left as typed, for the off-topic gate.
      const stop = isStopword(display);
      if (stop && shown && !isStopwordOf(display, shown)) continue;
      w.correction = { term: best.term, distance: best.distance, display: /\p{Lu}/u.test(w.text) ? display : display.toLowerCase(), ...(also.length && !stop ? { also } : {}) };
      if (stop) {
        w.terms = [best.term];
        w.common = true;
      }
    }
  }
}

/**
 * Shows each corrected word as the pages write it. The index keeps folded stems, so the form worked out
 * from a stem can be no word at all ("provid" for `provdies`, "konnte" for `könntne`, "referenceed"). The
 * results' snippets mark where the corrected terms matched, in the page's own letters: of the forms
 * marked there, the one nearest what was typed (then the one the best result shows) is shown, in the
 * case the person typed (capitals as on the page if they typed some, else none), in "Showing results
 * for" and in each result's "matched" list. Nothing is ranked differently. A word whose terms no snippet
 * marks keeps the form worked out from the stem.
 */
function showCorrectionsAsWritten(results: SearchResult[], words: QueryWord[], pageTexts: readonly string[] = []): void {
  const rows = results.flatMap((r) => [r as ResultSection, ...r.more]);
  // What the pages mark: the snippets' matches, else (no result) the text of a section holding the term.
  const marked = [...rows.flatMap((row) => row.snippet.filter((seg) => seg.match).map((seg) => seg.text)), ...pageTexts];
  // Each written word's whole term, worked out once for all the corrected words (a long pasted query
  // with many corrections read every marked word again for each).
  const wholeOf = new Map<string, string | undefined>();
  const wholeTerm = (written: string): string | undefined => {
    if (!wholeOf.has(written)) wholeOf.set(written, wordTerms(foldText(written), TOKENIZER)[0]);
    return wholeOf.get(written);
  };
  for (const w of words) {
    const c = w.correction;
    if (!c || unspacedWord(w.text)) continue;
    const typed = foldText(w.text).toLowerCase();
    const wanted = correctionTerms(c);
    // Lower-cased form -> its spellings on the page, each with how often it is marked.
    const forms = new Map<string, Map<string, number>>();
    for (const text of marked) {
      for (const written of text.match(/[\p{L}\p{M}\p{N}]+(?:['’.\-_][\p{L}\p{M}\p{N}]+)*/gu) ?? []) {
        // A compound counts by its whole (`GParamSpecEnum`, not its parts).
        const whole = wholeTerm(written);
        if (whole === undefined || !wanted.includes(whole)) continue;
        const spellings = forms.get(written.toLowerCase()) ?? new Map<string, number>();
        spellings.set(written, (spellings.get(written) ?? 0) + 1);
        forms.set(written.toLowerCase(), spellings);
      }
    }
    // Forms in the order the results show them: of the equally near, the best result's.
    let best: { form: string; distance: number } | undefined;
    for (const form of forms.keys()) {
      const distance = editDistance(typed, foldText(form), 8);
      if (!best || distance < best.distance) best = { form, distance };
    }
    if (!best) continue;
    let shown = best.form;
    if (/\p{Lu}/u.test(w.text)) {
      // The page's most frequent spelling of that form; a capital typed first stays first.
      shown = [...forms.get(best.form)!].sort((a, b) => b[1] - a[1])[0]![0];
      if (/^\p{Lu}/u.test(w.text)) shown = shown.charAt(0).toUpperCase() + shown.slice(1);
    }
    if (shown !== c.display) {
      const before = c.display;
      c.display = shown;
      // The "matched" lists were written with the former form; another word typed so stays as it is.
      if (!words.some((o) => o !== w && (o.correction ? o.correction.display : o.text) === before)) for (const row of rows) row.whyMatched = row.whyMatched.map((m) => (m === before ? shown : m));
    }
    // A row found by one of the other words as near (`also`: `startr` is `starter` or `start`) and not by
    // the correction itself lists the form it holds: "matched: starter" beside a highlighted "start".
    if (c.also?.length && !words.some((o) => o !== w && (o.correction ? o.correction.display : o.text) === c.display)) {
      for (const row of rows) {
        if (!row.whyMatched.includes(c.display)) continue;
        const own = row.snippet.filter((seg) => seg.match).flatMap((seg) => seg.text.match(/[\p{L}\p{M}\p{N}]+(?:['’.\-_][\p{L}\p{M}\p{N}]+)*/gu) ?? []);
        const shownTerm = wholeTerm(c.display);
        if (own.some((written) => wholeTerm(written) === shownTerm)) continue;
        const other = own.find((written) => wanted.includes(wholeTerm(written) ?? ''));
        if (other) row.whyMatched = row.whyMatched.map((m) => (m === c.display ? (/\p{Lu}/u.test(w.text) ? other : other.toLowerCase()) : m));
      }
    }
  }
}

/**
 * The text of one section holding each corrected word's first term: with no result, no snippet shows how
 * the pages write it, and the no-results line named the folded stem ("… or “begrundung”" for
 * `Begrüßung`). One posting list and at most one section per corrected word, read only then.
 */
async function correctionPageTexts(src: SearchSource, words: readonly QueryWord[], allowed: ReadonlySet<number> | null, known: Map<number, SectionView>): Promise<string[]> {
  const terms = [...new Set(words.flatMap((w) => (w.correction && !unspacedWord(w.text) ? [correctionTerms(w.correction)[0]!] : [])))];
  if (!terms.length) return [];
  const postings = await src.postings(terms);
  // A section the search may show (not one of a site the filters leave out, nor of a forgotten page).
  const first = (t: string) => {
    const ids = postings.get(t)?.ids ?? [];
    for (let i = 0; i < ids.length && i < 64; i++) if (!allowed || allowed.has(ids[i]!)) return [ids[i]!];
    return [];
  };
  const ids = [...new Set(terms.flatMap(first))];
  const unread = ids.filter((id) => !known.has(id));
  if (unread.length) for (const v of await src.sections(unread)) known.set(v.id, v);
  return ids.flatMap((id) => (known.has(id) ? [known.get(id)!.text] : []));
}

/** Reads the candidates' sections, applies text filters, groups by page and builds the result cards. */
async function present(src: SearchSource, fused: FusedHit[], parsed: ParsedQuery, plan: Plan, limit: number, known: Map<number, SectionView>, mark: (phase: string) => void = () => undefined, named: 'off' | 'headings' | 'lines' = 'headings', pageTop?: number): Promise<SearchResult[]> {
  if (!fused.length) return [];
  const phrases = parsed.phrases.map((p) => filterFold(p));
  const excludePhrases = [...parsed.excludePhrases, ...parsed.excludeWords].map((p) => filterFold(p));
  const textFilters = phrases.length + excludePhrases.length > 0;
  const table = await src.pages();
  const snippetQuery: SnippetQuery = {
    matcher: new QueryMatcher(plan.words.map(textTerms), TOKENIZER),
    // Common words only break ties between windows.
    weights: plan.words.map((w, i) => (plan.markedAt[i] ? Math.max(plan.weights[i]!, 0.01) : 0.001)),
    marked: plan.marked,
    weak: plan.weak,
  };
  // `named`: the query names a heading of this page (src/namedHeading.ts) that the card links to
  // instead of the section's own: a merged sub-section's (`part`), else a heading above the section
  // that has no section of its own among the candidates (`path`: linked by its id from the section's
  // anchor.above, else by a text fragment).
  type Hit = FusedHit & { url: string; chunk: SectionView; named?: { part: SectionPart } | { path: string[] } };
  const hits: Hit[] = [];
  // The candidates are taken in slices of 64 until `limit` pages are seen (a page's extra sections are
  // those within the slices taken). Knowing each section's page without reading it, only the sections
  // shown are read; else every candidate in the slices is read to learn its page.
  const urlOf = !textFilters && src.sectionPages ? await src.sectionPages() : null;
  if (urlOf) {
    const unreadable = new Set<number>();
    for (;;) {
      const taken: (FusedHit & { url: string })[] = [];
      const seen = new Set<string>();
      for (let i = 0; i < fused.length && seen.size < limit; i += 64) {
        for (const h of fused.slice(i, i + 64)) {
          const url = urlOf(h.id);
          if (url === undefined || !table.has(url) || unreadable.has(h.id)) continue;
          taken.push({ ...h, url });
          seen.add(url);
        }
      }
      const shown = groupByPage(taken, limit, ROW_CANDIDATES).flatMap((g) => [g.best, ...g.more]);
      const missing = shown.map((h) => h.id).filter((id) => !known.has(id));
      if (missing.length) for (const v of await src.sections(missing)) known.set(v.id, v);
      // A section that could not be read (a damaged record) is left out, as the slices' reading did.
      const lost = shown.filter((h) => !known.has(h.id));
      if (!lost.length) {
        for (const h of taken) if (known.has(h.id)) hits.push({ ...h, chunk: known.get(h.id)! });
        break;
      }
      for (const h of lost) unreadable.add(h.id);
    }
  }
  const pagesSeen = new Set<string>();
  for (let i = 0; !urlOf && i < fused.length && pagesSeen.size < limit; i += 64) {
    const slice = fused.slice(i, i + 64);
    const missing = slice.map((h) => h.id).filter((id) => !known.has(id));
    const byId = new Map(missing.length ? (await src.sections(missing)).map((c) => [c.id, c]) : []);
    for (const h of slice) {
      const chunk = known.get(h.id) ?? byId.get(h.id);
      if (!chunk || !table.has(chunk.url)) continue;
      if (textFilters) {
        const folded = filterFold(`${table.get(chunk.url)!.title}\n${chunk.text}`);
        if (!phrases.every((p) => containsPhrase(folded, p))) continue;
        if (excludePhrases.some((p) => containsPhrase(folded, p))) continue;
      }
      hits.push({ ...h, url: chunk.url, chunk });
      pagesSeen.add(chunk.url);
    }
  }
  mark('sectionsAt');
  const nq = named !== 'off' ? namedHeadingQuery(correctedText(parsed.text, plan.words) ?? parsed.text) : null;
  if (nq) {
    liftNamedHeadings(hits, nq, named === 'lines');
    namedPagesFirst(hits, nq, named === 'lines');
  }
  const section = (h: Hit, lead: SnippetLead = 'passage'): ResultSection => {
    const c = h.chunk;
    // The page an address names opens at its top, whatever heading its words name or its passage lies under.
    const named = h.id === pageTop ? undefined : h.named;
    let part: SectionPart | null;
    let snip: ReturnType<typeof bestSnippet>;
    if (named && 'part' in named) {
      // The snippet comes from the named sub-section's own text.
      part = named.part;
      const next = c.parts?.find((p) => p.at > named.part.at)?.at ?? c.text.length;
      snip = bestSnippet(c.text.slice(named.part.at, next), snippetQuery, undefined, lead);
    } else {
      const bodyAt = bodyStart(c);
      snip = bestSnippet(c.text.slice(bodyAt), snippetQuery, undefined, lead);
      // The sub-section the passage lies in (a merged heading), else the section's own.
      part = snip.focus >= 0 && !named && h.id !== pageTop ? partAt(c, bodyAt + snip.focus) : null;
    }
    const namedPath = named && 'path' in named ? named.path : null;
    // The section's own heading (liftNamedHeadings): its own anchor.
    const above = namedPath && !samePath(namedPath, c.headingPath) ? namedPath : null;
    const headingPath = part ? part.headingPath : (namedPath ?? c.headingPath);
    // A heading above the section: its id as the section's anchor keeps it, else a text fragment of it.
    const aboveId = above ? c.anchor.above?.find((a) => a.depth === above.length - 1)?.id : undefined;
    const anchor = part ? part.anchor : above ? (aboveId ? { id: aboveId } : { text: above[above.length - 1]! }) : c.anchor;
    return {
      chunkId: h.id,
      section: part ? (part.headingPath[part.headingPath.length - 1] ?? '') : namedPath ? namedPath[namedPath.length - 1]! : c.section,
      headingPath,
      href: sectionHref(h.url, anchor),
      snippet: snip.segments,
      whyMatched: matchedWords(h.terms, plan),
      lanes: { ...h.ranks },
      score: Math.round(h.score * 1000) / 1000,
    };
  };
  const groups = groupByPage(hits, limit, ROW_CANDIDATES);
  const bests = groups.map((g) => section(g.best));
  // A card whose section is nearly an earlier card's, and whose snippet that section holds word for
  // word, repeats it (src/sameText.ts).
  const holds = snippetChecker();
  const same = sameTextAs(
    groups.map((g) => textPrint(g.best.chunk.text.slice(bodyStart(g.best.chunk)))),
    (i, j) => holds(groups[j]!.best.chunk, bests[i]!.snippet),
  );
  return groups.map((g, n): SearchResult => {
    const page = table.get(g.best.url)!;
    const best = bests[n]!;
    // A "more" row is one line: its snippet opens near the match. A row that would link where the card
    // or an earlier row does (another window of one long section, the sub-section the card links to) is
    // left out, and the page's next candidate is taken.
    const more: ResultSection[] = [];
    const linked = new Set([best.href]);
    for (const h of g.more) {
      if (more.length >= MORE_ROWS) break;
      // Known without its snippet: a section with no merged sub-sections links to its own anchor.
      if (!h.named && !h.chunk.parts?.length && linked.has(sectionHref(h.url, h.chunk.anchor))) continue;
      const row = section(h, 'row');
      if (linked.has(row.href)) continue;
      linked.add(row.href);
      more.push(row);
    }
    const card = { ...best, url: page.url, title: page.title, site: page.site, lastVisit: page.lastVisit, visitCount: page.visitCount, ...(page.kind ? { kind: page.kind } : {}) };
    if (same[n]! < 0) return { ...card, more };
    // A repeat keeps only the rows of its own (a later version's section the first page lacks).
    const first = groups[same[n]!]!;
    const firstSections = [first.best, ...first.more].map((h) => h.chunk);
    const page1 = table.get(first.best.url)!;
    return { ...card, more: more.filter((row) => !firstSections.some((c) => holds(c, row.snippet))), sameAs: { url: page1.url, title: page1.title } };
  });
}

/** Where a section's text below its heading line starts. */
function bodyStart(c: SectionView): number {
  return c.text.includes('\n') && c.headingPath.length ? c.text.indexOf('\n') + 1 : 0;
}

/** A card's extra rows: other sections of its page. */
const MORE_ROWS = 2;
/** A page's candidates read for its card: the best and those its "more" rows are taken from (rows that link to the same place are skipped). */
const ROW_CANDIDATES = 5;

const samePath = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((t, i) => b[i] === t);

/**
 * Where each page's card links when the query names one of its headings (src/namedHeading.ts), in
 * place: the page's first hit is replaced by its candidate whose own section has that heading, else
 * marked to link to a merged sub-section with it, else to the heading itself; with `lines` (a name
 * was typed) and no heading named, by a candidate holding a line that opens with the name. Page order
 * is unchanged (the replacement takes the page's first place; the hit it replaced follows it).
 */
/**
 * Pages read for a heading the query names, or a definition of an identifier typed as the query
 * (namedPagesFirst). Over the tuning corpora's identifier queries 5 pages move 14 of the 16 that 10 move;
 * 30 move one heading query more.
 */
const DEFINITION_WINDOW = 10;

/**
 * The page whose heading the query names comes first: when the first page only holds the words (an
 * index page listing "Alphabetical list of main options" as the link text of every entry, a SYNOPSIS
 * that lists `--only`, a how-to that calls `PyType_FromModuleAndSpec`) and one of the first
 * DEFINITION_WINDOW pages has a heading the query names (src/namedHeading.ts `namesAt`) — or, for an
 * identifier (`lines`), a line opening with it (a definition's term: `namedLineIn`) — those pages come
 * first, those with such a heading before those with such a line only, each group in its order. The
 * pages' hits move together; pages after the window stay.
 */
function namedPagesFirst<H extends { url: string; chunk: SectionView }>(hits: H[], q: NamedHeadingQuery, lines: boolean): void {
  const order: string[] = [];
  const byUrl = new Map<string, H[]>();
  for (const h of hits) {
    const list = byUrl.get(h.url);
    if (list) list.push(h);
    else {
      byUrl.set(h.url, [h]);
      order.push(h.url);
    }
  }
  const top = order.slice(0, DEFINITION_WINDOW);
  // A heading that names it (its own section's or a merged sub-section's) defines it more surely than a
  // line opening with it, which may be a traceback's ("AssertionError: 1 != 0" in a test's output).
  const byHeading = (url: string) =>
    byUrl.get(url)!.some(
      ({ chunk }) =>
        namedInPath(q, chunk.headingPath) >= 0 || !!chunk.parts?.some((part) => part.headingPath.length > 0 && namesAt(q, part.headingPath)),
    );
  const byLine = (url: string) => lines && byUrl.get(url)!.some(({ chunk }) => namedLineIn(q, chunk));
  const headed = top.filter(byHeading);
  if (top.length < 2 || (headed.length ? headed[0] === top[0] : byLine(top[0]!))) return;
  const definers = headed.length ? [...headed, ...top.filter((u) => !byHeading(u) && byLine(u))] : top.filter(byLine);
  if (!definers.length) return;
  const moved = new Set(definers);
  const out: H[] = [];
  for (const u of definers) out.push(...byUrl.get(u)!);
  for (const h of hits) if (!moved.has(h.url)) out.push(h);
  hits.length = 0;
  for (const h of out) hits.push(h);
}

function liftNamedHeadings<H extends { url: string; chunk: SectionView; named?: { part: SectionPart } | { path: string[] } }>(hits: H[], q: NamedHeadingQuery, lines: boolean): void {
  // Each page's hits, in rank order (one pass; a page's other candidates are looked up here).
  const byUrl = new Map<string, number[]>();
  hits.forEach((h, i) => {
    const list = byUrl.get(h.url);
    if (list) list.push(i);
    else byUrl.set(h.url, [i]);
  });
  const partNamed = (v: SectionView): SectionPart | undefined =>
    v.parts?.find((p) => p.headingPath.length > 0 && !samePath(p.headingPath, v.headingPath) && namesAt(q, p.headingPath));
  // A page's first hit: replaced in place by another of its hits (which leaves its own place), or marked.
  const first = new Map<number, H>();
  const taken = new Set<number>();
  for (const [i, ...rest] of byUrl.values()) {
    const h = hits[i!]!;
    const path = h.chunk.headingPath;
    const j = namedInPath(q, path);
    if (j >= 0 && j === path.length - 1) {
      // The query names this hit's own heading: the card links there, not to a sub-section merged into it
      // that its snippet happens to show.
      if (h.chunk.parts?.length) first.set(i!, { ...h, named: { path } });
      continue;
    }
    const own = partNamed(h.chunk);
    if (own) {
      first.set(i!, { ...h, named: { part: own } });
      continue;
    }
    // The heading: one above this section, else any the page's other candidates have as their own.
    const target = j >= 0 ? path.slice(0, j + 1) : null;
    const isTarget = (p: readonly string[]) => (target ? samePath(p, target) : p.length > 0 && namesAt(q, p));
    let k = rest.find((m) => isTarget(hits[m]!.chunk.headingPath));
    let part: SectionPart | undefined;
    if (k === undefined) {
      for (const m of rest) {
        const c = hits[m]!.chunk;
        part = c.parts?.find((p) => !samePath(p.headingPath, c.headingPath) && isTarget(p.headingPath));
        if (part) {
          k = m;
          break;
        }
      }
    }
    // No heading: for a name (an identifier query), a line that opens with it (a definition's term,
    // `--only-matching` opening its description) is the place, when the first hit does not hold one
    // and another hit of the page does.
    let byLine = false;
    if (lines && k === undefined && !target && !namedLineIn(q, h.chunk)) {
      k = rest.find((m) => namedLineIn(q, hits[m]!.chunk));
      byLine = true;
    }
    if (k !== undefined) {
      // The page's first place, then the hit it replaced. A hit whose own heading is the one named links to
      // that heading (not to a merged sub-section its snippet shows); one found by a line, where the line is.
      const lifted = hits[k]!;
      first.set(i!, part ? { ...lifted, named: { part } } : byLine || !lifted.chunk.parts?.length ? lifted : { ...lifted, named: { path: lifted.chunk.headingPath } });
      taken.add(k);
      first.set(-1 - i!, h);
    } else if (target) first.set(i!, { ...h, named: { path: target } });
  }
  if (!first.size) return;
  const out: H[] = [];
  hits.forEach((h, i) => {
    if (taken.has(i)) return;
    out.push(first.get(i) ?? h);
    const replaced = first.get(-1 - i);
    if (replaced) out.push(replaced);
  });
  hits.length = 0;
  for (const h of out) hits.push(h);
}

/** The merged sub-section holding offset `at` of the section's text, or null for the section's own. */
export function partAt(c: { parts?: readonly SectionPart[] | undefined; headingPath: string[] }, at: number): SectionPart | null {
  let found: SectionPart | null = null;
  for (const p of c.parts ?? []) {
    if (p.at > at) break;
    found = p;
  }
  return found && found.headingPath !== c.headingPath && found.headingPath.join('\u0000') !== c.headingPath.join('\u0000') ? found : null;
}

/**
 * The words to list under "matched" and highlight: the marked ones, less the function words of the
 * language a question shows beyond the stop words (src/queryLanguage.ts functionWordOf: a German
 * question's `beim`, `soll`, `welchen`), unless nothing else would be shown. Display only: they rank
 * as words still (as stop words they cost German questions their answers: tests/eval/README.md,
 * session 34). Two signs of the language at least: `war crimes` shows none.
 */
function quietFunctionWords(words: readonly QueryWord[], marked: readonly boolean[]): boolean[] {
  const shown = queryLanguages(words.map((w) => w.text).join(' '), 2);
  if (!shown) return [...marked];
  const quiet = words.map((w, i) => marked[i]! && !w.correction && functionWordOf(w.text, shown));
  return words.some((_, i) => marked[i]! && !quiet[i]) ? marked.map((m, i) => m && !quiet[i]) : [...marked];
}

/**
 * Bits of the marked words that are Japanese particles and endings (queryPlan.ts `kanaFunctionWord`),
 * when some other word is marked: listed under "matched" only when nothing else matched, highlighted
 * only within a run of other matches (src/snippet.ts).
 */
function kanaWeak(words: readonly QueryWord[], marked: readonly boolean[]): boolean[] {
  const weak = words.map((w, i) => marked[i]! && kanaFunctionWord(w.correction ? w.correction.display : w.text));
  const strong = words.some((_, i) => marked[i]! && !weak[i]);
  return strong ? weak : words.map(() => false);
}

/**
 * Per-word flags as the bits the snippet matcher uses (bit i for word i). Words 30 and after share bit
 * 30 (the matcher's masks do): it is set when any of them is (`any`), or only when every one of them that
 * `among` counts is (a pasted 40-word Japanese span listed and highlighted its particles after the 30th
 * word: one strong word there cleared the shared weak bit).
 */
function bitsOf(flags: readonly boolean[], any: boolean, among?: readonly boolean[]): number {
  let bits = 0;
  let tail: boolean | undefined;
  flags.forEach((f, i) => {
    if (i < 30) {
      if (f) bits |= 1 << i;
    } else if (!among || among[i]) tail = any ? tail || f : (tail ?? true) && f;
  });
  return tail ? bits | (1 << 30) : bits;
}

/**
 * The words the person typed that a hit matched (corrections as corrected), in query order; never
 * common words, and Japanese particles and endings or a question's function words (`quietFunctionWords`)
 * only when nothing else matched.
 */
function matchedWords(terms: readonly string[], plan: Plan): string[] {
  // A compound is listed when the section holds it whole or all its parts; by one part only when nothing
  // else of the query is held (a one-word query the section answers with `utf`).
  const strong = (i: number) => plan.markedAt[i]! && !plan.weakAt[i];
  let hit = heldWords(terms, plan.countsFor, plan.together);
  if (![...hit].some(strong)) hit = heldWords(terms, plan.wordOfTerm, []);
  const out: string[] = [];
  const weak: string[] = [];
  plan.words.forEach((w, i) => {
    if (!hit.has(i) || !plan.markedAt[i]) return;
    const text = w.correction ? w.correction.display : w.text;
    // A particle or a question's function word: listed only when nothing else matched.
    const list = plan.weakAt[i] || !plan.shownAt[i] ? weak : out;
    if (!list.includes(text)) list.push(text);
  });
  return out.length ? out : weak;
}

/** The query words these terms hold: each term's word, and each group's word when all its terms are there. */
function heldWords(terms: readonly string[], of: ReadonlyMap<string, number>, together: readonly { word: number; terms: readonly string[] }[]): Set<number> {
  const hit = new Set<number>();
  for (const t of terms) {
    const w = of.get(t);
    if (w !== undefined) hit.add(w);
  }
  for (const g of together) if (!hit.has(g.word) && g.terms.length && g.terms.every((t) => terms.includes(t))) hit.add(g.word);
  return hit;
}

/** Text as quoted words and exclusions compare it: folded, lower case, one apostrophe (’ ‘ ʼ typed or written as '). */
function filterFold(text: string): string {
  return foldText(text).toLowerCase().replace(/[\u2018\u2019\u02bc]/g, "'");
}

const UNSPACED_EDGE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

/**
 * Whether `haystack` holds `needle` as words: `"log in"` is not in "dialog includes", `"cat"` not in
 * "concatenate", `-java` does not drop "javascript". An edge of the needle in a script written without spaces needs no boundary there
 * (`"東京タワー"` is in 「東京タワーに行く」).
 */
export function containsPhrase(haystack: string, needle: string): boolean {
  const free = [UNSPACED_EDGE.test(needle[0] ?? ''), UNSPACED_EDGE.test(needle[needle.length - 1] ?? '')];
  let from = 0;
  for (;;) {
    const i = haystack.indexOf(needle, from);
    if (i < 0) return false;
    const before = i === 0 ? '' : haystack[i - 1]!;
    const after = haystack[i + needle.length] ?? '';
    if ((free[0] || !/[\p{L}\p{N}_]/u.test(before)) && (free[1] || !/[\p{L}\p{N}_]/u.test(after))) return true;
    from = i + 1;
  }
}
