/**
 * `node --expose-gc --import tsx tests/bench/cjkLatency.ts --trees DIR_A,DIR_B [--corpus debian-faq,maint-guide,instguide] [--rounds 3] [--latin en] [--cold]`:
 * search() latency for the evaluation's queries in scripts without spaces (languages ja and zh-cn) and,
 * beside them, Latin ones (`--latin`, default en; `--latin ''` for none), for two or more trees of the
 * product (`DIR` holds src/ and background/: `git archive <commit> src background | tar -x -C DIR`, with
 * node_modules linked into it). Every tree is imported by path (a tree imported directly runs at
 * another speed: only copies are compared with copies) and runs the same query over one index, the
 * trees' order alternating query by query and round by round, so that the machine's load hits them
 * alike. Lexical lane (as the evaluation's `lexical` runs), limit 30.
 *
 * Prints, per corpus and language, the median and p95 over queries of each query's time: in round 1
 * (the first time a query is asked: a tree's caches hold only what earlier queries left) and over all
 * rounds (the median of each query's rounds). `--cold`: each tree's caches of segmented words
 * (`forgetWords` in src/tokenizer.ts, where a tree has it) are emptied before every search. Checks on
 * the way that every tree gave the same results (cards, links, snippets, scores) in round 1.
 */
import { loadCorpus } from '../eval/lib/capture.js';
import { corpus } from '../eval/lib/corpora.js';
import { memorySource, MemoryIndex } from '../eval/lib/memorySource.js';
import { loadQueries } from '../eval/lib/queries.js';
import { DEFAULT_SETTINGS } from '../../src/settings.js';
import type { search as SearchFn } from '../../src/search.js';
import { dist, ms, now, table } from './report.js';
import { basename } from 'node:path';
import { loadavg } from 'node:os';

const argv = process.argv.slice(2);
const val = (name: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const dirs = (val('--trees') ?? '').split(',').filter(Boolean);
if (dirs.length < 1) throw new Error('--trees DIR_A,DIR_B (trees holding src/ and background/) is needed');
const names = (val('--corpus') ?? 'debian-faq,maint-guide,instguide').split(',');
const rounds = Number(val('--rounds') ?? 3);
const latin = (val('--latin') ?? 'en').split(',').filter(Boolean);
const langs = new Set(['ja', 'zh-cn', ...latin]);

const cold = argv.includes('--cold');
const trees: { label: string; search: typeof SearchFn }[] = [];
/** Each tree's forgetWords (src/tokenizer.ts), where it has one: `--cold` calls it before every search. */
const forget: ((() => void) | undefined)[] = [];
for (const dir of dirs) {
  trees.push({ label: basename(dir), search: ((await import(`${dir}/src/search.ts`)) as { search: typeof SearchFn }).search });
  forget.push(((await import(`${dir}/src/tokenizer.ts`)) as { forgetWords?: () => void }).forgetWords);
}
const NOW = Date.UTC(2026, 5, 1);
let compared = 0;
let snippets = 0;
const differ: string[] = [];

declare const gc: undefined | (() => void);
const rows: (string | number)[][] = [];
const load0 = loadavg()[0]!;
for (const name of names) {
  const def = corpus(name);
  const loaded = await loadCorpus(def, { log: () => undefined });
  const idx = new MemoryIndex(loaded.pages);
  const src = memorySource(idx, null, { lane: 'lexical', settings: DEFAULT_SETTINGS });
  const queries = loadQueries(def.name).queries.filter((q) => langs.has(q.lang));
  // Warm-up: each tree's code compiled on queries of every language (not timed).
  for (const t of trees) for (const q of queries.filter((_, i) => i % 25 === 0)) await t.search(src, { q: q.q + ' warm', limit: 30 }, {});
  // times[tree][query] = one time per round
  const times = trees.map(() => queries.map(() => [] as number[]));
  if (typeof gc === 'function') gc();
  for (let r = 0; r < rounds; r++) {
    for (let qi = 0; qi < queries.length; qi++) {
      const order = trees.map((_, i) => i);
      if ((r + qi) % 2) order.reverse();
      const cards: string[] = [];
      for (const ti of order) {
        if (cold) forget[ti]?.();
        const t0 = now();
        const res = await trees[ti]!.search(src, { q: queries[qi]!.q, limit: 30 }, { now: NOW, clock: () => 0 });
        times[ti]![qi]!.push(now() - t0);
        if (r === 0) {
          cards.push(JSON.stringify({ ...res, timings: undefined, tookMs: undefined }));
          if (ti === 0) snippets += res.results.reduce((n, x) => n + 1 + x.more.length, 0);
        }
      }
      if (r === 0) {
        compared++;
        if (cards.some((c) => c !== cards[0])) differ.push(`${name} ${JSON.stringify(queries[qi]!.q)}`);
      }
    }
  }
  const rank = (lang: string) => (lang === 'ja' ? 0 : lang === 'zh-cn' ? 1 : 2);
  const groups = [...new Set(queries.map((q) => q.lang))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  for (const lang of groups) {
    const at = queries.map((q, i) => (q.lang === lang ? i : -1)).filter((i) => i >= 0);
    const row: (string | number)[] = [name, lang, at.length];
    for (let ti = 0; ti < trees.length; ti++) {
      const first = dist(at.map((i) => times[ti]![i]![0]!));
      const all = dist(at.map((i) => dist(times[ti]![i]!).median));
      row.push(`${ms(first.median)} / ${ms(first.p95)}`, `${ms(all.median)} / ${ms(all.p95)}`);
    }
    rows.push(row);
  }
  console.error(`${name}: ${queries.length} queries × ${rounds} rounds done`);
}
const headers = ['corpus', 'lang', 'queries'];
for (const t of trees) headers.push(`${t.label} round 1: median / p95 ms`, `${t.label} all rounds`);
console.log(`\nsearch() per query, lexical lane, limit 30; trees interleaved query by query; ${rounds} rounds${cold ? '; caches of segmented words emptied before every search (--cold)' : ''}; load ${load0.toFixed(1)} -> ${loadavg()[0]!.toFixed(1)}\n`);
console.log(table(headers, rows));
console.log(`\nresults (cards, links, snippets, scores) of round 1 compared across the trees: ${compared} queries, ${snippets} snippets; ${differ.length} queries differ${differ.length ? ':\n' + differ.slice(0, 20).join('\n') : ''}`);
