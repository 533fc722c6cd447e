/**
 * Index maintenance on its own schedule: merges start after MERGE_AT pending segments or once writes
 * pause, sweeps once forgotten ids pass SWEEP_FRACTION (or the oldest tombstone ages), a failing step
 * (storage full) leaves the index as it was and is retried, and searches answer the same throughout.
 */
import { describe, expect, it } from 'vitest';
import type { PostingList } from '../../src/bm25.js';
import { DeadSet } from '../../background/delta.js';
import { CRISIS_AT, IDLE_MS, MERGE_AT, MERGE_KEY, QUIET_MS, SWEEP_FRACTION } from '../../background/indexMaintenance.js';
import { verifyIndex } from '../../background/verify.js';
import { engineOn, freshDb, logicalIndex, readAll } from './helpers.js';

const page = (i: number) => ({ title: `Page ${i}`, lang: 'en', blocks: [{ kind: 'text' as const, text: `river stone word${i}x and enough ordinary words to be kept as a page of its own` }] });
const until = async (f: () => Promise<boolean> | boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await f())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('DeadSet', () => {
  it('merges ranges and filters sorted lists in one pass', () => {
    const d = new DeadSet([
      { seq: 1, first: 10, end: 12 },
      { seq: 2, first: 5, end: 7 },
      { seq: 3, first: 11, end: 15 },
    ]);
    expect(d.size).toBe(2);
    expect([4, 5, 6, 7, 10, 14, 15].map((id) => d.has(id))).toEqual([false, true, true, false, true, true, false]);
    const list: PostingList = { ids: Uint32Array.from([1, 5, 7, 12, 20]), tfs: Uint32Array.from([1, 2, 3, 4, 5]), lens: Uint32Array.from([9, 9, 9, 9, 9]) };
    const out = d.filter(list);
    expect([...out.ids]).toEqual([1, 7, 20]);
    expect([...out.tfs]).toEqual([1, 3, 5]);
    expect(new DeadSet([]).filter(list)).toBe(list);
  });
});

describe('scheduling', { timeout: 60_000 }, () => {
  it(`merges by itself after ${MERGE_AT} pending segments once captures pause for ${QUIET_MS} ms, well before the idle delay`, async () => {
    const db = await freshDb();
    const engine = engineOn(db, { auto: true });
    for (let i = 0; i < MERGE_AT; i++) await engine.capture(`https://a.example/${i}`, page(i), 1_700_000_000_000 + i);
    // Well before the idle delay would have started it.
    await until(async () => (await readAll(db)).segments.length === 0 && !engine.maintenance.status().running, IDLE_MS - 2000);
    expect(engine.maintenance.status().merges).toBeGreaterThanOrEqual(1);
    expect((await readAll(db)).postings.length).toBeGreaterThan(0);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it(`a burst of captures is never held back by a merge: merging waits for a pause, up to ${CRISIS_AT} pending segments`, async () => {
    const db = await freshDb();
    const engine = engineOn(db, { auto: true });
    // Every merge and sweep step is noted, and whether a capture was under way (asked or held the lock) then.
    let capturing = 0;
    let stepsDuringCaptures = 0;
    const exclusive = engine.exclusive.bind(engine);
    engine.exclusive = <T>(fn: () => Promise<T>): Promise<T> => {
      const byMaintenance = /IndexMaintenance\.step/.test(new Error().stack ?? '');
      return exclusive(async () => {
        if (capturing && byMaintenance) stepsDuringCaptures++;
        return fn();
      });
    };
    const burst = async (from: number, n: number) => {
      for (let i = from; i < from + n; i++) {
        capturing++;
        await engine.capture(`https://a.example/${i}`, page(i), 1_700_000_000_000 + i).finally(() => capturing--);
      }
    };
    // Captures back to back, past MERGE_AT: no merge step takes the lock between them.
    await burst(0, MERGE_AT * 2);
    expect(stepsDuringCaptures).toBe(0);
    expect(engine.maintenance.yields).toBeGreaterThan(0);
    expect(await db.get('meta', MERGE_KEY)).toBeUndefined();
    expect((await readAll(db)).segments).toHaveLength(MERGE_AT * 2);
    // The new pages are searchable meanwhile (from the delta).
    expect((await engine.search({ q: `word${MERGE_AT * 2 - 1}x` })).results).toHaveLength(1);
    // A pause: everything merges.
    await until(async () => (await readAll(db)).segments.length === 0 && !engine.maintenance.status().running, QUIET_MS + 5_000);
    expect((await verifyIndex(engine)).problems).toEqual([]);
    // A burst past the crisis bound: merge steps go on between the captures (each waits at most for one).
    stepsDuringCaptures = 0;
    await burst(1000, CRISIS_AT + MERGE_AT * 2);
    expect(stepsDuringCaptures).toBeGreaterThan(0);
    await until(async () => (await readAll(db)).segments.length === 0 && !engine.maintenance.status().running, QUIET_MS + 20_000);
    expect((await engine.search({ q: 'river' })).results.length).toBeGreaterThan(0);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it(`merges fewer segments once writes pause for ${IDLE_MS / 1000} s`, async () => {
    const db = await freshDb();
    const engine = engineOn(db, { auto: true });
    await engine.capture('https://a.example/1', page(1));
    await new Promise((r) => setTimeout(r, 200));
    expect((await readAll(db)).segments.length).toBe(1);
    await until(async () => (await readAll(db)).segments.length === 0, IDLE_MS + 10_000);
    expect((await engine.search({ q: 'word1x' })).results).toHaveLength(1);
  });

  it(`sweeps once forgotten sections pass ${SWEEP_FRACTION * 100}% of the index, not before`, async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    for (let i = 0; i < 40; i++) await engine.capture(`https://a.example/${i}`, page(i), 1_700_000_000_000 + i);
    await engine.maintenance.run();
    expect((await readAll(db)).segments).toEqual([]);
    await engine.deleteUrls(['https://a.example/0']); // 1 of 40: under the threshold
    await engine.maintenance.run();
    expect((await readAll(db)).tombstones).toHaveLength(1);
    await engine.deleteUrls(['https://a.example/1', 'https://a.example/2']); // 3 of 40
    await engine.maintenance.run();
    expect((await readAll(db)).tombstones).toEqual([]);
    expect(engine.maintenance.status().sweeps).toBe(1);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('a step that fails (storage full) changes nothing; the next run finishes the work', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    for (let i = 0; i < 5; i++) await engine.capture(`https://a.example/${i}`, page(i), 1_700_000_000_000 + i);
    const before = await logicalIndex(db);
    const stored = await readAll(db);
    // Every put into the postings store is refused, as Chromium refuses writes at the quota.
    const store = IDBObjectStore.prototype as unknown as { put: (...a: unknown[]) => unknown };
    const put = store.put;
    store.put = function (this: { name: string }, ...args: unknown[]) {
      if (this.name === 'postings') throw new DOMException('refused', 'QuotaExceededError');
      return put.apply(this, args);
    };
    try {
      await expect(engine.maintenance.run({ force: true })).rejects.toThrow(/refused/);
    } finally {
      store.put = put;
    }
    expect(engine.maintenance.status().lastError).toMatch(/refused/);
    const after = await readAll(db);
    expect([after.postingValues, after.terms]).toEqual([stored.postingValues, stored.terms]);
    expect(await logicalIndex(db)).toEqual(before);
    expect((await engine.search({ q: 'word3x' })).results).toHaveLength(1);
    await engine.maintenance.run({ force: true });
    expect((await readAll(db)).segments).toEqual([]);
    expect(await logicalIndex(db)).toEqual(before);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });
});
