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
  const run = () => search(searchSource(engine, settings), req, { clock: () => performance.now(), ...(signal ? { signal } : {}) });
  const before = engine.pages.changes;
  const res = await run();
  // A page stored meanwhile (a revisit re-cut into new sections) can take the sections this search found
  // by their old ids away before they were read: they are left out, and the page with them. A short
  // answer given across such a change is searched once more (seen in e2e: a word of a page revisited a
  // moment before found nothing).
  if (engine.pages.changes !== before && res.results.length < (req.limit ?? 30) && !signal?.superseded) return run();
  return res;
}

/** The lexical lane alone (postings + BM25 top-k), as search runs it: for benchmarks. */
export async function lexicalLane(engine: Engine, terms: readonly string[], k: number, settings: Settings): Promise<LexicalHit[]> {
  const [postings, stats] = await Promise.all([engine.lexical.postings(terms), engine.lexical.corpusStats()]);
  return bm25Search(terms.map((term) => ({ term, postings: postings.get(term)! })), stats, { k, allowed: null, params: { k1: settings.ranking.k1, b: settings.ranking.b } });
}
