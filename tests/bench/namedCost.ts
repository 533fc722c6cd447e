/**
 * `node --expose-gc --import tsx tests/bench/namedCost.ts [corpus] [rounds]`: what linking a card to the
 * heading its query names (src/namedHeading.ts, search.ts liftNamedHeadings) costs search(): an
 * evaluation corpus (python by default, from `.cache/eval`, captured on first use) and its queries,
 * lexical lane, each query with the lift on and off, interleaved query by query. Prints the median and
 * p95 ms by query class and for the queries whose first card it changes.
 */
import { search } from '../../src/search.js';
import { loadCorpus } from '../eval/lib/capture.js';
import { corpus, type CorpusName } from '../eval/lib/corpora.js';
import { memorySource, MemoryIndex } from '../eval/lib/memorySource.js';
import { loadQueries } from '../eval/lib/queries.js';
import { DEFAULT_SETTINGS } from '../../src/settings.js';
import { dist, ms, timeOnOff } from './report.js';

const name = (process.argv[2] ?? 'python') as CorpusName;
const rounds = Number(process.argv[3] ?? 5);
const loaded = await loadCorpus(corpus(name));
const idx = new MemoryIndex(loaded.pages);
const src = memorySource(idx, null, { lane: 'lexical', settings: DEFAULT_SETTINGS });
const queries = loadQueries(name).queries;

// Which queries the lift changes: the first card's link differs.
const changed = new Set<string>();
for (const q of queries) {
  const on = await search(src, { q: q.q }, { lexical: { namedHeadings: true } });
  const off = await search(src, { q: q.q }, { lexical: { namedHeadings: false } });
  if (on.results[0]?.href !== off.results[0]?.href) changed.add(q.id);
}

const times = await timeOnOff(queries, rounds, (q) => `${q.class}${changed.has(q.id) ? ' (link changed)' : ''}`, (q, namedHeadings) => search(src, { q: q.q }, { lexical: { namedHeadings } }));

console.log(`\nnamed-heading lift cost: ${name} (${idx.sections.size} sections), ${queries.length} queries × ${rounds} rounds, interleaved; ${changed.size} first links changed\n`);
console.log('| queries | n | lift on: median / p95 ms | off: median / p95 ms |');
console.log('|---|---|---|---|');
const all = { on: [] as number[], off: [] as number[] };
for (const [g, t] of [...times].sort(([a], [b]) => a.localeCompare(b))) {
  const on = dist(t.on);
  const off = dist(t.off);
  all.on.push(...t.on);
  all.off.push(...t.off);
  console.log(`| ${g} | ${t.on.length / rounds} | ${ms(on.median)} / ${ms(on.p95)} | ${ms(off.median)} / ${ms(off.p95)} |`);
}
const on = dist(all.on);
const off = dist(all.off);
console.log(`| all | ${all.on.length / rounds} | ${ms(on.median)} / ${ms(on.p95)} | ${ms(off.median)} / ${ms(off.p95)} |`);
