/**
 * Schema 1 and 2 -> 3 in the real browser: a committed database of each older schema
 * (tests/fixtures/db-v1.jsonl, db-v2.jsonl) is written into the extension's IndexedDB at its version,
 * the worker is stopped, and the next start upgrades it, moves pages and postings to the new layout in
 * the background (stopped part-way once more) and answers searches in search.html throughout.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDump } from '../fixtures/db-v1.dump.js';
import { FIXTURES, launch, searchPage, until, type Extension } from './harness.js';

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
const WRITE_DUMP = `async (dumpText) => {
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

/** What the worker's database holds now. */
const STATE = `(async () => {
  const db = await engine.db();
  const tx = db.transaction(['pages', 'sections', 'chunks', 'texts', 'postingsV2', 'meta']);
  const [pages, sections, chunks, texts, legacyPostings, migration] = await Promise.all([tx.objectStore('pages').getAll(), tx.objectStore('sections').count(), tx.objectStore('chunks').count(), tx.objectStore('texts').count(), tx.objectStore('postingsV2').count(), tx.objectStore('meta').get('migration3')]);
  return { version: db.version, pages: pages.length, withLens: pages.filter((p) => p.lens).length, sections, chunks, texts, legacyPostings, phase: migration ? migration.phase : null };
})()`;

for (const version of [1, 2] as const) {
  const text = readFileSync(join(FIXTURES, `db-v${version}.jsonl`), 'utf8');
  const dump = parseDump(text);
  const pages = dump.lines.filter((l) => l.s === 'pages').map((l) => l.v as { url: string; title: string; chunkIds: number[] });
  const sections = pages.reduce((n, p) => n + p.chunkIds.length, 0);

  describe(`schema ${version} -> 3 in Chromium`, () => {
    it(`a v${version} database opens after a worker restart, migrates (through another stop), and every page is found from search.html`, async () => {
      expect(await ext.evalSw<number>(`(${WRITE_DUMP})(${JSON.stringify(text)})`)).toBe(version);
      // Every search loads search.html afresh, in one tab (a new tab for each of the 64 searches cost
      // a tab's opening and closing each time).
      const tab = await ext.ctx.newPage();
      expect(await ext.stopWorker()).toBeGreaterThan(0);

      // The first search wakes the worker, which opens the database at version 3 and starts moving it.
      for (const p of pages.slice(0, 3)) {
        const rows = await searchPage(ext, { q: p.title }, tab);
        expect(rows.map((r) => r.href.split('#')[0]), p.title).toContain(p.url);
      }
      // Stopped again while it migrates (or just after): the next start resumes.
      await ext.stopWorker();
      for (const p of pages) {
        const rows = await searchPage(ext, { q: p.title }, tab);
        expect(rows.map((r) => r.href.split('#')[0]), p.title).toContain(p.url);
      }
      type State = { version: number; pages: number; withLens: number; sections: number; chunks: number; texts: number; legacyPostings: number; phase: string | null };
      const state = await until(async () => {
        const s = await ext.evalSw<State>(STATE);
        return s.phase ? null : s;
      }, 'the migration to finish', 120_000, 500);
      expect(state).toMatchObject({ version: 3, pages: pages.length, withLens: pages.length, sections: pages.length, chunks: 0, texts: 0, legacyPostings: 0 });
      const report = await ext.evalSw<{ ok: boolean; problems: string[]; checked: { chunks: number } }>('globalThis.rereadDebug.verifyIndex(engine)');
      expect(report.problems).toEqual([]);
      expect(report.checked.chunks).toBe(sections);

      // After another restart, from the new layout: snippets read as text, phrases still match.
      await ext.stopWorker();
      const rows = await searchPage(ext, { q: version === 1 ? '"virtual environment"' : '"json"' }, tab);
      expect(rows.length).toBeGreaterThan(0);
      expect(rows[0]!.snippet.toLowerCase()).toContain(version === 1 ? 'virtual' : 'json');
      for (const p of pages) expect((await searchPage(ext, { q: p.title }, tab)).map((r) => r.href.split('#')[0]), p.title).toContain(p.url);
      await tab.close();
    });
  });
}
