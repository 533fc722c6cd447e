/**
 * The whole database, typed with one DBSchema. Upgrades branch on `oldVersion < N`.
 *
 * Schema 3:
 * pages      url -> page metadata: chunk ids, each section's length in index terms (the norms)
 * sections   url -> the page's sections, metadata and text, deflated together (see sections.ts)
 * terms      term -> term id (the term dictionary; a term's string is stored once, here)
 * postings   [term id, first chunk id] -> a block of postings (src/postings.ts), the main index
 * segments   seq -> the postings of one write, terms as strings: the delta not merged yet (delta.ts)
 * tombstones seq -> a range of chunk ids forgotten but still in the main index (delta.ts)
 * meta       'stats' | 'termIds' | 'settings' | merge, sweep and migration progress | ...
 * embedQueue chunk id -> model to embed it with (the durable embedding backlog)
 * vectors    [model, first chunk id] -> a block of compact vectors (see vectorStore.ts)
 *
 * Why: a capture writes a handful of records (page, sections, one segment, queue entries, stats)
 * whatever the size of the index, and a delete writes a tombstone; the segments and tombstones are
 * folded into the main index in the background (indexMaintenance.ts), in small resumable steps. Postings
 * are keyed by a compact term id with the id only in the key, a section's metadata is deflated with
 * the page's texts instead of a record per section, and section lengths are stored once per section
 * instead of in every posting.
 *
 * Schema 1 and 2 (kept as history below; fixtures tests/fixtures/db-v1.jsonl and db-v2.jsonl): a record
 * per section in `chunks` (v1: with its text; v2: text deflated per page in `texts`) and posting blocks
 * keyed by [term string, first id] with the length in every posting. The upgrade to 3 renames that
 * posting store `postingsV2` and marks the work; a resumable background pass (migrateV3.ts) moves pages
 * and then posting blocks to the new layout while every reader accepts both (legacy.ts).
 */
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction, type StoreNames } from 'idb';
import type { ChunkAnchor, SectionPart } from '../src/chunker.js';
import type { PageKind } from '../src/pageKind.js';
import type { SectionView } from '../src/search.js';
import { traced } from './bootTrace.js';

export const DB_NAME = 'reread';
export const DB_VERSION = 3;

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
  /**
   * The capture ids (CapturePayload.capture) of the last page views counted as visits, oldest first
   * (pageStore.ts MAX_VIEWS): the same view delivered again updates the content, not the visits.
   */
  captures?: string[];
  /** Hash of the captured content: a revisit with the same hash only bumps the visit. */
  hash: string;
  /** The page's sections, in order (contiguous ids: one write assigns them). */
  chunkIds: number[];
  words: number;
  /** How Reread got the page (src/pageKind.ts); absent for a page read in a tab. */
  kind?: PageKind;
  /** A title-only entry the backfill tried and left as it was, and why (src/backfillPolicy.ts SkipReason). */
  fetchSkipped?: { at: number; reason: string };
  /** A PDF: its page count, and how many of them were read (fewer past the page cap). */
  pdf?: { pages: number; read: number };
  /**
   * Each section's length in index terms, in `chunkIds` order (BM25's document length; the norms).
   * Absent only on pages of a schema-2 database the migration has not reached yet.
   */
  lens?: number[];
}

/**
 * A page's sections (schema 3), in one of two formats (sections.ts; both read for ever):
 * - format 1: `z` is the deflate-raw of a SectionsBlob. When `b` is present, the texts in `z` may be
 *   references into it: the two are written together and `b` is never replaced without `z` (a record
 *   gains `b` only while its texts are written out).
 * - format 2 (`z` starts with the byte 0xfe, which no deflate stream starts with): the sections and the
 *   page's blocks in one deflate-raw stream; no `b`.
 */
export interface SectionsRecord {
  url: string;
  z: Uint8Array;
  /**
   * The blocks the sections were cut from (format 1: deflate-raw, sections.ts packBlocks; format 2 keeps
   * them in `z`, sections.ts recordBlocks reads either) and the chunker that
   * cut them (CHUNKER_VERSION; '' unknown): what background/recut.ts cuts again when the chunker
   * changes. Absent on pages stored before blocks were kept (they keep their cut).
   */
  b?: Uint8Array;
  cv?: string;
}

/** A section as readers get it from a SectionsRecord (sections.ts): the search's view and its position. */
export interface StoredSection extends SectionView {
  ord: number;
}

/** One write's postings (src/postings.ts encodeSegment): chunk ids first..end-1 (relative in `d`). */
export interface SegmentRecord {
  first: number;
  end: number;
  t: string[];
  d: Uint8Array;
}

/** Chunk ids first..end-1 were forgotten; their postings and vectors go at the next sweep. */
export interface TombstoneRecord {
  first: number;
  end: number;
  /** When (epoch ms): a sweep comes within hours of the oldest. */
  at: number;
}

export interface StatsRecord {
  /** Live sections (indexed, not forgotten). */
  N: number;
  totalLength: number;
  nextChunkId: number;
  /** The next segment / tombstone key (both only grow). */
  nextSeq?: number;
}

/** The next term id to assign (written only by merges, migration and repair). */
export interface TermIdsRecord {
  next: number;
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

// Schema 1/2 records, read while a database migrates (legacy.ts, migrateV3.ts).

export interface ChunkRecord {
  id: number;
  url: string;
  ord: number;
  headingPath: string[];
  section: string;
  anchor: ChunkAnchor;
  /** Sub-sections merged into this chunk, by offset in its text (src/chunker.ts); absent when none. */
  parts?: SectionPart[];
  /** Schema 1 only: the text inline (schema 2 moved it to `texts`). */
  text?: string;
  len: number;
}

/** Schema 2: a page's chunk texts, `ids` in the page's chunk order, `z` the deflate-raw of their JSON array; b/cv as in SectionsRecord. */
export interface TextRecord {
  url: string;
  ids: number[];
  z: Uint8Array;
  b?: Uint8Array;
  cv?: string;
}

/** Schema 1/2 posting block: entries carried (id delta, tf, len). */
export interface LegacyPostingRecord {
  t: string;
  f: number;
  n: number;
  d: Uint8Array;
}

export interface RereadDB extends DBSchema {
  pages: { key: string; value: PageRecord; indexes: { site: string; lastVisit: number } };
  sections: { key: string; value: SectionsRecord };
  terms: { key: string; value: number };
  postings: { key: [number, number]; value: Uint8Array };
  segments: { key: number; value: SegmentRecord };
  tombstones: { key: number; value: TombstoneRecord };
  meta: { key: string; value: unknown };
  embedQueue: { key: number; value: QueueRecord };
  vectors: { key: [string, number]; value: VectorBlockRecord };
  /** Legacy stores: present only in a database upgraded from schema 1 or 2 (empty once migrated). */
  chunks: { key: number; value: ChunkRecord; indexes: { url: string } };
  texts: { key: string; value: TextRecord };
  postingsV2: { key: [string, number]; value: LegacyPostingRecord };
}

export type DB = IDBPDatabase<RereadDB>;
export type StoreName = StoreNames<RereadDB>;

export const LEGACY_STORES = ['chunks', 'texts', 'postingsV2'] as const;
/** Present in meta while a schema 1/2 database is being moved to schema 3 (migrateV3.ts). */
export const MIGRATION_KEY = 'migration3';
/** The notes on PDFs read in part or not at all (background/dayone/pdfCapture.ts): their addresses and titles, which a forget removes. */
export const PDF_NOTES_KEY = 'pdfNotes';
/**
 * The outbox hand-overs filed in the last hour (background/outbox.ts), as opaque ids with the time each was
 * filed: written with the page, so one filed again after a worker stop is known (pageStore.ts).
 */
export const FILED_HANDOVERS_KEY = 'outboxFiled';
export interface FiledHandOver {
  id: string;
  at: number;
}
export interface MigrationRecord {
  /** 'pages': page records, chunks and texts, in url order after `after`; then 'postings'. */
  phase: 'pages' | 'postings';
  after: string;
}

type UpgradeTx = IDBPTransaction<RereadDB, StoreName[], 'versionchange'>;

export function upgrade(db: IDBPDatabase<RereadDB>, oldVersion: number, tx: UpgradeTx): void {
  // Version 1, kept as history: a v1 database (tests/fixtures/db-v1.jsonl) upgrades from here.
  if (oldVersion < 1) {
    const pages = db.createObjectStore('pages', { keyPath: 'url' });
    pages.createIndex('site', 'site');
    pages.createIndex('lastVisit', 'lastVisit');
    const chunks = db.createObjectStore('chunks', { keyPath: 'id' });
    chunks.createIndex('url', 'url');
    // Created under its schema-1 name; schema 3 renames it.
    (db as unknown as IDBPDatabase).createObjectStore('postings', { keyPath: ['t', 'f'] });
    db.createObjectStore('meta');
    db.createObjectStore('embedQueue', { keyPath: 'id' });
    db.createObjectStore('vectors', { keyPath: ['m', 'f'] });
  }
  // Version 2, history: chunk texts deflated per page (its pass is now part of the schema-3 migration).
  if (oldVersion < 2) db.createObjectStore('texts', { keyPath: 'url' });
  if (oldVersion < 3) {
    (tx as unknown as IDBPTransaction<unknown, string[], 'versionchange'>).objectStore('postings').name = 'postingsV2';
    db.createObjectStore('postings');
    db.createObjectStore('sections', { keyPath: 'url' });
    db.createObjectStore('terms');
    db.createObjectStore('segments');
    db.createObjectStore('tombstones');
    if (oldVersion === 0) {
      // A new database has nothing to migrate: no legacy stores.
      for (const s of LEGACY_STORES) db.deleteObjectStore(s);
    } else {
      const meta = tx.objectStore('meta');
      void meta.delete('migration'); // the v1 -> v2 text pass, if unfinished: the v3 pass covers it
      void meta.put({ phase: 'pages', after: '' } satisfies MigrationRecord, MIGRATION_KEY);
    }
  }
}

/** Whether the database still has the schema 1/2 stores (a migration under way, or finished but not dropped). */
export function hasLegacy(db: DB): boolean {
  return db.objectStoreNames.contains('chunks');
}

let dbPromise: Promise<DB> | null = null;

/** One shared connection per context; reopened if the browser closes it. */
export function getDb(name = DB_NAME): Promise<DB> {
  dbPromise ??= traced('db open', openDB<RereadDB>(name, DB_VERSION, {
    upgrade: (db, oldVersion, _newVersion, tx) => upgrade(db, oldVersion, tx),
    blocking() {
      // A newer version wants to open (another context was updated): get out of its way.
      void dbPromise?.then((db) => db.close());
      dbPromise = null;
    },
    terminated() {
      dbPromise = null;
    },
  })).catch((e: unknown) => {
    dbPromise = null;
    throw e;
  });
  return dbPromise;
}

export const EMPTY_STATS: StatsRecord = { N: 0, totalLength: 0, nextChunkId: 1, nextSeq: 1 };
