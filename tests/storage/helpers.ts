/** Shared set-up for the storage tests: a fresh fake-indexeddb database per test, and readers of every store. */
import 'fake-indexeddb/auto';
import { openDB } from 'idb';
import type { Chunk } from '../../src/chunker.js';
import { hashHex } from '../../src/hash.js';
import { decodeBlock } from '../../src/postings.js';
import { siteOf } from '../../src/url.js';
import { DB_VERSION, upgrade, type DB, type RereadDB, type StatsRecord } from '../../background/db.js';
import { Engine } from '../../background/engine.js';
import type { PageInput } from '../../background/pageStore.js';
import { withTexts } from '../../background/sectionTexts.js';

let counter = 0;

/**
 * A new, empty database. getDb() caches one connection per context whatever the name, so tests open
 * their own with the schema's upgrade function.
 */
export function freshDb(): Promise<DB> {
  return openDB<RereadDB>(`reread-test-${process.pid}-${++counter}`, DB_VERSION, { upgrade: (db, oldVersion, _v, tx) => upgrade(db, oldVersion, tx) });
}

export function engineOn(db: DB): Engine {
  return new Engine(() => Promise.resolve(db));
}

/** Chunks as the chunker would make them, one per text. */
export function chunksOf(texts: readonly string[]): Chunk[] {
  return texts.map((text, ord) => ({ ord, headingPath: [`Section ${ord}`], section: `Section ${ord}`, anchor: { id: `s${ord}` }, text, words: text.split(/\s+/).filter(Boolean).length }));
}

export function pageInput(url: string, title: string, texts: readonly string[], now = 1_700_000_000_000, embedModel: string | null = null): PageInput {
  const chunks = chunksOf(texts);
  return {
    url,
    site: siteOf(url),
    title,
    lang: 'en',
    hash: hashHex(title + '\u0000' + texts.join('\u0000')),
    words: chunks.reduce((n, c) => n + c.words, 0),
    chunks,
    now,
    embedModel,
  };
}

export async function readAll(db: DB) {
  const tx = db.transaction(['pages', 'chunks', 'texts', 'postings', 'meta', 'embedQueue', 'vectors']);
  const [pages, chunks, texts, postings, metaKeys, stats, queue, vectors] = await Promise.all([
    tx.objectStore('pages').getAll(),
    tx.objectStore('chunks').getAll(),
    tx.objectStore('texts').getAll(),
    tx.objectStore('postings').getAll(),
    tx.objectStore('meta').getAllKeys(),
    tx.objectStore('meta').get('stats') as Promise<StatsRecord | undefined>,
    tx.objectStore('embedQueue').getAll(),
    tx.objectStore('vectors').getAll(),
  ]);
  await tx.done;
  return { pages, chunks, texts, postings, metaKeys, stats, queue, vectors };
}

/**
 * The index with chunk ids replaced by what they stand for (url and position), so an index built
 * incrementally can be compared with one built from scratch, whose ids differ.
 */
export async function logicalIndex(db: DB) {
  const all = await readAll(db);
  const texts = new Map((await withTexts(db, all.chunks)).map((c) => [c.id, c.text]));
  const name = new Map(all.chunks.map((c) => [c.id, `${c.url}#${c.ord}`]));
  const terms: Record<string, string[]> = {};
  for (const b of all.postings) {
    for (const e of decodeBlock({ first: b.f, n: b.n, data: b.d })) (terms[b.t] ??= []).push(`${name.get(e.id) ?? `missing:${e.id}`} tf=${e.tf} len=${e.len}`);
  }
  for (const t of Object.keys(terms)) terms[t]!.sort();
  return {
    terms,
    N: all.stats?.N ?? 0,
    totalLength: all.stats?.totalLength ?? 0,
    pages: all.pages.map((p) => ({ url: p.url, site: p.site, title: p.title, hash: p.hash, chunks: p.chunkIds.map((id) => name.get(id)) })).sort((a, b) => a.url.localeCompare(b.url)),
    chunks: all.chunks.map((c) => ({ name: name.get(c.id), text: texts.get(c.id), len: c.len, section: c.section })).sort((a, b) => a.name!.localeCompare(b.name!)),
    queue: all.queue.map((q) => `${name.get(q.id) ?? `missing:${q.id}`} ${q.model}`).sort(),
  };
}

/** Structural rules of the posting store that the logical comparison cannot see. */
export async function postingStructureProblems(db: DB, blockSize: number): Promise<string[]> {
  const { postings } = await readAll(db);
  const problems: string[] = [];
  let prevTerm = '';
  let prevMax = -1;
  for (let i = 0; i < postings.length; i++) {
    const b = postings[i]!;
    const next = postings[i + 1];
    const nextKey = next && next.t === b.t ? next.f : Infinity;
    if (b.t !== prevTerm) {
      prevTerm = b.t;
      prevMax = -1;
    }
    const entries = decodeBlock({ first: b.f, n: b.n, data: b.d });
    if (!entries.length) problems.push(`${b.t}/${b.f} empty`);
    if (b.n > blockSize) problems.push(`${b.t}/${b.f} holds ${b.n}`);
    for (const e of entries) {
      if (e.id < b.f) problems.push(`${b.t}/${b.f} holds smaller id ${e.id}`);
      if (e.id <= prevMax) problems.push(`${b.t}: id ${e.id} out of order`);
      if (e.id >= nextKey) problems.push(`${b.t}/${b.f}: id ${e.id} at or past the next block's key ${nextKey}`);
      prevMax = e.id;
    }
  }
  return problems;
}

/** A copy of a database in a fresh one (cheaper than indexing a fixture again for every test). */
export async function cloneDb(src: DB): Promise<DB> {
  const dst = await freshDb();
  const all = await readAll(src);
  const metaValues = await src.getAll('meta');
  const tx = dst.transaction(['pages', 'chunks', 'texts', 'postings', 'meta', 'embedQueue', 'vectors'], 'readwrite');
  await Promise.all([
    ...all.pages.map((r) => tx.objectStore('pages').put(r)),
    ...all.chunks.map((r) => tx.objectStore('chunks').put(r)),
    ...all.texts.map((r) => tx.objectStore('texts').put(r)),
    ...all.postings.map((r) => tx.objectStore('postings').put(r)),
    ...all.queue.map((r) => tx.objectStore('embedQueue').put(r)),
    ...all.vectors.map((r) => tx.objectStore('vectors').put(r)),
    ...all.metaKeys.map((k, i) => tx.objectStore('meta').put(metaValues[i], k)),
  ]);
  await tx.done;
  return dst;
}
