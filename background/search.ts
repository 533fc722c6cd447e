/**
 * Search over IndexedDB: the pure pipeline (src/search.ts) fed by the worker's readers — the resident
 * page table for filters, the posting reader (main index + delta) for the lexical lane, the pages'
 * section records for the candidates' text, and the dense lane.
 */
import { bm25Search, type LexicalHit } from '../src/bm25.js';
import type { SearchRequest, SearchResponse } from '../src/protocol.js';
import { search, type SearchSource, type SectionView } from '../src/search.js';
import type { Settings } from '../src/settings.js';
import type { Engine } from './engine.js';
import { sectionsByIds } from './sections.js';
import { traced } from './bootTrace.js';

export function searchSource(engine: Engine, settings: SearchSource['settings']): SearchSource {
  const dense = engine.dense;
  return {
    settings,
    pages: () => engine.pages.all(),
    isHidden: (url) => engine.pages.isHidden(url),
    allowedChunks: (parsed, excludeUrl) => traced('filters', engine.pages.allowedChunks(parsed, excludeUrl)),
    corpusStats: () => engine.lexical.corpusStats(),
    postings: (terms) => traced('postings', engine.lexical.postings(terms)),
    sections: async (ids): Promise<SectionView[]> => traced(`sections read (${ids.length})`, (async () => sectionsByIds(await engine.db(), ids, await traced('owners', engine.pages.owners())))()),
    sectionPages: async () => {
      const owner = await engine.pages.owners();
      return (id) => owner(id)?.url;
    },
    dense: dense ? (text, k, allowed, opts) => traced('dense lane', dense.search(text, k, allowed, opts)) : null,
    similarTerms: (term, maxEdits) => engine.lexical.similarTerms(term, maxEdits),
    unspacedTerms: () => engine.lexical.unspacedTerms(),
    ...(engine.lexicon ? { lexicon: engine.lexicon } : {}),
  };
}

export async function searchStored(engine: Engine, req: SearchRequest, signal?: { readonly superseded: boolean }): Promise<SearchResponse> {
  const settings = await engine.settings();
  // A page stored meanwhile (a revisit re-cut into new sections) can take the sections this search found
  // by their old ids away before they were read: they would be left out, and their page with them,
  // from a short answer or a full one. A search that asked for a section no longer there while the
  // page table changed under it is run once more (seen in e2e: a word of a page revisited a moment
  // before found nothing).
  const run = async () => {
    const src = searchSource(engine, settings);
    let lost = false;
    const read = src.sections;
    src.sections = async (ids) => {
      const got = await read(ids);
      if (got.length < new Set(ids).size) lost = true;
      return got;
    };
    // A section whose page no longer owns it (the page table read after the change) is lost the same way.
    const pagesOf = src.sectionPages!;
    src.sectionPages = async () => {
      const urlOf = await pagesOf();
      return (id) => {
        const url = urlOf(id);
        if (url === undefined) lost = true;
        return url;
      };
    };
    const before = engine.pages.changes;
    const res = await search(src, req, { clock: () => performance.now(), ...(signal ? { signal } : {}) });
    return { res, crossed: lost && engine.pages.changes !== before };
  };
  const first = await run();
  if (first.crossed && !signal?.superseded) return (await run()).res;
  return first.res;
}

/** The lexical lane alone (postings + BM25 top-k), as search runs it: for benchmarks. */
export async function lexicalLane(engine: Engine, terms: readonly string[], k: number, settings: Settings): Promise<LexicalHit[]> {
  const [postings, stats] = await Promise.all([engine.lexical.postings(terms), engine.lexical.corpusStats()]);
  return bm25Search(terms.map((term) => ({ term, postings: postings.get(term)! })), stats, { k, allowed: null, params: { k1: settings.ranking.k1, b: settings.ranking.b } });
}
