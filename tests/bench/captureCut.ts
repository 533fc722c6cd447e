/**
 * What a capture costs the worker before it writes, side by side in one run, in Chromium's service
 * worker with the built extension (dist/chrome): the background cutting the blocks itself (what it did
 * before issue 19, and still does for a capture without sections) against checking the sections the
 * page cut (src/validate.ts validateSections), over the Python manual and synthetic pages.
 *   npm run build && node --import tsx tests/bench/captureCut.ts [--pages=200] [--out=bench/results/capture-cut.json]
 * Per page, each way runs 5 times, interleaved; the median is the page's cost. Prints a table and JSON.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { CapturePayload } from '../../src/protocol.js';
import { cutSections } from '../../src/sections.js';
import { launch, until } from '../e2e/harness.js';
import { makeVocabulary, pythonPages, ROOT, synthPages, toPayload } from './corpus.js';

const arg = (name: string, dflt: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const n = Number(arg('pages', '200'));
const out = resolve(ROOT, arg('out', 'bench/results/capture-cut.json'));

interface Timing {
  /** validateCapture of blocks only, then chunkBlocks: the worker before (and its fallback). */
  cut: number;
  /** validateCapture of blocks + sections: the worker now. */
  check: number;
  chars: number;
  sections: number;
}

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] ?? NaN;
};
const r2 = (x: number) => Math.round(x * 100) / 100;

async function corpus(name: string): Promise<CapturePayload[]> {
  if (name === 'python') {
    const all = await pythonPages();
    const step = Math.max(1, Math.floor(all.length / n));
    return all.filter((_, i) => i % step === 0).slice(0, n).map((p) => ({ title: p.title, lang: 'en', blocks: p.blocks }));
  }
  return synthPages(makeVocabulary(11), 12, n * 21).slice(0, n).map((p) => toPayload(p));
}

const load = [loadavg()[0]!];
const ext = await launch();
const results: Record<string, { pages: number; cut: Record<string, number>; check: Record<string, number>; totalRatio: number }> = {};
try {
  await until(() => ext.evalSw<number>('engine.stats().then((s) => s.pages + 1)').catch(() => 0), 'the worker');
  for (const name of ['python', 'synthetic']) {
    const pages = await corpus(name);
    const timings: Timing[] = [];
    for (let i = 0; i < pages.length; i += 10) {
      // The payloads as a content script sends them: blocks, and the sections it cut from them.
      const batch = await Promise.all(pages.slice(i, i + 10).map(async (p) => {
        const c = await cutSections(p.blocks);
        return { blocksOnly: { title: p.title, lang: p.lang, blocks: c.blocks }, withSections: { title: p.title, lang: p.lang, blocks: c.blocks, sections: c.sections, chunker: c.chunker } };
      }));
      const got = await ext.evalSw<Timing[]>(
        `(async (batch) => {
          const { chunkBlocks, validateCapture } = globalThis.rereadDebug.cut;
          const med = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
          const out = [];
          for (const p of batch) {
            const cut = [], check = [];
            for (let r = 0; r < 5; r++) {
              let t = performance.now();
              chunkBlocks(validateCapture(structuredClone(p.blocksOnly)).payload.blocks);
              cut.push(performance.now() - t);
              t = performance.now();
              const v = validateCapture(structuredClone(p.withSections)).payload;
              if (!v.sections) throw new Error('sections were not accepted');
              check.push(performance.now() - t);
            }
            out.push({ cut: med(cut), check: med(check), chars: p.blocksOnly.blocks.reduce((n, b) => n + b.text.length, 0), sections: p.withSections.sections.length });
          }
          return out;
        })(${JSON.stringify(batch)})`,
      );
      timings.push(...got);
    }
    const cut = timings.map((t) => t.cut);
    const check = timings.map((t) => t.check);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    results[name] = {
      pages: timings.length,
      cut: { median: r2(q(cut, 0.5)), p95: r2(q(cut, 0.95)), max: r2(Math.max(...cut)), total: r2(sum(cut)) },
      check: { median: r2(q(check, 0.5)), p95: r2(q(check, 0.95)), max: r2(Math.max(...check)), total: r2(sum(check)) },
      totalRatio: r2(sum(check) / sum(cut)),
    };
  }
} finally {
  await ext.close();
}
load.push(loadavg()[0]!);

console.log(`\nWorker cost of a capture before its write (ms per page; median of 5 runs each, interleaved), Chromium service worker`);
console.log(`load average (1 min) start / end: ${load.map(r2).join(' / ')} on ${availableParallelism()} cores\n`);
console.log('corpus      pages  cut by the worker (median / p95 / max / total)   check the page\'s sections (median / p95 / max / total)   check / cut');
for (const [name, r] of Object.entries(results)) {
  const f = (x: Record<string, number>) => `${x.median} / ${x.p95} / ${x.max} / ${x.total}`.padEnd(44);
  console.log(`${name.padEnd(11)} ${String(r.pages).padStart(5)}  ${f(r.cut)}      ${f(r.check)}              ${r.totalRatio}`);
}
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ generatedAt: new Date().toISOString(), load, cores: availableParallelism(), results }, null, 1));
console.log(`\nwrote ${join('bench/results', out.split('bench/results/')[1] ?? out)}`);
