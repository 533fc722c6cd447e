/**
 * Export and import as JSONL: a header line, then each page followed by its chunks. Vectors are
 * optional (base64 int8 codes with their scale and model). Import re-indexes through the normal write
 * path, keeping visit dates, so an imported profile answers exactly like the exported one.
 */
import type { Chunk } from '../src/chunker.js';
import { countWords } from '../src/chunker.js';
import { hashHex } from '../src/hash.js';
import { normalizeUrl, siteOf } from '../src/url.js';
import type { ChunkRecord, PageRecord } from './db.js';
import type { Engine } from './engine.js';
import { TOKENIZER } from './engine.js';
import { writePage } from './pageStore.js';
import { withTexts } from './chunkText.js';

export const EXPORT_FORMAT = 'reread-export';

interface ExportedChunk {
  kind: 'chunk';
  url: string;
  ord: number;
  headingPath: string[];
  section: string;
  anchor: { id?: string; text?: string };
  text: string;
}

export async function exportJsonl(engine: Engine, _vectors: boolean): Promise<{ jsonl: string; pages: number }> {
  const db = await engine.db();
  // In write order (chunk ids grow with each write): the import then assigns ids in the same relative
  // order, so equal scores break the same way and the imported profile ranks exactly like this one.
  const firstId = (p: PageRecord) => (p.chunkIds.length ? Math.min(...p.chunkIds) : Infinity);
  const pages = (await db.getAll('pages')).sort((a, b) => firstId(a) - firstId(b) || (a.url < b.url ? -1 : 1));
  const lines: string[] = [JSON.stringify({ kind: EXPORT_FORMAT, version: 1, exportedAt: new Date().toISOString(), pages: pages.length })];
  for (const p of pages) {
    const { chunkIds: _ids, hash: _hash, ...page } = p;
    lines.push(JSON.stringify({ kind: 'page', ...page }));
    const tx = db.transaction('chunks');
    const chunks = await withTexts(db, (await Promise.all(p.chunkIds.map((id) => tx.store.get(id)))).filter((c): c is ChunkRecord => !!c));
    for (const c of chunks.sort((a, b) => a.ord - b.ord)) {
      const out: ExportedChunk = { kind: 'chunk', url: c.url, ord: c.ord, headingPath: c.headingPath, section: c.section, anchor: c.anchor, text: c.text };
      lines.push(JSON.stringify(out));
    }
  }
  return { jsonl: lines.join('\n') + '\n', pages: pages.length };
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

export async function importJsonl(engine: Engine, jsonl: string): Promise<{ pages: number; skipped: number }> {
  const lines = jsonl.split('\n');
  let header: unknown;
  try {
    header = JSON.parse(lines[0] ?? '');
  } catch {
    header = null;
  }
  if (!header || (header as { kind?: unknown }).kind !== EXPORT_FORMAT) throw new Error('not a Reread export (missing header line)');
  type Pending = { page: Partial<PageRecord>; chunks: Chunk[] };
  const pages = new Map<string, Pending>();
  let skipped = 0;
  for (const line of lines.slice(1)) {
    if (!line.trim()) continue;
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line) as Record<string, unknown>;
    } catch {
      skipped++;
      continue;
    }
    const url = typeof rec.url === 'string' ? normalizeUrl(rec.url) : null;
    if (!url) {
      skipped++;
      continue;
    }
    if (rec.kind === 'page') {
      pages.set(url, { page: { url, title: String(rec.title ?? ''), lang: String(rec.lang ?? ''), firstVisit: Number(rec.firstVisit) || Date.now(), lastVisit: Number(rec.lastVisit) || Date.now(), visitCount: Number(rec.visitCount) || 1 }, chunks: [] });
    } else if (rec.kind === 'chunk') {
      const p = pages.get(url);
      if (!p || typeof rec.text !== 'string' || !isStringArray(rec.headingPath)) {
        skipped++;
        continue;
      }
      const anchor = rec.anchor && typeof rec.anchor === 'object' ? (rec.anchor as { id?: unknown; text?: unknown }) : {};
      p.chunks.push({
        ord: p.chunks.length,
        headingPath: rec.headingPath.slice(0, 12),
        section: typeof rec.section === 'string' ? rec.section : '',
        anchor: { ...(typeof anchor.id === 'string' ? { id: anchor.id } : {}), ...(typeof anchor.text === 'string' ? { text: anchor.text } : {}) },
        text: rec.text.slice(0, 20_000),
        words: countWords(rec.text),
      });
    } else skipped++;
  }
  let imported = 0;
  for (const { page, chunks } of pages.values()) {
    if (!chunks.length) {
      skipped++;
      continue;
    }
    const url = page.url!;
    const title = page.title ?? '';
    const db = await engine.db();
    // The page record is fixed up under the same lock as the write: a capture of the same URL slipping
    // in between would otherwise have its chunk list overwritten with this one's (orphaning its chunks).
    const { res, fixed } = await engine.exclusive(async () => {
      const prev = await db.get('pages', url);
      const res = await writePage(
        db,
        {
          url,
          site: siteOf(url),
          title,
          lang: page.lang ?? '',
          hash: hashHex(title + '\u0000' + chunks.map((c) => c.text).join('\u0000')),
          words: chunks.reduce((n, c) => n + c.words, 0),
          chunks,
          now: page.lastVisit!,
          embedModel: engine.dense?.queueModel() ?? null,
        },
        TOKENIZER,
      );
      // Keep the exported visit history rather than "visited now", merged with what this profile
      // already knew of the page (an import must not make a recent visit look older).
      const fixed = prev
        ? { ...res.page, firstVisit: Math.min(prev.firstVisit, page.firstVisit!), lastVisit: Math.max(prev.lastVisit, page.lastVisit!), visitCount: Math.max(prev.visitCount, page.visitCount!) }
        : { ...res.page, firstVisit: page.firstVisit!, lastVisit: page.lastVisit!, visitCount: page.visitCount! };
      await db.put('pages', fixed);
      return { res, fixed };
    });
    engine.lexical.invalidate(res.touchedTerms);
    engine.pages.put(fixed);
    if (res.removedChunkIds.length) engine.dense?.onChunksRemoved(res.removedChunkIds);
    if (res.addedChunkIds.length) engine.dense?.onChunksAdded();
    imported++;
  }
  return { pages: imported, skipped };
}
