/**
 * The section store: a page's sections — heading path, section name, anchor and text of each — are one
 * deflate-raw record in `sections`, keyed by the page's URL. Sections of a page share vocabulary and
 * heading paths, so deflating them together shrinks them 2.5–3.5x, and one record per page (not one
 * per section) keeps the per-record overhead of IndexedDB off a million sections.
 *
 * Every reader of a section goes through `pageSections`/`sectionsByIds`, which also read the schema 1/2
 * forms (legacy.ts) so search keeps working while migrateV3 converts an old database.
 */
import type { Block, BlockKind, Chunk, ChunkAnchor, SectionPart } from '../src/chunker.js';
import type { DB, PageRecord, StoredSection } from './db.js';
import { deflate, inflate } from './deflate.js';
import { legacyActive, legacySections } from './legacy.js';

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** What `z` holds, column by column (in the page's chunk order). */
interface SectionsBlob {
  t: string[];
  h: string[][];
  s: string[];
  a: ChunkAnchor[];
  /** Merged sub-sections per section (0: none); absent when no section of the page has any. */
  p?: (SectionPart[] | 0)[];
}

type StoredChunk = Pick<Chunk, 'text' | 'headingPath' | 'section' | 'anchor' | 'parts'>;

/** The JSON a page's sections are stored as (before deflating): shared with the benchmarks' bulk loader. */
export function sectionsJson(chunks: readonly StoredChunk[]): string {
  const blob: SectionsBlob = { t: chunks.map((c) => c.text), h: chunks.map((c) => c.headingPath), s: chunks.map((c) => c.section), a: chunks.map((c) => c.anchor) };
  if (chunks.some((c) => c.parts?.length)) blob.p = chunks.map((c) => (c.parts?.length ? c.parts : 0));
  return JSON.stringify(blob);
}

export async function packSections(chunks: readonly StoredChunk[]): Promise<Uint8Array> {
  return deflate(sectionsJson(chunks));
}

function readAnchor(a: unknown): ChunkAnchor {
  if (!a || typeof a !== 'object') return {};
  const o = a as { id?: unknown; text?: unknown };
  return { ...(typeof o.id === 'string' ? { id: o.id } : {}), ...(typeof o.text === 'string' ? { text: o.text } : {}) };
}

/** A stored section's merged parts, keeping only well-formed ones (an offset inside the text, a heading path). */
function readParts(v: unknown, textLength: number): SectionPart[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const out: SectionPart[] = [];
  for (const x of v as unknown[]) {
    if (!x || typeof x !== 'object') continue;
    const o = x as { at?: unknown; headingPath?: unknown; anchor?: unknown };
    if (typeof o.at !== 'number' || !Number.isInteger(o.at) || o.at < 0 || o.at > textLength || !isStrings(o.headingPath)) continue;
    out.push({ at: o.at, headingPath: o.headingPath, anchor: readAnchor(o.anchor) });
  }
  return out.length ? out : undefined;
}


/** A page's sections from its record; throws on anything malformed (verifyIndex reports it). */
export async function unpackSections(z: Uint8Array, page: Pick<PageRecord, 'url' | 'chunkIds'>): Promise<StoredSection[]> {
  const parsed = JSON.parse(await inflate(z)) as Partial<SectionsBlob> | null;
  const n = page.chunkIds.length;
  if (!parsed || !isStrings(parsed.t) || !Array.isArray(parsed.h) || !isStrings(parsed.s) || !Array.isArray(parsed.a)) throw new Error('malformed sections record');
  if (parsed.t.length !== n || parsed.h.length !== n || parsed.s.length !== n || parsed.a.length !== n) throw new Error(`sections record holds ${parsed.t.length} sections for ${n} chunk ids`);
  const p = Array.isArray(parsed.p) ? parsed.p : [];
  return page.chunkIds.map((id, i) => {
    const text = parsed.t![i]!;
    const parts = readParts(p[i], text.length);
    return { id, url: page.url, ord: i, headingPath: isStrings(parsed.h![i]) ? parsed.h![i] : [], section: parsed.s![i]!, anchor: readAnchor(parsed.a![i]), ...(parts ? { parts } : {}), text };
  });
}

/**
 * A page's blocks as stored (SectionsRecord.b): deflate-raw of a JSON array with one entry per block,
 * `[kind, text]`, `[kind, text, id]`; a heading's kind carries its level (`h2`).
 */
const KIND_CODE: Record<BlockKind, string> = { heading: 'h', text: 't', code: 'c', table: 'b', list: 'l', quote: 'q' };
const CODE_KIND = new Map(Object.entries(KIND_CODE).map(([k, c]) => [c, k as BlockKind]));

/** The JSON a page's blocks are stored as (before deflating): shared with the benchmarks' bulk loader. */
export function blocksJson(blocks: readonly Block[]): string {
  const rows = blocks.map((b) => {
    const kind = KIND_CODE[b.kind] + (b.kind === 'heading' ? String(b.level ?? 2) : '');
    return b.id ? [kind, b.text, b.id] : [kind, b.text];
  });
  return JSON.stringify(rows);
}

export async function packBlocks(blocks: readonly Block[]): Promise<Uint8Array> {
  return deflate(blocksJson(blocks));
}

export async function unpackBlocks(z: Uint8Array): Promise<Block[]> {
  const rows: unknown = JSON.parse(await inflate(z));
  if (!Array.isArray(rows)) throw new Error('malformed block record');
  return rows.map((r: unknown) => {
    if (!Array.isArray(r) || typeof r[0] !== 'string' || typeof r[1] !== 'string') throw new Error('malformed block record');
    const kind = CODE_KIND.get(r[0][0] ?? '');
    if (!kind) throw new Error('malformed block record');
    const b: Block = { kind, text: r[1] };
    if (kind === 'heading') b.level = Number(r[0].slice(1)) || 2;
    if (typeof r[2] === 'string') b.id = r[2];
    return b;
  });
}

/**
 * Decoded pages, per database, keyed by URL and checked against the page's first chunk id (a rewritten
 * page gets new ids). Writes and deletes still forget their pages: forgotten text must not linger.
 */
const CACHE_MAX_CHARS = 4_000_000;
interface Cached {
  first: number;
  sections: StoredSection[];
  chars: number;
}
const caches = new WeakMap<DB, { map: Map<string, Cached>; chars: number }>();

function cacheOf(db: DB) {
  let c = caches.get(db);
  if (!c) caches.set(db, (c = { map: new Map(), chars: 0 }));
  return c;
}

function remember(db: DB, url: string, sections: StoredSection[]): void {
  const c = cacheOf(db);
  forgetPage(db, url);
  const chars = sections.reduce((n, s) => n + s.text.length, 0);
  c.map.set(url, { first: sections[0]?.id ?? -1, sections, chars });
  c.chars += chars;
  for (const [k, v] of c.map) {
    if (c.chars <= CACHE_MAX_CHARS) break;
    c.map.delete(k);
    c.chars -= v.chars;
  }
}

export function forgetAllSections(db: DB): void {
  caches.delete(db);
}

export function forgetPage(db: DB, url: string): void {
  const c = caches.get(db);
  const hit = c?.map.get(url);
  if (!c || !hit) return;
  c.map.delete(url);
  c.chars -= hit.chars;
}

/**
 * The sections of these pages: null for a page whose record is missing or unreadable (verifyIndex
 * reports it). Reads the records in one transaction; never call it inside a transaction that must stay
 * open (decompressing awaits a stream).
 */
export async function pageSections(db: DB, pages: readonly Pick<PageRecord, 'url' | 'chunkIds'>[]): Promise<Map<string, StoredSection[] | null>> {
  const out = new Map<string, StoredSection[] | null>();
  const cache = cacheOf(db).map;
  const todo: Pick<PageRecord, 'url' | 'chunkIds'>[] = [];
  for (const p of pages) {
    if (!p.chunkIds.length) {
      out.set(p.url, []);
      continue;
    }
    const hit = cache.get(p.url);
    if (hit && hit.first === (p.chunkIds[0] ?? -1) && hit.sections.length === p.chunkIds.length) {
      cache.delete(p.url); // re-insert: Map order is the LRU order
      cache.set(p.url, hit);
      out.set(p.url, hit.sections);
    } else if (!out.has(p.url)) todo.push(p);
  }
  if (!todo.length) return out;
  const tx = db.transaction('sections');
  const records = await Promise.all(todo.map((p) => tx.store.get(p.url)));
  await tx.done;
  await Promise.all(
    todo.map(async (p, i) => {
      const r = records[i];
      let sections: StoredSection[] | null = null;
      if (r) sections = await unpackSections(r.z, p).catch(() => null);
      else if (legacyActive(db)) sections = await legacySections(db, p).catch(() => null);
      if (sections) remember(db, p.url, sections);
      out.set(p.url, sections);
    }),
  );
  return out;
}

/** The sections with these ids that exist (any order); `ownerOf` names the page that holds an id. */
export async function sectionsByIds(db: DB, ids: readonly number[], ownerOf: (id: number) => Pick<PageRecord, 'url' | 'chunkIds'> | undefined): Promise<StoredSection[]> {
  const pages = new Map<string, Pick<PageRecord, 'url' | 'chunkIds'>>();
  for (const id of ids) {
    const p = ownerOf(id);
    if (p) pages.set(p.url, p);
  }
  const byPage = await pageSections(db, [...pages.values()]);
  const want = new Set(ids);
  const out: StoredSection[] = [];
  for (const sections of byPage.values()) for (const s of sections ?? []) if (want.has(s.id)) out.push(s);
  return out;
}
