/**
 * Capture: whether a page may be captured, and storing what the content script sent — its sections
 * (cut by the page and checked by the router, src/validate.ts validateSections; cut here when the page
 * sent none or another chunker cut them), written with its sections, blocks, one segment of postings
 * and its embedding queue entries in one transaction (pageStore.writePage) within the storage budget;
 * the segment is merged into the main index later, in the background (indexMaintenance.ts). The
 * backfill and PDF capture (background/dayone) come through here too, with a `CaptureSource` saying
 * what they are; a re-cut (background/recut.ts) writes through the same path.
 */
import { chunkBlocks, CHUNKER_VERSION, type Block, type Chunk } from '../src/chunker.js';
import { hashHex } from '../src/hash.js';
import { tooLittleText, TOKENIZER } from '../src/indexing.js';
import type { PageKind } from '../src/pageKind.js';
import type { CapturePayload, CaptureResponse } from '../src/protocol.js';
import { siteMatches, siteOf } from '../src/url.js';
import type { PageRecord } from './db.js';
import type { Engine } from './engine.js';
import { handOverFiled, writePage } from './pageStore.js';

/** Whether a page at this URL may be captured (checked before the content script extracts anything). */
export async function captureAllowed(engine: Engine, url: string): Promise<{ allowed: boolean; reason?: string }> {
  const s = await engine.settings();
  if (s.paused) return { allowed: false, reason: 'paused' };
  const site = siteOf(url);
  if (!site) return { allowed: false, reason: 'not a web page' };
  if (s.excludedSites.some((p) => siteMatches(site, p))) return { allowed: false, reason: 'excluded site' };
  return { allowed: true };
}

/** Where a capture comes from, when not from the content script of a tab the user is reading. */
export interface CaptureSource {
  kind?: PageKind;
  /** Not a visit: the stored visit dates and count stay (the backfill reading an imported entry). */
  notAVisit?: boolean;
  /** Write only over a title-only entry still stored as one (a page read in a tab meanwhile wins). */
  onlyOverTitle?: boolean;
  pdf?: PageRecord['pdf'];
  /**
   * Asked under the write lock, right before the write: false skips it. The outbox's drain asks whether
   * its entry is still there, so a forget that purged it meanwhile (and then waits for the lock to
   * delete) is never followed by this write.
   */
  stillWanted?: () => Promise<boolean>;
  /** The outbox hand-over this capture is (an opaque id): one filed already is not stored or counted again. */
  handOver?: string;
}

/** Who cut the page's sections: the page (checked) or the background (no sections, or another chunker's). */
export type CutBy = 'page' | 'background';

export async function capturePage(engine: Engine, url: string, payload: CapturePayload, now: number, source: CaptureSource = {}): Promise<CaptureResponse & { cutBy: CutBy }> {
  const check = await captureAllowed(engine, url);
  if (!check.allowed) return { outcome: 'skipped', chunks: 0, reason: check.reason, cutBy: 'background' };
  const cutBy: CutBy = payload.sections && payload.chunker === CHUNKER_VERSION ? 'page' : 'background';
  let chunks: Chunk[];
  if (cutBy === 'page') chunks = payload.sections!;
  else {
    const cut = chunkBlocks(payload.blocks);
    chunks = cut.chunks;
    if (cut.truncated.chunks || cut.truncated.chars) console.warn(`reread: capped ${url}: ${cut.truncated.chunks} chunks, ${cut.truncated.chars} chars dropped`);
  }
  if (tooLittleText(payload.title, chunks)) return { outcome: 'skipped', chunks: 0, reason: 'too little text', cutBy };
  const res = await storePage(engine, { url, title: payload.title, lang: payload.lang, blocks: payload.blocks, chunks, chunker: CHUNKER_VERSION, now, source, ...(payload.capture ? { capture: payload.capture } : {}) });
  return { ...res, cutBy };
}

/** The hash that tells a revisit (same title and sections) from a changed page. */
export function contentHash(title: string, chunks: readonly Chunk[]): string {
  return hashHex(title + '\u0000' + chunks.map((c) => c.text).join('\u0000'));
}

export interface StoreInput {
  url: string;
  title: string;
  lang: string;
  /** What the sections were cut from, kept to cut them again (background/recut.ts). */
  blocks: readonly Block[];
  chunks: readonly Chunk[];
  /** The chunker that cut them (CHUNKER_VERSION). */
  chunker: string;
  now: number;
  /** A re-cut of a stored page whose hash was this: no visit is counted, and nothing is written if the page changed or went meanwhile. */
  recut?: { expectHash: string };
  source?: CaptureSource;
  /** The page view this is a capture of (CapturePayload.capture): one already counted is not counted again. */
  capture?: string;
}

/** Writes a page under the engine's lock and the storage budget, and updates the caches. */
export async function storePage(engine: Engine, input: StoreInput): Promise<CaptureResponse> {
  const { url, title, chunks } = input;
  const source = input.source ?? {};
  const words = chunks.reduce((n, c) => n + c.words, 0);
  const hash = contentHash(title, chunks);
  // Background maintenance waits while captures are under way (indexMaintenance.ts yieldToWrites).
  engine.maintenance.writeStarted();
  return engine.exclusive(async (): Promise<CaptureResponse> => {
    const db = await engine.db();
    if (input.recut) {
      // Re-cut only the page as it was read; a page changed, forgotten or marked forgotten meanwhile is left alone.
      const cur = await db.get('pages', url);
      if (cur?.hash !== input.recut.expectHash || engine.pages.isHidden(url)) return { outcome: 'skipped', chunks: 0, reason: 'changed meanwhile' };
    } else {
      // The page table hides pages marked forgotten (undo window): the backfill never brings one back.
      if (source.onlyOverTitle && (await engine.pages.get(url))?.kind !== 'title') return { outcome: 'skipped', chunks: 0, reason: 'no longer a title-only entry' };
      if (source.stillWanted && !(await source.stillWanted())) return { outcome: 'skipped', chunks: 0, reason: 'forgotten meanwhile' };
      // Filed before, and the worker stopped before the outbox let go of it: that visit is stored.
      if (source.handOver && (await handOverFiled(db, source.handOver))) return { outcome: 'skipped', chunks: 0, reason: 'filed already' };
      // A page marked forgotten and visited again: its old record goes now, the new visit is kept. A
      // capture of the visit that was forgotten (made before the forget, stored only now) is not.
      if (!(await engine.forget.releaseLocked(url, input.now))) return { outcome: 'skipped', chunks: 0, reason: 'forgotten after it was read' };
      await engine.budget.keepHeadroomLocked(url);
    }
    const extra = { ...(source.kind ? { kind: source.kind } : {}), ...(source.notAVisit ? { notAVisit: true } : {}), ...(source.pdf ? { pdf: source.pdf } : {}), ...(source.handOver ? { handOver: source.handOver } : {}), ...(input.capture ? { capture: input.capture } : {}) };
    const page = { url, site: siteOf(url), title, lang: input.lang, hash, words, chunks, blocks: input.blocks, chunker: input.chunker, now: input.now, ...extra };
    const result = await engine.budget.writeLocked(url, () => writePage(db, { ...page, embedModel: engine.dense?.queueModel() ?? null, ...(input.recut ? { recut: true } : {}) }, TOKENIZER));
    engine.applyWrite(result.batch);
    return { outcome: result.outcome, chunks: result.page.chunkIds.length };
  }).finally(() => engine.maintenance.writeEnded());
}
