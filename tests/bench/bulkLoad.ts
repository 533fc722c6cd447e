/**
 * Bulk load for the browser benchmarks. Capturing page by page and letting the background merge the
 * segments is the product's path, but 50,000 pages (a million sections) that way would take hours
 * here. Instead the records the product would hold for those pages once captured and fully merged are
 * built in Node with the product's own functions — the chunker, pageStore.sectionPostings, the posting codec
 * (appendToBlock / blockValue: blocks fill as merges fill them, full but for each term's last),
 * sections.pageJson deflated (zlib's deflate-raw, the format CompressionStream writes) as a format-2 record, vectorStore's
 * vectorRecords — and written into the extension's IndexedDB from an extension page, a batch per
 * transaction. The last pages of each phase go through engine.capture: that is where the write path is
 * measured. verifyIndex (in the 52k run) checks that what was written is what the product would store.
 */
import { deflateRawSync } from 'node:zlib';
import type { Page } from 'playwright';
import { chunkBlocks, CHUNKER_VERSION, countWords } from '../../src/chunker.js';
import { hashHex } from '../../src/hash.js';
import { siteOf } from '../../src/url.js';
import { TOKENIZER } from '../../src/indexing.js';
import { appendToBlock, blockValue, type EncodedBlock } from '../../src/postings.js';
import { sectionPostings } from '../../background/pageStore.js';
import { vectorRecords, COARSE_BLOCK } from '../../background/vectorStore.js';
import { oneStream, pageJson } from '../../background/sections.js';
import { currentIndexVersion, INDEX_VERSION_KEY } from '../../background/indexVersion.js';
import { LOG_PREFIX } from '../../background/pageLog.js';
import type { PageRecord, StatsRecord } from '../../background/db.js';
import { normalize, quantize } from '../../src/vectors.js';
import { Rng } from './rng.js';
import { toPayload, type SynthPage } from './corpus.js';

interface OpenList {
  ids: number[];
  tfs: number[];
}

/** One transaction's worth of records. */
export interface Batch {
  pages: PageRecord[];
  /** Each page's sections record: sections, and the blocks they were cut from (kept to re-cut), in one format-2 stream. */
  sections: { url: string; z: Uint8Array }[];
  terms: [string, number][];
  blocks: { key: [number, number]; value: Uint8Array }[];
  /** Section text characters in the batch (for bytes ÷ text). */
  textChars: number;
  chunks: number;
}

const emptyBatch = (): Batch => ({ pages: [], sections: [], terms: [], blocks: [], textChars: 0, chunks: 0 });

/**
 * The index as captures followed by merges would leave it, built page by page: each term's postings
 * accumulate until a block is full (BLOCK_SIZE, as appendToBlock cuts them), then the block is emitted;
 * `finish` emits every term's last, partial block.
 */
export class BulkIndex {
  nextChunkId = 1;
  private nextTermId = 1;
  private readonly termIds = new Map<string, number>();
  private readonly open = new Map<number, OpenList>();
  N = 0;
  totalLength = 0;
  pages = 0;
  private nextSeq = 1;

  constructor(firstChunkId = 1) {
    this.nextChunkId = firstChunkId;
  }

  add(pages: readonly SynthPage[]): Batch {
    const out = emptyBatch();
    for (const p of pages) {
      const payload = toPayload(p);
      const { chunks } = chunkBlocks(payload.blocks);
      const words = chunks.reduce((n, c) => n + countWords(c.text), 0);
      const hash = hashHex(payload.title + '\u0000' + chunks.map((c) => c.text).join('\u0000'));
      const ids: number[] = [];
      const lens: number[] = [];
      for (const c of chunks) {
        const id = this.nextChunkId++;
        const sp = sectionPostings(payload.title, c, TOKENIZER);
        ids.push(id);
        lens.push(sp.len);
        for (const [t, tf] of sp.tfs) {
          let tid = this.termIds.get(t);
          if (tid === undefined) {
            tid = this.nextTermId++;
            this.termIds.set(t, tid);
            out.terms.push([t, tid]);
          }
          let l = this.open.get(tid);
          if (!l) this.open.set(tid, (l = { ids: [], tfs: [] }));
          l.ids.push(id);
          l.tfs.push(tf);
          if (l.ids.length === 512) {
            out.blocks.push(this.block(tid, l));
            this.open.delete(tid);
          }
        }
        out.textChars += c.text.length;
      }
      this.N += ids.length;
      this.totalLength += lens.reduce((a, b) => a + b, 0);
      this.pages++;
      out.chunks += ids.length;
      out.pages.push({ url: p.url, site: siteOf(p.url), title: payload.title, lang: payload.lang, firstVisit: p.date, lastVisit: p.date, visitCount: 1, hash, chunkIds: ids, words, lens });
      if (ids.length) out.sections.push({ url: p.url, z: oneStream(deflateRawSync(pageJson(chunks, payload.blocks))) });
    }
    return out;
  }

  private block(tid: number, l: OpenList): { key: [number, number]; value: Uint8Array } {
    const [b] = appendToBlock(undefined, l.ids.map((id, i) => ({ id, tf: l.tfs[i]!, len: 0 }))) as [EncodedBlock];
    return { key: [tid, b.first], value: blockValue(b) };
  }

  /** Every term's last block, and the statistics (written last: until then the database is not whole). */
  finish(): { blocks: Batch['blocks']; stats: StatsRecord; termIdsNext: number } {
    const blocks = [...this.open].map(([tid, l]) => this.block(tid, l));
    this.open.clear();
    return { blocks, stats: { N: this.N, totalLength: this.totalLength, nextChunkId: this.nextChunkId, nextSeq: this.nextSeq }, termIdsNext: this.nextTermId };
  }

  /**
   * Goes on after the extension itself wrote to the database (pages captured and merged at a
   * checkpoint): its statistics, the ids it used, and the terms its merges added to the dictionary.
   */
  resume(s: { N: number; totalLength: number; nextChunkId: number; nextSeq?: number; terms: [string, number][]; next: number }): void {
    this.N = s.N;
    this.totalLength = s.totalLength;
    this.nextChunkId = s.nextChunkId;
    this.nextSeq = s.nextSeq ?? this.nextSeq;
    for (const [t, id] of s.terms) this.termIds.set(t, id);
    this.nextTermId = Math.max(this.nextTermId, s.next);
  }

  get terms(): number {
    return this.termIds.size;
  }

  get termIdsNext(): number {
    return this.nextTermId;
  }
}

/** page.evaluate with a deadline: a write that never completes fails the run with a reason, not a hang. */
async function evaluateWithin(page: Page, expr: string, what: string, ms = 300_000): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([page.evaluate(expr), new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer in ${ms / 1000} s`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** Bytes in one base64 string plus lengths: one JSON string instead of thousands of small ones. */
function pack(values: readonly Uint8Array[]): { b64: string; lens: number[] } {
  const total = values.reduce((n, v) => n + v.length, 0);
  const buf = Buffer.allocUnsafe(total);
  let o = 0;
  for (const v of values) {
    buf.set(v, o);
    o += v.length;
  }
  return { b64: buf.toString('base64'), lens: values.map((v) => v.length) };
}

const WRITE = `async ({ pages, sections, terms, blockKeys, blocks, meta }) => {
  const unpack = ({ b64, lens }) => { const s = atob(b64); const all = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) all[i] = s.charCodeAt(i); const out = []; let o = 0; for (const n of lens) { out.push(all.slice(o, o + n)); o += n; } return out; };
  const db = await new Promise((res, rej) => { const r = indexedDB.open('reread'); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); r.onblocked = () => rej(new Error('open blocked')); });
  const tx = db.transaction(['pages', 'sections', 'terms', 'postings', 'meta'], 'readwrite');
  // As the product's putPage does: each page written is logged for the page table's snapshot (background/pageLog.ts).
  for (const p of pages) { tx.objectStore('pages').put(p); tx.objectStore('meta').put(1, '${LOG_PREFIX}' + p.url); }
  const zs = unpack(sections.z);
  sections.urls.forEach((url, i) => tx.objectStore('sections').put({ url, z: zs[i], cv: sections.cv }));
  for (const [t, id] of terms) tx.objectStore('terms').put(id, t);
  const values = unpack(blocks);
  blockKeys.forEach((k, i) => tx.objectStore('postings').put(values[i], k));
  for (const [k, v] of meta) tx.objectStore('meta').put(v, k);
  await new Promise((res, rej) => { tx.oncomplete = res; tx.onerror = () => rej(tx.error); tx.onabort = () => rej(tx.error); });
  db.close();
}`;

/** Writes a batch (and meta records) from an extension page, in one transaction. */
export async function writeBatch(page: Page, batch: Pick<Batch, 'pages' | 'sections' | 'terms' | 'blocks'>, meta: [string, unknown][] = []): Promise<void> {
  const arg = {
    pages: batch.pages,
    sections: { urls: batch.sections.map((s) => s.url), z: pack(batch.sections.map((s) => s.z)), cv: CHUNKER_VERSION },
    terms: batch.terms,
    blockKeys: batch.blocks.map((b) => b.key),
    blocks: pack(batch.blocks.map((b) => b.value)),
    meta,
  };
  await evaluateWithin(page, `(${WRITE})(${JSON.stringify(arg)})`, `writing ${batch.pages.length} pages, ${batch.blocks.length} blocks`);
}

/** The final records of a bulk load: the last blocks, statistics, term-id counter, index version. */
export async function finishLoad(page: Page, index: BulkIndex): Promise<void> {
  const { blocks, stats, termIdsNext } = index.finish();
  for (let i = 0; i < blocks.length; i += 20_000) {
    const last = i + 20_000 >= blocks.length;
    await writeBatch(page, { pages: [], sections: [], terms: [], blocks: blocks.slice(i, i + 20_000) }, last ? [['stats', stats], ['termIds', { next: termIdsNext }], [INDEX_VERSION_KEY, currentIndexVersion()]] : []);
  }
}

const WRITE_VECTORS = `async ({ records, codes }) => {
  const s = atob(codes.b64); const all = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) all[i] = s.charCodeAt(i);
  const db = await new Promise((res, rej) => { const r = indexedDB.open('reread'); r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error); r.onblocked = () => rej(new Error('open blocked')); });
  const tx = db.transaction(['vectors'], 'readwrite');
  let o = 0;
  records.forEach((r, i) => {
    const n = codes.lens[i];
    tx.objectStore('vectors').put({ m: r.m, f: r.f, dim: r.dim, ids: Uint32Array.from(r.ids), codes: new Int8Array(all.slice(o, o + n).buffer), scales: Float32Array.from(r.scales) });
    o += n;
  });
  await new Promise((res, rej) => { tx.oncomplete = res; tx.onerror = () => rej(tx.error); tx.onabort = () => rej(tx.error); });
  db.close();
}`;

/**
 * Vectors for these chunk ids as the product stores them: random unit vectors (latency and bytes do
 * not depend on the values, and embedding a million sections here would take hours), quantised by
 * src/vectors.ts quantize, laid out by background/vectorStore.ts vectorRecords (exact blocks and coarse
 * sign-bit blocks, the records storeVectors writes), put from an extension page in batches aligned to
 * the coarse blocks. Returns the time and the records written by kind.
 */
export async function writeVectors(page: Page, model: string, dim: number, ids: readonly number[], seed = 7): Promise<{ ms: number; exactRecords: number; coarseRecords: number }> {
  const t0 = performance.now();
  const rng = new Rng(seed);
  const v = new Float64Array(dim);
  const sorted = [...ids].sort((a, b) => a - b);
  let exactRecords = 0;
  let coarseRecords = 0;
  // Slices of whole coarse blocks (COARSE_BLOCK ids), about 20,000 vectors each.
  let i = 0;
  while (i < sorted.length) {
    const limit = sorted[i]! - (sorted[i]! % COARSE_BLOCK) + COARSE_BLOCK * Math.max(1, Math.floor(20_000 / COARSE_BLOCK));
    const entries = [];
    while (i < sorted.length && sorted[i]! < limit) {
      for (let d = 0; d < dim; d++) v[d] = rng.normal();
      const q = quantize(normalize(v)!);
      entries.push({ id: sorted[i++]!, codes: q.codes, scale: q.scale });
    }
    const records = vectorRecords(model, dim, entries);
    for (const r of records) if (r.m === model) exactRecords++;
    else coarseRecords++;
    const codes = pack(records.map((r) => new Uint8Array(r.codes.buffer, r.codes.byteOffset, r.codes.byteLength)));
    const wire = records.map((r) => ({ m: r.m, f: r.f, dim: r.dim, ids: Array.from(r.ids), scales: Array.from(r.scales) }));
    await evaluateWithin(page, `(${WRITE_VECTORS})(${JSON.stringify({ records: wire, codes })})`, `writing ${records.length} vector records`);
  }
  return { ms: performance.now() - t0, exactRecords, coarseRecords };
}
