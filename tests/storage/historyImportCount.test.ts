/**
 * the history import's count and what it keeps of a page seen under two addresses. Each
 * failed on the code it was written against.
 */
import { describe, expect, it } from 'vitest';
import { chromiumHistory, engineOn, fakeHistory, freshDb, heldHistory, type Item, stopAfterWrites } from './helpers.js';
import { HISTORY_STATE_KEY, HistoryImport, WRITE_BATCH } from '../../background/dayone/historyImport.js';

const NOW = Date.UTC(2026, 10, 30, 12);
const DAY = 86_400_000;

describe('the import count after a worker stop', () => {
  it('"N pages from your history" counts every entry stored, also those of a window the worker stopped in', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const items: Item[] = Array.from({ length: 1500 }, (_, i) => ({ url: `https://site${i % 30}.example/p${i}`, title: `Entry ${i}`, lastVisitTime: NOW - i * 60_000, visitCount: 1 }));
    // The first worker stores 8 batches of the first window, then stops (the browser stopped it mid-window).
    const first = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    const died = stopAfterWrites(first, 8);
    await first.start(0);
    await died;
    // What was stored before the stop is counted already.
    expect(((await db.get('meta', HISTORY_STATE_KEY)) as { imported: number }).imported).toBe(8 * WRITE_BATCH);
    // The next worker resumes from the saved cursor.
    const second = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    await second.resume();
    const st = await second.status();
    expect(st.state).toBe('done');
    const titles = [...(await engine.pages.all()).values()].filter((p) => p.kind === 'title').length;
    expect(titles).toBe(1500);
    // What the card shows: "{imported} pages from your history".
    expect(st.imported, `${8 * WRITE_BATCH} entries stored before the stop are not counted`).toBe(titles);
  });
});

describe('one page, two addresses in history', () => {
  it('keeps the newest visit when the same page was visited with and without a tracking parameter', async () => {
    const engine = engineOn(await freshDb());
    const items: Item[] = [
      // Newest first, as history.search answers: yesterday from a newsletter link, a year ago directly.
      { url: 'https://blog.example/post?utm_source=newsletter', title: 'A post', lastVisitTime: NOW - DAY, visitCount: 1 },
      { url: 'https://blog.example/post', title: 'A post', lastVisitTime: NOW - 365 * DAY, visitCount: 1 },
    ];
    const imp = new HistoryImport(engine, () => fakeHistory(items), () => NOW);
    await imp.start(0);
    await imp.whenIdle();
    const page = (await engine.pages.get('https://blog.example/post'))!;
    expect(page.kind).toBe('title');
    // Search's date filters and the result's date use it: "visited a year ago" is wrong.
    expect(new Date(page.lastVisit).toISOString()).toBe(new Date(NOW - DAY).toISOString());
  });
});

describe('a history whose pages were all visited again since', () => {
  it('walks back through the windows (an address last visited after the window says nothing of its place in it)', async () => {
    const engine = engineOn(await freshDb());
    // 2,500 pages read over the last month, every one opened again within the last hour.
    const items = Array.from({ length: 2500 }, (_, i) => ({ url: `https://site${i % 40}.example/p${i}`, title: `Entry ${i}`, visits: [NOW - 30 * DAY + i * 60_000, NOW - 3_600_000 + i] }));
    const calls = { n: 0 };
    const imp = new HistoryImport(engine, () => chromiumHistory(items, calls), () => NOW);
    await imp.start(0);
    const ended = await Promise.race([imp.whenIdle().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 20_000))]);
    if (!ended) await imp.stop();
    expect({ ended, state: (await imp.status()).state }).toEqual({ ended: true, state: 'done' });
    expect([...(await engine.pages.all()).values()].filter((p) => p.kind === 'title')).toHaveLength(2500);
    // A few windows, not one a millisecond.
    expect(calls.n).toBeLessThan(12);
  }, 40_000);
});

describe('Stop while the watchdog asks the import to go on', () => {
  it('stores nothing more once Stop was asked, even when a resume comes in while it stops', async () => {
    const engine = engineOn(await freshDb());
    const items: Item[] = Array.from({ length: 3000 }, (_, i) => ({ url: `https://site${i % 30}.example/s${i}`, title: `Entry ${i}`, lastVisitTime: NOW - i * 60_000, visitCount: 1 }));
    // The second window's read waits: the user presses Stop then.
    const { source, held, release } = heldHistory(items, 2);
    const imp = new HistoryImport(engine, () => source, () => NOW);
    await imp.start(0);
    await held;
    const before = [...(await engine.pages.all()).values()].filter((p) => p.kind === 'title').length;
    expect(before).toBe(1000);
    let stopped = false;
    const stopping = imp.stop().then((s) => ((stopped = true), s));
    release();
    // The watchdog alarm (background/dayone/dayOne.ts) asks the import to go on, again and again, while
    // Stop is under way.
    while (!stopped) {
      void imp.resume();
      await new Promise((r) => setTimeout(r, 0));
    }
    expect((await stopping).state).toBe('stopped');
    await imp.whenIdle();
    expect([...(await engine.pages.all()).values()].filter((p) => p.kind === 'title')).toHaveLength(before);
    expect((await imp.status()).state).toBe('stopped');
  });
});
