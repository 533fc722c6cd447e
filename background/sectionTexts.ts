/**
 * The compressed section text store: since schema v2 the texts of a page's sections are one deflate-raw
 * blob in the `texts` store. Every reader of section text goes through chunkTexts, which also accepts v1
 * records (text inline) so that search keeps working while migrateChunkTexts converts an old database
 * in the background.
 */
import type { Block, BlockKind } from '../src/chunker.js';
import { MIGRATION_KEY, type ChunkRecord, type DB, type MigrationRecord, type TextRecord } from './db.js';

async function pipe(bytes: BlobPart, stream: CompressionStream | DecompressionStream): Promise<Response> {
  return new Response(new Blob([bytes]).stream().pipeThrough(stream));
}

/** The texts of one page, in order, as stored: deflate-raw of their JSON array. */
export async function packTexts(texts: readonly string[]): Promise<Uint8Array> {
  return new Uint8Array(await (await pipe(JSON.stringify(texts), new CompressionStream('deflate-raw'))).arrayBuffer());
}

export async function unpackTexts(z: Uint8Array): Promise<string[]> {
  const parsed: unknown = JSON.parse(await (await pipe(z as Uint8Array<ArrayBuffer>, new DecompressionStream('deflate-raw'))).text());
  if (!Array.isArray(parsed) || !parsed.every((t) => typeof t === 'string')) throw new Error('malformed text record');
  return parsed as string[];
}

/**
 * A page's blocks as stored (TextRecord.b): deflate-raw of a JSON array with one entry per block,
 * `[kind, text]`, `[kind, text, id]`; a heading's kind carries its level (`h2`).
 */
const KIND_CODE: Record<BlockKind, string> = { heading: 'h', text: 't', code: 'c', table: 'b', list: 'l', quote: 'q' };
const CODE_KIND = new Map(Object.entries(KIND_CODE).map(([k, c]) => [c, k as BlockKind]));

export async function packBlocks(blocks: readonly Block[]): Promise<Uint8Array> {
  const rows = blocks.map((b) => {
    const kind = KIND_CODE[b.kind] + (b.kind === 'heading' ? String(b.level ?? 2) : '');
    return b.id ? [kind, b.text, b.id] : [kind, b.text];
  });
  return new Uint8Array(await (await pipe(JSON.stringify(rows), new CompressionStream('deflate-raw'))).arrayBuffer());
}

export async function unpackBlocks(z: Uint8Array): Promise<Block[]> {
  const rows: unknown = JSON.parse(await (await pipe(z as Uint8Array<ArrayBuffer>, new DecompressionStream('deflate-raw'))).text());
  if (!Array.isArray(rows)) throw new Error('malformed block record');
  return rows.map((r: unknown) => {
    if (!Array.isArray(r) || typeof r[0] !== 'string' || typeof r[1] !== 'string') throw new Error('malformed block record');
    const kind = CODE_KIND.get(r[0][0] ?? '');
    if (!kind) throw new Error('malformed block record');
    const b: Block = { kind, text: r[1] };
    if (kind === 'heading') b.level = Number(r[0].slice(1)) || 2;
    if (typeof r[2] === 'string') b.id = r[2];
    return b;
  });
}

/**
 * Decompressed texts by chunk id, per database. Ids are never reused, so an entry never goes stale;
 * writes and deletes still forget their chunks (deleted text should not linger in memory).
 */
const CACHE_MAX_CHARS = 4_000_000;
const caches = new WeakMap<DB, { map: Map<number, string>; chars: number }>();

function cacheOf(db: DB) {
  let c = caches.get(db);
  if (!c) caches.set(db, (c = { map: new Map(), chars: 0 }));
  return c;
}

function remember(db: DB, id: number, text: string): void {
  const c = cacheOf(db);
  if (c.map.has(id)) return;
  c.map.set(id, text);
  c.chars += text.length;
  for (const [k, t] of c.map) {
    if (c.chars <= CACHE_MAX_CHARS) break;
    c.map.delete(k);
    c.chars -= t.length;
  }
}

/**
 * Section records by chunk id, per database, beside their texts: what a search reads of its results.
 * Kept in memory so a search reads nothing from IndexedDB for sections it has seen before, and so does
 * not wait for the write transactions in progress (a backfill or an import writes a page after page).
 * A record never changes under its id (ids are never reused); writes and deletes forget their chunks.
 */
const RECORDS_MAX = 20_000;
const recordCaches = new WeakMap<DB, Map<number, ChunkRecord>>();
const forgetGeneration = new WeakMap<DB, number>();

/** The records of these chunks, in order (undefined: no such chunk), from memory where it can. */
export async function chunkRecords(db: DB, ids: readonly number[]): Promise<(ChunkRecord | undefined)[]> {
  let cache = recordCaches.get(db);
  if (!cache) recordCaches.set(db, (cache = new Map()));
  const missing = [...new Set(ids.filter((id) => !cache.has(id)))];
  const read = new Map<number, ChunkRecord>();
  if (missing.length) {
    const gen = forgetGeneration.get(db) ?? 0;
    const tx = db.transaction('chunks');
    const got = await Promise.all(missing.map((id) => tx.store.get(id)));
    // Kept only if no chunk was forgotten meanwhile: the read may predate that delete.
    const keep = recordCaches.get(db) === cache && (forgetGeneration.get(db) ?? 0) === gen;
    got.forEach((c, i) => {
      if (!c) return;
      read.set(missing[i]!, c);
      if (keep) cache.set(c.id, c);
    });
    for (const [k] of cache) {
      if (cache.size <= RECORDS_MAX) break;
      cache.delete(k);
    }
  }
  return ids.map((id) => cache.get(id) ?? read.get(id));
}

export function forgetAllTexts(db: DB): void {
  caches.delete(db);
  recordCaches.delete(db);
  forgetGeneration.set(db, (forgetGeneration.get(db) ?? 0) + 1);
}

export function forgetTexts(db: DB, idList: Iterable<number>): void {
  const ids = [...idList];
  const records = recordCaches.get(db);
  if (ids.length) forgetGeneration.set(db, (forgetGeneration.get(db) ?? 0) + 1);
  for (const id of ids) records?.delete(id);
  const c = caches.get(db);
  if (!c) return;
  for (const id of ids) {
    const t = c.map.get(id);
    if (t === undefined) continue;
    c.map.delete(id);
    c.chars -= t.length;
  }
}

/**
 * The text of each chunk (v1 records inline, v2 from the page's blob; '' where the blob is missing,
 * which verifyIndex reports). Reads the blobs in one transaction; never call it inside a transaction
 * that must stay open (decompressing awaits a stream).
 */
export async function chunkTexts(db: DB, chunks: readonly ChunkRecord[]): Promise<string[]> {
  const cache = cacheOf(db).map;
  const out: (string | undefined)[] = chunks.map((c) => c.text ?? cache.get(c.id));
  const urls = [...new Set(chunks.filter((_, i) => out[i] === undefined).map((c) => c.url))];
  if (urls.length) {
    const tx = db.transaction('texts');
    const records = await Promise.all(urls.map((u) => tx.store.get(u)));
    await tx.done;
    const byId = new Map<number, string>();
    await Promise.all(
      records.map(async (r) => {
        if (!r) return;
        const texts = await unpackTexts(r.z);
        r.ids.forEach((id, i) => {
          const t = texts[i] ?? '';
          byId.set(id, t);
          remember(db, id, t);
        });
      }),
    );
    chunks.forEach((c, i) => (out[i] ??= byId.get(c.id) ?? ''));
  }
  return out as string[];
}

/** Chunks with their text attached (for code that works on whole records: verify, the write path). */
export async function withTexts<T extends ChunkRecord>(db: DB, chunks: readonly T[]): Promise<(T & { text: string })[]> {
  const texts = await chunkTexts(db, chunks);
  return chunks.map((c, i) => ({ ...c, text: texts[i]! }));
}

/** A v2 chunk record: everything but the text. */
export function stripText(c: ChunkRecord): ChunkRecord {
  const { text: _text, ...rest } = c;
  return rest;
}

const running = new WeakMap<DB, Promise<void>>();

/**
 * The v1 -> v2 pass: moves the text of v1 chunk records into per-page blobs, a few pages a transaction,
 * in url order from where the last run stopped. Each page converts atomically and only if nothing
 * changed it since it was read; a killed worker resumes at the next start (background/main.ts starts it), and
 * until then readers take v1 records as they are. Safe to run beside writes: it never holds a lock.
 */
export function migrateChunkTexts(db: DB, opts: { pagesPerTx?: number; maxBatches?: number } = {}): Promise<void> {
  let run = running.get(db);
  if (!run) {
    run = migrate(db, opts.pagesPerTx ?? 16, opts.maxBatches ?? Infinity).finally(() => running.delete(db));
    running.set(db, run);
  }
  return run;
}

async function migrate(db: DB, pagesPerTx: number, maxBatches: number): Promise<void> {
  for (let batch = 0; batch < maxBatches; batch++) {
    const mark = (await db.get('meta', MIGRATION_KEY)) as MigrationRecord | undefined;
    if (!mark) return;
    const rtx = db.transaction(['pages', 'chunks']);
    const pages = await rtx.objectStore('pages').getAll(mark.after ? IDBKeyRange.lowerBound(mark.after, true) : null, pagesPerTx);
    const chunks = await Promise.all(pages.map((p) => Promise.all(p.chunkIds.map((id) => rtx.objectStore('chunks').get(id)))));
    await rtx.done;
    if (!pages.length) {
      await db.delete('meta', MIGRATION_KEY);
      return;
    }
    // Compress outside any transaction; only pages whose chunks all still carry their text.
    const todo = await Promise.all(
      pages.map(async (p, i) => {
        const cs = chunks[i]!;
        if (!cs.length || !cs.every((c) => c && typeof c.text === 'string')) return null;
        const texts = cs.map((c) => c!.text!);
        return { page: p, texts, record: { url: p.url, ids: [...p.chunkIds], z: await packTexts(texts) } satisfies TextRecord };
      }),
    );
    const wtx = db.transaction(['pages', 'chunks', 'texts', 'meta'], 'readwrite');
    for (const t of todo) {
      if (!t) continue;
      const cur = await wtx.objectStore('pages').get(t.page.url);
      if (!cur || cur.chunkIds.join() !== t.record.ids.join()) continue; // rewritten or deleted meanwhile
      const now = await Promise.all(cur.chunkIds.map((id) => wtx.objectStore('chunks').get(id)));
      if (!now.every((c, i) => c && c.text === t.texts[i])) continue;
      await wtx.objectStore('texts').put(t.record);
      await Promise.all(now.map((c) => wtx.objectStore('chunks').put(stripText(c!))));
    }
    await wtx.objectStore('meta').put({ after: pages[pages.length - 1]!.url } satisfies MigrationRecord, MIGRATION_KEY);
    await wtx.done;
  }
}
