/**
 * `node --expose-gc --import tsx tests/bench/lanePhases.ts [size|python] [queries] [--rounds=3] [--against=DIR,...]`:
 * where the lexical lane's time goes, phase by phase (src/search.ts lexicalSearch's marks: postings,
 * typos, plan, BM25F top-k, coverage, proximity's section reads, proximity and heading rescoring), on
 * the benchmark's synthetic corpus and queries (as `npm run bench -- lexical` and laneProfile.ts), with
 * the plain floor at k 90 interleaved for the ratio. `--against` adds other trees' lanes (e.g. main's
 * `git archive main src | tar -x -C DIR`), interleaved query by query: their
 * totals only (every lane's total is timed without marks; this tree's phases in a run of their own).
 */
import { queryTerms } from '../../src/tokenizer.js';
import { lexicalSearch } from '../../src/search.js';
import { TypedTopK } from './lexical/plain.js';
import { laneCorpus } from './laneSetup.js';
import { dist, gc, ms, now } from './report.js';

const argv = process.argv.slice(2);
const opt = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const positional = argv.filter((a) => !a.startsWith('--'));
const python = positional[0] === 'python';
const size = python ? 0 : Number(positional[0] ?? 100_000);
const nQ = Number(positional[1] ?? 400);
const rounds = Number(opt('rounds') ?? 3);
const against = (opt('against') ?? '').split(',').filter(Boolean);
type Lane = typeof lexicalSearch;
const lanes: [string, Lane][] = [['this', lexicalSearch]];
for (const dir of against) lanes.push([dir, ((await import(`${dir}/src/search.ts`)) as { lexicalSearch: Lane }).lexicalSearch]);

const { docs, floor, qs, source } = await laneCorpus(python, size, nQ);
const heap90 = new TypedTopK(90);
const PHASES = ['postingsAt', 'typosAt', 'planAt', 'bm25At', 'coverageAt', 'proximityReadAt', 'proximityAt'];
// Totals are timed without marks (timing each phase costs a little); the phases in a separate run of
// this tree's lane, interleaved with the others.
const names = ['floor90', ...lanes.map(([n]) => n), 'this (phases)'];
const totals: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
const phases: Record<string, number[]> = Object.fromEntries([...PHASES, 'end'].map((p) => [p, []]));

async function runOne(n: string, i: number, record: boolean): Promise<void> {
  const q = qs[i]!.text;
  if (n === 'floor90') {
    const t = now();
    floor.search(queryTerms(q), heap90).map((h) => h.id);
    if (record) totals[n]!.push(now() - t);
    return;
  }
  if (n !== 'this (phases)') {
    const lane = lanes.find(([m]) => m === n)![1];
    const t = now();
    await lane(source, q, 90);
    if (record) totals[n]!.push(now() - t);
    return;
  }
  const at: Record<string, number> = {};
  const t = now();
  await lexicalSearch(source, q, 90, { mark: (p: string) => (at[p] = now()) });
  const end = now();
  if (!record) return;
  totals[n]!.push(end - t);
  // Each phase's time since the previous mark that fired (a phase that did not run counts 0).
  let prev = t;
  for (const p of [...PHASES, 'end']) {
    const x = p === 'end' ? end : at[p];
    phases[p]!.push(x === undefined ? 0 : x - prev);
    if (x !== undefined) prev = x;
  }
}

for (let i = 0; i < qs.length; i++) for (const n of names) await runOne(n, i, false);
for (let r = 0; r < rounds; r++) {
  gc();
  for (let i = 0; i < qs.length; i++) for (let j = 0; j < names.length; j++) await runOne(names[(i + r + j) % names.length]!, i, true);
}
const f90 = dist(totals.floor90!);
console.log(`${docs.length} sections, ${qs.length} queries x ${rounds} rounds, interleaved`);
for (const n of names) {
  const d = dist(totals[n]!);
  const mean = totals[n]!.reduce((a, b) => a + b, 0) / totals[n]!.length;
  console.log(`${n.padEnd(24)} median ${ms(d.median)} ms (${(d.median / f90.median).toFixed(2)}x floor90)  p95 ${ms(d.p95)} ms (${(d.p95 / f90.p95).toFixed(2)}x)  mean ${ms(mean)} ms`);
}
console.log('phases of this tree\'s lane (ms: mean, median over all queries):');
for (const p of [...PHASES, 'end']) {
  const xs = phases[p]!;
  console.log(`  ${p.padEnd(16)} mean ${ms(xs.reduce((a, b) => a + b, 0) / xs.length)}  median ${ms(dist(xs).median)}`);
}
