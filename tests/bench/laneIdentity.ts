/**
 * `node --max-old-space-size=4000 --import tsx tests/bench/laneIdentity.ts --against DIR [--corpus python,git,debian-faq]`:
 * whether this tree's search gives exactly what another tree's gives (e.g. main's, before a change meant
 * to be faster and nothing else: `git archive main src background | tar -x -C DIR`). Over the
 * evaluation's corpora (captured by the product's code, tests/eval/lib) and every evaluation query, plus
 * variants of each (a typo, a quoted phrase, an excluded word, a site filter, upper case, a word
 * dropped), it runs both trees' `search()` (result cards: ids, links, snippets, scores, "matched", the
 * correction) and `lexicalSearch` at k 90 (hits in order, terms, scores within 1e-9), over one index.
 * Prints the number compared and every difference; exits 1 on any.
 */
import { search as searchHere, lexicalSearch as laneHere } from '../../src/search.js';
import { siteOf } from '../../src/url.js';
import { loadCorpus } from '../eval/lib/capture.js';
import { corpus } from '../eval/lib/corpora.js';
import { memorySource, MemoryIndex } from '../eval/lib/memorySource.js';
import { loadQueries } from '../eval/lib/queries.js';

const argv = process.argv.slice(2);
const val = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const against = val('--against');
if (!against) throw new Error('--against DIR (another tree holding src/ and background/) is needed');
const names = (val('--corpus') ?? 'python,git,debian-faq').split(',');
type Search = typeof searchHere;
type Lane = typeof laneHere;
const there = (await import(`${against}/src/search.ts`)) as { search: Search; lexicalSearch: Lane };
const NOW = Date.UTC(2026, 5, 1);

/** Variants of a query: the ways people type it beyond the evaluation's own forms. */
function variants(q: string, site: string, i: number): string[] {
  const words = q.split(/\s+/).filter(Boolean);
  const out = [q];
  const long = words.reduce((a, w) => (w.length > a.length ? w : a), '');
  if (long.length >= 4) {
    const k = 1 + (i % (long.length - 2));
    out.push(q.replace(long, long.slice(0, k) + long[k + 1] + long[k] + long.slice(k + 2)));
  }
  if (words.length >= 3) out.push(`"${words.slice(0, 2).join(' ')}" ${words.slice(2).join(' ')}`);
  if (words.length >= 2) out.push(`${words.slice(0, -1).join(' ')} -${words[words.length - 1]}`, words.slice(1).join(' '));
  out.push(`${q} site:${site}`, q.toUpperCase());
  return out;
}

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
let compared = 0;
let lanes = 0;
const diffs: string[] = [];
for (const name of names) {
  const def = corpus(name);
  const loaded = await loadCorpus(def, { log: () => undefined });
  const idx = new MemoryIndex(loaded.pages);
  const src = memorySource(idx, null, { lane: 'lexical' });
  const site = siteOf(idx.pageRecords[0]!.url);
  const queries = [...new Set(loadQueries(def.name).queries.flatMap((q, i) => variants(q.q, site, i)))];
  for (const q of queries) {
    const [a, b] = [await searchHere(src, { q, limit: 30 }, { now: NOW, clock: () => 0 }), await there.search(src, { q, limit: 30 }, { now: NOW, clock: () => 0 })];
    const strip = (r: typeof a) => JSON.stringify({ ...r, timings: undefined, tookMs: undefined });
    if (strip(a) !== strip(b)) diffs.push(`${name} search ${JSON.stringify(q)}:\n  here  ${strip(a).slice(0, 400)}\n  there ${strip(b).slice(0, 400)}`);
    compared++;
    const text = a.parsed.text;
    if (!text.trim()) continue;
    const [x, y] = [await laneHere(src, text, 90), await there.lexicalSearch(src, text, 90)];
    const same = x.length === y.length && x.every((h, i) => h.id === y[i]!.id && close(h.score, y[i]!.score) && JSON.stringify(h.terms) === JSON.stringify(y[i]!.terms));
    if (!same) diffs.push(`${name} lane ${JSON.stringify(text)}: here ${JSON.stringify(x.slice(0, 5))} there ${JSON.stringify(y.slice(0, 5))}`);
    lanes++;
  }
  console.log(`${name}: ${queries.length} queries (${idx.sections.size} sections), differences so far ${diffs.length}`);
}
for (const d of diffs.slice(0, 20)) console.log(d);
console.log(`compared ${compared} searches and ${lanes} lexical lanes (k 90) against ${against}: ${diffs.length} differ`);
process.exit(diffs.length ? 1 : 0);
