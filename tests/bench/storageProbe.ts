/**
 * Capture write time and IndexedDB bytes per page for one build of the extension, in Chromium:
 * pages go through engine.capture in the worker (the real write path), the dense lane embeds them with
 * the bundled model (vectors included), then bytes are read three ways: storage.estimate(), the
 * LevelDB directory on disk, and logical bytes per store (keys + values as stored).
 *   node --import tsx tests/bench/storageProbe.ts --dist=dist/chrome --corpus=python --pages=120
 * Run it for two builds (e.g. before/after a schema change) to compare.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { chunkBlocks } from '../../src/chunker.js';
import type { CapturePayload } from '../../src/protocol.js';
import { launch, until } from '../e2e/harness.js';
import { makeVocabulary, pythonPages, synthPages, toPayload } from './corpus.js';

const arg = (name: string, dflt: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? dflt;
const dist = resolve(arg('dist', 'dist/chrome'));
const corpus = arg('corpus', 'python');
const n = Number(arg('pages', '120'));

let pages: { url: string; payload: CapturePayload }[];
if (corpus === 'python') {
  const all = await pythonPages();
  const step = Math.max(1, Math.floor(all.length / n));
  pages = all.filter((_, i) => i % step === 0).slice(0, n).map((p) => ({ url: `https://docs.python.org/3.11/${p.path}`, payload: { title: p.title, lang: 'en', blocks: p.blocks } }));
} else {
  pages = synthPages(makeVocabulary(11), 12, n * 21).slice(0, n).map((p) => ({ url: p.url, payload: toPayload(p) }));
}
const textChars = pages.reduce((s, p) => s + chunkBlocks(p.payload.blocks).chunks.reduce((m, c) => m + c.text.length, 0), 0);

const ext = await launch({ dist });
try {
  // A worker evaluated the instant it is listed can lack its globals (even setTimeout): retry until up.
  await until(() => ext.evalSw<number>('engine.stats().then((s) => s.pages + 1)').catch(() => 0), 'the worker');
  const perPage: number[] = [];
  for (let i = 0; i < pages.length; i += 10) {
    const slice = pages.slice(i, i + 10);
    const times = await ext.evalSw<number[]>(
      `(async (pages) => { const out = []; for (const p of pages) { const t = performance.now(); await engine.capture(p.url, p.payload, 1700000000000); out.push(performance.now() - t); } return out; })(${JSON.stringify(slice)})`,
    );
    perPage.push(...times);
  }
  await until(async () => (await ext.evalSw<{ pendingEmbeddings: number }>('engine.stats()')).pendingEmbeddings === 0, 'embeddings', 300_000, 1000);
  // Schema 3: segments merged into the main index first (what the background does soon after), so the
  // bytes are those of the index as it stays.
  await ext.evalSw('globalThis.rereadDebug.maintain ? globalThis.rereadDebug.maintain(true) : null');
  const stats = await ext.evalSw<{ pages: number; chunks: number }>('engine.stats()');
  const logical = await ext.evalSw<Record<string, number>>(`(async () => {
    const size = (v) => {
      if (v == null) return 1;
      if (typeof v === 'string') return v.length;
      if (typeof v === 'number' || typeof v === 'boolean') return 8;
      if (ArrayBuffer.isView(v)) return v.byteLength;
      if (Array.isArray(v)) { let n = 0; for (const x of v) n += size(x); return n; }
      let n = 0; for (const k in v) n += k.length + size(v[k]); return n;
    };
    const db = await engine.db();
    const out = {};
    for (const store of db.objectStoreNames) {
      const tx = db.transaction(store);
      const [keys, values] = await Promise.all([tx.store.getAllKeys(), tx.store.getAll()]);
      let bytes = 0;
      for (let i = 0; i < keys.length; i++) bytes += size(keys[i]) + size(values[i]);
      out[store] = bytes;
      // Of the sections store: the blocks kept to re-cut pages (issue 19), counted apart.
      if (store === 'sections') out['sections.b'] = values.reduce((n, v) => n + (v.b ? v.b.byteLength : 0), 0);
    }
    return out;
  })()`);
  const estimate = await ext.evalSw<number>('navigator.storage.estimate().then((e) => e.usage)');
  // The storage-full reserve (storageBudget.ts): random bytes in meta, up to 8 MB whatever the number of
  // pages, so per-page figures are also given without it.
  const reserve = await ext.evalSw<number>(`(async () => { const db = await engine.db(); let n = 0; for (let i = 0; i < 4; i++) { const r = await db.get('meta', 'reserve:' + i); n += r ? r.byteLength : 0; } return n; })()`);
  // Close the worker's connection so LevelDB flushes, then wait for the directory to settle.
  await ext.stopWorker();
  const dir = join(ext.profile, 'Default', 'IndexedDB');
  const du = () => Number(execFileSync('du', ['-sb', dir]).toString().split('\t')[0]);
  let last = -1;
  let disk = du();
  for (let i = 0; i < 15 && disk !== last; i++) {
    last = disk;
    await new Promise((r) => setTimeout(r, 1000));
    disk = du();
  }
  const sorted = [...perPage].sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  const kb = (b: number) => (b / stats.pages / 1024).toFixed(1);
  const total = Object.entries(logical).reduce((a, [k, b]) => a + (k.includes('.') ? 0 : b), 0);
  console.log(JSON.stringify({ dist, corpus, ...stats, textKBPerPage: +(textChars / stats.pages / 1024).toFixed(1), writeMsMedian: +q(0.5).toFixed(1), writeMsP95: +q(0.95).toFixed(1), writeMsMean: +(perPage.reduce((a, b) => a + b, 0) / perPage.length).toFixed(1), estimateKBPerPage: +kb(estimate), diskKBPerPage: +kb(disk), logicalKBPerPage: +kb(total), reserveKB: +(reserve / 1024).toFixed(0), withoutReserve: { estimateKBPerPage: +kb(estimate - reserve), diskKBPerPage: +kb(disk - reserve), logicalKBPerPage: +kb(total - reserve), textRatioEstimate: +((estimate - reserve) / textChars).toFixed(2), textRatioLogical: +((total - reserve) / textChars).toFixed(2) }, logicalKBPerPageByStore: Object.fromEntries(Object.entries(logical).map(([k, v]) => [k, +kb(v)])), estimateBytesPerChunk: Math.round(estimate / stats.chunks), diskBytesPerChunk: Math.round(disk / stats.chunks), files: existsSync(dir) ? readdirSync(dir) : [] }, null, 1));
} finally {
  await ext.close();
}
process.exit(0);
