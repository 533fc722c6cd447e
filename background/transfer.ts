/**
 * Export and import as JSONL: a header line, then each page followed by its chunks. Vectors are
 * optional (base64 int8 codes with their scale and model): an import into a profile using the same
 * model stores them instead of embedding those sections again. Import re-indexes through the normal
 * write path, keeping visit dates, so an imported profile answers exactly like the exported one.
 *
 * Neither ever holds the whole file, nor the whole index: a million sections export to more characters
 * than one string may hold (src/transferParts.ts). An export lists its pages when it begins, then reads
 * them a batch at a time as its parts are asked for; an import takes its lines as its parts arrive and
 * writes each page once its lines are read.
 *
 * What an export holds, with captures and forgets going on while it runs:
 * - Each page is read whole in one read-only transaction (its record, sections and vectors), so it is
 *   in the file as it was at one moment, or not at all: never half a page.
 * - The pages are those listed when the export began, minus any forgotten before its batch was read
 *   (deleted, or hidden by an undo window: hidden pages are never exported). A page forgotten after its
 *   batch was read is in the file, as it would have been a moment earlier. A page captured after the
 *   listing is not in it, nor one hidden then and restored since; one read again since is exported as
 *   it is when its batch is read, in its listed place.
 * - The header's `pages` counts the pages listed when the export began: the file holds that many, or
 *   fewer when some were forgotten meanwhile (the Options page says how many it holds). An import
 *   never compares it with the lines: it shows progress against it.
 *
 * An import is written page by page, each in the write path's own transaction: a page is stored whole
 * or not at all, and a transfer cut short (the worker stopped, the Options page closed) leaves the
 * pages written before it. Importing the same file again finishes it: a page already stored with the
 * same text is a revisit whose visit history is merged (the same dates are not counted twice).
 */
import type { Chunk, ChunkAnchor, SectionPart } from '../src/chunker.js';
import { MAX_VISITS } from '../src/forget.js';
import { countWords } from '../src/chunker.js';
import { hashHex } from '../src/hash.js';
import { plainId, readAbove, SECTION_LIMITS, wellFormed } from '../src/validate.js';
import { LineSplitter, MAX_LINE_CHARS } from '../src/transferParts.js';
import { isFileUrl, normalizeStoredUrl, siteMatches, siteOf } from '../src/url.js';
import type { ChunkRecord, DB, PageRecord, SectionsRecord, StoredSection, TextRecord, VectorBlockRecord } from './db.js';
import type { Engine } from './engine.js';
import { ProtocolError } from '../src/protocol.js';
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

/** Sections an export reads in one transaction (whole pages: a page with more is read alone). */
export const EXPORT_SECTIONS_PER_READ = 2_000;
/** Page records read at a time while an export lists its pages. */
const LIST_BATCH = 1_000;
/** Chunk ids this far apart start another range of vector blocks read (ids between are other pages'). */
const VECTOR_RUN_GAP = 256;

export interface ExportOptions {
  /** Sections read in one transaction (EXPORT_SECTIONS_PER_READ). */
  sectionsPerRead?: number;
  /** Page records read at a time while listing (the tests make it small). */
  listBatch?: number;
}

/** A page as listed when the export began: where it goes in the file, and how many sections it had. */
interface Listed {
  url: string;
  first: number;
  sections: number;
}

type ReadTx = ReturnType<DB['transaction']>;

/**
 * The exact vector blocks of `model` holding these chunk ids (sorted, ascending), inside the caller's
 * transaction: for each run of close ids, the block holding the first (the greatest first id at or below
 * it, whatever the layout that wrote it) and every block after it up to the last.
 */
function vectorBlocks(tx: ReadTx, model: string, ids: readonly number[]): Promise<VectorBlockRecord[]>[] {
  const store = tx.objectStore('vectors');
  const reads: Promise<VectorBlockRecord[]>[] = [];
  let i = 0;
  while (i < ids.length) {
    const lo = ids[i]!;
    let hi = lo;
    while (i + 1 < ids.length && ids[i + 1]! - hi <= VECTOR_RUN_GAP) hi = ids[++i]!;
    i++;
    reads.push(store.openCursor(IDBKeyRange.bound([model, 0], [model, lo]), 'prev').then((c) => (c ? [c.value] : [])));
    if (hi > lo) reads.push(store.getAll(IDBKeyRange.bound([model, lo], [model, hi], true, false)));
  }
  return reads;
}

/** What one batch's transaction read, decoded after it closed (inflating is not an IndexedDB request). */
interface BatchRead {
  pages: PageRecord[];
  sections: (SectionsRecord | undefined)[];
  chunks: Map<number, ChunkRecord>;
  texts: Map<string, TextRecord>;
  blocks: VectorBlockRecord[];
}

/**
 * An export under way: its pages listed in file order when it began, read and written out a batch at a
 * time (`next`). Holds the list (an address and two numbers a page) and one batch, never the index or
 * the file.
 */
export class JsonlExport {
  /** Pages written out so far (the header's count less the pages forgotten meanwhile, once done). */
  written = 0;
  private at = 0;
  private headerSent = false;

  private constructor(
    private readonly engine: Engine,
    private readonly db: DB,
    private readonly model: string | null,
    private readonly list: Listed[],
    private readonly sectionsPerRead: number,
  ) {}

  /** Pages listed when the export began: the header's count. */
  get listed(): number {
    return this.list.length;
  }

  /** Lists the pages to export (the file's order), reading the page store a batch at a time. */
  static async start(engine: Engine, vectors: boolean, opts: ExportOptions = {}): Promise<JsonlExport> {
    const db = await engine.db();
    const model = vectors ? (engine.dense?.queueModel() ?? null) : null;
    await engine.delta.ready();
    // Pages marked forgotten (undo window open) are not exported.
    await engine.forget.ready();
    const listBatch = opts.listBatch ?? LIST_BATCH;
    const list: Listed[] = [];
    for (let after: string | null = null; ; ) {
      const batch: PageRecord[] = await db.getAll('pages', after === null ? null : IDBKeyRange.lowerBound(after, true), listBatch);
      for (const p of batch) if (!engine.pages.isHidden(p.url)) list.push({ url: p.url, first: p.chunkIds.length ? Math.min(...p.chunkIds) : Infinity, sections: p.chunkIds.length });
      if (batch.length < listBatch) break;
      after = batch[batch.length - 1]!.url;
    }
    // In write order (chunk ids grow with each write): the import then assigns ids in the same relative
    // order, so equal scores break the same way and the imported profile ranks exactly like this one.
    list.sort((a, b) => a.first - b.first || (a.url < b.url ? -1 : 1));
    return new JsonlExport(engine, db, model, list, Math.max(1, opts.sectionsPerRead ?? EXPORT_SECTIONS_PER_READ));
  }

  /** The next lines, each with its line break: the header first, then a batch of pages; null once every listed page was read. */
  async next(): Promise<string[] | null> {
    if (!this.headerSent) {
      this.headerSent = true;
      const header = { kind: EXPORT_FORMAT, version: 1, exportedAt: new Date().toISOString(), pages: this.list.length, ...(this.model ? { vectors: this.model } : {}) };
      return [JSON.stringify(header) + '\n'];
    }
    if (this.at >= this.list.length) return null;
    const batch: Listed[] = [];
    for (let n = 0; this.at < this.list.length && (!batch.length || n + this.list[this.at]!.sections <= this.sectionsPerRead); this.at++) {
      batch.push(this.list[this.at]!);
      n += this.list[this.at]!.sections;
    }
    return this.lines(await this.read(batch));
  }

  /** The batch's pages still stored and not hidden, with their records, in one read-only transaction. */
  private async read(batch: readonly Listed[]): Promise<BatchRead> {
    const legacy = legacyActive(this.db);
    const model = this.model;
    const tx = this.db.transaction(legacy ? ['pages', 'sections', 'vectors', 'chunks', 'texts'] : ['pages', 'sections', 'vectors']);
    const found = await Promise.all(batch.map((b) => tx.objectStore('pages').get(b.url)));
    // Hidden now (a forget marked since the listing): left out, as a page hidden at the start is.
    const pages = found.filter((p): p is PageRecord => !!p && !this.engine.pages.isHidden(p.url));
    const ids = pages.flatMap((p) => p.chunkIds).sort((a, b) => a - b);
    const [sections, chunks, texts, blocks] = await Promise.all([
      Promise.all(pages.map((p) => tx.objectStore('sections').get(p.url))),
      legacy ? Promise.all(ids.map((id) => tx.objectStore('chunks').get(id))) : Promise.resolve([]),
      legacy ? Promise.all(pages.map((p) => tx.objectStore('texts').get(p.url))) : Promise.resolve([]),
      model ? Promise.all(vectorBlocks(tx, model, ids)).then((r) => r.flat()) : Promise.resolve([]),
    ]);
    await tx.done;
    return {
      pages,
      sections,
      chunks: new Map(chunks.flatMap((c) => (c ? [[c.id, c] as const] : []))),
      texts: new Map(texts.flatMap((t) => (t ? [[t.url, t] as const] : []))),
      blocks,
    };
  }

  private async lines(read: BatchRead): Promise<string[]> {
    const dead = this.engine.delta.dead;
    const wanted = new Set(read.pages.flatMap((p) => p.chunkIds));
    const vectorOf = new Map<number, ExportedVector>();
    for (const b of read.blocks) {
      for (let i = 0; i < b.ids.length; i++) {
        const id = b.ids[i]!;
        if (wanted.has(id) && !dead.has(id)) vectorOf.set(id, { model: b.m, scale: b.scales[i]!, codes: toBase64(b.codes.subarray(i * b.dim, (i + 1) * b.dim)) });
      }
    }
    const out: string[] = [];
    for (const [i, p] of read.pages.entries()) {
      // The page's own kind (title-only, fetched, PDF) travels as `pageKind`: `kind` names the line.
      // (Page view ids mean nothing in another profile: not exported.)
      const { chunkIds: _ids, hash: _hash, lens: _lens, captures: _views, kind: pageKind, ...page } = p;
      out.push(JSON.stringify({ kind: 'page', ...page, ...(pageKind ? { pageKind } : {}) }) + '\n');
      for (const c of await sectionsOf(p, read.sections[i], read)) {
        const line: ExportedChunk = { kind: 'chunk', url: p.url, ord: c.ord, headingPath: c.headingPath, section: c.section, anchor: c.anchor, ...(c.parts ? { parts: c.parts } : {}), text: c.text };
        const v = vectorOf.get(c.id);
        if (v) line.vector = v;
        out.push(JSON.stringify(line) + '\n');
      }
      this.written++;
    }
    return out;
  }
}

/** A page's sections as its batch read them (a page not migrated yet: its chunk and text records). */
async function sectionsOf(p: PageRecord, record: SectionsRecord | undefined, read: BatchRead): Promise<StoredSection[]> {
  if (record) return unpackSections(record, p).catch(() => []);
  const t = read.texts.get(p.url);
  const texts = t ? new Map((await unpackTexts(t.z).catch(() => [] as string[])).map((x, i) => [t.ids[i]!, x])) : new Map<number, string>();
  return p.chunkIds.flatMap((id, ord) => {
    const c = read.chunks.get(id);
    return c ? [{ id, url: p.url, ord, headingPath: c.headingPath, section: c.section, anchor: c.anchor, text: c.text ?? texts.get(id) ?? '' }] : [];
  });
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

type Pending = { page: Partial<PageRecord>; chunks: Chunk[]; vectors: ({ codes: Int8Array; scale: number } | null)[] };

/** An import's progress, as each part is taken. */
export interface ImportProgress {
  /** Pages imported so far. */
  pages: number;
  /** Page lines read so far (imported, waiting for their sections, or skipped). */
  read: number;
  /** The pages the file's header lists (null: it does not say). */
  listed: number | null;
}

export interface ImportResult {
  pages: number;
  /** Lines skipped (malformed, refused, or a page with no section), pages refused and lines too long. */
  skipped: number;
  vectors: number;
  /** Pages left out because their site is one this profile never saves (Options' excluded sites). */
  excluded: number;
}

const NOT_AN_EXPORT = 'not a Reread export (missing header line)';

/**
 * An import under way, fed its text in parts (`push`) and finished by `end`. A page is written once its
 * lines are read, which the next page line (or the end) tells: only the page being read is held, and
 * the addresses of the pages read (a second line for one of them is skipped, as it always was).
 *
 * The file is read as Reread writes it, each page's chunk lines after its page line. A chunk line for
 * another page than the one being read is skipped (an earlier import read the whole file first and
 * took chunk lines for any page already read; no export ever wrote them so).
 */
export class JsonlImport {
  private readonly splitter: LineSplitter;
  private readonly model: string | null;
  private header = false;
  private current: Pending | null = null;
  private readonly seen = new Set<string>();
  private imported = 0;
  private skipped = 0;
  private read = 0;
  private listed: number | null = null;
  private vectorsStored = 0;
  private excluded = 0;
  /** A page of a site never saved, whose section lines are passed over (not counted as skipped). */
  private passing: string | null = null;
  /** The sites this profile never saves, read when the first page line comes. */
  private neverSaved: readonly string[] | null = null;

  constructor(
    private readonly engine: Engine,
    maxLine: number = MAX_LINE_CHARS,
  ) {
    this.splitter = new LineSplitter(maxLine);
    this.model = engine.dense?.queueModel() ?? null;
  }

  /** Takes the next part of the file, writing every page it completes. */
  async push(text: string): Promise<ImportProgress> {
    for (const line of this.splitter.push(text)) await this.line(line);
    // A first line too long to be kept is no header either.
    if (!this.header && this.splitter.overlong) throw new ProtocolError('bad-request', NOT_AN_EXPORT);
    return this.progress();
  }

  progress(): ImportProgress {
    return { pages: this.imported, read: this.read, listed: this.listed };
  }

  /** The file is all sent: its last page is written. */
  async end(): Promise<ImportResult> {
    const last = this.splitter.end();
    if (last) await this.line(last);
    if (!this.header) throw new ProtocolError('bad-request', NOT_AN_EXPORT);
    await this.flush();
    this.abandon();
    return { pages: this.imported, skipped: this.skipped + this.splitter.overlong, vectors: this.vectorsStored, excluded: this.excluded };
  }

  /**
   * No more parts will come (finished, failed or left). Nothing is left to do: each page's vectors went
   * to the dense lane's resident index as the page was written (`writeImported`). An import left part-way
   * (its page closed) is abandoned only at its expiry or when the worker stops; the dense lane used to
   * reload here, so until then the pages it had written were missing from search by meaning.
   */
  abandon(): void {}

  private async line(line: string): Promise<void> {
    if (!this.header) {
      let header: unknown;
      try {
        header = JSON.parse(line);
      } catch {
        header = null;
      }
      if (!header || (header as { kind?: unknown }).kind !== EXPORT_FORMAT) throw new ProtocolError('bad-request', NOT_AN_EXPORT);
      const pages = (header as { pages?: unknown }).pages;
      this.listed = typeof pages === 'number' && Number.isInteger(pages) && pages >= 0 ? pages : null;
      this.header = true;
      return;
    }
    if (!line.trim()) return;
    let rec: Record<string, unknown>;
    try {
      rec = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.skipped++;
      return;
    }
    if (rec.kind === 'page') this.read++;
    // Web pages, and local files for PDFs only (a local PDF's record is checked below, with its kind).
    const url = typeof rec.url === 'string' ? normalizeStoredUrl(rec.url) : null;
    if (!url || (rec.kind === 'page' && isFileUrl(url) && rec.pageKind !== 'pdf')) {
      this.skipped++;
      return;
    }
    if (rec.kind === 'page') {
      // A second line for a page already read keeps the first and its sections (counted as skipped).
      if (this.seen.has(url)) {
        this.skipped++;
        return;
      }
      await this.flush();
      this.seen.add(url);
      this.passing = null;
      // A site this profile never saves is never stored, whoever's file brings it (capture checks the
      // same list, background/capture.ts): an export made elsewhere, or before the site was excluded.
      this.neverSaved ??= (await this.engine.settings()).excludedSites;
      const site = isFileUrl(url) ? null : siteOf(url);
      if (site && this.neverSaved.some((p) => siteMatches(site, p))) {
        this.excluded++;
        this.passing = url;
        return;
      }
      const page: Partial<PageRecord> = { url, title: String(rec.title ?? ''), lang: String(rec.lang ?? ''), firstVisit: importedTime(rec.firstVisit), lastVisit: importedTime(rec.lastVisit), visitCount: Number(rec.visitCount) || 1, ...importedVisits(rec.visits) };
      if (isPageKind(rec.pageKind)) page.kind = rec.pageKind;
      const fs = rec.fetchSkipped as { at?: unknown; reason?: unknown } | undefined;
      if (page.kind === 'title' && fs && typeof fs.at === 'number' && typeof fs.reason === 'string') page.fetchSkipped = { at: fs.at, reason: fs.reason.slice(0, 40) };
      const pdf = rec.pdf as { pages?: unknown; read?: unknown } | undefined;
      if (page.kind === 'pdf' && pdf && Number.isInteger(pdf.pages) && Number.isInteger(pdf.read)) page.pdf = { pages: pdf.pages as number, read: pdf.read as number };
      this.current = { page, chunks: [], vectors: [] };
    } else if (rec.kind === 'chunk') {
      if (url === this.passing) return;
      const p = this.current?.page.url === url ? this.current : null;
      // As capture caps a page (src/validate.ts SECTION_LIMITS): sections, their text, their headings.
      if (!p || typeof rec.text !== 'string' || !isStringArray(rec.headingPath) || p.chunks.length >= SECTION_LIMITS.maxSections) {
        this.skipped++;
        return;
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
      p.vectors.push(importedVector(rec.vector, this.model));
    } else this.skipped++;
  }

  /** Writes the page being read, if any. */
  private async flush(): Promise<void> {
    const pending = this.current;
    this.current = null;
    if (!pending) return;
    if (await writeImported(this.engine, pending, this.model, (n) => (this.vectorsStored += n))) this.imported++;
    else this.skipped++;
  }
}

/** Writes one imported page through the write path; false when it is not written (no sections, or a better page is stored). */
async function writeImported(engine: Engine, { page, chunks, vectors }: Pending, model: string | null, stored: (vectors: number) => void): Promise<boolean> {
  if (!chunks.length) return false;
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
    const kept = model && entries.length ? await storeVectors(db, model, modelInfo(model)!.dim, entries, entries.map((e) => e.id)) : [];
    stored(kept.length);
    return { res, fixed, kept };
  });
  if (!done) return false;
  const { res, fixed, kept } = done;
  engine.applyWrite({ ...res.batch, pages: [{ ...res.batch.pages[0]!, page: fixed }] });
  // Taken off the queue, so the lane's drain never sees them: its resident index takes them now (after
  // the page table knows their page).
  if (model && kept.length) engine.dense?.onVectorsStored(model, modelInfo(model)!.dim, kept);
  return true;
}
