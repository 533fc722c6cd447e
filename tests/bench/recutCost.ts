/**
 * `node --expose-gc --import tsx tests/bench/recutCost.ts [rounds]`: what cutting unknown words of
 * scripts without spaces again (src/recut.ts) costs search(): the debian-faq corpus of the evaluation
 * (five languages, from `.cache/eval`, captured on first use) and its queries, lexical lane, each query
 * with the re-cut on and off, interleaved query by query. Prints the median and p95 ms by query
 * language and by whether a query has a word the index does not know in such a script (the only ones
 * the re-cut touches), and the first search's cost of building the term list.
 */
import { search } from '../../src/search.js';
import { loadCorpus } from '../eval/lib/capture.js';
import { corpus } from '../eval/lib/corpora.js';
import { memorySource, MemoryIndex } from '../eval/lib/memorySource.js';
import { loadQueries } from '../eval/lib/queries.js';
import { DEFAULT_SETTINGS } from '../../src/settings.js';
import { dist, ms, now, timeOnOff } from './report.js';

const rounds = Number(process.argv[2] ?? 5);
const loaded = await loadCorpus(corpus('debian-faq'));
const idx = new MemoryIndex(loaded.pages);
const src = memorySource(idx, null, { lane: 'lexical', settings: DEFAULT_SETTINGS });
const queries = loadQueries('debian-faq').queries.filter((q) => q.class !== 'offtopic');

const t0 = now();
const terms = await src.unspacedTerms!();
const buildMs = now() - t0;

// Which queries the re-cut changes at all: their words as searched differ.
const touched = new Set<string>();
for (const q of queries) {
  const on = await search(src, { q: q.q }, { lexical: { recut: true } });
  if (on.corrected && on.corrected.query !== (await search(src, { q: q.q }, { lexical: { recut: false } })).corrected?.query) touched.add(q.id);
}

const times = await timeOnOff(queries, rounds, (q) => `${q.lang}${touched.has(q.id) ? ' (re-cut)' : ''}`, (q, recut) => search(src, { q: q.q }, { lexical: { recut } }));

console.log(`\nre-cut cost: debian-faq (${idx.sections.size} sections, ${terms.size} unspaced terms; term dictionary built on first use in ${ms(buildMs)} ms), ${queries.length} queries × ${rounds} rounds, interleaved\n`);
console.log('| queries | n | re-cut on: median / p95 ms | off: median / p95 ms |');
console.log('|---|---|---|---|');
for (const [g, t] of [...times].sort(([a], [b]) => a.localeCompare(b))) {
  const on = dist(t.on);
  const off = dist(t.off);
  console.log(`| ${g} | ${t.on.length / rounds} | ${ms(on.median)} / ${ms(on.p95)} | ${ms(off.median)} / ${ms(off.p95)} |`);
}
