/**
 * Export and import as JSONL: a header line, then each page followed by its chunks. Vectors are
 * optional (base64 int8 codes with their scale and model): an import into a profile using the same
 * model stores them instead of embedding those sections again. Import re-indexes through the normal
 * write path, keeping visit dates, so an imported profile answers exactly like the exported one.
 *
 * The export is one snapshot: pages, chunks, texts and vectors are read in a single read-only
 * transaction, so a capture or deletion made while it runs is either wholly in it or wholly not.
 */
import type { Chunk, ChunkAnchor, SectionPart } from '../src/chunker.js';
import { MAX_VISITS } from '../src/forget.js';
import { countWords } from '../src/chunker.js';
import { hashHex } from '../src/hash.js';
import { plainId, readAbove, SECTION_LIMITS, wellFormed } from '../src/validate.js';
import { isFileUrl, normalizeStoredUrl, siteOf } from '../src/url.js';
import type { PageRecord, StoredSection } from './db.js';
import type { Engine } from './engine.js';
import { TOKENIZER } from '../src/indexing.js';
import { writePage } from './pageStore.js';
import { putPage } from './pageLog.js';
import { legacyActive, unpackTexts } from './legacy.js';
import { unpackSections } from './sections.js';
import { modelInfo } from '../src/models.js';
import { storeVectors } from './vectorStore.js';
import { isPageKind, type PageKind } from '../src/pageKind.js';

export const EXPORT_FORMAT = 'reread-export';

interface ExportedVector {
  model: string;
  scale: number;
  /** base64 of the int8 codes. */
  codes: string;
}

interface ExportedChunk {
  kind: 'chunk';
  url: string;
  ord: number;
  headingPath: string[];
  section: string;
  anchor: { id?: string; text?: string };
  /** Sub-sections merged into the chunk (src/chunker.ts SectionPart), when any. */
  parts?: SectionPart[];
  text: string;
  vector?: ExportedVector;
}

/** A visit time as an export wrote it: a finite moment, not after now (a far-future date would make every later capture of the page look older than it). */
function importedTime(v: unknown, now = Date.now()): number {
  const t = Number(v);
  return Number.isFinite(t) && t > 0 ? Math.min(t, now) : now;
}

function importedAnchor(v: unknown, withAbove = false): ChunkAnchor {
  const a = v && typeof v === 'object' ? (v as { id?: unknown; text?: unknown; above?: unknown }) : {};
  const above = withAbove ? readAbove(a.above) : undefined;
  // As capture validates them (src/validate.ts): an id a link can jump to, text without lone surrogates
  // (a link to it is built with encodeURIComponent, which throws on one: every search reaching the section failed).
  const id = plainId(a.id);
  return { ...(id ? { id } : {}), ...(typeof a.text === 'string' ? { text: wellFormed(a.text.slice(0, 2000)) } : {}), ...(above ? { above } : {}) };
}

/** Parts as a later version exported them, kept only when well-formed (ascending offsets inside the text). */
function importedParts(v: unknown, textLength: number): SectionPart[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: SectionPart[] = [];
  for (const p of v.slice(0, 1000)) {
    if (!p || typeof p !== 'object') return undefined;
    const { at, headingPath, anchor } = p as { at?: unknown; headingPath?: unknown; anchor?: unknown };
    if (typeof at !== 'number' || !Number.isInteger(at) || at < 0 || at >= textLength || (out.length && at <= out[out.length - 1]!.at)) return undefined;
    if (!isStringArray(headingPath)) return undefined;
    out.push({ at, headingPath: headingPath.slice(0, 12), anchor: importedAnchor(anchor) });
  }
  return out.length ? out : undefined;
}

function toBase64(bytes: Int8Array): string {
  const u = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let s = '';
  for (let i = 0; i < u.length; i += 0x8000) s += String.fromCharCode(...u.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(s: string): Int8Array | null {
  try {
    const bin = atob(s);
    const out = new Int8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = (bin.charCodeAt(i) << 24) >> 24;
    return out;
  } catch {
    return null;
  }
}

export async function exportJsonl(engine: Engine, vectors: boolean): Promise<{ jsonl: string; pages: number }> {
  const db = await engine.db();
  const model = vectors ? (engine.dense?.queueModel() ?? null) : null;
  await engine.delta.ready();
  const dead = engine.delta.dead;
  // One read-only transaction: a consistent snapshot, while captures go on.
  const legacy = legacyActive(db);
  const tx = db.transaction(legacy ? ['pages', 'sections', 'vectors', 'chunks', 'texts'] : ['pages', 'sections', 'vectors']);
  const [pageList, records, blocks, legacyChunks, legacyTexts] = await Promise.all([
    tx.objectStore('pages').getAll(),
    tx.objectStore('sections').getAll(),
    model ? tx.objectStore('vectors').getAll(IDBKeyRange.bound([model, 0], [model, Infinity])) : Promise.resolve([]),
    legacy ? tx.objectStore('chunks').getAll() : Promise.resolve([]),
    legacy ? tx.objectStore('texts').getAll() : Promise.resolve([]),
  ]);
  await tx.done;
  const recordOf = new Map(records.map((r) => [r.url, r]));
  const chunkOf = new Map(legacyChunks.map((c) => [c.id, c]));
  const textsOf = new Map(legacyTexts.map((t) => [t.url, t]));
  const vectorOf = new Map<number, ExportedVector>();
  for (const b of blocks) {
    for (let i = 0; i < b.ids.length; i++) if (!dead.has(b.ids[i]!)) vectorOf.set(b.ids[i]!, { model: b.m, scale: b.scales[i]!, codes: toBase64(b.codes.subarray(i * b.dim, (i + 1) * b.dim)) });
  }
  /** A page's sections from the snapshot (a page not migrated yet: its chunk and text records). */
  const sectionsOf = async (p: PageRecord): Promise<StoredSection[]> => {
    const r = recordOf.get(p.url);
    if (r) return unpackSections(r, p).catch(() => []);
    const t = textsOf.get(p.url);
    const texts = t ? new Map((await unpackTexts(t.z).catch(() => [] as string[])).map((x, i) => [t.ids[i]!, x])) : new Map<number, string>();
    return p.chunkIds.flatMap((id, ord) => {
      const c = chunkOf.get(id);
      return c ? [{ id, url: p.url, ord, headingPath: c.headingPath, section: c.section, anchor: c.anchor, text: c.text ?? texts.get(id) ?? '' }] : [];
    });
  };
  // In write order (chunk ids grow with each write): the import then assigns ids in the same relative
  // order, so equal scores break the same way and the imported profile ranks exactly like this one.
  const firstId = (p: PageRecord) => (p.chunkIds.length ? Math.min(...p.chunkIds) : Infinity);
  // Pages marked forgotten (undo window open) are not exported.
  await engine.forget.ready();
  const pages = pageList.filter((p) => !engine.pages.isHidden(p.url)).sort((a, b) => firstId(a) - firstId(b) || (a.url < b.url ? -1 : 1));
  const lines: string[] = [JSON.stringify({ kind: EXPORT_FORMAT, version: 1, exportedAt: new Date().toISOString(), pages: pages.length, ...(model ? { vectors: model } : {}) })];
  for (const p of pages) {
    // The page's own kind (title-only, fetched, PDF) travels as `pageKind`: `kind` names the line.
    const { chunkIds: _ids, hash: _hash, lens: _lens, kind: pageKind, ...page } = p;
    lines.push(JSON.stringify({ kind: 'page', ...page, ...(pageKind ? { pageKind } : {}) }));
    for (const c of await sectionsOf(p)) {
      const out: ExportedChunk = { kind: 'chunk', url: p.url, ord: c.ord, headingPath: c.headingPath, section: c.section, anchor: c.anchor, ...(c.parts ? { parts: c.parts } : {}), text: c.text };
      const v = vectorOf.get(c.id);
      if (v) out.vector = v;
      lines.push(JSON.stringify(out));
    }
  }
  return { jsonl: lines.join('\n') + '\n', pages: pages.length };
}

/** A chunk line's vector, if it is well formed and made by `model` (the one this profile embeds with). */
function importedVector(v: unknown, model: string | null): { codes: Int8Array; scale: number } | null {
  if (!model || !v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  const dim = modelInfo(model)?.dim;
  if (o.model !== model || typeof o.codes !== 'string' || typeof o.scale !== 'number' || !Number.isFinite(o.scale) || o.scale <= 0) return null;
  const codes = fromBase64(o.codes);
  return codes && codes.length === dim ? { codes, scale: o.scale } : null;
}

/** Which of two pages at one URL an import keeps: what was read in a tab (or a PDF) over a page fetched later, over a title. */
function kindRank(kind: PageKind | undefined): number {
  return kind === 'title' ? 1 : kind === 'fetched' ? 2 : 3;
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** An exported visit list: finite times, at most MAX_VISITS of the latest (anything else is dropped). */
function importedVisits(v: unknown): { visits?: number[] } {
  if (!Array.isArray(v)) return {};
  const now = Date.now();
  const times = v.filter((t): t is number => typeof t === 'number' && Number.isFinite(t) && t > 0 && t <= now);
  return times.length ? { visits: mergeVisits(undefined, times) } : {};
}

function mergeVisits(a: readonly number[] | undefined, b: readonly number[]): number[] {
  return [...new Set([...(a ?? []), ...b])].sort((x, y) => x - y).slice(-MAX_VISITS);
}

export async function importJsonl(engine: Engine, jsonl: string): Promise<{ pages: number; skipped: number; vectors: number }> {
  const lines = jsonl.split('\n');
  let header: unknown;
  try {
    header = JSON.parse(lines[0] ?? '');
  } catch {
    header = null;
  }
  if (!header || (header as { kind?: unknown }).kind !== EXPORT_FORMAT) throw new Error('not a Reread export (missing header line)');
  type Pending = { page: Partial<PageRecord>; chunks: Chunk[]; vectors: ({ codes: Int8Array; scale: number } | null)[] };
  const model = engine.dense?.queueModel() ?? null;
  let vectorsStored = 0;
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
    // Web pages, and local files for PDFs only (a local PDF's record is checked below, with its kind).
    const url = typeof rec.url === 'string' ? normalizeStoredUrl(rec.url) : null;
    if (!url || (rec.kind === 'page' && isFileUrl(url) && rec.pageKind !== 'pdf')) {
      skipped++;
      continue;
    }
    if (rec.kind === 'page') {
      // A second line for a page already read keeps the first and its sections (counted as skipped).
      if (pages.has(url)) {
        skipped++;
        continue;
      }
      const page: Partial<PageRecord> = { url, title: String(rec.title ?? ''), lang: String(rec.lang ?? ''), firstVisit: importedTime(rec.firstVisit), lastVisit: importedTime(rec.lastVisit), visitCount: Number(rec.visitCount) || 1, ...importedVisits(rec.visits) };
      if (isPageKind(rec.pageKind)) page.kind = rec.pageKind;
      const fs = rec.fetchSkipped as { at?: unknown; reason?: unknown } | undefined;
      if (page.kind === 'title' && fs && typeof fs.at === 'number' && typeof fs.reason === 'string') page.fetchSkipped = { at: fs.at, reason: fs.reason.slice(0, 40) };
      const pdf = rec.pdf as { pages?: unknown; read?: unknown } | undefined;
      if (page.kind === 'pdf' && pdf && Number.isInteger(pdf.pages) && Number.isInteger(pdf.read)) page.pdf = { pages: pdf.pages as number, read: pdf.read as number };
      pages.set(url, { page, chunks: [], vectors: [] });
    } else if (rec.kind === 'chunk') {
      const p = pages.get(url);
      // As capture caps a page (src/validate.ts SECTION_LIMITS): sections, their text, their headings.
      if (!p || typeof rec.text !== 'string' || !isStringArray(rec.headingPath) || p.chunks.length >= SECTION_LIMITS.maxSections) {
        skipped++;
        continue;
      }
      const text = wellFormed(rec.text.slice(0, SECTION_LIMITS.maxTextChars));
      const parts = importedParts(rec.parts, text.length);
      p.chunks.push({
        ord: p.chunks.length,
        headingPath: rec.headingPath.slice(0, SECTION_LIMITS.maxPathDepth).map((h) => wellFormed(h.slice(0, SECTION_LIMITS.maxHeadingChars))),
        section: typeof rec.section === 'string' ? wellFormed(rec.section.slice(0, SECTION_LIMITS.maxHeadingChars)) : '',
        anchor: importedAnchor(rec.anchor, true),
        text,
        words: countWords(text),
        ...(parts ? { parts } : {}),
      });
      p.vectors.push(importedVector(rec.vector, model));
    } else skipped++;
  }
  let imported = 0;
  for (const { page, chunks, vectors } of pages.values()) {
    if (!chunks.length) {
      skipped++;
      continue;
    }
    const url = page.url!;
    const title = page.title ?? '';
    const db = await engine.db();
    // The page record is fixed up under the same lock as the write: a capture of the same URL slipping
    // in between would otherwise have its chunk list overwritten with this one's (orphaning its chunks).
    const done = await engine.exclusive(async () => {
      const prev = await db.get('pages', url);
      // A title-only entry never replaces a stored page, nor a page read later from its site one read in a tab.
      if (prev && kindRank(prev.kind) > kindRank(page.kind)) return null;
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
          ...(page.kind ? { kind: page.kind } : {}),
          ...(page.pdf ? { pdf: page.pdf } : {}),
        },
        TOKENIZER,
      );
      // Keep the exported visit history rather than "visited now", merged with what this profile
      // already knew of the page (an import must not make a recent visit look older).
      const visits = mergeVisits(prev?.visits, page.visits ?? [page.firstVisit!, page.lastVisit!]);
      const fixed: PageRecord = prev
        ? { ...res.page, firstVisit: Math.min(prev.firstVisit, page.firstVisit!), lastVisit: Math.max(prev.lastVisit, page.lastVisit!), visitCount: Math.max(prev.visitCount, page.visitCount!), visits }
        : { ...res.page, firstVisit: page.firstVisit!, lastVisit: page.lastVisit!, visitCount: page.visitCount!, visits };
      if (page.fetchSkipped) fixed.fetchSkipped = page.fetchSkipped;
      const tx = db.transaction(['pages', 'meta'], 'readwrite');
      await putPage(tx, fixed);
      await tx.done;
      // Sections that came with a vector of this profile's model are not embedded again (storeVectors
      // takes only ids still queued, so a drain that got there first is never doubled).
      const entries = res.addedChunkIds.flatMap((id, i) => (vectors[i] ? [{ id, codes: vectors[i]!.codes, scale: vectors[i]!.scale }] : []));
      if (model && entries.length) vectorsStored += (await storeVectors(db, model, modelInfo(model)!.dim, entries, entries.map((e) => e.id))).length;
      return { res, fixed };
    });
    if (!done) {
      skipped++;
      continue;
    }
    const { res, fixed } = done;
    engine.applyWrite({ ...res.batch, pages: [{ ...res.batch.pages[0]!, page: fixed }] });
    imported++;
  }
  // The resident dense index is reloaded from storage on its next use, imported vectors included.
  if (vectorsStored) engine.dense?.onChunksRemoved([]);
  return { pages: imported, skipped, vectors: vectorsStored };
}
