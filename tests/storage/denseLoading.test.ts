/**
 * The first search after a worker start does not wait for the dense index to load: it answers with the
 * lexical lane alone, marked `denseLoading`; asked again with `awaitDense` (as the search box does), it
 * answers in full, exactly as a worker whose index was loaded all along. Vectors stored and sections
 * removed while the index loads are in it once it is there. In Node: the real Engine and DenseService
 * over fake-indexeddb, the bundled model's real files; the load is held by a gate (the real load's
 * reads are done, its end waits for the gate), which is the worker's slow load at a million sections made deterministic.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DenseService, type EmbedderHost } from '../../background/dense.js';
import { createTransformersEmbedder } from '../../background/embedding/transformersEmbedder.js';
import { loadDenseIndex } from '../../background/vectorStore.js';
import type { DB } from '../../background/db.js';
import { modelInfo, type Embedder } from '../../src/models.js';
import type { DenseIndex } from '../../src/vectors.js';
import { engineOn, freshDb, pageInput } from './helpers.js';
import { writePage } from '../../background/pageStore.js';
import { TOKENIZER } from '../../src/indexing.js';
import { exportJsonl, transferWorker } from './transferText.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BUNDLED = 'reread/glove-100d';

let embedder: Promise<Embedder> | null = null;
const host: EmbedderHost = {
  load() {
    embedder ??= createTransformersEmbedder(modelInfo(BUNDLED)!, { localModelPath: path.join(ROOT, 'models') + path.sep, allowRemote: false, useBrowserCache: false });
    return embedder;
  },
};

const PAGES: [string, string, string][] = [
  ['https://a.example/bread', 'Bread', 'knead the dough and bake the loaf in a hot oven until golden'],
  ['https://b.example/boats', 'Boats', 'the sailing boat crossed the harbour in a strong wind'],
  ['https://c.example/cats', 'Cats', 'a kitten sleeps on the warm windowsill and purrs'],
  ['https://d.example/oven', 'Ovens', 'a fan oven bakes evenly; preheat it before the bread goes in'],
];

/** A worker with every page stored and embedded, its index loaded. */
async function warmWorker(): Promise<{ db: DB; dense: DenseService; engine: ReturnType<typeof engineOn> }> {
  const db = await freshDb();
  const engine = engineOn(db);
  const dense = new DenseService(engine, host);
  engine.dense = dense;
  await dense.init();
  for (const [i, [url, title, text]] of PAGES.entries()) engine.applyWrite((await writePage(db, pageInput(url, title, [text], 1_700_000_000_000 + i, BUNDLED), TOKENIZER)).batch);
  await dense.idle();
  expect(await dense.pending()).toBe(0);
  return { db, dense, engine };
}

/** The same database after a worker stop: a new engine whose dense index loads only when `open()` is called. */
function restarted(db: DB) {
  const engine = engineOn(db);
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  let loads = 0;
  // The stored vectors are read at once; the load finishes when the gate opens (so what is written
  // meanwhile is not in what it read).
  const dense = new DenseService(engine, host, async (...args) => {
    loads++;
    const index = await loadDenseIndex(...args);
    await gate;
    return index;
  });
  engine.dense = dense;
  return { engine, dense, open, loads: () => loads };
}

const view = (r: { results: { chunkId: number; lanes: object; score: number }[] }) => r.results.map((x) => [x.chunkId, x.lanes, x.score]);
const resident = (d: DenseService) => (d as unknown as { index: DenseIndex | null }).index;

describe('the first search after a start', { timeout: 60_000 }, () => {
  it('answers lexical-only while the dense index loads, says so, and answers in full when asked to wait', async () => {
    const { db, engine: warm } = await warmWorker();
    const q = 'baking bread in the oven';
    await warm.search({ q, awaitDense: true });
    const before = await warm.search({ q });
    expect(before.lanesUsed).toEqual({ lexical: true, dense: true });
    expect(before.denseLoading).toBeUndefined();

    const w = restarted(db);
    await w.dense.init();
    const first = await w.engine.search({ q, box: 'popup-1' });
    expect(first.denseLoading).toBe(true);
    expect(first.lanesUsed).toEqual({ lexical: true, dense: false });
    expect(first.results.length).toBeGreaterThan(0);
    // Honest about its lanes: nothing in it was found by meaning.
    for (const r of first.results) expect(r.lanes.dense).toBeUndefined();
    expect(w.loads()).toBe(1);

    // The search box asks again, waiting: the answer comes once the index is there, the same as a
    // worker that had it loaded all along.
    const again = w.engine.search({ q, box: 'popup-1', awaitDense: true });
    w.open();
    const full = await again;
    expect(full.denseLoading).toBeUndefined();
    expect(full.lanesUsed).toEqual({ lexical: true, dense: true });
    expect(view(full)).toEqual(view(before));
    // And the next keystroke is hybrid without waiting; the index was loaded once.
    const next = await w.engine.search({ q: 'sailing in the wind' });
    expect(next.lanesUsed.dense).toBe(true);
    expect(view(next)).toEqual(view(await warm.search({ q: 'sailing in the wind' })));
    expect(w.loads()).toBe(1);
  });

  it('a newer keystroke supersedes a search waiting for the index', async () => {
    const { db } = await warmWorker();
    const w = restarted(db);
    await w.dense.init();
    const waiting = w.engine.search({ q: 'bread oven', box: 'page-1', awaitDense: true }).then(
      () => 'answered',
      (e: { code?: string }) => e.code,
    );
    const newer = w.engine.search({ q: 'bread', box: 'page-1' });
    expect((await newer).denseLoading).toBe(true);
    w.open();
    expect(await waiting).toBe('superseded');
  });

  it('neither loads the index nor embeds for a query in a language the model did not learn', async () => {
    const { db } = await warmWorker();
    const w = restarted(db);
    await w.dense.init();
    const res = await w.engine.search({ q: 'Wie backe ich das Brot im Ofen?', awaitDense: true });
    expect(res.lanesUsed).toEqual({ lexical: true, dense: false });
    expect(res.denseLoading).toBeUndefined();
    expect(w.loads()).toBe(0);
    // An English query loads it and uses it.
    w.open();
    expect((await w.engine.search({ q: 'bread oven', awaitDense: true })).lanesUsed.dense).toBe(true);
    expect(w.loads()).toBe(1);
  });

  it('keeps vectors stored and sections removed while the index loads', async () => {
    const { db } = await warmWorker();
    const w = restarted(db);
    await w.dense.init();
    expect((await w.engine.search({ q: 'bread oven' })).denseLoading).toBe(true);
    // Meanwhile: a page captured and embedded, another forgotten (its sections removed).
    const added = await writePage(db, pageInput('https://e.example/yeast', 'Yeast', ['yeast makes the dough rise before baking'], 1_700_000_100_000, BUNDLED), TOKENIZER);
    w.engine.applyWrite(added.batch);
    await w.dense.idle();
    const gone = (await w.engine.pages.all()).get('https://b.example/boats')!.chunkIds;
    w.dense.onChunksRemoved(gone);
    w.open();
    const full = await w.engine.search({ q: 'bread oven', awaitDense: true });
    expect(full.lanesUsed.dense).toBe(true);
    const index = resident(w.dense)!;
    for (const id of added.batch.pages[0]!.addedChunkIds) expect(index.has(id)).toBe(true);
    for (const id of gone) expect(index.has(id)).toBe(false);
    expect(index.size).toBe(PAGES.length);
  });

  it('a backlog left by a stopped worker: init() does not count it (a search waits for init), resumeBacklog() embeds it', async () => {
    const db = await freshDb();
    const stopped = engineOn(db);
    // Stored with the queue entries, never embedded: a worker stopped before it drained them.
    for (const [i, [url, title, text]] of PAGES.entries()) stopped.applyWrite((await writePage(db, pageInput(url, title, [text], 1_700_000_000_000 + i, BUNDLED), TOKENIZER)).batch);
    const engine = engineOn(db);
    const dense = new DenseService(engine, host);
    engine.dense = dense;
    await dense.init();
    await dense.idle();
    expect(await dense.pending()).toBe(PAGES.length);
    await dense.resumeBacklog();
    await dense.idle();
    expect(await dense.pending()).toBe(0);
  });
});

describe('vectors an import brings', { timeout: 60_000 }, () => {
  it('are in the resident index as each page is written, though the import never ends (its page was closed)', async () => {
    // The exporting profile: PAGES, embedded; its file carries their vectors.
    const file = (await exportJsonl((await warmWorker()).engine, true)).jsonl;
    expect(file.split('\n').filter((l) => l.includes('"vector"')).length).toBe(PAGES.length);
    // The importing worker: a page of its own, embedded, and its dense index loaded by a search.
    const db = await freshDb();
    const engine = engineOn(db);
    const dense = new DenseService(engine, host);
    engine.dense = dense;
    await dense.init();
    engine.applyWrite((await writePage(db, pageInput('https://z.example/tea', 'Tea', ['brew the green tea leaves in water that is not quite boiling'], 1_700_000_000_000, BUNDLED), TOKENIZER)).batch);
    await dense.idle();
    expect((await engine.search({ q: 'green tea leaves', awaitDense: true })).lanesUsed.dense).toBe(true);
    // The Options page sends the file (one part) and is closed before it asks to finish: every page but
    // the last is written (the last waits for an end that never comes).
    const got = await transferWorker(engine).call('import/part', { token: null, text: file });
    expect(got.pages).toBe(PAGES.length - 1);
    await dense.idle();
    // Their vectors came with them: nothing is queued to embed.
    expect(await dense.pending()).toBe(0);
    const imported = (await db.getAll('pages')).filter((p) => p.url !== 'https://z.example/tea');
    expect(imported.length).toBe(PAGES.length - 1);
    const index = resident(dense)!;
    expect(
      imported.flatMap((p) => p.chunkIds).filter((id) => !index.has(id)),
      'imported sections missing from the dense lane until the worker restarts',
    ).toEqual([]);
    // Found by meaning: each imported page, by its own words.
    for (const p of imported) {
      const text = PAGES.find(([url]) => url === p.url)![2];
      const res = await engine.search({ q: text, awaitDense: true });
      expect(res.results.find((r) => r.url === p.url)?.lanes.dense, p.url).toBeDefined();
    }
  });
});
