/**
 * `node --expose-gc --import tsx tests/bench/coreQuick.ts [size] [queries] [rounds]`: only the warm
 * core-vs-floor comparison of `npm run bench -- lexical` (k 10, same corpus, seed and queries), interleaved
 * with bm25Search before the dense fix (tests/bench/lexical/bm25BeforeDense.ts), after checking that both give
 * identical hits (ids, scores, terms, fields) at k 10 and 90. `PROFILE=reread` (or floor, before) then
 * runs that variant alone 20 times over, for `node --cpu-prof`. About 80 s at 100k (building the corpus).
 */
import { indexSection, indexedText, TOKENIZER } from '../../src/indexing.js';
import { queryTerms, tokenize } from '../../src/tokenizer.js';
import { bm25Search } from '../../src/bm25.js';
import { bm25Search as bm25Before } from './lexical/bm25BeforeDense.js';
import { makeVocabulary, pagesToDocs, sampleQueries, synthPages } from './corpus.js';
import { intern, PlainIndex, TypedTopK } from './lexical/plain.js';
import { RereadCore } from './lexical/rereadCore.js';
import { dist, gc, ms, now } from './report.js';

const argv = process.argv.slice(2);
const size = Number(argv[0] ?? 100_000);
const nQ = Number(argv[1] ?? 400);
const rounds = Number(argv[2] ?? 2);
const docs = pagesToDocs(synthPages(makeVocabulary(1), 1000 + size, size));
const core = new RereadCore();
core.bulkFrom(docs.map((d) => ({ id: d.id, doc: indexSection(d.title, { text: d.chunkText, headingPath: d.headingPath }, TOKENIZER) })));
const floor = new PlainIndex();
floor.build(intern(docs.map((d) => tokenize(indexedText(d.title, d.chunkText), TOKENIZER))));
const qt = (w: string) => queryTerms(w, TOKENIZER);
const qs = sampleQueries(docs, nQ, 7 + docs.length, (w) => floor.df(qt(w)[0] ?? ''));
const heap = new TypedTopK(10);
let diffs = 0;
for (const k of [10, 90]) {
  for (const q of qs) {
    const terms = qt(q.text).map((term) => ({ term, postings: core.postings(term) }));
    const a = JSON.stringify(bm25Search(terms, core.stats, { k }));
    const b = JSON.stringify(bm25Before(terms, core.stats, { k }));
    if (a !== b) diffs++;
  }
}
console.log(`results differing from bm25Search before the dense fix (k 10 and 90, ${qs.length} queries): ${diffs}`);
const variants: Record<string, (i: number) => unknown> = {
  reread: (i) => core.search(qt(qs[i]!.text), 10).map((h) => h.id),
  floor: (i) => floor.search(qt(qs[i]!.text), heap).map((h) => h.id),
  before: (i) => bm25Before(qt(qs[i]!.text).map((term) => ({ term, postings: core.postings(term) })), core.stats, { k: 10 }).map((h) => h.id),
};
const names = Object.keys(variants);
for (let i = 0; i < qs.length; i++) for (const n of names) variants[n]!(i);
const out: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < rounds; r++) {
  gc();
  for (let i = 0; i < qs.length; i++) {
    for (let j = 0; j < names.length; j++) {
      const n = names[(i + r + j) % names.length]!;
      const t = now();
      variants[n]!(i);
      out[n]!.push(now() - t);
    }
  }
}
const f = dist(out.floor!);
for (const n of names) {
  const d = dist(out[n]!);
  console.log(`${n}: median ${ms(d.median)} ms, p95 ${ms(d.p95)} ms, /floor median ${(d.median / f.median).toFixed(2)}x p95 ${(d.p95 / f.p95).toFixed(2)}x`);
}
if (process.env.PROFILE) {
  const fn = variants[process.env.PROFILE]!;
  const t = now();
  for (let r = 0; r < 20; r++) for (let i = 0; i < qs.length; i++) fn(i);
  console.log(`${process.env.PROFILE} x20: ${ms(now() - t)} ms`);
}
