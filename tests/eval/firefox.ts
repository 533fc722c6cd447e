/**
 * `npm run eval:firefox`: the lexical lane of the evaluation run in Firefox ESR and in Node side by side,
 * on the corpora with Japanese or Chinese (the same captured sections, the same queries, the same code:
 * lib/searchAll.ts bundled for the page). The index and the queries are cut by each runtime's own
 * Intl.Segmenter: Firefox's cuts some Chinese differently from Chromium's and Node's (到晚|上 against
 * 到|晚上) and judges word-likeness differently (src/tokenizer.ts wordLikeByLetters), so what a Firefox
 * user finds can differ; this measures by how much. Prints a table per corpus, class and language, and
 * the queries whose result differs (tuning corpora only; held-out ones in aggregate).
 *
 *   npm run eval:firefox [-- --corpus debian-faq,maint-guide --out file.json --show <query id>,…]
 */
import fs from 'node:fs';
import { corpus, isHeldOut, pageUrl } from './lib/corpora.js';
import { loadCorpus } from './lib/capture.js';
import { NOW, RESULT_LIMIT } from './lib/evaluate.js';
import { openFirefoxSearch } from './lib/firefoxSearch.js';
import { judge, pageLookup, type QueryScore } from './lib/judge.js';
import { loadQueries } from './lib/queries.js';
import { searchAll, type Shown0 } from './lib/searchAll.js';

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const names = (opt('corpus') ?? 'debian-faq,maint-guide,instguide').split(',');

const firefoxPage = await openFirefoxSearch();
const version = firefoxPage.version;

type Row = { corpus: string; cls: string; lang: string; n: number; node: number; firefox: number; nodeHit: number | null; firefoxHit: number | null; differ: number; won: number; lost: number };
const rows: Row[] = [];
const differing: string[] = [];
const timing: { corpus: string; runtime: string; sections: number; indexMs: number; cjk: string; other: string }[] = [];
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
for (const name of names) {
  const def = corpus(name);
  const loaded = await loadCorpus(def, { cache: true, log: (s) => process.stderr.write(s + '\n') });
  const { queries } = loadQueries(def.name);
  const look = pageLookup(loaded.pages);
  const pages = loaded.pages.map((p) => ({ url: p.url, lang: p.lang, stored: p.stored }));
  const qs = queries.map((q) => q.q);
  const node = await searchAll(pages, qs, NOW, RESULT_LIMIT);
  const firefox = await firefoxPage.searchAll(pages, qs, NOW, RESULT_LIMIT);
  const inNode = node.shown;
  const inFirefox = firefox.shown;
  // Time in each runtime: the index built, and searches by the query's script (CJK: a character of an unspaced script).
  const cjk = (q: string) => /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\u0e00-\u0e7f]/.test(q);
  for (const [who, r] of [['Node', node], ['Firefox', firefox]] as const) {
    const ms = (pick: (q: string) => boolean) => r.searchMs.filter((_, i) => pick(qs[i]!)).sort((a, b) => a - b);
    const [c, l] = [ms(cjk), ms((q) => !cjk(q))];
    const at = (xs: number[], p: number) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor(p * xs.length))]!.toFixed(1) : '–');
    timing.push({ corpus: name, runtime: who, sections: pages.reduce((n, p) => n + (p.stored?.chunks.length ?? 0), 0), indexMs: Math.round(r.indexMs), cjk: `${at(c, 0.5)} / ${at(c, 0.95)} (${c.length})`, other: `${at(l, 0.5)} / ${at(l, 0.95)} (${l.length})` });
  }
  const prefix = pageUrl(def, '');
  const score = (shown: Shown0[][]): QueryScore[] => queries.map((q, i) => judge(q, shown[i]!.map((s) => ({ file: s.url.slice(prefix.length), href: s.href })), look));
  const sNode = score(inNode);
  const sFirefox = score(inFirefox);
  const same = (i: number) => JSON.stringify(inNode[i]!.slice(0, 10)) === JSON.stringify(inFirefox[i]!.slice(0, 10));
  const langs = [...new Set(queries.map((q) => q.lang))].sort();
  for (const cls of [...new Set(queries.map((q) => q.class))]) {
    for (const lang of [...langs, 'all']) {
      const ix = queries.flatMap((q, i) => (q.class === cls && (lang === 'all' || q.lang === lang) ? [i] : []));
      if (!ix.length || (lang === 'all' && langs.length === 1)) continue;
      const hits = (s: QueryScore[]) => {
        const h = ix.map((i) => s[i]!.sectionHit1).filter((x): x is number => x !== null);
        return h.length ? mean(h) : null;
      };
      rows.push({
        corpus: name + (isHeldOut(name) ? '*' : ''),
        cls,
        lang,
        n: ix.length,
        node: mean(ix.map((i) => sNode[i]!.ndcg10)),
        firefox: mean(ix.map((i) => sFirefox[i]!.ndcg10)),
        nodeHit: hits(sNode),
        firefoxHit: hits(sFirefox),
        differ: ix.filter((i) => !same(i)).length,
        won: ix.filter((i) => sFirefox[i]!.ndcg10 > sNode[i]!.ndcg10 + 1e-9).length,
        lost: ix.filter((i) => sFirefox[i]!.ndcg10 < sNode[i]!.ndcg10 - 1e-9).length,
      });
    }
  }
  if (!isHeldOut(name)) {
    const show = (opt('show') ?? '').split(',');
    queries.forEach((q, i) => {
      if (show.includes(q.id)) {
        for (const [who, list] of [['Node', inNode[i]!], ['Firefox', inFirefox[i]!]] as const) {
          process.stderr.write(`${q.id} ${who}: ${list.length} results\n${list.slice(0, 5).map((s) => '  ' + s.href.slice(prefix.length)).join('\n')}\n`);
        }
      }
      if (Math.abs(sFirefox[i]!.ndcg10 - sNode[i]!.ndcg10) > 1e-9 || sFirefox[i]!.sectionHit1 !== sNode[i]!.sectionHit1)
        differing.push(`${q.id} [${q.lang}] ${JSON.stringify(q.q)}: nDCG Node ${sNode[i]!.ndcg10.toFixed(3)} Firefox ${sFirefox[i]!.ndcg10.toFixed(3)}; § Node ${sNode[i]!.sectionHit1} Firefox ${sFirefox[i]!.sectionHit1}`);
    });
  }
}
await firefoxPage.close();

const f3 = (x: number | null) => (x === null ? '–' : x.toFixed(3));
console.log(`Lexical lane, Firefox (${version}) against Node ${process.version}: nDCG@10 and section hit@1; differ = top ten not identical; won/lost = Firefox's nDCG above/below Node's`);
console.log('| corpus | class | lang | n | nDCG Node | nDCG Firefox | § Node | § Firefox | differ | won / lost |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) console.log(`| ${r.corpus} | ${r.cls} | ${r.lang} | ${r.n} | ${f3(r.node)} | ${f3(r.firefox)} | ${f3(r.nodeHit)} | ${f3(r.firefoxHit)} | ${r.differ} | ${r.won} / ${r.lost} |`);
console.log(`\nTime, one runtime after the other on the same machine, ms (indicative: each runtime's first searches include its warm-up, and the machine's load varies):`);
console.log('| corpus | runtime | sections | index built | search median / p95, Japanese or Chinese (n) | search median / p95, other (n) |');
console.log('|---|---|---|---|---|---|');
for (const t of timing) console.log(`| ${t.corpus} | ${t.runtime} | ${t.sections} | ${t.indexMs} | ${t.cjk} | ${t.other} |`);
if (differing.length) console.log('\nQueries whose score differs (tuning corpora):\n' + differing.join('\n'));
const out = opt('out');
if (out) fs.writeFileSync(out, JSON.stringify({ firefox: version, node: process.version, rows, timing, differing }, null, 1));
