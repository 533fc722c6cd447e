/**
 * Schema 1 -> 2 in the real browser: the committed v1 database (tests/fixtures/db-v1.jsonl) is written
 * into the extension's IndexedDB as version 1, the worker is stopped, and the next start upgrades it,
 * compresses the text in the background and answers searches in search.html throughout.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDump } from '../fixtures/db-v1.dump.js';
import { FIXTURES, launch, searchPage, until, type Extension } from './harness.js';

const text = readFileSync(join(FIXTURES, 'db-v1.jsonl'), 'utf8');
const dump = parseDump(text);
const pages = dump.lines.filter((l) => l.s === 'pages').map((l) => l.v as { url: string; title: string });

let ext: Extension;
beforeAll(async () => {
  ext = await launch();
  // A worker evaluated the instant it is listed can lack its globals: wait until it answers.
  await until(() => ext.evalSw<number>('engine.stats().then((s) => s.pages + 1)').catch(() => 0), 'the worker');
});
afterAll(async () => {
  await ext?.close();
});

/** Runs in the worker: replaces the extension's database with the dump, at the dump's version. */
const WRITE_V1 = `async (dumpText) => {
  // Close the engine's connection (pending transactions finish first; the delete waits for them).
  (await engine.db()).close();
  await new Promise((res, rej) => { const r = indexedDB.deleteDatabase('reread'); r.onsuccess = res; r.onerror = () => rej(r.error); });
  const [headerLine, ...lines] = dumpText.split('\\n').filter((l) => l.trim());
  const header = JSON.parse(headerLine);
  const kinds = { u8: Uint8Array, i8: Int8Array, u32: Uint32Array, f32: Float32Array };
  const decode = (v) => {
    if (Array.isArray(v)) return v.map(decode);
    if (v && typeof v === 'object') {
      if (v.$t) { const bin = atob(v.b64); const bytes = new Uint8Array(bin.length); for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i); const C = kinds[v.$t]; return new C(bytes.buffer, 0, bytes.byteLength / C.BYTES_PER_ELEMENT); }
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, decode(x)]));
    }
    return v;
  };
  const db = await new Promise((res, rej) => {
    const r = indexedDB.open('reread', header.version);
    r.onupgradeneeded = () => { for (const s of header.stores) { const st = r.result.createObjectStore(s.name, s.keyPath ? { keyPath: s.keyPath } : {}); for (const i of s.indexes) st.createIndex(i.name, i.keyPath); } };
    r.onsuccess = () => res(r.result); r.onerror = () => rej(r.error);
  });
  const tx = db.transaction(header.stores.map((s) => s.name), 'readwrite');
  for (const l of lines) { const rec = JSON.parse(l); if (rec.k === undefined) tx.objectStore(rec.s).put(decode(rec.v)); else tx.objectStore(rec.s).put(decode(rec.v), rec.k); }
  await new Promise((res, rej) => { tx.oncomplete = res; tx.onerror = () => rej(tx.error); tx.onabort = () => rej(tx.error); });
  const version = db.version;
  db.close();
  return version;
}`;

/** What the worker's database holds now (read over its own connection, without the engine's). */
const STATE = `(async () => {
  const db = await engine.db();
  const tx = db.transaction(['pages', 'chunks', 'texts', 'meta']);
  const [pages, chunks, texts, migration] = await Promise.all([tx.objectStore('pages').count(), tx.objectStore('chunks').getAll(), tx.objectStore('texts').count(), tx.objectStore('meta').get('migration')]);
  return { version: db.version, pages, chunks: chunks.length, v1Chunks: chunks.filter((c) => typeof c.text === 'string').length, texts, migrating: !!migration };
})()`;

describe('schema 1 -> 2 in Chromium', () => {
  it('a v1 database opens after a worker restart, migrates, and every page is found from search.html', async () => {
    expect(await ext.evalSw<number>(`(${WRITE_V1})(${JSON.stringify(text)})`)).toBe(1);
    expect(await ext.stopWorker()).toBeGreaterThan(0);

    // The first search wakes the worker, which opens the database at version 2.
    for (const p of pages) {
      const rows = await searchPage(ext, { q: p.title });
      expect(rows.map((r) => r.href.split('#')[0]), p.title).toContain(p.url);
    }
    const state = await until(async () => {
      const s = await ext.evalSw<{ version: number; pages: number; chunks: number; v1Chunks: number; texts: number; migrating: boolean }>(STATE);
      return s.migrating ? null : s;
    }, 'the text migration to finish');
    expect(state).toMatchObject({ version: 2, pages: pages.length, v1Chunks: 0, texts: pages.length });
    expect(state.chunks).toBe(dump.lines.filter((l) => l.s === 'chunks').length);
    const report = await ext.evalSw<{ ok: boolean; problems: string[] }>('globalThis.rereadDebug.verifyIndex(engine)');
    expect(report.problems).toEqual([]);

    // After another restart, from the compressed records: snippets read as text, phrases still match.
    await ext.stopWorker();
    const rows = await searchPage(ext, { q: '"virtual environment"' });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]!.snippet.toLowerCase()).toContain('virtual');
    for (const p of pages) expect((await searchPage(ext, { q: p.title })).map((r) => r.href.split('#')[0]), p.title).toContain(p.url);
  });
});
