/**
 * Schema 1 -> 2: a database written by the v1 code (tests/fixtures/db-v1.jsonl) opens with the current
 * schema, answers searches exactly as before while its text is being moved into compressed per-page
 * records, and after; a migration cut short resumes; writes in between lose nothing.
 */
import 'fake-indexeddb/auto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openDB, type IDBPDatabase } from 'idb';
import { describe, expect, it } from 'vitest';
import { DB_VERSION, MIGRATION_KEY, upgrade, type RereadDB } from '../../background/db.js';
import { migrateChunkTexts } from '../../background/sectionTexts.js';
import { TOKENIZER } from '../../src/indexing.js';
import { exportJsonl } from '../../background/transfer.js';
import { deletePages, writePage } from '../../background/pageStore.js';
import { verifyIndex } from '../../background/verify.js';
import { ensureIndexVersion } from '../../background/indexVersion.js';
import { decodeValue, parseDump } from '../fixtures/db-v1.dump.js';
import { engineOn, pageInput, readAll } from './helpers.js';

const dump = parseDump(readFileSync(join(import.meta.dirname, '../fixtures/db-v1.jsonl'), 'utf8'));
let counter = 0;

/** The fixture as a v1 database (stores as its header describes), then opened with the current schema. */
async function v1Database(): Promise<IDBPDatabase<RereadDB>> {
  const name = `reread-migration-${process.pid}-${++counter}`;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const v1 = await openDB<any>(name, 1, {
    upgrade(db) {
      for (const s of dump.header.stores) {
        const store = db.createObjectStore(s.name, s.keyPath ? { keyPath: s.keyPath } : {});
        for (const i of s.indexes) store.createIndex(i.name, i.keyPath);
      }
    },
  });
  const tx = v1.transaction(dump.header.stores.map((s) => s.name), 'readwrite');
  await Promise.all(dump.lines.map((l) => (l.k === undefined ? tx.objectStore(l.s).put(decodeValue(l.v)) : tx.objectStore(l.s).put(decodeValue(l.v), l.k as string))));
  await tx.done;
  v1.close();
  const db = await openDB<RereadDB>(name, DB_VERSION, { upgrade: (db, old, _v, t) => upgrade(db, old, t) });
  // As the worker does at start: the fixture's postings were built by index revision 1 (title and
  // heading words repeated), so they are rebuilt for this one (fields) before anything is compared.
  if (!(await ensureIndexVersion(engineOn(db)))) throw new Error('a v1 fixture should need an index rebuild');
  return db;
}

async function answers(db: IDBPDatabase<RereadDB>, queries: readonly string[]) {
  const engine = engineOn(db);
  const out: Record<string, unknown> = {};
  for (const q of queries) out[q] = (await engine.search({ q, limit: 10 })).results.map(({ url, chunkId, snippet, headingPath, more }) => ({ url, chunkId, snippet, headingPath, more: more.map((m) => [m.chunkId, m.snippet]) }));
  return out;
}

const pageLines = dump.lines.filter((l) => l.s === 'pages').map((l) => l.v as { url: string; title: string });
const QUERIES = [...pageLines.map((p) => p.title), 'list comprehension', 'virtual environment', 'walrus operator', '"floating point"', 'exceptions -syntax', 'pip install'];

describe('schema 1 -> 2 migration', () => {
  it('the fixture is a v1 database with text in its chunk records', () => {
    expect(dump.header.version).toBe(1);
    expect(pageLines.length).toBeGreaterThan(10);
    expect(dump.lines.filter((l) => l.s === 'chunks').every((l) => typeof (l.v as { text?: unknown }).text === 'string')).toBe(true);
  });

  it('opens, migrates, and answers every search exactly as before; verifyIndex passes throughout', async () => {
    const db = await v1Database();
    expect(await db.get('meta', MIGRATION_KEY)).toEqual({ after: '' });
    const engine = engineOn(db);
    expect((await verifyIndex(engine)).problems).toEqual([]);
    const before = await answers(db, QUERIES);
    const exportBefore = (await exportJsonl(engine, false)).jsonl.split('\n').slice(1);
    // Every page is found by its title.
    for (const p of pageLines) expect((before[p.title] as { url: string }[]).map((r) => r.url), p.title).toContain(p.url);

    await migrateChunkTexts(db);
    const all = await readAll(db);
    expect(await db.get('meta', MIGRATION_KEY)).toBeUndefined();
    expect(all.chunks.filter((c) => c.text !== undefined)).toEqual([]);
    expect(all.texts.map((t) => t.url).sort()).toEqual(all.pages.map((p) => p.url).sort());
    expect(await answers(db, QUERIES)).toEqual(before);
    expect((await exportJsonl(engineOn(db), false)).jsonl.split('\n').slice(1)).toEqual(exportBefore);
    expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
    // The logical bytes of chunk text shrink (per-page deflate).
    const v1Text = dump.lines.filter((l) => l.s === 'chunks').reduce((n, l) => n + ((l.v as { text: string }).text.length), 0);
    const v2Text = all.texts.reduce((n, t) => n + t.z.byteLength, 0);
    expect(v2Text).toBeLessThan(v1Text / 2.5);
  });

  it('a migration cut short resumes; writes and deletes in between keep the index exact', async () => {
    const db = await v1Database();
    const before = await answers(db, QUERIES);
    await migrateChunkTexts(db, { pagesPerTx: 3, maxBatches: 2 }); // the worker "dies" after two batches
    let all = await readAll(db);
    const migrated = all.texts.map((t) => t.url);
    expect(migrated).toHaveLength(6);
    expect(all.chunks.some((c) => c.text !== undefined)).toBe(true);
    expect(await answers(db, QUERIES)).toEqual(before);
    expect((await verifyIndex(engineOn(db))).problems).toEqual([]);

    // Rewrite a migrated page and a not-yet-migrated one, delete one of each.
    const pending = all.pages.map((p) => p.url).filter((u) => !migrated.includes(u));
    await writePage(db, pageInput(migrated[0]!, 'Rewritten A', ['zanzibarine migrated rewrite text here'], 2), TOKENIZER);
    await writePage(db, pageInput(pending[0]!, 'Rewritten B', ['quokkaline pending rewrite text here'], 2), TOKENIZER);
    await deletePages(db, [migrated[1]!, pending[1]!], TOKENIZER);
    expect((await verifyIndex(engineOn(db))).problems).toEqual([]);

    await migrateChunkTexts(db); // the next start
    all = await readAll(db);
    expect(all.chunks.filter((c) => c.text !== undefined)).toEqual([]);
    expect(all.texts.map((t) => t.url).sort()).toEqual(all.pages.map((p) => p.url).sort());
    expect((await verifyIndex(engineOn(db))).problems).toEqual([]);
    const engine = engineOn(db);
    expect((await engine.search({ q: 'zanzibarine' })).results.map((r) => r.url)).toEqual([migrated[0]]);
    expect((await engine.search({ q: 'quokkaline' })).results.map((r) => r.url)).toEqual([pending[0]]);
    // Pages nobody touched answer as before.
    const untouched = new Set([migrated[0], migrated[1], pending[0], pending[1]]);
    const after = await answers(db, QUERIES);
    for (const p of pageLines) {
      if (untouched.has(p.url)) continue;
      expect((after[p.title] as { url: string }[]).map((r) => r.url), p.title).toContain(p.url);
    }
  });
});
