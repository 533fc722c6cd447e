/**
 * The whole database, typed with one DBSchema. Upgrades branch on `oldVersion < N`.
 *
 * pages      url -> page metadata and its chunk ids
 * chunks     id  -> one section's text and metadata (ids only grow, never reused)
 * postings   [term, first chunk id] -> an encoded block of postings (see src/postings.ts)
 * meta       'stats' (N, total length, next chunk id) | 'settings' | ...
 * embedQueue chunk id -> model to embed it with (the durable embedding backlog)
 * vectors    [model, first chunk id] -> a block of compact vectors (see src/vectors.ts)
 */
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { ChunkAnchor } from '../src/chunker.js';

export const DB_NAME = 'reread';
export const DB_VERSION = 1;

export interface PageRecord {
  url: string;
  site: string;
  title: string;
  lang: string;
  firstVisit: number;
  lastVisit: number;
  visitCount: number;
  /** Hash of the captured content: a revisit with the same hash only bumps the visit. */
  hash: string;
  chunkIds: number[];
  words: number;
}

export interface ChunkRecord {
  id: number;
  url: string;
  ord: number;
  headingPath: string[];
  section: string;
  anchor: ChunkAnchor;
  /** Heading path folded in, then the body. */
  text: string;
  /** Length in index terms (BM25's document length). */
  len: number;
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
  postings: { key: [string, number]; value: PostingRecord };
  meta: { key: string; value: unknown };
  embedQueue: { key: number; value: QueueRecord };
  vectors: { key: [string, number]; value: VectorBlockRecord };
}

export type DB = IDBPDatabase<RereadDB>;

export function upgrade(db: IDBPDatabase<RereadDB>, oldVersion: number): void {
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
}

let dbPromise: Promise<DB> | null = null;

/** One shared connection per context; reopened if the browser closes it. */
export function getDb(name = DB_NAME): Promise<DB> {
  dbPromise ??= openDB<RereadDB>(name, DB_VERSION, {
    upgrade: (db, oldVersion) => upgrade(db, oldVersion),
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
