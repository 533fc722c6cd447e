/**
 * Forgetting, from the third review (session 33): each test here failed before its fix. A page visited
 * again inside its undo window keeps only the new visit if the forget is then undone (forget.ts's header:
 * its old visits were purged at once, so that they are not kept if the forget is not undone).
 */
import { describe, expect, it } from 'vitest';
import type { Block } from '../../src/chunker.js';
import { engineOn, freshDb, heldHistory, readAll } from './helpers.js';

const blocks = (topic: string, unique: string): Block[] => [
  { kind: 'heading', text: `About ${topic}`, level: 1, id: 'about' },
  { kind: 'text', text: `${topic} is the subject of this page and every paragraph mentions ${topic} again so that it is found later ${unique}` },
];
const T0 = new Date(2026, 0, 10, 12).getTime();
const DAY = 86_400_000;

async function populated() {
  const db = await freshDb();
  const engine = engineOn(db);
  const pages = [
    ['https://docs.python.org/3/os.html', 'python', 'pyunique', T0],
    ['https://www.python.org/about', 'python', 'aboutunique', T0 + DAY],
    ['https://example.com/bread', 'bread', 'breadunique', T0 + 3 * DAY],
  ] as const;
  for (const [url, topic, unique, at] of pages) await engine.capture(url, { title: `${topic} page`, lang: 'en', blocks: blocks(topic, unique) }, at);
  return { db, engine };
}
const hrefs = async (engine: ReturnType<typeof engineOn>, q: string) => (await engine.search({ q })).results.map((r) => r.href.split('#')[0]);

describe('forget review', { timeout: 30_000 }, () => {
  it('a page visited again after two overlapping forgets of it were made survives the later forget\'s purge', async () => {
    const { engine } = await populated();
    const about = 'https://www.python.org/about';
    const now = Date.now();
    // Forget the page, then (5 s later, inside its window) the whole site: the site's mark lists the page too.
    const page = await engine.forget.mark({ kind: 'page', url: about }, now);
    const site = await engine.forget.mark({ kind: 'site', site: 'python.org' }, now + 5_000);
    // The page forget's window closes first: the old record is purged.
    expect(await engine.forget.purgeDue(page.undoUntil)).toBe(1);
    // The user reads the page again, after both forgets: a new visit, which no forget covers.
    const res = await engine.capture(about, { title: 'python page', lang: 'en', blocks: blocks('python', 'revisitword') }, now + 10_000);
    expect(res.outcome).not.toBe('skipped');
    expect(await hrefs(engine, 'revisitword')).toEqual([about]);
    // The site forget's window closes: it purges what it covered when it was made, not the new visit.
    await engine.forget.purgeDue(site.undoUntil);
    expect(await hrefs(engine, 'revisitword')).toEqual([about]);
  });
});

import { DenseService, type EmbedderHost } from '../../background/dense.js';
import { modelInfo, type Embedder } from '../../src/models.js';

/** An embedder whose model load waits for `open()`: the embedding queue is still full when the forget comes. */
function gatedHost(): EmbedderHost & { open: () => void } {
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  return {
    open,
    async load(model): Promise<Embedder> {
      await gate;
      const dim = 8;
      return {
        model,
        dim,
        async embed(texts) {
          return texts.map((t) => {
            const v = new Float32Array(dim);
            for (let i = 0; i < t.length; i++) v[t.charCodeAt(i) % dim]! += 1;
            const n = Math.hypot(...v) || 1;
            return v.map((x) => x / n);
          });
        },
      };
    },
  };
}

describe('forget review: the dense lane', { timeout: 30_000 }, () => {
  it('an undone forget leaves the page\'s sections still to embed (the queue drained during the window does not drop them)', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const host = gatedHost();
    const dense = new DenseService(engine, host);
    engine.dense = dense;
    await dense.init();
    expect(modelInfo((await engine.settings()).model)).toBeTruthy();
    const url = 'https://www.python.org/about';
    await engine.capture(url, { title: 'python page', lang: 'en', blocks: blocks('python', 'aboutunique') }, T0);
    await engine.capture('https://example.com/bread', { title: 'bread page', lang: 'en', blocks: blocks('bread', 'breadunique') }, T0);
    const ids = (await db.get('pages', url))!.chunkIds;
    expect((await readAll(db)).queue.map((q) => q.id)).toEqual(expect.arrayContaining(ids));
    // Forgotten (the undo window opens) while the queue still holds its sections; the embedder then loads.
    const mark = await engine.forget.mark({ kind: 'site', site: 'python.org' }, Date.now());
    host.open();
    await dense.idle();
    // Undone: the page is back as it was, so its sections must still be embedded or still queued.
    await engine.forget.undo(mark.id);
    await dense.idle();
    const all = await readAll(db);
    const embedded = new Set(all.vectors.filter((v) => !v.m.includes('\u0000')).flatMap((v) => [...v.ids]));
    const queued = new Set(all.queue.map((q) => q.id));
    // The other page was embedded meanwhile (the drain did run).
    expect((await db.get('pages', 'https://example.com/bread'))!.chunkIds.every((id) => embedded.has(id))).toBe(true);
    expect(ids.filter((id) => !embedded.has(id) && !queued.has(id))).toEqual([]);
  });
});

import { HISTORY_STATE_KEY, HistoryImport } from '../../background/dayone/historyImport.js';

describe('forget review: the history import\'s state', { timeout: 30_000 }, () => {
  it('a page forgotten while an import ran leaves no trace once the forget is final and the import is done', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const NOW = Date.now();
    const secret = 'https://clinic.example/results/42';
    const items = [
      ...Array.from({ length: 1000 }, (_, i) => ({ url: `https://site${i}.example/p`, title: `Entry ${i}`, lastVisitTime: NOW - 1000 - i, visitCount: 1 })),
      { url: secret, title: 'My test results', lastVisitTime: NOW - 5000, visitCount: 1 },
    ];
    const { source, held, release } = heldHistory(items, 2);
    await engine.capture(secret, { title: 'My test results', lang: 'en', blocks: blocks('results', 'privateword') }, NOW - 5000);
    const imp = new HistoryImport(engine, () => source, () => NOW);
    await imp.start(0);
    await held;
    // "Forget this page" while the import runs (main.ts forgetPending, then the mark).
    await imp.forgotUrls([secret]);
    const mark = await engine.forget.mark({ kind: 'page', url: secret }, Date.now());
    release();
    await imp.whenIdle();
    expect((await imp.status()).state).toBe('done');
    await engine.forget.purgeDue(mark.undoUntil);
    expect(await db.get('pages', secret)).toBeUndefined();
    // The forget is final and the import over: the page's address is nowhere in the database.
    expect(JSON.stringify(await db.get('meta', HISTORY_STATE_KEY))).not.toContain('clinic.example');
  });
});
