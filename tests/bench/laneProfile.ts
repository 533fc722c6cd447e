/**
 * `node --expose-gc --import tsx tests/bench/laneProfile.ts [size|python] [queries] [--against DIR]`: the
 * lexical lane as search() runs it (k 90) on the benchmark's synthetic corpus (or the Python manual), with and without
 * proximity, by query shape; same corpus, seed and queries as `npm run bench -- lexical` at that size.
 * With `--against DIR` (another commit's tree, e.g. `git archive main src | tar -x -C DIR`), that
 * commit's lane runs too, interleaved query by query with this one: before/after in one run.
 * Run it under `node --cpu-prof` to see where the lane's time goes.
 */
import { lexicalSearch } from '../../src/search.js';
import { DEFAULT_PROXIMITY } from '../../src/proximity.js';
import { laneCorpus } from './laneSetup.js';
import { dist, gc, ms, now } from './report.js';

const argv = process.argv.slice(2);
const against = argv.includes('--against') ? argv[argv.indexOf('--against') + 1]! : null;
const positional = argv.filter((a, i) => !a.startsWith('--') && argv[i - 1] !== '--against');
const python = positional[0] === 'python';
const size = python ? 0 : Number(positional[0] ?? 100_000);
const nQ = Number(positional[1] ?? 400);
type Lane = typeof lexicalSearch;
const base: Lane | null = against ? ((await import(`${against}/src/search.ts`)) as { lexicalSearch: Lane }).lexicalSearch : null;
const { qs, source } = await laneCorpus(python, size, nQ);
gc();
const variants: Record<string, (i: number) => Promise<unknown>> = {
  lane: (i: number) => lexicalSearch(source, qs[i]!.text, 90),
  noProximity: (i: number) => lexicalSearch(source, qs[i]!.text, 90, { lexical: { proximity: { ...DEFAULT_PROXIMITY, candidates: 0 } } }),
  ...(base ? { againstLane: (i: number) => base(source, qs[i]!.text, 90) } : {}),
};
const names = Object.keys(variants);
const run = (n: string, i: number) => variants[n]!(i);
for (let i = 0; i < qs.length; i++) for (const n of names) await run(n, i);
const out: Record<string, number[]> = Object.fromEntries(names.map((n) => [n, []]));
const byKind = new Map<string, number[]>();
for (let r = 0; r < 2; r++) {
  gc();
  for (let i = 0; i < qs.length; i++) {
    for (let j = 0; j < names.length; j++) {
      const n = names[(i + r + j) % names.length]!;
      const t = now();
      await run(n, i);
      const d = now() - t;
      out[n]!.push(d);
      if (n === 'lane' || n === 'againstLane') {
        const words = qs[i]!.text.split(' ').length;
        const k = (n === 'lane' ? '' : 'against: ') + (words < 2 ? '1 word' : qs[i]!.kind.includes('common') ? `${words} words, a common one` : `${words} words, none common`);
        if (!byKind.has(k)) byKind.set(k, []);
        byKind.get(k)!.push(d - 0);
      }
    }
  }
}
for (const n of names) {
  const d = dist(out[n]!);
  console.log(`${n.padEnd(12)} median ${ms(d.median)} ms  p95 ${ms(d.p95)} ms  mean ${ms(out[n]!.reduce((a, b) => a + b, 0) / out[n]!.length)} ms`);
}
for (const [k, v] of [...byKind].sort()) {
  const d = dist(v);
  console.log(`lane, ${k.padEnd(33)} n ${v.length / 2}  median ${ms(d.median)} ms  p95 ${ms(d.p95)} ms`);
}
