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
import { dist, gc, ms, now } from './report.js';

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

const times = new Map<string, number[]>();
const put = (key: string, t: number) => {
  let l = times.get(key);
  if (!l) times.set(key, (l = []));
  l.push(t);
};
gc();
for (let r = 0; r < rounds; r++) {
  for (const q of queries) {
    const group = `${q.lang}${touched.has(q.id) ? ' (re-cut)' : ''}`;
    for (const recut of r % 2 ? [false, true] : [true, false]) {
      const t = now();
      await search(src, { q: q.q }, { lexical: { recut } });
      put(`${group}|${recut ? 'on' : 'off'}`, now() - t);
    }
  }
}

console.log(`\nre-cut cost: debian-faq (${idx.sections.size} sections, ${terms.size} unspaced terms; term dictionary built on first use in ${ms(buildMs)} ms), ${queries.length} queries × ${rounds} rounds, interleaved\n`);
console.log('| queries | n | re-cut on: median / p95 ms | off: median / p95 ms |');
console.log('|---|---|---|---|');
const groups = [...new Set([...times.keys()].map((k) => k.split('|')[0]!))].sort();
for (const g of groups) {
  const on = dist(times.get(`${g}|on`)!);
  const off = dist(times.get(`${g}|off`)!);
  console.log(`| ${g} | ${times.get(`${g}|on`)!.length / rounds} | ${ms(on.median)} / ${ms(on.p95)} | ${ms(off.median)} / ${ms(off.p95)} |`);
}
