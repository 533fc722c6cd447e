/**
 * Re-cutting stored pages when the chunker changes. Each page's sections record keeps the blocks its
 * sections were cut from and the chunker that cut them (db.ts SectionsRecord.b, .cv). When this release's
 * CHUNKER_VERSION differs from the one the database was last cut with, a background pass cuts every
 * stored page again from its blocks (src/sections.ts, the content script's own code) and rewrites the
 * pages whose sections changed through the write path every capture takes (pageStore.writePage, one
 * transaction a page: a tombstone for the old sections, a segment for the new). Until it reaches a page,
 * search answers from the page's old sections. A database still migrating to schema 3 finishes the
 * migration first (its blocks are in the old records until then).
 *
 * Resumable: progress is a mark in meta (`recut`: pages up to `after`, in url order, are done), written
 * after each page; a worker stopped mid-pass resumes at its next start (or at the alarm the worker sets
 * while a pass is pending). A page captured meanwhile is already cut by the new chunker (its `cv` says
 * so) and is skipped; a page changed or forgotten between the read and the write is left alone.
 * Pages stored before blocks were kept keep their cut.
 */
import { CHUNKER_VERSION, type Block, type Chunk } from '../src/chunker.js';
import { cutSections, type Pace } from '../src/sections.js';
import type { DB, SectionsRecord } from './db.js';
import type { Engine } from './engine.js';
import { storePage } from './capture.js';
import { migrationPending } from './migrateV3.js';
import { forgetPage, keepsBlocks, packPage, recordBlocks, unpackSections } from './sections.js';

/** meta: the chunker every stored page (with blocks) was cut with, once no pass is pending. */
export const CHUNKER_VERSION_KEY = 'chunkerVersion';
/** meta: a pass under way. */
export const RECUT_KEY = 'recut';

export interface RecutMark {
  version: string;
  /** Pages (sections records) up to this url are done. */
  after: string;
  done: number;
  total: number;
  /** Pages whose sections changed and were rewritten. */
  rewritten: number;
}

export interface RecutProgress {
  done: number;
  total: number;
  rewritten: number;
}

export interface RecutOptions {
  /** The chunker pages are cut with now (tests swap it). */
  version?: string;
  cut?: (blocks: readonly Block[], pace: Pace) => Promise<{ blocks: Block[]; sections: Chunk[] }>;
  /** Sections records read per step. */
  batch?: number;
}

/** The worker's own pace: 10 ms of cutting, then anything else waiting (a search, a capture) runs. */
const WORKER_PACE: Pace = { yieldToPage: () => new Promise((r) => setTimeout(r, 0)), now: () => performance.now(), sliceMs: 10 };

const sameCut = (a: readonly Chunk[], b: readonly Pick<Chunk, 'text' | 'anchor' | 'headingPath' | 'parts'>[]) =>
  a.length === b.length &&
  a.every((c, i) => {
    const o = b[i]!;
    return (
      c.text === o.text &&
      c.anchor.id === o.anchor.id &&
      c.anchor.text === o.anchor.text &&
      c.headingPath.join('\u0000') === o.headingPath.join('\u0000') &&
      JSON.stringify(c.parts ?? []) === JSON.stringify(o.parts ?? [])
    );
  });

/** The ids of the headings above each section (ChunkAnchor.above) are the same too. */
const sameAbove = (a: readonly Chunk[], b: readonly Pick<Chunk, 'anchor'>[]) => a.every((c, i) => JSON.stringify(c.anchor.above ?? []) === JSON.stringify(b[i]!.anchor.above ?? []));

export class Recut {
  /** Progress of the pass under way (null when none is). */
  progress: RecutProgress | null = null;
  private running: Promise<void> | null = null;
  private readonly version: string;
  private readonly cut: NonNullable<RecutOptions['cut']>;
  private readonly batch: number;

  constructor(
    private readonly engine: Engine,
    opts: RecutOptions = {},
  ) {
    this.version = opts.version ?? CHUNKER_VERSION;
    this.cut = opts.cut ?? ((blocks, pace) => cutSections(blocks, pace));
    this.batch = opts.batch ?? 8;
  }

  /** Whether stored pages wait for a re-cut (a pass is pending or under way). */
  async pending(): Promise<boolean> {
    const db = await this.engine.db();
    const mark = (await db.get('meta', RECUT_KEY)) as RecutMark | undefined;
    if (mark) return true;
    const have = await db.get('meta', CHUNKER_VERSION_KEY);
    return have !== undefined && have !== this.version;
  }

  /** Starts the pass if one is needed or was left unfinished; resolves when it is done. Idempotent. */
  run(): Promise<void> {
    this.running ??= this.pass().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async pass(): Promise<void> {
    const db = await this.engine.db();
    // The blocks of a page not migrated yet are in its schema-2 record: the migration goes first.
    if (await migrationPending(db)) await this.engine.maintenance.run();
    if (await migrationPending(db)) return; // not finished (a quota error, a stop): the next start or alarm tries again
    let mark = (await db.get('meta', RECUT_KEY)) as RecutMark | undefined;
    if (!mark || mark.version !== this.version) {
      const have = await db.get('meta', CHUNKER_VERSION_KEY);
      // A database that never recorded a chunker holds no blocks (they came with it): nothing to cut.
      if (have === undefined || have === this.version) {
        if (have === undefined) await db.put('meta', this.version, CHUNKER_VERSION_KEY);
        if (mark) await db.delete('meta', RECUT_KEY);
        return;
      }
      mark = { version: this.version, after: '', done: 0, total: await db.count('sections'), rewritten: 0 };
      await db.put('meta', mark, RECUT_KEY);
    }
    this.progress = { done: mark.done, total: mark.total, rewritten: mark.rewritten };
    // A page marked forgotten (undo window) is not re-cut; if its forget is undone it must still be, so
    // the pass is not recorded as done while it skipped one: the next pass walks again (the pages cut
    // already are passed over by their version).
    let skippedHidden = false;
    for (;;) {
      const records = await db.getAll('sections', mark.after ? IDBKeyRange.lowerBound(mark.after, true) : null, this.batch);
      if (!records.length) break;
      for (const rec of records) {
        if (keepsBlocks(rec) && rec.cv !== this.version && this.engine.pages.isHidden(rec.url)) skippedHidden = true;
        else if (keepsBlocks(rec) && rec.cv !== this.version) {
          try {
            if (await this.recutPage(db, rec)) mark.rewritten++;
          } catch (e) {
            // A stopping worker aborts its transactions (DOMException): stop here, resume at the next start.
            // Anything else is this page's own (a corrupt record, which verifyIndex reports): it keeps its cut.
            if (e instanceof DOMException || (e as { name?: string } | null)?.name === 'AbortError') throw e;
            console.warn(`reread: ${rec.url} could not be re-cut; it keeps its sections`, e);
          }
        }
        mark.after = rec.url;
        mark.done = Math.min(mark.total, mark.done + 1);
        await db.put('meta', mark, RECUT_KEY);
        this.progress = { done: mark.done, total: Math.max(mark.total, mark.done), rewritten: mark.rewritten };
      }
    }
    if (skippedHidden) {
      await db.put('meta', { ...mark, after: '', done: 0, total: await db.count('sections') }, RECUT_KEY);
      this.progress = null;
      return;
    }
    const tx = db.transaction('meta', 'readwrite');
    await tx.store.put(this.version, CHUNKER_VERSION_KEY);
    await tx.store.delete(RECUT_KEY);
    await tx.done;
    this.progress = null;
  }

  /** Cuts one page again; true when its sections changed and were rewritten. */
  private async recutPage(db: DB, rec: SectionsRecord): Promise<boolean> {
    const page = await db.get('pages', rec.url);
    if (!page) return false; // forgotten meanwhile
    let blocks: Block[];
    try {
      blocks = (await recordBlocks(rec))!;
    } catch (e) {
      console.warn(`reread: the blocks of ${rec.url} cannot be read; its sections are kept`, e);
      return false;
    }
    const cut = await this.cut(blocks, WORKER_PACE);
    // Sections that cannot be read are replaced by the new cut (a rewrite does not need the old text).
    const old = await unpackSections(rec, page).catch(() => null);
    if (old && sameCut(cut.sections, old)) {
      // The same sections: only the record of who cut them changes (unless the page changed meanwhile).
      // When only the ids of the headings above the sections differ (chunker revision 3 added them),
      // the record is written again with them: its texts, and so the index, stay as they are.
      const z = sameAbove(cut.sections, old) ? null : await packPage(cut.sections, cut.blocks);
      await this.engine.exclusive(async () => {
        const tx = db.transaction(['pages', 'sections'], 'readwrite');
        const [curPage, cur] = await Promise.all([tx.objectStore('pages').get(rec.url), tx.objectStore('sections').get(rec.url)]);
        if (cur && curPage && curPage.chunkIds.join() === page.chunkIds.join()) await tx.objectStore('sections').put(z ? { url: cur.url, z, cv: this.version } : { ...cur, cv: this.version });
        await tx.done;
        // Decoded sections are cached by the page's chunk ids, which a rewrite of the links keeps.
        if (z) forgetPage(db, rec.url);
      });
      return false;
    }
    const res = await storePage(this.engine, {
      url: rec.url,
      title: page.title,
      lang: page.lang,
      blocks: cut.blocks,
      chunks: cut.sections,
      chunker: this.version,
      now: page.lastVisit,
      recut: { expectHash: page.hash },
    });
    return res.outcome !== 'skipped';
  }
}
