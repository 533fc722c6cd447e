/**
 * `node --expose-gc --import tsx tests/bench/edgesCost.ts [rounds] [corpus,…] [edges|reach]`: what the
 * edges of unspaced-script spans (`LexicalOptions.unspacedEdges`: the verbatim exact-sequence test over
 * the rescored candidates' text, and glued Latin edge pieces left out of the coverage) cost search(), or
 * with `reach`, what reading further hits for the verbatim span costs (`verbatimReach` 60 against 0):
 * the evaluation's corpora (default debian-faq and maint-guide, from `.cache/eval`) and their queries,
 * lexical lane, each query with the option on and off, interleaved query by query. Prints the median
 * and p95 ms by corpus and query language (only queries holding a word of a script without spaces do
 * any of the work).
 */
import { DEFAULT_LEXICAL, search } from '../../src/search.js';
import { loadCorpus } from '../eval/lib/capture.js';
import { corpus, isHeldOut } from '../eval/lib/corpora.js';
import { memorySource, MemoryIndex } from '../eval/lib/memorySource.js';
import { loadQueries } from '../eval/lib/queries.js';
import { DEFAULT_SETTINGS } from '../../src/settings.js';
import { dist, ms, timeOnOff } from './report.js';

const rounds = Number(process.argv[2] ?? 5);
const names = (process.argv[3] ?? 'debian-faq,maint-guide').split(',');
const what = process.argv[4] ?? 'edges';
if (what !== 'edges' && what !== 'reach') throw new Error(`the third argument is edges or reach, not ${what}`);
const lexical = (on: boolean) => (what === 'edges' ? { unspacedEdges: on } : { verbatimReach: on ? DEFAULT_LEXICAL.verbatimReach : 0 });
for (const n of names) if (isHeldOut(n)) throw new Error(`${n} is held out`);
console.log(`| corpus | queries | n | ${what} on: median / p95 ms | off: median / p95 ms |`);
console.log('|---|---|---|---|---|');
for (const name of names) {
  const def = corpus(name);
  const loaded = await loadCorpus(def);
  const idx = new MemoryIndex(loaded.pages);
  const src = memorySource(idx, null, { lane: 'lexical', settings: DEFAULT_SETTINGS });
  const queries = loadQueries(def.name).queries.filter((q) => q.class !== 'offtopic');
  for (const q of queries) await search(src, { q: q.q }); // warm (term lists, JIT)
  const times = await timeOnOff(queries, rounds, (q) => q.lang, (q, on) => search(src, { q: q.q }, { lexical: lexical(on) }));
  for (const [g, t] of [...times].sort(([a], [b]) => a.localeCompare(b))) {
    const on = dist(t.on);
    const off = dist(t.off);
    console.log(`| ${name} | ${g} | ${t.on.length / rounds} | ${ms(on.median)} / ${ms(on.p95)} | ${ms(off.median)} / ${ms(off.p95)} |`);
  }
}
