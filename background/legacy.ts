/**
 * Reading a schema 1/2 database while migrateV3 converts it: a page not reached yet has a record per
 * section in `chunks` (schema 1: text inline; schema 2: texts deflated per page in `texts`) and its
 * postings are in `postingsV2`, keyed by term string, lengths in every posting. Only sections.ts, the
 * lexical reader, the write path (which removes a legacy page's records when it is rewritten or
 * forgotten), verify and the migration come here.
 */
import type { IDBPTransaction } from 'idb';
import { decodeLegacyBlocks } from '../src/postings.js';
import type { PostingList } from '../src/bm25.js';
import { hasLegacy, type ChunkRecord, type DB, type PageRecord, type RereadDB, type StoreName, type StoredSection } from './db.js';
import { inflate } from './deflate.js';

const migrated = new WeakSet<DB>();

/** The migration found nothing left to do: the legacy stores are empty from now on. */
export function markMigrated(db: DB): void {
  migrated.add(db);
}

/** Whether readers and writers must still look at the legacy stores (until the migration is known done). */
export function legacyActive(db: DB): boolean {
  return hasLegacy(db) && !migrated.has(db);
}

/** A schema-2 text record's texts (deflate-raw of a JSON array of strings). */
export async function unpackTexts(z: Uint8Array): Promise<string[]> {
  const parsed: unknown = JSON.parse(await inflate(z));
  if (!Array.isArray(parsed) || !parsed.every((t) => typeof t === 'string')) throw new Error('malformed text record');
  return parsed as string[];
}

/**
 * Whether a chunk record is the page's: the record names its page. In a damaged database two pages can
 * list the same chunk id; the record belongs to the page it names, and the other page reads it as lost
 * (an empty section), so neither migrating nor rewriting the other page takes the owner's text away.
 */
export function ownChunk(c: ChunkRecord | undefined, url: string): c is ChunkRecord {
  return !!c && (c.url === undefined || c.url === url);
}

/** A legacy page's sections with their text (schema 1 inline, schema 2 from the page's text record). */
export async function legacySections(db: DB, page: Pick<PageRecord, 'url' | 'chunkIds'>): Promise<StoredSection[] | null> {
  const tx = db.transaction(['chunks', 'texts']);
  const [chunks, record] = await Promise.all([Promise.all(page.chunkIds.map((id) => tx.objectStore('chunks').get(id))), tx.objectStore('texts').get(page.url)]);
  await tx.done;
  if (!chunks.some((c) => ownChunk(c, page.url))) return null;
  const texts = new Map<number, string>();
  if (record) {
    const t = await unpackTexts(record.z);
    record.ids.forEach((id, i) => texts.set(id, t[i] ?? ''));
  }
  return chunks.flatMap((c, i) => (ownChunk(c, page.url) ? [{ id: c.id, url: page.url, ord: i, headingPath: c.headingPath, section: c.section, anchor: c.anchor, ...(c.parts ? { parts: c.parts } : {}), text: c.text ?? texts.get(c.id) ?? '' }] : []));
}

type AnyTx = IDBPTransaction<RereadDB, StoreName[], IDBTransactionMode>;

/** Each section's length from the legacy chunk records (0 for a missing one or another page's), in `chunkIds` order. */
export async function legacyLens(tx: AnyTx, page: Pick<PageRecord, 'url' | 'chunkIds'>): Promise<number[]> {
  const chunks = await Promise.all(page.chunkIds.map((id) => tx.objectStore('chunks').get(id)));
  return chunks.map((c) => (ownChunk(c, page.url) ? c.len : 0));
}

/** Removes a legacy page's chunk records (its own: `ownChunk`) and text record (inside the caller's write transaction). */
export async function removeLegacyPage(tx: IDBPTransaction<RereadDB, StoreName[], 'readwrite'>, page: Pick<PageRecord, 'url' | 'chunkIds'>): Promise<void> {
  const store = tx.objectStore('chunks');
  await Promise.all([
    ...page.chunkIds.map(async (id) => {
      if (ownChunk(await store.get(id), page.url)) await store.delete(id);
    }),
    tx.objectStore('texts').delete(page.url),
  ]);
}

/** A term's postings still in the legacy store (lengths stored in them), inside the caller's transaction. */
export async function legacyPostings(tx: AnyTx, term: string): Promise<PostingList> {
  const records = await tx.objectStore('postingsV2').getAll(IDBKeyRange.bound([term, 0], [term, Infinity]));
  return decodeLegacyBlocks(records.map((r) => ({ first: r.f, n: r.n, data: r.d })));
}
