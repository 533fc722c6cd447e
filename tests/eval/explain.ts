/**
 * `npm run eval:explain`: why one configuration loses to another on single queries, on the TUNING corpora
 * only (the held-out corpora are refused). Loads each corpus once, runs the naive baseline and the shipped
 * `search()` (lexical lane, as `--lanes lexical` of `npm run eval`) under each named what-if of the
 * lexical options, and prints
 * - a table of nDCG@10 and §hit@1 per corpus × class × configuration (with n), and
 * - with `--show N`, for the first N queries where the first configuration trails naive (or the second
 *   configuration, with `--against 1`) by more than 0.1 nDCG@10, both top-10 lists side by side: page,
 *   grade, the words matched, and where the link lands.
 *
 *   npm run eval:explain -- --class natural,topical --show 10
 *   npm run eval:explain -- --config 'shipped={}' --config 'one={"minMatchWords":1}' --corpus git
 *   npm run eval:explain -- --corpus debian-faq --by-lang     # each class's rows split by the queries' language too
 *
 * A what-if here changes only options search() already reads (src/search.ts LexicalOptions), so what is
 * measured is the shipped code path with other settings, never a copy of it.
 */
import { DEFAULT_LEXICAL, search, type LexicalOptions } from '../../src/search.js';
import type { SearchResult } from '../../src/protocol.js';
import { loadCorpus } from './lib/capture.js';
import { CORPORA, corpus, isHeldOut, pageUrl, type CorpusDef } from './lib/corpora.js';
import { RESULT_LIMIT } from './lib/evaluate.js';
import { aggregate, judge, pageLookup, type QueryScore, type Shown } from './lib/judge.js';
import { memorySource, MemoryIndex } from './lib/memorySource.js';
import { NaiveIndex } from './lib/naive.js';
import { CLASSES, loadQueries, type EvalQuery, type QueryClass } from './lib/queries.js';
import { f3, table } from './lib/table.js';
import { formatPaired, pairedDifference } from './lib/paired.js';
import { DEFAULT_SETTINGS, type Settings } from '../../src/settings.js';
import fs from 'node:fs';

const NOW = Date.UTC(2026, 5, 1);

interface Config {
  name: string;
  lexical: Partial<LexicalOptions>;
  /** BM25's k1 / b (Settings.ranking), when the what-if names them as `"ranking": {"k1": 1.2}`. */
  ranking: Partial<Settings['ranking']>;
}

function args(argv: readonly string[]) {
  const all = (name: string) => argv.flatMap((a, i) => (a === name && argv[i + 1] !== undefined ? [argv[i + 1]!] : []));
  const one = (name: string) => all(name)[0];
  const corpora = (one('--corpus')?.split(',') ?? CORPORA.filter((c) => !c.heldOut).map((c) => c.name)).map(corpus);
  for (const c of corpora) if (isHeldOut(c.name)) throw new Error(`${c.name} is held out: it is never looked at query by query`);
  const classes = (one('--class')?.split(',') ?? ['natural', 'topical']) as QueryClass[];
  for (const c of classes) if (!CLASSES.includes(c)) throw new Error(`unknown class ${c}`);
  const configs: Config[] = all('--config').map((s) => {
    const eq = s.indexOf('=');
    const { ranking, ...lexical } = JSON.parse(s.slice(eq + 1)) as Partial<LexicalOptions> & { ranking?: Partial<Settings['ranking']> };
    return { name: s.slice(0, eq), lexical, ranking: ranking ?? {} };
  });
  if (!configs.length) configs.push({ name: 'shipped', lexical: {}, ranking: {} });
  return { corpora, classes, configs, show: Number(one('--show') ?? 0), against: one('--against') ?? 'naive', ids: one('--ids')?.split(',') ?? null, json: one('--json') ?? null, byLang: argv.includes('--by-lang') };
}

/** Deep-merges a what-if into the shipped lexical options (objects one level down: fields, common, proximity). */
function merged(w: Partial<LexicalOptions>): Partial<LexicalOptions> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(w)) {
    const base = (DEFAULT_LEXICAL as unknown as Record<string, unknown>)[k];
    out[k] = base && typeof base === 'object' && v && typeof v === 'object' ? { ...base, ...v } : v;
  }
  return out as Partial<LexicalOptions>;
}

/** Mean of b - a with a 95% bootstrap interval (2,000 resamples, seeded by the label), and wins / losses. */
function pairedCell(a: readonly number[], b: readonly number[], label: string): string {
  return formatPaired(pairedDifference(a, b, label, 2000));
}

interface Listed {
  file: string;
  href: string;
  why: string;
}

async function main(): Promise<void> {
  const a = args(process.argv.slice(2));
  const rows: string[][] = [];
  const paired: string[][] = [];
  const dump: unknown[] = [];
  const details: string[] = [];
  for (const def of a.corpora) {
    const loaded = await loadCorpus(def);
    const look = pageLookup(loaded.pages);
    const idx = new MemoryIndex(loaded.pages);
    const naive = new NaiveIndex(loaded.pages);
    const prefix = pageUrl(def, '');
    const fileOf = (url: string) => (url.startsWith(prefix) ? url.slice(prefix.length) : url);
    let queries = loadQueries(def.name as CorpusDef['name']).queries.filter((q) => a.classes.includes(q.class));
    if (a.ids) queries = queries.filter((q) => a.ids!.includes(q.id));
    const lists = new Map<string, Map<string, Listed[]>>();
    const scores = new Map<string, QueryScore[]>();
    const naiveLists = new Map<string, Listed[]>();
    scores.set(
      'naive',
      queries.map((q) => {
        const shown = naive.search(q.q, RESULT_LIMIT).map((h) => ({ file: h.file, href: h.href, why: h.score.toFixed(2) }));
        naiveLists.set(q.id, shown);
        return judge(q, shown, look);
      }),
    );
    lists.set('naive', naiveLists);
    for (const c of a.configs) {
      const src = memorySource(idx, null, { lane: 'lexical', settings: { ...DEFAULT_SETTINGS, ranking: { ...DEFAULT_SETTINGS.ranking, ...c.ranking } } });
      const byQ = new Map<string, Listed[]>();
      const s: QueryScore[] = [];
      for (const q of queries) {
        const res = await search(src, { q: q.q, limit: RESULT_LIMIT }, { now: NOW, lexical: merged(c.lexical) });
        const shown: Listed[] = res.results.map((r: SearchResult) => ({ file: fileOf(r.url), href: r.href, why: `${r.score.toFixed(3)} [${r.whyMatched.join(' ')}]` }));
        byQ.set(q.id, shown);
        s.push(judge(q, shown as Shown[], look));
      }
      scores.set(c.name, s);
      lists.set(c.name, byQ);
    }
    const names = ['naive', ...a.configs.map((c) => c.name)];
    // Rows: each class, then all; with --by-lang, each class's languages too (a corpus of several languages).
    const langs = [...new Set(queries.map((q) => q.lang))].sort();
    const groups: { label: string; offtopic: boolean; has: (q: EvalQuery) => boolean }[] = [];
    for (const cls of [...a.classes, 'all' as const]) {
      const inClass = (q: EvalQuery) => (cls === 'all' ? q.class !== 'offtopic' : q.class === cls);
      groups.push({ label: cls, offtopic: cls === 'offtopic', has: inClass });
      if (a.byLang && langs.length > 1 && cls !== 'offtopic') for (const lang of langs) groups.push({ label: `${cls} ${lang}`, offtopic: false, has: (q) => inClass(q) && q.lang === lang });
    }
    for (const g of groups) {
      const pick = (s: QueryScore[]) => s.filter((_, i) => g.has(queries[i]!));
      const n = pick(scores.get('naive')!).length;
      if (!n) continue;
      const cell = (nm: string) => {
        const c = aggregate(pick(scores.get(nm)!));
        return g.offtopic ? `no results ${f3(c.noResults)}` : `${f3(c.ndcg10)} / ${f3(c.sectionHit1)}`;
      };
      rows.push([def.name, `${g.label} (${n})`, ...names.map(cell)]);
      // Each configuration after the first against the first, query by query: the mean paired difference
      // of nDCG@10 with a 95% bootstrap interval, and how many queries it wins and loses (noise is what
      // an interval spanning 0 says).
      if (!g.offtopic) {
        const base = pick(scores.get(a.configs[0]!.name)!).map((x) => x.ndcg10);
        paired.push([def.name, `${g.label} (${n})`, ...names.slice(2).map((nm) => pairedCell(base, pick(scores.get(nm)!).map((x) => x.ndcg10), `${def.name}/${g.label}/${nm}`))]);
      }
    }
    if (a.json) for (const [nm, s] of scores) queries.forEach((q, i) => dump.push({ corpus: def.name, config: nm, id: q.id, class: q.class, q: q.q, ndcg10: s[i]!.ndcg10, sectionHit1: s[i]!.sectionHit1 }));
    if (a.show > 0) {
      const first = a.configs[0]!.name;
      const other = a.against === 'naive' ? 'naive' : a.configs[Number(a.against)]!.name;
      let shownCount = 0;
      queries.forEach((q: EvalQuery, i) => {
        const mine = scores.get(first)![i]!;
        const theirs = scores.get(other)![i]!;
        if (mine.ndcg10 >= theirs.ndcg10 - 0.1 || shownCount >= a.show) return;
        shownCount++;
        details.push(`\n${q.id} ${JSON.stringify(q.q)}  want ${Object.entries(q.relevant).map(([f, g]) => `${f}:${g}`).join(' ')} § ${(q.sections ?? []).map((s) => s.key).join(' ')}`);
        details.push(`  ${first} nDCG ${f3(mine.ndcg10)} §${mine.sectionHit1}   vs   ${other} nDCG ${f3(theirs.ndcg10)} §${theirs.sectionHit1}`);
        const L = lists.get(first)!.get(q.id)!;
        const R = lists.get(other)!.get(q.id)!;
        const dedupe = (xs: Listed[]) => xs.filter((x, j) => xs.findIndex((y) => y.file === x.file) === j);
        const l = dedupe(L).slice(0, 10);
        const r = dedupe(R).slice(0, 10);
        for (let j = 0; j < Math.max(l.length, r.length); j++) {
          const cell = (x: Listed | undefined) => (x ? `${q.relevant[x.file] ? `(${q.relevant[x.file]})` : '   '} ${x.file}${x.href.includes('#') ? decodeURIComponent(x.href.slice(x.href.indexOf('#'))).slice(0, 40) : ''} ${x.why}` : '');
          details.push(`  ${String(j + 1).padStart(2)} ${cell(l[j]).slice(0, 95).padEnd(95)} | ${cell(r[j]).slice(0, 80)}`);
        }
      });
    }
  }
  console.log(`explain (tuning corpora; lexical lane; nDCG@10 / §hit@1) — ${a.configs.map((c) => `${c.name}=${JSON.stringify({ ...c.lexical, ...(Object.keys(c.ranking).length ? { ranking: c.ranking } : {}) })}`).join('; ')}`);
  console.log(table(['corpus', 'class (n)', 'naive', ...a.configs.map((c) => c.name)], rows, ['l', 'l']));
  if (a.configs.length > 1) {
    console.log(`\nnDCG@10 against ${a.configs[0]!.name}, query by query: mean difference [95% paired bootstrap interval] +queries won / -lost`);
    console.log(table(['corpus', 'class (n)', ...a.configs.slice(1).map((c) => c.name)], paired, ['l', 'l']));
  }
  if (a.json) fs.writeFileSync(a.json, JSON.stringify(dump));
  if (details.length) console.log(details.join('\n'));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
