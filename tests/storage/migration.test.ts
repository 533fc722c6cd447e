/**
 * Schema 1 and 2 -> 3: a database written by the v1 or v2 code (tests/fixtures/db-v1.jsonl,
 * db-v2.jsonl) opens with the current schema, answers searches exactly as before while it is being
 * moved to the new layout in the background, and after; a migration cut short at any step resumes;
 * writes and deletes in between lose nothing; every field of a page record is carried over.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDB, type IDBPDatabase } from 'idb';
import { describe, expect, it } from 'vitest';
import { DB_VERSION, MIGRATION_KEY, upgrade, type RereadDB } from '../../background/db.js';
import { migrateStep } from '../../background/migrateV3.js';
import { exportJsonl, importJsonl } from './transferText.js';
import { verifyIndex } from '../../background/verify.js';
import { decodeValue, parseDump } from '../fixtures/db-v1.dump.js';
import { currentIndexVersion, ensureIndexVersion, INDEX_VERSION_KEY } from '../../background/indexVersion.js';
import { unpackTexts } from '../../background/legacy.js';
import { inflate } from '../../background/deflate.js';
import { packBlocks, unpackSections } from '../../background/sections.js';
import type { Block } from '../../src/chunker.js';
import { indexSection, TOKENIZER } from '../../src/indexing.js';
import { BLOCK_SIZE } from '../../src/postings.js';
import { engineOn, freshDb, logicalIndex, readAll, settle } from './helpers.js';
import type { Engine } from '../../background/engine.js';

let counter = 0;

/** A schema 1/2 posting block: (id delta, tf, len) varints after the block key. */
function legacyBlock(entries: readonly { id: number; tf: number; len: number }[]): { f: number; n: number; d: Uint8Array } {
  const bytes: number[] = [];
  const varint = (v: number) => {
    while (v >= 0x80) {
      bytes.push((v & 0x7f) | 0x80);
      v = Math.floor(v / 128);
    }
    bytes.push(v);
  };
  let prev = entries[0]!.id;
  for (const e of entries) {
    varint(e.id - prev);
    varint(e.tf);
    varint(e.len);
    prev = e.id;
  }
  return { f: entries[0]!.id, n: entries.length, d: Uint8Array.from(bytes) };
}

/**
 * The fixtures were written at index revision 1 (title and heading words repeated in the counts). A
 * database of their schema written by the old code at this index revision (what a user who ran that
 * release has): the same pages and texts, the postings, lengths and statistics as indexSection makes
 * them now, in the old layout. (Without this the worker's index-version rebuild would convert the
 * database at once, and the migration under test would have nothing to do.)
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function reindexAtThisRevision(db: IDBPDatabase<any>, version: 1 | 2): Promise<void> {
  type Chunk = { id: number; url: string; headingPath: string[]; text?: string; len: number };
  const pages = (await db.getAll('pages')) as { url: string; title: string; chunkIds: number[] }[];
  const chunks = new Map(((await db.getAll('chunks')) as Chunk[]).map((c) => [c.id, c]));
  const texts = new Map<number, string>();
  if (version === 2) {
    for (const r of (await db.getAll('texts')) as { ids: number[]; z: Uint8Array }[]) {
      const t = await unpackTexts(r.z);
      r.ids.forEach((id, i) => texts.set(id, t[i] ?? ''));
    }
  }
  const byTerm = new Map<string, { id: number; tf: number; len: number }[]>();
  let N = 0;
  let totalLength = 0;
  const updated: Chunk[] = [];
  for (const p of pages) {
    for (const id of p.chunkIds) {
      const c = chunks.get(id)!;
      const doc = indexSection(p.title, { text: c.text ?? texts.get(id) ?? '', headingPath: c.headingPath }, TOKENIZER);
      updated.push({ ...c, len: doc.len });
      N++;
      totalLength += doc.len;
      for (const [t, tf] of doc.tfs) {
        let l = byTerm.get(t);
        if (!l) byTerm.set(t, (l = []));
        l.push({ id, tf, len: doc.len });
      }
    }
  }
  const tx = db.transaction(['chunks', 'postings', 'meta'], 'readwrite');
  const puts: Promise<unknown>[] = [tx.objectStore('postings').clear()];
  for (const c of updated) puts.push(tx.objectStore('chunks').put(c));
  for (const [t, l] of byTerm) {
    l.sort((a, b) => a.id - b.id);
    for (let i = 0; i < l.length; i += BLOCK_SIZE) puts.push(tx.objectStore('postings').put({ t, ...legacyBlock(l.slice(i, i + BLOCK_SIZE)) }));
  }
  const { tail: _tail, ...stats } = (await tx.objectStore('meta').get('stats')) as { tail?: string; nextChunkId: number };
  puts.push(tx.objectStore('meta').put({ ...stats, N, totalLength }, 'stats'));
  puts.push(tx.objectStore('meta').put(currentIndexVersion(), INDEX_VERSION_KEY));
  await Promise.all(puts);
  await tx.done;
}
const FIXTURES = { 1: 'db-v1.jsonl', 2: 'db-v2.jsonl' } as const;
const dumps = { 1: parseDump(readFileSync(join(import.meta.dirname, '../fixtures', FIXTURES[1]), 'utf8')), 2: parseDump(readFileSync(join(import.meta.dirname, '../fixtures', FIXTURES[2]), 'utf8')) };

/**
 * The fixture as a database of its version (stores as its header describes), then opened with the
 * current schema. `extra` adds fields to every page record first (what later features keep on pages).
 */
async function oldDatabase(version: 1 | 2, extra: Record<string, unknown> = {}, reindex = true): Promise<IDBPDatabase<RereadDB>> {
  const dump = dumps[version];
  const name = `reread-migration-${process.pid}-${++counter}`;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const old = await openDB<any>(name, version, {
    upgrade(db) {
      for (const s of dump.header.stores) {
        const store = db.createObjectStore(s.name, s.keyPath ? { keyPath: s.keyPath } : {});
        for (const i of s.indexes) store.createIndex(i.name, i.keyPath);
      }
    },
  });
  const tx = old.transaction(dump.header.stores.map((s) => s.name), 'readwrite');
  await Promise.all(
    dump.lines.map((l) => {
      const v = decodeValue(l.v) as Record<string, unknown>;
      const value = l.s === 'pages' ? { ...v, ...extra } : v;
      return l.k === undefined ? tx.objectStore(l.s).put(value) : tx.objectStore(l.s).put(value, l.k as string);
    }),
  );
  await tx.done;
  if (reindex) await reindexAtThisRevision(old, version);
  old.close();
  return openDB<RereadDB>(name, DB_VERSION, { upgrade: (db, o, _v, t) => upgrade(db, o, t) });
}

async function answers(engine: Engine, queries: readonly string[]) {
  const out: Record<string, unknown> = {};
  for (const q of queries) out[q] = (await engine.search({ q, limit: 10 })).results.map(({ url, chunkId, snippet, headingPath, score, more }) => ({ url, chunkId, snippet, headingPath, score, more: more.map((m) => [m.chunkId, m.snippet, m.score]) }));
  return out;
}

/** The legacy page's first section's text as the old layout holds it (schema 1 inline, schema 2 in `texts`). */
async function legacyText(db: IDBPDatabase<RereadDB>, page: { url: string; chunkIds: number[] }): Promise<string> {
  const c = (await db.get('chunks', page.chunkIds[0]!))!;
  if (typeof c.text === 'string') return c.text;
  const r = (await db.get('texts', page.url))!;
  return (await unpackTexts(r.z))[r.ids.indexOf(c.id)]!;
}
const exported = async (engine: Engine) => (await exportJsonl(engine, true)).jsonl.split('\n').slice(1);

for (const version of [1, 2] as const) {
  const dump = dumps[version];
  const pageLines = dump.lines.filter((l) => l.s === 'pages').map((l) => l.v as { url: string; title: string; chunkIds: number[] });
  const QUERIES = [...pageLines.map((p) => p.title), 'list comprehension', 'virtual environment', 'walrus operator', '"floating point"', 'exceptions -syntax', 'pip install', 'json dumps', 'sourdough starter', 'site:notes.example.org tide', 'batched pairwise', 'errno'];

  describe(`schema ${version} -> 3 migration`, { timeout: 60_000 }, () => {
    it(`the fixture is a schema-${version} database`, () => {
      expect(dump.header.version).toBe(version);
      expect(pageLines.length).toBeGreaterThan(10);
      const chunks = dump.lines.filter((l) => l.s === 'chunks');
      if (version === 1) expect(chunks.every((l) => typeof (l.v as { text?: unknown }).text === 'string')).toBe(true);
      else {
        expect(chunks.every((l) => (l.v as { text?: unknown }).text === undefined)).toBe(true);
        expect(dump.lines.filter((l) => l.s === 'texts')).toHaveLength(pageLines.length);
      }
    });

    it('opens, migrates, and answers every search and export exactly as before; verifyIndex passes throughout', async () => {
      const db = await oldDatabase(version, { visits: [1, 2, 3], kind: 'fetched' });
      expect(await db.get('meta', MIGRATION_KEY)).toEqual({ phase: 'pages', after: '' });
      const engine = engineOn(db);
      expect((await verifyIndex(engine)).problems).toEqual([]);
      const before = await answers(engine, QUERIES);
      const exportBefore = await exported(engine);
      // Every page is found by its title.
      for (const p of pageLines) expect((before[p.title] as { url: string }[]).map((r) => r.url), p.title).toContain(p.url);

      // Step by step, checking answers after every step.
      let steps = 0;
      while (await migrateStep(engine, engine.maintenance)) {
        steps++;
        if (steps % 3 === 0) expect(await answers(engineOn(db), QUERIES)).toEqual(before);
      }
      expect(steps).toBeGreaterThan(3);
      const all = await readAll(db);
      expect(await db.get('meta', MIGRATION_KEY)).toBeUndefined();
      expect(await db.count('chunks')).toBe(0);
      expect(await db.count('texts')).toBe(0);
      expect(await db.count('postingsV2')).toBe(0);
      expect(all.sections.map((s) => s.url).sort()).toEqual(all.pages.map((p) => p.url).sort());
      // Page records keep their fields (and those other features added), and gain the section lengths.
      for (const p of all.pages) {
        const old = pageLines.find((l) => l.url === p.url)!;
        expect(p).toMatchObject({ ...old, visits: [1, 2, 3], kind: 'fetched' });
        expect(p.lens).toHaveLength(p.chunkIds.length);
      }
      expect(await answers(engine, QUERIES)).toEqual(before);
      expect(await answers(engineOn(db), QUERIES)).toEqual(before);
      expect(await exported(engineOn(db))).toEqual(exportBefore);
      expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
      // Settled (the queue, vectors and dictionary as the new layout keeps them) and still the same.
      await settle(engine);
      expect(await answers(engineOn(db), QUERIES)).toEqual(before);
      expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
    });

    it('a damaged database where two pages list the same chunk id: the page the record names keeps its section', async () => {
      const db = await oldDatabase(version);
      const urls = pageLines.map((p) => p.url).sort();
      // The page that migrates (and is rewritten) first lists a section of a page that comes after it.
      const [other, owner] = [urls[0]!, urls[urls.length - 1]!];
      const ownerPage = (await db.get('pages', owner))!;
      const shared = ownerPage.chunkIds[0]!;
      const sharedRecord = (await db.get('chunks', shared))!;
      const ownerBefore = await legacyText(db, ownerPage);
      const otherPage = (await db.get('pages', other))!;
      await db.put('pages', { ...otherPage, chunkIds: [...otherPage.chunkIds, shared] });
      const engine = engineOn(db);
      while (await migrateStep(engine, engine.maintenance, { pagesPerStep: 1 }));
      const read = async (url: string) => {
        const page = (await db.get('pages', url))!;
        return { page, sections: await unpackSections((await db.get('sections', url))!, page) };
      };
      const o = await read(owner);
      expect(o.page.lens![0]).toBe(sharedRecord.len);
      expect(o.sections[0]!.text).toBe(ownerBefore);
      expect(o.sections[0]!.text.length).toBeGreaterThan(20);
      // The page that only listed it reads it as a lost section: empty, its length 0.
      const d = await read(other);
      expect(d.page.lens!.at(-1)).toBe(0);
      expect(d.sections.at(-1)!.text).toBe('');
    });

    it('rewriting a page of a damaged database that lists another page\'s chunk id leaves that chunk record', async () => {
      const db = await oldDatabase(version);
      const urls = pageLines.map((p) => p.url).sort();
      const [other, owner] = [urls[0]!, urls[urls.length - 1]!];
      const shared = (await db.get('pages', owner))!.chunkIds[0]!;
      const otherPage = (await db.get('pages', other))!;
      await db.put('pages', { ...otherPage, chunkIds: [...otherPage.chunkIds, shared] });
      const engine = engineOn(db);
      expect(await engine.deleteUrls([other])).toBe(1);
      expect(await db.get('pages', other)).toBeUndefined();
      expect((await db.get('chunks', shared))?.url).toBe(owner);
    });

    it('a migration cut short at every step resumes; captures and deletes in between keep the index exact', async () => {
      const db = await oldDatabase(version);
      const engine = engineOn(db);
      const before = await answers(engine, QUERIES);
      const urls = pageLines.map((p) => p.url).sort();
      // Stop in the page phase (a new engine each time: a worker restarted), then write and delete.
      const SMALL = { pagesPerStep: 4, blocksPerStep: 500 };
      await migrateStep(engine, engine.maintenance, SMALL);
      const e2 = engineOn(db);
      expect(await answers(e2, QUERIES)).toEqual(before);
      const migrated = (await readAll(db)).pages.filter((p) => p.lens).map((p) => p.url);
      const pending = urls.filter((u) => !migrated.includes(u));
      expect(migrated.length).toBeGreaterThan(0);
      expect(pending.length).toBeGreaterThan(1);
      await e2.capture(migrated[0]!, { title: 'Rewritten A', lang: 'en', blocks: [{ kind: 'text', text: 'zanzibarine migrated rewrite text here and more words to pass the minimum length of a page' }] });
      await e2.capture(pending[0]!, { title: 'Rewritten B', lang: 'en', blocks: [{ kind: 'text', text: 'quokkaline pending rewrite text here and more words to pass the minimum length of a page' }] });
      await e2.deleteUrls([migrated[1] ?? pending[2]!, pending[1]!]);
      expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
      // On through the postings phase, a new engine per step, writing and deleting between steps.
      let steps = 0;
      let e = engineOn(db);
      while (await migrateStep(e, e.maintenance, SMALL)) {
        steps++;
        e = engineOn(db);
        if (steps === 2) await e.capture('https://new.example/during', { title: 'During migration', lang: 'en', blocks: [{ kind: 'text', text: 'wombatine arrives while the postings move, with enough words to be stored as a page' }] });
        if (steps === 3) await e.deleteUrls([pending[3]!]);
        if (steps % 2 === 0) expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
      }
      expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
      await settle(e);
      expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
      const all = await readAll(db);
      expect(all.tombstones).toEqual([]);
      expect(all.segments).toEqual([]);
      const fresh = engineOn(db);
      expect((await fresh.search({ q: 'zanzibarine' })).results.map((r) => r.url)).toEqual([migrated[0]]);
      expect((await fresh.search({ q: 'quokkaline' })).results.map((r) => r.url)).toEqual([pending[0]]);
      expect((await fresh.search({ q: 'wombatine' })).results.map((r) => r.url)).toEqual(['https://new.example/during']);
      // Pages nobody touched answer as before.
      const touched = new Set([migrated[0], migrated[1], pending[0], pending[1], pending[2], pending[3]]);
      const after = await answers(fresh, QUERIES);
      for (const p of pageLines) {
        if (touched.has(p.url)) continue;
        expect((after[p.title] as { url: string }[]).map((r) => r.url), p.title).toContain(p.url);
      }
    });

    it('a database of the previous index revision (the fixture as written) is rebuilt at start: the repair takes the migration\'s place', async () => {
      const db = await oldDatabase(version, {}, false);
      const engine = engineOn(db);
      expect(await ensureIndexVersion(engine)).toBe(true);
      expect(await db.get('meta', MIGRATION_KEY)).toBeUndefined();
      expect([await db.count('chunks'), await db.count('texts'), await db.count('postingsV2')]).toEqual([0, 0, 0]);
      expect(await db.count('sections')).toBe(pageLines.length);
      expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
      const after = await answers(engineOn(db), pageLines.map((p) => p.title));
      for (const p of pageLines) expect((after[p.title] as { url: string }[]).map((r) => r.url), p.title).toContain(p.url);
      expect(await ensureIndexVersion(engineOn(db))).toBe(false);
    });

    it('the migrated index equals the index the v3 write path builds from the same pages', async () => {
      const db = await oldDatabase(version);
      const engine = engineOn(db);
      await settle(engine);
      // The same pages through the v3 write path (an import keeps the chunk order and visit dates).
      const fresh = engineOn(await freshDb());
      await importJsonl(fresh, (await exportJsonl(engine, false)).jsonl);
      await settle(fresh);
      const [a, b] = [await logicalIndex(db), await logicalIndex(await fresh.db())];
      expect(Object.keys(a.terms).length).toBeGreaterThan(1000);
      expect(a.terms).toEqual(b.terms);
      expect([a.N, a.totalLength]).toEqual([b.N, b.totalLength]);
      expect(a.chunks).toEqual(b.chunks);
      expect(a.pages.map((p) => p.lens)).toEqual(b.pages.map((p) => p.lens));
    });

    if (version === 2) {
      it('a schema-2 record that kept its blocks migrates to texts stored as references into them (the format pages are written in)', async () => {
        const db = await oldDatabase(2);
        // What a schema-2 build that kept blocks wrote: each page's blocks beside its texts (here one
        // text block a section, as the fixture's pages were cut).
        const records = await db.getAll('texts');
        for (const r of records) {
          const texts = await unpackTexts(r.z);
          await db.put('texts', { ...r, b: await packBlocks(texts.map((text): Block => ({ kind: 'text', text }))), cv: 'old' });
        }
        const engine = engineOn(db);
        const before = await answers(engine, QUERIES);
        const exportBefore = await exported(engine);
        while (await migrateStep(engine, engine.maintenance));
        const all = await readAll(db);
        expect(all.sections).toHaveLength(records.length);
        let refs = 0;
        for (const rec of all.sections) {
          expect(rec.b, rec.url).toBeDefined();
          expect(rec.cv).toBe('old');
          const t = (JSON.parse(await inflate(rec.z)) as { t: unknown[] }).t;
          refs += t.filter((x) => Array.isArray(x)).length;
          // Only texts too short to gain from a reference stay written out.
          for (const x of t) if (typeof x === 'string') expect(x.length, rec.url).toBeLessThan(24);
        }
        expect(refs).toBeGreaterThan(records.length);
        expect(await answers(engineOn(db), QUERIES)).toEqual(before);
        expect(await exported(engineOn(db))).toEqual(exportBefore);
        expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
      });
    }
  });
}
