/**
 * The section store: a page's sections — heading path, section name, anchor and text of each — are one
 * deflate-raw record in `sections`, keyed by the page's URL; on a page whose blocks are kept (to re-cut
 * it, recut.ts), the texts are references into the blocks (TextRef), so its words are stored once. Sections of a page share vocabulary and
 * heading paths, so deflating them together shrinks them 2.5–3.5x, and one record per page (not one
 * per section) keeps the per-record overhead of IndexedDB off a million sections.
 *
 * Two formats are written and both are read for ever (records are never migrated):
 * - format 1 (until issue 17's text work): `z` a bare deflate-raw stream of the sections (SectionsBlob),
 *   and, when the blocks are kept, `b` a second stream of the blocks (packBlocks). Still written for a
 *   page without blocks (title-only entries, a migrated page) and for blocks added to such a record.
 * - format 2 (packPage): `z` is the marker bytes ONE_STREAM, FORMAT_2, then ONE deflate-raw stream of the
 *   sections and the blocks together (PageBlob), no `b`: one compression context for both (the headings
 *   and section names are found in the blocks), slice starts written relative to the text already
 *   referred to (mostly a small number: sections run through their blocks in order), and a section's
 *   name left out when it is the last heading of its path. 2.1% fewer bytes on the scale part's
 *   synthetic pages and 3.1% on the Python manual than format 1, compress and read CPU alike
 *   (tests/bench/textCodecs.ts, bench/results/text-codecs.json); one stream to inflate instead of two.
 *   Deflate stays the codec: what beats it per page (BWT as bzip2 does, -15% / -9%) is several times
 *   slower to read back, and searches read sections on every keystroke; see issue 17's notes.
 *
 * Every reader of a section goes through `pageSections`/`sectionsByIds`, which also read the schema 1/2
 * forms (legacy.ts) so search keeps working while migrateV3 converts an old database.
 */
import type { Block, BlockKind, Chunk, ChunkAnchor, SectionPart } from '../src/chunker.js';
import { readAbove } from '../src/validate.js';
import type { DB, PageRecord, SectionsRecord, StoredSection } from './db.js';
import { deflate, inflate } from './deflate.js';
import { legacyActive, legacySections } from './legacy.js';

const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** What `z` holds, column by column (in the page's chunk order). */
interface SectionsBlob {
  /** Each section's text: a string, or (on a page whose blocks are kept) a TextRef into the blocks. */
  t: (string | TextRef)[];
  h: string[][];
  s: string[];
  a: ChunkAnchor[];
  /** Merged sub-sections per section (0: none); absent when no section of the page has any. */
  p?: (SectionPart[] | 0)[];
}

/**
 * A section's text spelled from the page's kept blocks (SectionsRecord.b): a list of pieces, a number
 * pair `start, length` a slice of the blocks' texts joined by '\n' (blocksText), a string taken as is.
 * A section's text is cut from its blocks, so almost all of it is a few slices: storing the words once
 * (in b) instead of twice takes the record from ~2x to ~1x the compressed text (issue 17). Reading it
 * costs inflating the blocks too (they are no larger than the texts).
 */
type TextRef = (string | number)[];

/** Slices shorter than this are kept as text (a reference costs about as much). */
const MIN_SLICE = 24;
/** The index holds the GRAM characters at every STEP-th place of the blocks' text (a match is found within STEP characters of its start, then extended back). */
const GRAM = 16;
const STEP = 8;

/**
 * A format-2 record's first byte. A deflate-raw stream cannot start with it (its first block would be of
 * type 11, which RFC 1951 reserves), so a format-1 `z` is never mistaken for one.
 */
export const ONE_STREAM = 0xfe;
/** The format byte after it (any other value is refused: a record from a later release). */
export const FORMAT_2 = 2;

/** Whether a record's `z` is format 2 (sections and blocks in one stream). */
export const isOneStream = (z: Uint8Array): boolean => z.length >= 2 && z[0] === ONE_STREAM;

/** Whether the page's blocks are kept in its record (either format): what recut.ts can cut again. */
export const keepsBlocks = (rec: Pick<SectionsRecord, 'z' | 'b'>): boolean => !!rec.b || isOneStream(rec.z);

/** The text sections' references slice: the blocks' texts, one '\n' between two. */
export function blocksText(blocks: readonly Pick<Block, 'text'>[]): string {
  return blocks.map((b) => b.text).join('\n');
}

/** Where the GRAM characters at each STEP-th place of `src` occur (up to 4 places each, the first ones). */
function gramIndex(src: string): Map<string, number[]> {
  const index = new Map<string, number[]>();
  for (let i = 0; i + GRAM <= src.length; i += STEP) {
    const g = src.slice(i, i + GRAM);
    const at = index.get(g);
    if (!at) index.set(g, [i]);
    else if (at.length < 4) at.push(i);
  }
  return index;
}

/** `text` as slices of `src` and literal strings (greedy longest match; where the last slice ended is tried first). */
function toRef(text: string, src: string, index: Map<string, number[]>): TextRef {
  const out: TextRef = [];
  let lit = 0; // start of the literal run not yet written
  let i = 0;
  let next = -1; // where the last slice ended in src: sections run through their blocks in order
  const extend = (p: number) => {
    let n = 0;
    while (i + n < text.length && p + n < src.length && text.charCodeAt(i + n) === src.charCodeAt(p + n)) n++;
    return n;
  };
  while (i < text.length) {
    let best = -1;
    let bestLen = 0;
    let back = 0;
    for (const p of next >= 0 ? [next, next + 1] : []) {
      const n = extend(p);
      if (n > bestLen) [best, bestLen] = [p, n];
    }
    if (bestLen < MIN_SLICE && i + GRAM <= text.length) {
      for (const p of index.get(text.slice(i, i + GRAM)) ?? []) {
        let b = 0; // the match may start before the indexed place: extend it back into the pending literal
        while (i - b > lit && p - b > 0 && text.charCodeAt(i - b - 1) === src.charCodeAt(p - b - 1)) b++;
        const n = extend(p) + b;
        if (n > bestLen) [best, bestLen, back] = [p - b, n, b];
      }
    }
    if (bestLen >= MIN_SLICE) {
      i -= back;
      if (lit < i) out.push(text.slice(lit, i));
      out.push(best, bestLen);
      i += bestLen;
      lit = i;
      next = best + bestLen;
    } else i++;
  }
  if (lit < text.length) out.push(text.slice(lit));
  return out;
}

/** A TextRef spelled out; throws on a slice outside the blocks (a record that does not match its blocks). */
function fromRef(ref: readonly unknown[], src: string): string {
  let out = '';
  for (let k = 0; k < ref.length; k++) {
    const x = ref[k];
    if (typeof x === 'string') out += x;
    else {
      const n = ref[++k];
      if (typeof x !== 'number' || typeof n !== 'number' || !Number.isInteger(x) || !Number.isInteger(n) || x < 0 || n <= 0 || x + n > src.length) throw new Error('malformed section text reference');
      out += src.slice(x, x + n);
    }
  }
  return out;
}

type StoredChunk = Pick<Chunk, 'text' | 'headingPath' | 'section' | 'anchor' | 'parts'>;

/** Each section's text, as a TextRef into `blocks` wherever one spells it back exactly (absolute starts). */
function textRefs(chunks: readonly StoredChunk[], blocks?: readonly Pick<Block, 'text'>[]): (string | TextRef)[] {
  if (!blocks?.length) return chunks.map((c) => c.text);
  const src = blocksText(blocks);
  const index = gramIndex(src);
  return chunks.map((c) => {
    const ref = toRef(c.text, src, index);
    // Belt and braces: a reference that does not spell the text back exactly is not stored.
    return ref.some((x) => typeof x === 'number') && fromRef(ref, src) === c.text ? ref : c.text;
  });
}

/**
 * The JSON a page's sections are stored as in format 1 (before deflating): shared with the benchmarks.
 * With `blocks` (the page's blocks as stored beside it in the same record), texts are stored as
 * references into them wherever that is shorter; the record can then only be read with those blocks.
 */
export function sectionsJson(chunks: readonly StoredChunk[], blocks?: readonly Pick<Block, 'text'>[]): string {
  const blob: SectionsBlob = { t: textRefs(chunks, blocks), h: chunks.map((c) => c.headingPath), s: chunks.map((c) => c.section), a: chunks.map((c) => c.anchor) };
  if (chunks.some((c) => c.parts?.length)) blob.p = chunks.map((c) => (c.parts?.length ? c.parts : 0));
  return JSON.stringify(blob);
}

/** A page's format-1 sections record's `z`; with the blocks stored beside it (its `b`), texts refer to them. */
export async function packSections(chunks: readonly StoredChunk[], blocks?: readonly Pick<Block, 'text'>[]): Promise<Uint8Array> {
  return deflate(sectionsJson(chunks, blocks));
}

/** What a format-2 stream holds: the sections' columns as in SectionsBlob, except `t` and `s`, then the blocks. */
interface PageBlob {
  /** Texts: a string, or a TextRef whose slice starts are relative (relativeStarts). */
  t: (string | TextRef)[];
  h: string[][];
  /** The section's name, or 0 for the last entry of its heading path (what the chunker names most sections). */
  s: (string | 0)[];
  a: ChunkAnchor[];
  p?: (SectionPart[] | 0)[];
  /** The blocks, as blocksJson's rows. */
  b: (string | number)[][];
}

/**
 * Slice starts relative to the furthest end referred to so far in the page (`front`): a start at or past
 * it is written as front - start - 1 (negative: -1 is the place right after it), one before it as is.
 * Sections run through their blocks in order, so most starts become -1 or -2 (the '\n' between blocks)
 * instead of a number as large as the page; a slice back (the page title, a repeated heading) is small.
 */
function relativeStarts(texts: readonly (string | TextRef)[]): (string | TextRef)[] {
  let front = 0;
  return texts.map((r) => {
    if (typeof r === 'string') return r;
    const out: TextRef = [];
    for (let k = 0; k < r.length; k++) {
      const x = r[k]!;
      if (typeof x === 'string') {
        out.push(x);
        continue;
      }
      const n = r[++k] as number;
      out.push(x >= front ? front - x - 1 : x, n);
      front = Math.max(front, x + n);
    }
    return out;
  });
}

/** A relative TextRef spelled out; `at.front` carries over from section to section. Throws on anything out of place. */
function fromRelative(ref: unknown, src: string, at: { front: number }): string {
  if (typeof ref === 'string') return ref;
  if (!Array.isArray(ref)) throw new Error('malformed sections record');
  let out = '';
  for (let k = 0; k < ref.length; k++) {
    const x: unknown = ref[k];
    if (typeof x === 'string') {
      out += x;
      continue;
    }
    const n: unknown = ref[++k];
    if (typeof x !== 'number' || typeof n !== 'number' || !Number.isSafeInteger(x) || !Number.isSafeInteger(n) || n <= 0) throw new Error('malformed section text reference');
    const start = x < 0 ? at.front - x - 1 : x;
    if (start + n > src.length) throw new Error('malformed section text reference');
    out += src.slice(start, start + n);
    at.front = Math.max(at.front, start + n);
  }
  return out;
}

/** The JSON a format-2 record holds (before deflating and the marker): shared with the benchmarks' bulk loader. */
export function pageJson(chunks: readonly StoredChunk[], blocks: readonly Block[]): string {
  const cols: Omit<PageBlob, 'b'> = {
    t: relativeStarts(textRefs(chunks, blocks)),
    h: chunks.map((c) => c.headingPath),
    s: chunks.map((c) => (c.headingPath.length && c.section === c.headingPath[c.headingPath.length - 1] ? 0 : c.section)),
    a: chunks.map((c) => c.anchor),
  };
  if (chunks.some((c) => c.parts?.length)) cols.p = chunks.map((c) => (c.parts?.length ? c.parts : 0));
  const blob: PageBlob = { ...cols, b: blockRows(blocks) };
  return JSON.stringify(blob);
}

/** A deflate-raw stream of pageJson as a format-2 record's `z` (the marker bytes first). */
export function oneStream(deflated: Uint8Array): Uint8Array {
  const out = new Uint8Array(deflated.length + 2);
  out[0] = ONE_STREAM;
  out[1] = FORMAT_2;
  out.set(deflated, 2);
  return out;
}

/** A page's sections and its blocks as one format-2 `z` (the record has no `b`). */
export async function packPage(chunks: readonly StoredChunk[], blocks: readonly Block[]): Promise<Uint8Array> {
  return oneStream(await deflate(pageJson(chunks, blocks)));
}

function readAnchor(a: unknown): ChunkAnchor {
  if (!a || typeof a !== 'object') return {};
  const o = a as { id?: unknown; text?: unknown; above?: unknown };
  const above = readAbove(o.above);
  return { ...(typeof o.id === 'string' ? { id: o.id } : {}), ...(typeof o.text === 'string' ? { text: o.text } : {}), ...(above ? { above } : {}) };
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

/** The sections of a page from its columns, once their texts are spelled out (both formats). */
function assemble(page: Pick<PageRecord, 'url' | 'chunkIds'>, texts: readonly string[], h: readonly unknown[], names: readonly string[], a: readonly unknown[], p: unknown): StoredSection[] {
  const parts = Array.isArray(p) ? p : [];
  return page.chunkIds.map((id, i) => {
    const text = texts[i]!;
    const pt = readParts(parts[i], text.length);
    return { id, url: page.url, ord: i, headingPath: isStrings(h[i]) ? h[i] : [], section: names[i]!, anchor: readAnchor(a[i]), ...(pt ? { parts: pt } : {}), text };
  });
}

/** A format-2 record's stream, parsed and checked: its columns hold `n` sections (when given) and its blocks are well formed. */
async function readPage(z: Uint8Array, n?: number): Promise<{ blob: Omit<PageBlob, 'b'>; blocks: Block[] }> {
  if (!isOneStream(z)) throw new Error('not a one-stream sections record');
  if (z[1] !== FORMAT_2) throw new Error(`sections record of an unknown format (${z[1]})`);
  const parsed = JSON.parse(await inflate(z.subarray(2))) as Partial<PageBlob> | null;
  if (!parsed || typeof parsed !== 'object' || !Array.isArray(parsed.t) || !Array.isArray(parsed.h) || !Array.isArray(parsed.s) || !Array.isArray(parsed.a)) throw new Error('malformed sections record');
  const count = parsed.t.length;
  if (parsed.h.length !== count || parsed.s.length !== count || parsed.a.length !== count) throw new Error('malformed sections record');
  if (n !== undefined && count !== n) throw new Error(`sections record holds ${count} sections for ${n} chunk ids`);
  return { blob: parsed as Omit<PageBlob, 'b'>, blocks: blocksFromRows(parsed.b) };
}

/** A page's sections from its record (either format); throws on anything malformed (verifyIndex reports it). */
export async function unpackSections(rec: Pick<SectionsRecord, 'z' | 'b'>, page: Pick<PageRecord, 'url' | 'chunkIds'>): Promise<StoredSection[]> {
  if (isOneStream(rec.z)) {
    const { blob, blocks } = await readPage(rec.z, page.chunkIds.length);
    const src = blocksText(blocks);
    const at = { front: 0 };
    const texts = blob.t.map((x) => fromRelative(x, src, at));
    const names = blob.s.map((x, i) => {
      if (typeof x === 'string') return x;
      const h = blob.h[i];
      if (x !== 0 || !isStrings(h) || !h.length) throw new Error('malformed sections record');
      return h[h.length - 1]!;
    });
    return assemble(page, texts, blob.h, names, blob.a, blob.p);
  }
  // Format 1. The blocks are inflated beside the texts (a record written with its blocks refers to them).
  const blocks = rec.b ? unpackBlocks(rec.b) : null;
  blocks?.catch(() => {}); // not needed (texts written out): its failure is nobody's
  const parsed = JSON.parse(await inflate(rec.z)) as Partial<SectionsBlob> | null;
  const n = page.chunkIds.length;
  if (!parsed || !Array.isArray(parsed.t) || !Array.isArray(parsed.h) || !isStrings(parsed.s) || !Array.isArray(parsed.a)) throw new Error('malformed sections record');
  if (parsed.t.length !== n || parsed.h.length !== n || parsed.s.length !== n || parsed.a.length !== n) throw new Error(`sections record holds ${parsed.t.length} sections for ${n} chunk ids`);
  let src: string | null = null;
  if (parsed.t.some((x) => typeof x !== 'string')) {
    if (!blocks) throw new Error('sections record refers to blocks it lacks');
    src = blocksText(await blocks);
  }
  const texts = parsed.t.map((x) => {
    if (typeof x === 'string') return x;
    if (!Array.isArray(x)) throw new Error('malformed sections record');
    return fromRef(x, src!);
  });
  return assemble(page, texts, parsed.h, parsed.s, parsed.a, parsed.p);
}

/** The blocks kept in a page's record (either format), or null when it keeps none; throws when they cannot be read. */
export async function recordBlocks(rec: Pick<SectionsRecord, 'z' | 'b'>): Promise<Block[] | null> {
  if (isOneStream(rec.z)) return (await readPage(rec.z)).blocks;
  return rec.b ? unpackBlocks(rec.b) : null;
}

/**
 * A page's blocks as stored (format 1: SectionsRecord.b, deflate-raw; format 2: the `b` column of the
 * stream): a JSON array with one entry per block, `[kind, text]`, `[kind, text, id]`; a heading's kind
 * carries its level (`h2`). A folded heading (Block.folded) or an entry's (Block.entry) has a fourth entry
 * after its id or 0, its flags: 1 folded, 2 entry: `[kind, text, id | 0, flags]` (a reader before it took
 * the 0 for no id and left the flags alone; one before the entry flag reads 2 as not folded).
 */
const KIND_CODE: Record<BlockKind, string> = { heading: 'h', text: 't', code: 'c', table: 'b', list: 'l', quote: 'q' };
const CODE_KIND = new Map(Object.entries(KIND_CODE).map(([k, c]) => [c, k as BlockKind]));

function blockRows(blocks: readonly Block[]): (string | number)[][] {
  return blocks.map((b) => {
    const kind = KIND_CODE[b.kind] + (b.kind === 'heading' ? String(b.level ?? 2) : '');
    const flags = (b.folded ? 1 : 0) | (b.entry ? 2 : 0);
    if (flags && b.kind === 'heading') return [kind, b.text, b.id ?? 0, flags];
    return b.id ? [kind, b.text, b.id] : [kind, b.text];
  });
}

/** The JSON a page's blocks are stored as in format 1 (before deflating): shared with the benchmarks. */
export function blocksJson(blocks: readonly Block[]): string {
  return JSON.stringify(blockRows(blocks));
}

export async function packBlocks(blocks: readonly Block[]): Promise<Uint8Array> {
  return deflate(blocksJson(blocks));
}

function blocksFromRows(rows: unknown): Block[] {
  if (!Array.isArray(rows)) throw new Error('malformed block record');
  return rows.map((r: unknown) => {
    if (!Array.isArray(r) || typeof r[0] !== 'string' || typeof r[1] !== 'string') throw new Error('malformed block record');
    const kind = CODE_KIND.get(r[0][0] ?? '');
    if (!kind) throw new Error('malformed block record');
    const b: Block = { kind, text: r[1] };
    if (kind === 'heading') b.level = Number(r[0].slice(1)) || 2;
    if (typeof r[2] === 'string') b.id = r[2];
    if (kind === 'heading' && typeof r[3] === 'number') {
      if (r[3] & 1) b.folded = true;
      if (r[3] & 2) b.entry = true;
    }
    return b;
  });
}

/** A format-1 record's `b`. */
export async function unpackBlocks(z: Uint8Array): Promise<Block[]> {
  return blocksFromRows(JSON.parse(await inflate(z)));
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
      if (r) sections = await unpackSections(r, p).catch(() => null);
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
