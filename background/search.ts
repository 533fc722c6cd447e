/**
 * Search over IndexedDB: the pure pipeline (src/search.ts) fed by the worker's readers — the resident
 * page table for filters, the posting cache for the lexical lane, section records with their
 * compressed text (both kept in memory once read), and the dense lane.
 */
import type { SearchRequest, SearchResponse } from '../src/protocol.js';
import { search, type SearchSource, type SectionView } from '../src/search.js';
import type { ChunkRecord } from './db.js';
import type { Engine } from './engine.js';
import { chunkRecords, withTexts } from './sectionTexts.js';

export function searchSource(engine: Engine, settings: SearchSource['settings']): SearchSource {
  const dense = engine.dense;
  return {
    settings,
    pages: () => engine.pages.all(),
    allowedChunks: (parsed, excludeUrl) => engine.pages.allowedChunks(parsed, excludeUrl),
    corpusStats: () => engine.lexical.corpusStats(),
    postings: (terms) => engine.lexical.postings(terms),
    sections: async (ids): Promise<SectionView[]> => {
      const db = await engine.db();
      const read = await chunkRecords(db, ids);
      return withTexts(db, read.filter((c): c is ChunkRecord => !!c));
    },
    dense: dense ? (text, k, allowed) => dense.search(text, k, allowed) : null,
    similarTerms: (term, maxEdits) => engine.lexical.similarTerms(term, maxEdits),
    ...(engine.lexicon ? { lexicon: engine.lexicon } : {}),
  };
}

export async function searchStored(engine: Engine, req: SearchRequest): Promise<SearchResponse> {
  return search(searchSource(engine, await engine.settings()), req, { clock: () => performance.now() });
}
