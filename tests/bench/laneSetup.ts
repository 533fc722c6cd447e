/**
 * The lane benches' shared setup (laneProfile.ts, lanePhases.ts): the benchmark's synthetic corpus of
 * `size` sections (or the Python manual), indexed by Reread's core and by the plain floor, and the same
 * sampled queries as `npm run bench -- lexical` at that size.
 */
import { indexSection, indexedText, TOKENIZER } from '../../src/indexing.js';
import { queryTerms, tokenize } from '../../src/tokenizer.js';
import { makeVocabulary, pagesToDocs, pythonDocs, sampleQueries, synthPages } from './corpus.js';
import { intern, PlainIndex } from './lexical/plain.js';
import { RereadCore } from './lexical/rereadCore.js';

export async function laneCorpus(python: boolean, size: number, nQ: number) {
  const docs = python ? (await pythonDocs()).docs : pagesToDocs(synthPages(makeVocabulary(1), 1000 + size, size));
  const core = new RereadCore();
  core.bulkFrom(docs.map((d) => ({ id: d.id, doc: indexSection(d.title, { text: d.chunkText, headingPath: d.headingPath }, TOKENIZER) })));
  const floor = new PlainIndex();
  floor.build(intern(docs.map((d) => tokenize(indexedText(d.title, d.chunkText), TOKENIZER))));
  const qs = sampleQueries(docs, nQ, 7 + docs.length, (w) => floor.df(queryTerms(w, TOKENIZER)[0] ?? ''));
  return { docs, core, floor, qs, source: core.source(docs) };
}
