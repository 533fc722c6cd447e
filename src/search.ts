/**
 * The search pipeline, pure: filters → allowed sections → lexical lane ∥ dense lane → fusion → text
 * filters on candidates → grouped by page → result cards. Storage is behind `SearchSource`, so the
 * extension (background/search.ts, over IndexedDB) and the evaluation (tests/eval, in memory) run this
 * same code.
 */
import { bm25Search, type CorpusStats, type PostingList, type QueryTerm } from './bm25.js';
import type { ChunkAnchor } from './chunker.js';
import { groupByPage } from './group.js';
import { classifyQuery, fuseHybrid, type DenseCalibration } from './hybrid.js';
import { TOKENIZER } from './indexing.js';
import type { ResultSection, SearchRequest, SearchResponse, SearchResult } from './protocol.js';
import { parseDateOperand, parseQuery, type ParsedQuery } from './query.js';
import type { FusedHit, LaneHit } from './rrf.js';
import type { Settings } from './settings.js';
import type { PageKind } from './pageKind.js';
import { makeSnippet, TermMarker } from './snippet.js';
import { foldText, queryTerms } from './tokenizer.js';
import { sectionHref } from './url.js';

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
  text: string;
}

export interface DenseResult {
  hits: LaneHit[];
  calibration: DenseCalibration;
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
  /** The dense lane: null while the model is not loaded or the lane is off (the search runs lexical-only). */
  dense: ((text: string, k: number, allowed: ReadonlySet<number> | null) => Promise<DenseResult | null>) | null;
}

/** Merges the typed query with the filter controls / URL parameters. */
export function parseRequest(req: SearchRequest, now = Date.now()): ParsedQuery {
  const parsed = parseQuery(req.q, now);
  if (req.site) {
    for (const s of req.site.split(/[\s,]+/).filter(Boolean)) {
      const site = s.toLowerCase().replace(/^https?:\/\//, '').replace(/\/.*$/, '').replace(/^www\./, '');
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
}

export async function search(src: SearchSource, req: SearchRequest, opts: SearchOptions = {}): Promise<SearchResponse> {
  const clock = opts.clock ?? Date.now;
  const now = opts.now ?? Date.now();
  const started = clock();
  const settings = src.settings;
  const limit = req.limit ?? 30;
  const parsed = parseRequest(req, now);
  const allowed = await src.allowedChunks(parsed, req.excludeUrl);
  const terms = queryTerms(parsed.text, TOKENIZER);
  const empty = (): SearchResponse => ({ results: [], parsed, tookMs: round1(clock() - started), lanesUsed: { lexical: false, dense: false } });
  if (allowed && allowed.size === 0) return empty();
  if (!terms.length) {
    if (!allowed) return empty();
    // Filters alone (`site:docs.python.org after:7d`): the matching pages, most recently visited first.
    const pages = [...(await src.pages()).values()]
      .filter((p) => p.chunkIds.length && allowed.has(p.chunkIds[0]!))
      .sort((a, b) => b.lastVisit - a.lastVisit)
      .slice(0, limit);
    const listed = pages.map((p) => ({ id: p.chunkIds[0]!, score: 0, ranks: {}, laneScores: {}, terms: [] }));
    const results = await present(src, listed, parsed, [], limit);
    return { results, parsed, tookMs: round1(clock() - started), lanesUsed: { lexical: false, dense: false } };
  }

  // Filters on text (phrases, excluded words) are checked on candidates, so retrieve deeper.
  const textFilters = parsed.phrases.length + parsed.excludeWords.length + parsed.excludePhrases.length > 0;
  const depth = textFilters ? Math.max(500, limit * 10) : Math.max(limit * 3, 30);
  const [lexical, dense] = await Promise.all([
    lexicalLane(src, terms, depth, allowed),
    settings.denseEnabled && src.dense ? src.dense(parsed.text, depth, allowed).catch(() => null) : Promise.resolve(null),
  ]);
  const fused = fuseHybrid({
    lexical,
    dense: dense?.hits ?? [],
    queryClass: classifyQuery(parsed.text),
    calibration: dense?.calibration ?? null,
    rrfK: settings.ranking.rrfK,
    userWeights: { lexical: settings.ranking.lexicalWeight, dense: settings.ranking.denseWeight },
  });
  const results = await present(src, fused, parsed, terms, limit);
  return { results, parsed, tookMs: round1(clock() - started), lanesUsed: { lexical: true, dense: dense !== null } };
}

async function lexicalLane(src: SearchSource, terms: string[], k: number, allowed: ReadonlySet<number> | null): Promise<LaneHit[]> {
  const [postings, stats] = await Promise.all([src.postings(terms), src.corpusStats()]);
  const query: QueryTerm[] = terms.map((term) => ({ term, postings: postings.get(term)! }));
  return bm25Search(query, stats, { k, allowed, params: { k1: src.settings.ranking.k1, b: src.settings.ranking.b } });
}

/** Reads the candidates' sections, applies text filters, groups by page and builds the result cards. */
async function present(src: SearchSource, fused: FusedHit[], parsed: ParsedQuery, terms: string[], limit: number): Promise<SearchResult[]> {
  if (!fused.length) return [];
  const phrases = parsed.phrases.map((p) => foldText(p).toLowerCase());
  const excludePhrases = [...parsed.excludePhrases, ...parsed.excludeWords].map((p) => foldText(p).toLowerCase());
  const textFilters = phrases.length + excludePhrases.length > 0;
  const table = await src.pages();
  const marker = new TermMarker(new Set(terms), TOKENIZER);
  type Hit = FusedHit & { url: string; chunk: SectionView };
  const hits: Hit[] = [];
  // Read in slices: enough to fill `limit` pages with their extra sections, without reading everything.
  const pagesSeen = new Set<string>();
  for (let i = 0; i < fused.length && pagesSeen.size < limit; i += 64) {
    const slice = fused.slice(i, i + 64);
    const byId = new Map((await src.sections(slice.map((h) => h.id))).map((c) => [c.id, c]));
    for (const h of slice) {
      const chunk = byId.get(h.id);
      if (!chunk || !table.has(chunk.url)) continue;
      if (textFilters) {
        const folded = foldText(`${table.get(chunk.url)!.title}\n${chunk.text}`).toLowerCase();
        if (!phrases.every((p) => folded.includes(p))) continue;
        if (excludePhrases.some((p) => containsWord(folded, p))) continue;
      }
      hits.push({ ...h, url: chunk.url, chunk });
      pagesSeen.add(chunk.url);
    }
  }
  const section = (h: Hit): ResultSection => {
    const body = h.chunk.text.includes('\n') && h.chunk.headingPath.length ? h.chunk.text.slice(h.chunk.text.indexOf('\n') + 1) : h.chunk.text;
    return {
      chunkId: h.id,
      section: h.chunk.section,
      headingPath: h.chunk.headingPath,
      href: sectionHref(h.url, h.chunk.anchor),
      snippet: makeSnippet(body, marker),
      whyMatched: h.terms,
      lanes: { ...h.ranks },
      score: Math.round(h.score * 1000) / 1000,
    };
  };
  return groupByPage(hits, limit).map((g) => {
    const page = table.get(g.best.url)!;
    return {
      ...section(g.best),
      url: page.url,
      title: page.title,
      site: page.site,
      lastVisit: page.lastVisit,
      visitCount: page.visitCount,
      ...(page.kind ? { kind: page.kind } : {}),
      more: g.more.map(section),
    };
  });
}

/** Whole-word containment on folded text (so `-java` does not drop "javascript"). */
export function containsWord(haystack: string, needle: string): boolean {
  let from = 0;
  for (;;) {
    const i = haystack.indexOf(needle, from);
    if (i < 0) return false;
    const before = i === 0 ? '' : haystack[i - 1]!;
    const after = haystack[i + needle.length] ?? '';
    if (!/[\p{L}\p{N}_]/u.test(before) && !/[\p{L}\p{N}_]/u.test(after)) return true;
    from = i + 1;
  }
}
