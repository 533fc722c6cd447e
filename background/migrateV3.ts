/**
 * Schema 1/2 -> 3, in the background, a step at a time (indexMaintenance.ts runs the steps under the
 * engine's write lock; each step is one transaction that also records how far it got, so a worker
 * stopped at any point resumes where the last committed step left off).
 *
 * 1. Pages, in URL order: a page's chunk records and text record become one sections record, its
 *    section lengths move into the page record (keeping every other field of it), and the old records go.
 *    A page rewritten or forgotten meanwhile was already moved by the write path: skipped.
 * 2. Posting blocks, in key order: each legacy block (term string, lengths in every posting) becomes a
 *    block of the main index under the term's id, without lengths and without forgotten ids, and the old
 *    block goes, in the same transaction. Pages' lengths are all in page records by then (step 1), so
 *    the norms cover every converted posting.
 *
 * Until it is done, every reader accepts both forms (legacy.ts): search answers the same throughout.
 * The legacy stores stay behind, empty (removing a store needs a version change).
 */
import { BLOCK_SIZE, blockValue, decodeLegacyBlock, encodeBlock, type PostingEntry } from '../src/postings.js';
import { MIGRATION_KEY, type DB, type MigrationRecord, type PageRecord, type SectionsRecord, type TermIdsRecord } from './db.js';
import type { Engine } from './engine.js';
import type { IndexMaintenance } from './indexMaintenance.js';
import { legacyActive, legacySections, markMigrated, ownChunk, removeLegacyPage } from './legacy.js';
import { allOrNothing } from './pageStore.js';
import { putPage } from './pageLog.js';
import { packSections, unpackBlocks } from './sections.js';

export const PAGES_PER_STEP = 16;
export const BLOCKS_PER_STEP = 400;
const TERM_IDS_KEY = 'termIds';

/** Whether a migration is under way (false once and for all when none is). */
export async function migrationPending(db: DB): Promise<boolean> {
  if (!legacyActive(db)) return false;
  if (await db.get('meta', MIGRATION_KEY)) return true;
  markMigrated(db);
  return false;
}

export interface StepSizes {
  pagesPerStep?: number;
  blocksPerStep?: number;
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((x, i) => x === b[i]);

/** One step; false when the migration is finished. */
export async function migrateStep(engine: Engine, maintenance: IndexMaintenance, sizes: StepSizes = {}): Promise<boolean> {
  const db = await engine.db();
  const state = (await db.get('meta', MIGRATION_KEY)) as MigrationRecord | undefined;
  if (!state) return false;
  return state.phase === 'pages' ? migratePages(engine, db, state, sizes.pagesPerStep ?? PAGES_PER_STEP) : migratePostings(engine, db, maintenance, sizes.blocksPerStep ?? BLOCKS_PER_STEP);
}

async function migratePages(engine: Engine, db: DB, state: MigrationRecord, perStep: number): Promise<boolean> {
  const pages = await db.getAll('pages', state.after ? IDBKeyRange.lowerBound(state.after, true) : null, perStep);
  // Compress outside any transaction; pages already in the new form (written since) need nothing.
  const todo = await Promise.all(
    pages.map(async (p) => {
      if (p.lens) return null;
      const sections = (await legacySections(db, p).catch(() => null)) ?? [];
      const byId = new Map(sections.map((s) => [s.id, s]));
      // A section whose records were lost keeps its place, empty (verifyIndex reports it).
      const all = p.chunkIds.map((id) => byId.get(id) ?? { headingPath: [], section: '', anchor: {}, text: '' });
      // Texts as references into the blocks kept beside them (when the record kept blocks): the format
      // pages are written in. The literal form too, for a record whose blocks changed before the write.
      const kept = (await (async () => db.get('texts', p.url))().catch(() => undefined))?.b;
      const blocks = kept ? await unpackBlocks(kept).catch(() => null) : null;
      const z = await packSections(all);
      return { page: p, z, ...(kept && blocks ? { b: kept, zb: await packSections(all, blocks) } : {}) };
    }),
  );
  const tx = db.transaction(['pages', 'sections', 'chunks', 'texts', 'meta'], 'readwrite');
  const moved = await allOrNothing(tx, async () => {
    const out: PageRecord[] = [];
    for (const t of todo) {
      if (!t) continue;
      const cur = await tx.objectStore('pages').get(t.page.url);
      if (!cur || cur.lens || cur.chunkIds.join() !== t.page.chunkIds.join()) continue; // rewritten or forgotten meanwhile
      const chunks = await Promise.all(cur.chunkIds.map((id) => tx.objectStore('chunks').get(id)));
      const page: PageRecord = { ...cur, lens: chunks.map((c) => (ownChunk(c, cur.url) ? c.len : 0)) };
      await putPage(tx, page);
      // The blocks kept to re-cut the page (schema 2 written by a build that kept them) come along.
      const old = await tx.objectStore('texts').get(cur.url);
      const z = old?.b && t.b && t.zb && sameBytes(old.b, t.b) ? t.zb : t.z;
      await tx.objectStore('sections').put({ url: cur.url, z, ...(old?.b ? { b: old.b, cv: old.cv ?? '' } : {}) } satisfies SectionsRecord);
      await removeLegacyPage(tx as never, cur);
      out.push(page);
    }
    const next: MigrationRecord = pages.length < perStep ? { phase: 'postings', after: '' } : { phase: 'pages', after: pages[pages.length - 1]!.url };
    await tx.objectStore('meta').put(next, MIGRATION_KEY);
    await tx.done;
    return out;
  });
  // The norms of the moved pages are known now.
  for (const p of moved) engine.pages.put(p);
  return true;
}

async function migratePostings(engine: Engine, db: DB, maintenance: IndexMaintenance, perStep: number): Promise<boolean> {
  await engine.delta.ready();
  const dead = engine.delta.dead;
  const tx = db.transaction(['terms', 'postings', 'postingsV2', 'meta'], 'readwrite');
  const touched = new Set<number>();
  const assigned = new Map<string, number>();
  const puts: Promise<unknown>[] = [];
  const more = await allOrNothing(tx, async () => {
    const counter = ((await tx.objectStore('meta').get(TERM_IDS_KEY)) as TermIdsRecord | undefined) ?? { next: 1 };
    const legacy = await tx.objectStore('postingsV2').getAll(null, perStep);
    if (!legacy.length) {
      await tx.objectStore('meta').delete(MIGRATION_KEY);
      await tx.done;
      return false;
    }
    const ids = await engine.termIds.lookup(tx as never, [...new Set(legacy.map((b) => b.t))]);
    for (const b of legacy) {
      puts.push(tx.objectStore('postingsV2').delete([b.t, b.f]));
      let entries: PostingEntry[];
      try {
        entries = b.n >= 1 && b.n <= BLOCK_SIZE && b.n * 3 <= (b.d?.length ?? 0) ? decodeLegacyBlock({ first: b.f, n: b.n, data: b.d }) : [];
      } catch {
        entries = []; // malformed: dropped (verifyIndex reports the postings missing; repair rebuilds them)
      }
      const live = entries.filter((e) => !dead.has(e.id));
      if (!live.length) continue;
      // A term gets its id with its first live posting (none for a term whose postings are all forgotten).
      let id = ids.get(b.t);
      if (id === undefined) {
        id = counter.next++;
        ids.set(b.t, id);
        assigned.set(b.t, id);
        puts.push(tx.objectStore('terms').put(id, b.t));
      }
      puts.push(tx.objectStore('postings').put(blockValue(encodeBlock(live, b.f)), [id, b.f]));
      touched.add(id);
    }
    puts.push(tx.objectStore('meta').put(counter, TERM_IDS_KEY));
    await Promise.all(puts);
    await tx.done;
    return true;
  }, puts);
  for (const [t, id] of assigned) engine.termIds.set(t, id);
  // A term's last block may be a converted one now.
  maintenance.forgetTails(touched);
  if (!more) markMigrated(db);
  return more;
}
