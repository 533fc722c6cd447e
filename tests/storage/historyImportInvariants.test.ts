/**
 * The history import's invariants, reviewed one at a time: no entry lost or stored twice,
 * a worker stop between two of its writes leaves a true count, Stop and Pause store nothing after them,
 * and a site excluded while the import runs is not imported. Each test failed on the code before its fix.
 */
import { describe, expect, it } from 'vitest';
import { chromiumHistory, type ChromiumItem, engineOn, fakeHistory, firefoxHistory, freshDb, type Item, stopAfterWrites } from './helpers.js';
import { killableConnection, reopen } from './killSwitch.js';
import { HISTORY_STATE_KEY, HistoryImport, READ_BATCH, WRITE_BATCH, type HistorySource } from '../../background/dayone/historyImport.js';
import { verifyIndex } from '../../background/verify.js';
import type { Engine } from '../../background/engine.js';

const NOW = Date.UTC(2026, 10, 30, 12);
const DAY = 86_400_000;

async function titleUrls(engine: Engine): Promise<string[]> {
  return [...(await engine.pages.all()).values()].filter((p) => p.kind === 'title').map((p) => p.url);
}

/** A source that fails once it was asked more than `max` times: an import that never ends fails the test instead of hanging it. */
function bounded(source: HistorySource, max: number): HistorySource {
  let n = 0;
  return {
    search: (q) => (++n > max ? Promise.reject(new Error(`more than ${max} reads: the import does not end`)) : source.search(q)),
    ...(source.getVisits ? { getVisits: source.getVisits.bind(source) } : {}),
  };
}

/**
 * Holds the engine's write lock (a long capture, say) until `release`; `waiting` resolves once the import
 * asks for it, with its next batch read and ready to store.
 */
function holdWriteLock(engine: Engine): { waiting: Promise<void>; release: () => Promise<void> } {
  let open!: () => void;
  const held = engine.exclusive(() => new Promise<void>((r) => (open = r)));
  let asked!: () => void;
  const waiting = new Promise<void>((r) => (asked = r));
  const exclusive = engine.exclusive.bind(engine);
  engine.exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
    asked();
    return exclusive(fn);
  };
  return {
    waiting,
    release: () => {
      open();
      return held;
    },
  };
}

describe("Firefox's order: an address by its last visit of all", () => {
  it('pages visited again since do not hide the pages visited once in between', async () => {
    const engine = engineOn(await freshDb());
    const items: ChromiumItem[] = [
      // 1,200 pages opened a month ago and again in the last hour (the pages a person keeps going back to).
      ...Array.from({ length: 1200 }, (_, i) => ({ url: `https://daily${i % 30}.example/d${i}`, title: `Daily ${i}`, visits: [NOW - 30 * DAY - i * 1000, NOW - 3_600_000 + i * 1000] })),
      // 500 pages visited once in between, 1 to 29 days ago: Firefox ranks them after all of the above.
      ...Array.from({ length: 500 }, (_, i) => ({ url: `https://once${i % 20}.example/o${i}`, title: `Once ${i}`, visits: [NOW - DAY - i * 4_000_000] })),
    ];
    const imp = new HistoryImport(engine, () => bounded(firefoxHistory(items), 200), () => NOW);
    await imp.start(90);
    await imp.whenIdle();
    const st = await imp.status();
    expect({ state: st.state, error: st.error }).toEqual({ state: 'done', error: undefined });
    const stored = new Set(await titleUrls(engine));
    expect(items.filter((i) => !stored.has(i.url)).length, 'entries never imported').toBe(0);
    expect(st.imported).toBe(items.length);
  });
});

describe('entries sharing one millisecond', () => {
  it.each([
    ['Chromium', chromiumHistory],
    ['Firefox', firefoxHistory],
  ])('more of them than one read returns (a history imported from another browser) are all imported, and the import ends (%s)', async (_browser, history) => {
    const engine = engineOn(await freshDb());
    const T = NOW - 40 * DAY;
    const items: ChromiumItem[] = [
      ...Array.from({ length: 400 }, (_, i) => ({ url: `https://newer${i % 20}.example/n${i}`, title: `Newer ${i}`, visits: [T + (i + 1) * 60_000] })),
      // 1,500 addresses whose only visit has the same time to the millisecond.
      ...Array.from({ length: 1500 }, (_, i) => ({ url: `https://moved${i % 30}.example/m${i}`, title: `Moved ${i}`, visits: [T] })),
      ...Array.from({ length: 400 }, (_, i) => ({ url: `https://older${i % 20}.example/o${i}`, title: `Older ${i}`, visits: [T - (i + 1) * 60_000] })),
    ];
    expect(1500).toBeGreaterThan(READ_BATCH);
    const imp = new HistoryImport(engine, () => bounded(history(items), 100), () => NOW);
    await imp.start(0);
    await imp.whenIdle();
    const st = await imp.status();
    expect({ state: st.state, error: st.error }).toEqual({ state: 'done', error: undefined });
    const stored = await titleUrls(engine);
    expect(stored.length, `${items.length - stored.length} entries never imported`).toBe(items.length);
    expect(new Set(stored)).toEqual(new Set(items.map((i) => i.url)));
    expect(st.imported).toBe(items.length);
  });

  it('resumes after a worker stop inside such a millisecond without leaving any of it out', async () => {
    const engine = engineOn(await freshDb());
    const T = NOW - 3 * DAY;
    const items: ChromiumItem[] = Array.from({ length: 2600 }, (_, i) => ({ url: `https://sync${i % 25}.example/s${i}`, title: `Synced ${i}`, visits: [T] }));
    // The first worker stores 10 batches, then stops for good (the browser stopped it).
    const first = new HistoryImport(engine, () => chromiumHistory(items), () => NOW);
    const died = stopAfterWrites(first, 10);
    await first.start(0);
    await died;
    expect((await titleUrls(engine)).length).toBe(10 * WRITE_BATCH);
    const second = new HistoryImport(engine, () => bounded(chromiumHistory(items), 100), () => NOW);
    await second.resume();
    const st = await second.status();
    expect(st.state).toBe('done');
    expect((await titleUrls(engine)).length, 'entries of the millisecond never imported').toBe(items.length);
    expect(st.imported).toBe(items.length);
  });
});

describe('a worker stopped between two writes of the import', () => {
  it('"N pages from your history" stays true: the count is stored with the pages it counts', async () => {
    const name = `killed-import-${process.pid}-${Date.now()}`;
    const conn = await killableConnection(name);
    const engine = engineOn(conn.db);
    const items: Item[] = Array.from({ length: 300 }, (_, i) => ({ url: `https://site${i % 12}.example/k${i}`, title: `Entry ${i}`, lastVisitTime: NOW - i * 60_000, visitCount: 1 }));
    // The worker stops at the first write of the import's state alone after a batch of pages committed
    // (where the count was written, in a transaction of its own, before).
    let pagesWritten = false;
    conn.armWhen((tx, method) => {
      const stores = [...tx.objectStoreNames];
      if (tx.mode === 'readwrite' && stores.includes('pages') && method === 'put') pagesWritten = true;
      return pagesWritten && tx.mode === 'readwrite' && stores.join() === 'meta' && method === 'put';
    });
    const killed = new Promise<void>((r) => conn.onKill(r));
    const first = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    await first.start(0);
    await killed;
    await first.whenIdle().catch(() => undefined);

    const db = await reopen(name);
    const restarted = engineOn(db);
    const stored = await titleUrls(restarted);
    expect(stored.length).toBeGreaterThan(0);
    expect(((await db.get('meta', HISTORY_STATE_KEY)) as { imported: number }).imported, 'pages stored but not counted').toBe(stored.length);
    const second = new HistoryImport(restarted, () => fakeHistory(items), () => NOW);
    await second.resume();
    const st = await second.status();
    expect(st.state).toBe('done');
    expect((await titleUrls(restarted)).length).toBe(300);
    expect(st.imported).toBe(300);
  });
});

describe('a worker killed anywhere in an import', { timeout: 120_000 }, () => {
  /** Pages visited again since, a millisecond holding more than one read, and older pages. */
  const T = NOW - 5 * DAY;
  const items: ChromiumItem[] = [
    ...Array.from({ length: 150 }, (_, i) => ({ url: `https://n${i % 9}.example/n${i}`, title: `N ${i}`, visits: [T + (i + 1) * 1000, NOW - 1000 + (i % 7)] })),
    ...Array.from({ length: 1100 }, (_, i) => ({ url: `https://c${i % 9}.example/c${i}`, title: `C ${i}`, visits: [T] })),
    ...Array.from({ length: 150 }, (_, i) => ({ url: `https://o${i % 9}.example/o${i}`, title: `O ${i}`, visits: [T - (i + 1) * 1000] })),
  ];
  let run = 0;

  /** The import on a connection killed at its k-th request, then resumed by a restarted worker to its end. */
  async function killedAt(k: number, history = chromiumHistory) {
    const name = `killed-import-sweep-${process.pid}-${Date.now()}-${++run}`;
    const conn = await killableConnection(name);
    conn.armAt(k);
    const killed = new Promise<void>((r) => conn.onKill(r));
    const first = new HistoryImport(engineOn(conn.db), () => history(items), () => NOW);
    const started = first.start(0).then(
      () => first.whenIdle(),
      () => undefined,
    );
    await Promise.race([started.catch(() => undefined), killed]);
    await first.whenIdle().catch(() => undefined);
    const db = await reopen(name);
    const engine = engineOn(db);
    const state = (await db.get('meta', HISTORY_STATE_KEY)) as { state: string } | undefined;
    // Killed before the import's state was first saved: it never started (the user is told it failed).
    if (!state) return { requests: conn.requests, problems: (await titleUrls(engine)).length ? ['entries stored by an import that never started'] : [] };
    const second = new HistoryImport(engine, () => history(items), () => NOW);
    await second.resume();
    const st = await second.status();
    const stored = await titleUrls(engine);
    const problems: string[] = [];
    if (st.state !== 'done') problems.push(`state ${st.state}`);
    if (new Set(stored).size !== items.length || stored.some((u) => !new Set(items.map((i) => i.url)).has(u))) problems.push(`${stored.length} of ${items.length} entries stored`);
    // Nothing twice in the index either: one section an entry.
    if ((await engine.lexical.corpusStats()).N !== items.length) problems.push(`${(await engine.lexical.corpusStats()).N} sections`);
    if (st.imported !== stored.length) problems.push(`counted ${st.imported}, stored ${stored.length}`);
    problems.push(...(await verifyIndex(engine)).problems.map(String));
    return { requests: conn.requests, problems };
  }

  it('comes back and ends with every entry once, and a true count', async () => {
    const origWarn = console.warn;
    console.warn = () => undefined;
    const onUnhandled = () => undefined;
    process.on('unhandledRejection', onUnhandled);
    try {
      const problems: string[] = [];
      // In each browser's order, 12 points spread over the whole import, the same every run.
      for (const [browser, history] of [
        ['Chromium', chromiumHistory],
        ['Firefox', firefoxHistory],
      ] as const) {
        const full = await killedAt(Infinity, history);
        expect(full.problems).toEqual([]);
        for (let j = 0; j < 12; j++) {
          const k = 1 + Math.floor((j * full.requests) / 12) + (j % 7);
          for (const p of (await killedAt(k, history)).problems) problems.push(`${browser}, k=${k}: ${p}`);
        }
      }
      expect(problems).toEqual([]);
    } finally {
      console.warn = origWarn;
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('Stop', () => {
  it('stores nothing once pressed, also a batch that was waiting for the write lock then', async () => {
    const engine = engineOn(await freshDb());
    const items: Item[] = Array.from({ length: 600 }, (_, i) => ({ url: `https://site${i % 12}.example/t${i}`, title: `Entry ${i}`, lastVisitTime: NOW - i * 60_000, visitCount: 1 }));
    const lock = holdWriteLock(engine);
    const imp = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    await imp.start(0);
    await lock.waiting;
    const stopping = imp.stop();
    while ((await imp.status()).state !== 'stopped') await new Promise((r) => setTimeout(r, 0));
    // The capture that held the lock ends after the user pressed Stop.
    await lock.release();
    expect((await stopping).state).toBe('stopped');
    await imp.whenIdle();
    expect(await titleUrls(engine), 'stored after Stop').toEqual([]);
    expect((await imp.status()).imported).toBe(0);
  });
});

describe('Pause', () => {
  it('nothing is stored while capture is paused, and nothing of the window read before is lost', async () => {
    const engine = engineOn(await freshDb());
    const items: Item[] = Array.from({ length: 1400 }, (_, i) => ({ url: `https://site${i % 12}.example/p${i}`, title: `Entry ${i}`, lastVisitTime: NOW - i * 60_000, visitCount: 1 }));
    const lock = holdWriteLock(engine);
    const imp = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    await imp.start(0);
    await lock.waiting;
    // The user pauses capture with the first window read and its first batch waiting for the lock.
    await engine.updateSettings({ paused: true });
    await lock.release();
    await imp.whenIdle();
    expect(await titleUrls(engine), 'stored while paused').toEqual([]);
    expect((await imp.status()).state).toBe('running');
    // Capture resumed: the import goes on from where it was, and brings the whole history.
    await engine.updateSettings({ paused: false });
    await imp.resume();
    const st = await imp.status();
    expect(st.state).toBe('done');
    expect((await titleUrls(engine)).length).toBe(1400);
    expect(st.imported).toBe(1400);
  });
});

describe('a site excluded while the import runs', () => {
  it('is not imported, also from the window read before it was excluded', async () => {
    const engine = engineOn(await freshDb());
    const items: Item[] = Array.from({ length: 1200 }, (_, i) => ({ url: `https://site${i % 12}.example/e${i}`, title: `Entry ${i}`, lastVisitTime: NOW - i * 60_000, visitCount: 1 }));
    const lock = holdWriteLock(engine);
    const imp = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    await imp.start(0);
    await lock.waiting;
    await engine.updateSettings({ excludedSites: [...(await engine.settings()).excludedSites, 'site3.example'] });
    await lock.release();
    await imp.whenIdle();
    const st = await imp.status();
    expect(st.state).toBe('done');
    const stored = await titleUrls(engine);
    expect(stored.filter((u) => new URL(u).hostname === 'site3.example'), 'an excluded site imported').toEqual([]);
    expect(stored.length).toBe(1100);
    expect(st.imported).toBe(1100);
  });
});
