/**
 * Bulk load for the browser part. Capturing page by page costs about a second a page in the worker on
 * this machine (see the report), so 50,000 chunks through engine.capture would take most of an hour.
 * Instead most pages are written straight into the extension's database from an extension page, as
 * engine.capture would store them (pages and chunks records, built here with the same src/ functions),
 * and the product's own repair (`verify` with repair: true, background/verify.ts) then builds the
 * postings and corpus statistics from the chunks. The rest of the pages go through engine.capture, and
 * that is where build throughput is measured.
 */
import type { Page } from 'playwright';
import { chunkBlocks, countWords } from '../../src/chunker.js';
import { hashHex } from '../../src/hash.js';
import { siteOf } from '../../src/url.js';
import { indexSection, TOKENIZER } from '../../src/indexing.js';
import { vectorRecords } from '../../background/vectorStore.js';
import { normalize, quantize } from '../../src/vectors.js';
import { Rng } from './rng.js';
import type { ChunkRecord, PageRecord } from '../../background/db.js';
import { toPayload, type SynthPage } from './corpus.js';

export interface Records {
  pages: PageRecord[];
  chunks: ChunkRecord[];
  nextChunkId: number;
}

/** What Engine.captureInner + pageStore.writePage store for these pages (dense lane off, first visits). */
export function recordsFor(pages: readonly SynthPage[], firstId = 1): Records {
  let next = firstId;
  const outPages: PageRecord[] = [];
  const outChunks: ChunkRecord[] = [];
  for (const p of pages) {
    const payload = toPayload(p);
    const { chunks } = chunkBlocks(payload.blocks);
    const words = chunks.reduce((n, c) => n + countWords(c.text), 0);
    const hash = hashHex(payload.title + '\u0000' + chunks.map((c) => c.text).join('\u0000'));
    const ids: number[] = [];
    for (const c of chunks) {
      const id = next++;
      ids.push(id);
      const len = indexSection(payload.title, c, TOKENIZER).len;
      outChunks.push({ id, url: p.url, ord: c.ord, headingPath: c.headingPath, section: c.section, anchor: c.anchor, text: c.text, len });
    }
    outPages.push({ url: p.url, site: siteOf(p.url), title: payload.title, lang: payload.lang, firstVisit: p.date, lastVisit: p.date, visitCount: 1, hash, chunkIds: ids, words });
  }
  return { pages: outPages, chunks: outChunks, nextChunkId: next };
}

const WRITE = `async ({ pages, chunks, stats }) => {
  const db = await new Promise((res, rej) => { const r = indexedDB.open('reread'); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  const tx = db.transaction(['pages', 'chunks', 'meta'], 'readwrite');
  for (const p of pages) tx.objectStore('pages').put(p);
  for (const c of chunks) tx.objectStore('chunks').put(c);
  if (stats) {
    tx.objectStore('meta').put(stats, 'stats');
    // The records carry their text as schema v1 did: mark them for the product's v1 -> v2 text pass.
    tx.objectStore('meta').put({ after: '' }, 'migration');
  }
  await new Promise((res, rej) => { tx.oncomplete = res; tx.onerror = () => rej(tx.error); tx.onabort = () => rej(tx.error); });
  db.close();
}`;

/** Writes the records from an extension page in batches, then runs the product's repair. */
export async function writeAndRepair(page: Page, rec: Records, log: (s: string) => void, migrate: () => Promise<void>): Promise<{ writeMs: number; repairMs: number; report: { ok: boolean; problems: string[]; checked: unknown } }> {
  const t0 = performance.now();
  const perBatch = 2000;
  let ci = 0;
  for (let pi = 0; pi < rec.pages.length; ) {
    const pages: PageRecord[] = [];
    const chunks: ChunkRecord[] = [];
    while (pi < rec.pages.length && chunks.length < perBatch) {
      const p = rec.pages[pi++]!;
      pages.push(p);
      for (let k = 0; k < p.chunkIds.length; k++) chunks.push(rec.chunks[ci++]!);
    }
    const last = pi >= rec.pages.length;
    // Stats: repair recomputes N and total length; nextChunkId must already be above every id.
    await page.evaluate(`(${WRITE})(${JSON.stringify({ pages, chunks, stats: last ? { N: 0, totalLength: 0, nextChunkId: rec.nextChunkId } : null })})`);
  }
  // The product's own migration compresses the texts into per-page records (background/chunkText.ts).
  await migrate();
  const writeMs = performance.now() - t0;
  log(`  wrote ${rec.pages.length} pages, ${rec.chunks.length} chunks in ${Math.round(writeMs)} ms; repairing (builds postings)…`);
  const t1 = performance.now();
  const report = (await page.evaluate(`chrome.runtime.sendMessage({ type: 'verify', payload: { repair: true } })`)) as { ok: boolean; data?: { ok: boolean; problems: string[]; checked: unknown }; error?: { message: string } };
  if (!report.ok || !report.data) throw new Error(`repair failed: ${report.error?.message ?? 'no answer'}`);
  return { writeMs, repairMs: performance.now() - t1, report: report.data };
}

const WRITE_VECTORS = `async (records) => {
  const bytes = (b64) => { const s = atob(b64); const u = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i); return u; };
  const db = await new Promise((res, rej) => { const r = indexedDB.open('reread'); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); });
  const tx = db.transaction(['vectors'], 'readwrite');
  for (const r of records) {
    tx.objectStore('vectors').put({ m: r.m, f: r.f, dim: r.dim, ids: Uint32Array.from(r.ids), codes: new Int8Array(bytes(r.codes).buffer), scales: Float32Array.from(r.scales) });
  }
  await new Promise((res, rej) => { tx.oncomplete = res; tx.onerror = () => rej(tx.error); tx.onabort = () => rej(tx.error); });
  db.close();
}`;

/**
 * Vectors for these chunk ids as the product stores them: random unit vectors (latency and bytes do
 * not depend on the values, and embedding 50,000 sections here would take longer than the whole
 * benchmark), quantised by src/vectors.ts quantize, laid out by background/vectorStore.ts
 * vectorRecords (exact blocks and coarse sign-bit blocks, the records storeVectors writes), put from
 * an extension page in batches. Returns the time and the records written by kind.
 */
export async function writeVectors(page: Page, model: string, dim: number, ids: readonly number[]): Promise<{ ms: number; exactRecords: number; coarseRecords: number }> {
  const t0 = performance.now();
  const rng = new Rng(7);
  const v = new Float64Array(dim);
  const entries = [...ids]
    .sort((a, b) => a - b)
    .map((id) => {
      for (let d = 0; d < dim; d++) v[d] = rng.normal();
      const q = quantize(normalize(v)!);
      return { id, codes: q.codes, scale: q.scale };
    });
  const records = vectorRecords(model, dim, entries);
  const wire = records.map((r) => ({ m: r.m, f: r.f, dim: r.dim, ids: Array.from(r.ids), codes: Buffer.from(r.codes.buffer, r.codes.byteOffset, r.codes.byteLength).toString('base64'), scales: Array.from(r.scales) }));
  let exactRecords = 0;
  for (const r of records) if (r.m === model) exactRecords++;
  for (let i = 0; i < wire.length; i += 500) await page.evaluate(`(${WRITE_VECTORS})(${JSON.stringify(wire.slice(i, i + 500))})`);
  return { ms: performance.now() - t0, exactRecords, coarseRecords: records.length - exactRecords };
}
