/**
 * `npm run eval:offtopic`: how many of the everyday questions of `offtopic-queries.json` (40, written for
 * the dense lane's floor; none is about any corpus) the lexical lane answers with results, on each TUNING
 * corpus (held-out ones are refused, as in eval:explain), under each named what-if of the lexical options.
 * The eval's own off-topic class has 6 questions a corpus; this is the wider reading of the same promise
 * ("an off-topic question gets no results"), 40 × 15 corpora.
 *
 *   npm run eval:offtopic
 *   npm run eval:offtopic -- --config 'shipped={}' --config 'strict={"minCoverage":0.4}' --corpus python,git -v
 *
 * `-v` lists each answered question with its result count and the first result's matched words.
 */
import { DEFAULT_LEXICAL, search, type LexicalOptions } from '../../src/search.js';
import { DEFAULT_SETTINGS } from '../../src/settings.js';
import { loadCorpus } from './lib/capture.js';
import { CORPORA, corpus, isHeldOut } from './lib/corpora.js';
import { RESULT_LIMIT } from './lib/evaluate.js';
import { memorySource, MemoryIndex } from './lib/memorySource.js';
import { table } from './lib/table.js';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const NOW = Date.UTC(2026, 5, 1);
const argv = process.argv.slice(2);
const one = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const configs = argv
  .flatMap((a, i) => (a === '--config' && argv[i + 1] !== undefined ? [argv[i + 1]!] : []))
  .map((s) => ({ name: s.slice(0, s.indexOf('=')), lexical: JSON.parse(s.slice(s.indexOf('=') + 1)) as Partial<LexicalOptions> }));
if (!configs.length) configs.push({ name: 'shipped', lexical: {} });
const names = one('--corpus')?.split(',') ?? CORPORA.filter((c) => !c.heldOut).map((c) => c.name);
const verbose = argv.includes('-v');
const file = path.join(path.dirname(fileURLToPath(import.meta.url)), 'offtopic-queries.json');
const questions = (JSON.parse(fs.readFileSync(file, 'utf8')) as { offtopic: string[] }).offtopic;

const rows: string[][] = [];
const totals = configs.map(() => 0);
for (const name of names) {
  const def = corpus(name);
  if (isHeldOut(def.name)) throw new Error(`${def.name} is held out: it is never looked at query by query`);
  const idx = new MemoryIndex((await loadCorpus(def)).pages);
  const src = memorySource(idx, null, { lane: 'lexical', settings: DEFAULT_SETTINGS });
  const row: string[] = [def.name];
  for (const [c, config] of configs.entries()) {
    let answered = 0;
    for (const q of questions) {
      const res = await search(src, { q, limit: RESULT_LIMIT }, { now: NOW, lexical: { ...DEFAULT_LEXICAL, ...config.lexical } });
      if (!res.results.length) continue;
      answered++;
      if (verbose) console.log(`  ${config.name} ${def.name}: ${res.results.length} results for "${q}" (first matched: ${res.results[0]!.whyMatched.join(' ')})`);
    }
    totals[c]! += answered;
    row.push(`${answered} / ${questions.length}`);
  }
  rows.push(row);
}
rows.push(['all', ...totals.map((t) => `${t} / ${questions.length * names.length}`)]);
console.log(`off-topic questions answered with results (lexical lane; fewer is better) — ${configs.map((c) => `${c.name}=${JSON.stringify(c.lexical)}`).join('; ')}`);
console.log(table(['corpus', ...configs.map((c) => c.name)], rows, ['l']));
