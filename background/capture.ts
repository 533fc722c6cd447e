/**
 * Capture: whether a page may be captured, and storing what the content script sent — cut into
 * sections, checked for size, written with its postings, texts and embedding queue entries in one
 * transaction (pageStore.writePage) within the storage budget.
 */
import { chunkBlocks, countWords } from '../src/chunker.js';
import { hashHex } from '../src/hash.js';
import { tooLittleText, TOKENIZER } from '../src/indexing.js';
import type { CapturePayload, CaptureResponse } from '../src/protocol.js';
import { siteMatches, siteOf } from '../src/url.js';
import type { Engine } from './engine.js';
import { writePage } from './pageStore.js';

/** Whether a page at this URL may be captured (checked before the content script extracts anything). */
export async function captureAllowed(engine: Engine, url: string): Promise<{ allowed: boolean; reason?: string }> {
  const s = await engine.settings();
  if (s.paused) return { allowed: false, reason: 'paused' };
  const site = siteOf(url);
  if (!site) return { allowed: false, reason: 'not a web page' };
  if (s.excludedSites.some((p) => siteMatches(site, p))) return { allowed: false, reason: 'excluded site' };
  return { allowed: true };
}

export async function capturePage(engine: Engine, url: string, payload: CapturePayload, now: number): Promise<CaptureResponse> {
  const check = await captureAllowed(engine, url);
  if (!check.allowed) return { outcome: 'skipped', chunks: 0, reason: check.reason };
  const { chunks, truncated } = chunkBlocks(payload.blocks);
  if (tooLittleText(payload.title, chunks)) return { outcome: 'skipped', chunks: 0, reason: 'too little text' };
  const words = chunks.reduce((n, c) => n + countWords(c.text), 0);
  if (truncated.chunks || truncated.chars) console.warn(`reread: capped ${url}: ${truncated.chunks} chunks, ${truncated.chars} chars dropped`);
  const hash = hashHex(payload.title + '\u0000' + chunks.map((c) => c.text).join('\u0000'));
  return engine.exclusive(async () => {
    const db = await engine.db();
    await engine.budget.keepHeadroomLocked(url);
    // A page marked forgotten and visited again: its old record goes now, the new visit is kept.
    await engine.forget.releaseLocked(url);
    const result = await engine.budget.writeLocked(url, () =>
      writePage(db, { url, site: siteOf(url), title: payload.title, lang: payload.lang, hash, words, chunks, now, embedModel: engine.dense?.queueModel() ?? null }, TOKENIZER),
    );
    engine.lexical.invalidate(result.touchedTerms);
    engine.pages.put(result.page);
    if (result.removedChunkIds.length) engine.dense?.onChunksRemoved(result.removedChunkIds);
    if (result.addedChunkIds.length) engine.dense?.onChunksAdded();
    return { outcome: result.outcome, chunks: result.page.chunkIds.length };
  });
}
