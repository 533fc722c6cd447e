/**
 * The whole database, typed with one DBSchema. Upgrades branch on `oldVersion < N`.
 *
 * pages      url -> page metadata and its chunk ids
 * chunks     id  -> one section's metadata (ids only grow, never reused); in v1 also its text
 * texts      url -> the text of every chunk of the page, compressed together (v2; see sectionTexts.ts)
 * postings   [term, first chunk id] -> an encoded block of postings (see src/postings.ts)
 * meta       'stats' (N, total length, next chunk id) | 'settings' | ...
 * embedQueue chunk id -> model to embed it with (the durable embedding backlog)
 * vectors    [model, first chunk id] -> a block of compact vectors (see src/vectors.ts)
 *
 * Version 2 moved chunk text out of the chunk records into one deflate-raw blob per page: chunk text
 * was 63% of the bytes, and deflating a page's sections together (they share vocabulary) shrinks them
 * 2.5–3.5x, against 1.9–2.2x a section alone. The upgrade only creates the store and marks the work:
 * compressing needs CompressionStream, which an upgrade transaction cannot await, so a resumable pass
 * (migrateChunkTexts in sectionTexts.ts, started by the worker at each start) converts pages in small
 * transactions while every reader accepts both forms.
 */
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import type { ChunkAnchor, SectionPart } from '../src/chunker.js';
import type { PageKind } from '../src/pageKind.js';

export const DB_NAME = 'reread';
export const DB_VERSION = 2;

export interface PageRecord {
  url: string;
  site: string;
  title: string;
  lang: string;
  firstVisit: number;
  lastVisit: number;
  visitCount: number;
  /**
   * Recent visit times, ascending, capped (src/forget.ts addVisit); absent on pages stored before it
   * was kept. A page is in a forget range when any visit is (firstVisit and lastVisit count too).
   */
  visits?: number[];
  /** Hash of the captured content: a revisit with the same hash only bumps the visit. */
  hash: string;
  chunkIds: number[];
  words: number;
  /** How Reread got the page (src/pageKind.ts); absent for a page read in a tab. */
  kind?: PageKind;
  /** A title-only entry the backfill tried and left as it was, and why (src/backfillPolicy.ts SkipReason). */
  fetchSkipped?: { at: number; reason: string };
  /** A PDF: its page count, and how many of them were read (fewer past the page cap). */
  pdf?: { pages: number; read: number };
}

export interface ChunkRecord {
  id: number;
  url: string;
  ord: number;
  headingPath: string[];
  section: string;
  anchor: ChunkAnchor;
  /** Sub-sections merged into this chunk, by offset in its text (src/chunker.ts); absent when none. */
  parts?: SectionPart[];
  /**
   * Heading path folded in, then the body. Only in records written by schema v1 (not yet migrated):
   * read text with chunkTexts (sectionTexts.ts), never from here.
   */
  text?: string;
  /** Body length in index terms (BM25's document length; src/indexing.ts indexSection). */
  len: number;
}

/** A page's chunk texts (v2): `ids` in the page's chunk order, `z` the deflate-raw of their JSON array. */
export interface TextRecord {
  url: string;
  ids: number[];
  z: Uint8Array;
  /**
   * The blocks the chunks were cut from (deflate-raw, sectionTexts.ts packBlocks) and the chunker that
   * cut them (CHUNKER_VERSION): what background/recut.ts cuts again when the chunker changes. Absent on
   * pages stored before blocks were kept (they keep their cut).
   */
  b?: Uint8Array;
  cv?: string;
}

/** Present in meta while v1 chunk texts remain to be compressed: pages up to `after` (url order) are done. */
export interface MigrationRecord {
  after: string;
}

export interface PostingRecord {
  t: string;
  f: number;
  n: number;
  d: Uint8Array;
}

export interface StatsRecord {
  N: number;
  totalLength: number;
  nextChunkId: number;
  /**
   * The token of the writer whose in-memory cache of posting tails matches the stored postings
   * (pageStore.ts). Anything else that writes the stats (a repair, delete-all, another context) leaves
   * it out, which makes that cache start over.
   */
  tail?: string;
}

export interface QueueRecord {
  id: number;
  model: string;
}

export interface VectorBlockRecord {
  m: string;
  f: number;
  dim: number;
  ids: Uint32Array;
  /** int8 codes, dim per vector. */
  codes: Int8Array;
  /** Per-vector dequantisation scale. */
  scales: Float32Array;
}

export interface RereadDB extends DBSchema {
  pages: { key: string; value: PageRecord; indexes: { site: string; lastVisit: number } };
  chunks: { key: number; value: ChunkRecord; indexes: { url: string } };
  texts: { key: string; value: TextRecord };
  postings: { key: [string, number]; value: PostingRecord };
  meta: { key: string; value: unknown };
  embedQueue: { key: number; value: QueueRecord };
  vectors: { key: [string, number]; value: VectorBlockRecord };
}

export type DB = IDBPDatabase<RereadDB>;

export const MIGRATION_KEY = 'migration';

type UpgradeTx = IDBPTransaction<RereadDB, StoreNames<RereadDB>[], 'versionchange'>;

export function upgrade(db: IDBPDatabase<RereadDB>, oldVersion: number, tx: UpgradeTx): void {
  // Version 1, kept as history: a v1 database (tests/fixtures/db-v1.jsonl) upgrades from here.
  if (oldVersion < 1) {
    const pages = db.createObjectStore('pages', { keyPath: 'url' });
    pages.createIndex('site', 'site');
    pages.createIndex('lastVisit', 'lastVisit');
    const chunks = db.createObjectStore('chunks', { keyPath: 'id' });
    chunks.createIndex('url', 'url');
    db.createObjectStore('postings', { keyPath: ['t', 'f'] });
    db.createObjectStore('meta');
    db.createObjectStore('embedQueue', { keyPath: 'id' });
    db.createObjectStore('vectors', { keyPath: ['m', 'f'] });
  }
  if (oldVersion < 2) {
    db.createObjectStore('texts', { keyPath: 'url' });
    // Pages written by v1 hold their text in the chunk records: mark them for the background pass.
    if (oldVersion >= 1) void tx.objectStore('meta').put({ after: '' } satisfies MigrationRecord, MIGRATION_KEY);
  }
}

let dbPromise: Promise<DB> | null = null;

/** One shared connection per context; reopened if the browser closes it. */
export function getDb(name = DB_NAME): Promise<DB> {
  dbPromise ??= openDB<RereadDB>(name, DB_VERSION, {
    upgrade: (db, oldVersion, _newVersion, tx) => upgrade(db, oldVersion, tx),
    blocking() {
      // A newer version wants to open (another context was updated): get out of its way.
      void dbPromise?.then((db) => db.close());
      dbPromise = null;
    },
    terminated() {
      dbPromise = null;
    },
  }).catch((e: unknown) => {
    dbPromise = null;
    throw e;
  });
  return dbPromise;
}

export const EMPTY_STATS: StatsRecord = { N: 0, totalLength: 0, nextChunkId: 1 };
