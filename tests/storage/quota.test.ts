/**
 * Storage-limit handling in the engine, against fake-indexeddb with the browser's estimate given as a
 * function. fake-indexeddb has no quota: `quotaModel` gives it Chromium's rules as measured
 * (background/storageBudget.ts), and tests/e2e/quota.test.ts proves the path in the real browser.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CEILING_KEY, EVICT_FRACTION, HEADROOM_FRACTION, RESERVE_KEY, RESERVE_PARTS, reserveBytes, reservePartKey } from '../../background/storageBudget.js';
import { verifyIndex } from '../../background/verify.js';
import { engineOn, freshDb, logicalIndex, readAll, settle } from './helpers.js';

const blocks = (unique: string) => [{ kind: 'text' as const, text: `${unique} is the word of this page, with enough ordinary words around it to be kept as a page.` }];

async function filled(n: number) {
  const db = await freshDb();
  const engine = engineOn(db);
  let now = 1_700_000_000_000;
  for (let i = 0; i < n; i++) await engine.capture(`https://example.com/p${i}`, { title: `page ${i}`, lang: 'en', blocks: blocks(`uniqword${String.fromCharCode(97 + i)}x`) }, (now += 1000));
  return { db, engine, now };
}

describe('storage limit', () => {
  it('under the soft cap forgets nothing and places the reserve', async () => {
    const { db, engine, now } = await filled(10);
    await db.put('meta', new Uint8Array(16), RESERVE_KEY);
    engine.storageEstimate = async () => ({ usage: 1_000_000, quota: 100_000_000 });
    await engine.capture('https://example.com/new', { title: 'new', lang: 'en', blocks: blocks('newword') }, now + 1000);
    expect((await engine.stats()).pages).toBe(11);
    expect(engine.quotaLog.softEvictions).toBe(0);
    // In parts, released one at a time when a write is refused; a reserve of the older single-record kind is dropped.
    for (let i = 0; i < RESERVE_PARTS; i++) expect(((await db.get('meta', reservePartKey(i))) as Uint8Array).byteLength).toBe(Math.ceil(reserveBytes(1_000_000) / RESERVE_PARTS));
    expect(await db.getKey('meta', RESERVE_KEY)).toBeUndefined();
    expect(engine.storageWarning).toBeUndefined();
  });

  it('near the limit forgets the least recently visited share before writing, and tells the user', async () => {
    const { engine, now } = await filled(10);
    // Page 0 read again: pages 1.. are now the least recently visited.
    await engine.capture('https://example.com/p0', { title: 'page 0', lang: 'en', blocks: blocks('uniqwordax') }, now + 500);
    const quota = 10_000_000;
    engine.storageEstimate = async () => ({ usage: quota * (1 - HEADROOM_FRACTION / 2), quota });
    await engine.capture('https://example.com/new', { title: 'new', lang: 'en', blocks: blocks('newword') }, now + 1000);
    const urls = [...(await engine.pages.all()).keys()];
    const evicted = Math.ceil(10 * EVICT_FRACTION);
    expect(engine.quotaLog.softEvictions).toBe(evicted);
    expect(urls).toContain('https://example.com/new');
    expect(urls).toContain('https://example.com/p0');
    expect(urls).not.toContain('https://example.com/p1');
    expect(urls.length).toBe(11 - evicted);
    expect(engine.storageWarning).toMatch(/nearly full: Reread forgot the 1 least recently visited/);
    expect((await verifyIndex(engine)).ok).toBe(true);
  });

  it('does not forget again while the room the last eviction freed waits for compaction', async () => {
    const { engine, now } = await filled(20);
    const quota = 10_000_000;
    // Near the limit, and the estimate stays there: deletes free room only when LevelDB compacts.
    let usage = quota * (1 - HEADROOM_FRACTION / 2);
    engine.storageEstimate = async () => ({ usage, quota });
    const evicted = Math.ceil(20 * EVICT_FRACTION);
    await engine.capture('https://example.com/n0', { title: 'n0', lang: 'en', blocks: blocks('newwordzero') }, now + 1000);
    expect(engine.quotaLog.softEvictions).toBe(evicted);
    // Captures go on and usage grows a little with each; the evicted share (10% of the usage) is
    // counted as free already, so nothing more is forgotten.
    for (let i = 1; i <= 4; i++) {
      usage += 20_000;
      await engine.capture(`https://example.com/n${i}`, { title: `n${i}`, lang: 'en', blocks: blocks(`newword${'abcd'[i - 1]}x`) }, now + 1000 + i);
    }
    expect(engine.quotaLog.softEvictions).toBe(evicted);
    // Compaction: the usage falls by what was freed. Then it grows back past the cap: another share goes.
    usage -= quota * 0.1;
    await engine.capture('https://example.com/n5', { title: 'n5', lang: 'en', blocks: blocks('newwordfivex') }, now + 1010);
    expect(engine.quotaLog.softEvictions).toBe(evicted);
    usage = quota * (1 - HEADROOM_FRACTION / 2);
    await engine.capture('https://example.com/n6', { title: 'n6', lang: 'en', blocks: blocks('newwordsixx') }, now + 1011);
    expect(engine.quotaLog.softEvictions).toBeGreaterThan(evicted);
    expect((await verifyIndex(engine)).ok).toBe(true);
  });

  it('a limit learned from a refused write counts where the estimate overstates the quota', async () => {
    const { db, engine, now } = await filled(10);
    await db.put('meta', { usage: 2_000_000, at: Date.now() }, CEILING_KEY);
    engine.storageEstimate = async () => ({ usage: 1_900_000, quota: 10_000_000_000 });
    await engine.capture('https://example.com/new', { title: 'new', lang: 'en', blocks: blocks('newword') }, now + 1000);
    expect(engine.quotaLog.softEvictions).toBe(1);
    // A day later the limit is learned again.
    const stale = engineOn(db);
    await db.put('meta', { usage: 2_000_000, at: Date.now() - 2 * 86_400_000 }, CEILING_KEY);
    stale.storageEstimate = engine.storageEstimate;
    await stale.capture('https://example.com/new2', { title: 'new2', lang: 'en', blocks: blocks('newwordtwo') }, now + 2000);
    expect(stale.quotaLog.softEvictions).toBe(0);
  });

  it('the retention pass forgets in one go as many pages as the overshoot calls for', async () => {
    const { engine } = await filled(10);
    await engine.updateSettings({ maxStorageMb: 100 });
    // 200 MB used for a 100 MB cap: half the pages, the least recently visited.
    const forgotten = await engine.enforceRetention(Date.now(), async () => 200 * 1024 * 1024);
    expect(forgotten).toBe(5);
    expect([...(await engine.pages.all()).keys()].sort()).toEqual([5, 6, 7, 8, 9].map((i) => `https://example.com/p${i}`));
    expect((await verifyIndex(engine)).ok).toBe(true);
  });

  it('an eviction frees at once, with deletes only, what the evicted pages held alone; shared blocks wait for the sweep', async () => {
    const { db, engine, now } = await filled(6);
    await settle(engine); // pages 0-5 merged into the main index
    // Pages 6 and 7 stay in pending segments.
    for (const i of [6, 7]) await engine.capture(`https://example.com/p${i}`, { title: `page ${i}`, lang: 'en', blocks: blocks(`uniqword${String.fromCharCode(97 + i)}x`) }, now + i * 1000);
    // Page 5 read again (unchanged: no new segment): it outlives page 6 and shares the main index's blocks.
    await engine.capture('https://example.com/p5', { title: 'page 5', lang: 'en', blocks: blocks('uniqwordfx') }, now + 8000);
    const live = ['https://example.com/p5', 'https://example.com/p7'];
    const before = await readAll(db);
    expect(before.segments).toHaveLength(2);
    // Past the quota Chromium refuses every put, deletes not: after the tombstones, nothing but deletes may be needed.
    const store = IDBObjectStore.prototype as unknown as { put: (...a: unknown[]) => unknown };
    const put = store.put;
    let refuse = false;
    store.put = function (this: { name: string }, ...args: unknown[]) {
      if (refuse && this.name !== 'tombstones' && this.name !== 'meta') throw new DOMException('refused', 'QuotaExceededError');
      return put.apply(this, args);
    };
    let freed: number;
    try {
      refuse = true;
      freed = await engine.exclusive(() => engine.budget.evictOldestLocked(0.8, live[1]));
    } finally {
      store.put = put;
    }
    expect(freed).toBe(6);
    expect(engine.quotaLog.purgedRecords).toBeGreaterThan(0);
    const after = await readAll(db);
    // Page 6's segment went whole; the evicted pages' own words left the blocks and the dictionary.
    expect(after.segments.map((s) => s.first)).toEqual([before.segments[1]!.first]);
    for (let i = 0; i < 5; i++) expect(after.terms.map((t) => t.term)).not.toContain(`uniqword${String.fromCharCode(97 + i)}x`);
    // Blocks shared with the live page stay (rewriting them is a put: the sweep does it when there is room), and so do the tombstones.
    expect(after.postings.length).toBeGreaterThan(0);
    expect(after.postings.length).toBeLessThan(before.postings.length);
    expect(after.tombstones.length).toBeGreaterThan(0);
    expect((await verifyIndex(engine)).problems).toEqual([]);
    const logical = await logicalIndex(db);
    expect(logical.pages.map((p) => p.url)).toEqual(live);
    expect(after.terms.map((t) => t.term)).toContain('uniqwordfx');
    for (const [i, url] of [[5, live[0]], [7, live[1]]] as const) expect((await engine.search({ q: `uniqword${String.fromCharCode(97 + i)}x`, exact: true })).results.map((r) => r.url)).toEqual([url]);
    expect((await engine.search({ q: 'uniqwordax', exact: true })).results).toEqual([]);
    // The sweep finishes the rest as before: the index reads the same.
    await settle(engine);
    expect((await readAll(db)).tombstones).toEqual([]);
    expect(await logicalIndex(db)).toEqual(logical);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('a write refused at the limit takes reserve parts while two are left: the last lets an eviction commit', async () => {
    const { db, engine, now } = await filled(10);
    engine.storageEstimate = async () => ({ usage: 1_000_000, quota: 100_000_000 });
    await engine.capture('https://example.com/new', { title: 'new', lang: 'en', blocks: blocks('newword') }, now + 1000);
    const held = async () => (await Promise.all(Array.from({ length: RESERVE_PARTS }, (_, i) => db.getKey('meta', reservePartKey(i))))).filter((k) => k !== undefined).length;
    expect(await held()).toBe(RESERVE_PARTS);
    const quotaError = () => new DOMException('refused', 'QuotaExceededError');
    // The page fits only after every part but the last went: the eviction comes first, and keeps it.
    let calls = 0;
    const order: string[] = [];
    const urlsLocked = engine.forget.urlsLocked.bind(engine.forget);
    engine.forget.urlsLocked = async (urls) => {
      order.push(`evict with ${await held()} parts`);
      return urlsLocked(urls);
    };
    await engine.exclusive(() =>
      engine.budget.writeLocked('https://example.com/new', async () => {
        if (++calls <= RESERVE_PARTS) throw quotaError();
        order.push(`stored with ${RESERVE_PARTS - engine.quotaLog.reserveReleased} parts`);
      }),
    );
    expect(order).toEqual(['evict with 1 parts', 'stored with 1 parts']);
    expect(engine.quotaLog.hardEvictions).toBe(1);
    expect(await held()).toBe(1);

    // At the limit even the eviction's tombstones are refused: the last part is released for it.
    let refusals = 1;
    engine.forget.urlsLocked = async (urls) => {
      if (refusals-- > 0) throw quotaError();
      return urlsLocked(urls);
    };
    calls = 0;
    await engine.exclusive(() =>
      engine.budget.writeLocked('https://example.com/new', async () => {
        if (++calls <= 1) throw quotaError();
      }),
    );
    expect(engine.quotaLog.failedDeletes).toBe(1);
    expect(engine.quotaLog.hardEvictions).toBe(2);
    expect(await held()).toBe(0);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });
});

/**
 * Chromium's quota as measured (background/storageBudget.ts): while usage is over the quota every put
 * is refused (QuotaExceededError) and deletes go through; deleting a reserve part (a blob file) frees
 * its bytes at once; forgetting pages frees nothing until a compaction; a forced log flush frees
 * `flushGain`. The engine sees the usage only, as Chromium's estimate() does with a quota set by CDP.
 */
function quotaModel() {
  const proto = (globalThis as unknown as { IDBObjectStore: { prototype: { put: (this: IDBObjectStore, v: unknown, k?: IDBValidKey) => IDBRequest; delete: (this: IDBObjectStore, k: IDBValidKey | IDBKeyRange) => IDBRequest } } }).IDBObjectStore.prototype;
  const { put, delete: del } = proto;
  const parts = new Map<string, number>();
  const m = {
    usage: 1_000_000,
    quota: Infinity,
    flushGain: 0,
    flushes: 0,
    restore: () => Object.assign(proto, { put, delete: del }),
    flush: async () => {
      m.flushes++;
      m.usage = Math.max(0, m.usage - m.flushGain);
    },
    estimate: async () => ({ usage: m.usage }),
  };
  proto.put = function (value, key) {
    const part = this.name === 'meta' && typeof key === 'string' && key.startsWith(`${RESERVE_KEY}:`);
    const bytes = part ? (value as Uint8Array).byteLength : 0;
    if (m.usage + bytes > m.quota) {
      // As in Chromium, the request fails and its transaction aborts whole with a QuotaExceededError
      // (fake-indexeddb's request machinery: an operation that throws fails its request).
      const tx = this.transaction as unknown as { _execRequestAsync(o: { operation: () => never; source: unknown }): IDBRequest };
      return tx._execRequestAsync({ operation: () => { throw new DOMException('The quota has been exceeded.', 'QuotaExceededError'); }, source: this });
    }
    if (part) {
      m.usage += bytes - (parts.get(key) ?? 0);
      parts.set(key, bytes);
    }
    return put.call(this, value, key);
  };
  proto.delete = function (key) {
    if (this.name === 'meta' && typeof key === 'string' && parts.has(key)) {
      m.usage -= parts.get(key)!;
      parts.delete(key);
    }
    return del.call(this, key);
  };
  return m;
}

describe('storage limit: a write refused by the browser', () => {
  let model: ReturnType<typeof quotaModel> | null = null;
  afterEach(() => {
    model?.restore();
    model = null;
  });

  /** Ten pages, the reserve placed (4 parts of 125,000 bytes at 1 MB used), and Chromium's rules on. */
  async function atTheLimit() {
    const m = (model = quotaModel());
    const { db, engine, now } = await filled(10);
    engine.storageEstimate = m.estimate;
    engine.budget.flush = m.flush;
    // A limit known from an earlier refusal, far above: the reserve is placed, nothing is forgotten.
    await db.put('meta', { usage: 100_000_000, at: Date.now() }, CEILING_KEY);
    await engine.capture('https://example.com/p10', { title: 'page 10', lang: 'en', blocks: blocks('uniqwordkx') }, now + 1000);
    expect(engine.quotaLog.reservePlaced).toBe(RESERVE_PARTS);
    expect(m.usage).toBe(1_000_000 + reserveBytes(1_000_000));
    return { m, db, engine, now: now + 1000 };
  }

  it('forces a log flush first, and keeps the reserve when that makes room', async () => {
    const { m, engine, now } = await atTheLimit();
    m.quota = m.usage - 1;
    m.flushGain = 100_000;
    await engine.capture('https://example.com/new', { title: 'new', lang: 'en', blocks: blocks('newword') }, now + 1000);
    const q = engine.quotaLog;
    expect(q.quotaErrors).toBe(1);
    // The flush that let the page in, and one after the eviction (its deletes free room only at a flush).
    expect(q.flushes).toBe(2);
    expect(q.reserveReleased).toBe(0);
    // Stored, then the least recently visited share forgotten (room allowed the deletes after the flush).
    const urls = [...(await engine.pages.all()).keys()];
    expect(urls).toContain('https://example.com/new');
    expect(urls).not.toContain('https://example.com/p0');
    expect(q.hardEvictions).toBe(Math.ceil(11 * EVICT_FRACTION));
    expect(engine.storageWarning).toMatch(/forgot the 2 least recently visited/);
    expect(await verifyIndex(engine)).toMatchObject({ ok: true, problems: [] });
  });

  it('releases reserve parts one at a time when the flush is not enough', async () => {
    const { m, engine, now } = await atTheLimit();
    const part = Math.ceil(reserveBytes(1_000_000) / RESERVE_PARTS);
    // Over by a part and a half: two parts go, two stay for the next refusal.
    m.quota = m.usage - Math.floor(part * 1.5);
    await engine.capture('https://example.com/new', { title: 'new', lang: 'en', blocks: blocks('newword') }, now + 1000);
    expect(engine.quotaLog.flushes).toBeGreaterThanOrEqual(1);
    expect(engine.quotaLog.reserveReleased).toBe(2);
    expect([...(await engine.pages.all()).keys()]).toContain('https://example.com/new');
    expect(await verifyIndex(engine)).toMatchObject({ ok: true, problems: [] });
  });

  it('an eviction refused at the limit is tried again after a flush', async () => {
    const { m, db, now } = await atTheLimit();
    // The soft cap calls for an eviction (a limit learned at this usage, read by a new worker), and
    // the usage is over the quota: its posting rewrites are refused.
    await db.put('meta', { usage: m.usage, at: Date.now() }, CEILING_KEY);
    const engine = engineOn(db);
    engine.storageEstimate = m.estimate;
    engine.budget.flush = m.flush;
    m.quota = m.usage - 1;
    m.flushGain = 100_000;
    await engine.capture('https://example.com/new', { title: 'new', lang: 'en', blocks: blocks('newword') }, now + 1000);
    const q = engine.quotaLog;
    expect(q.failedDeletes).toBe(1);
    // The flush that let the eviction in, and one after it (its deletes free room only at a flush).
    expect(q.flushes).toBe(2);
    expect(q.softEvictions).toBe(Math.ceil(11 * EVICT_FRACTION));
    expect(q.quotaErrors).toBe(0);
    expect(q.reserveReleased).toBe(0);
    expect(await verifyIndex(engine)).toMatchObject({ ok: true, problems: [] });
  });

  it('with nothing left to free refuses the page and loses nothing; once room is back, stores again', async () => {
    const { m, engine, now } = await atTheLimit();
    const before = [...(await engine.pages.all()).keys()].sort();
    // Far over: a flush that frees nothing, the whole reserve, and refused evictions are not enough.
    m.quota = 100_000;
    const refused = await engine.capture('https://example.com/new', { title: 'new', lang: 'en', blocks: blocks('newword') }, now + 1000).then(
      () => null,
      (e: { code?: string; message?: string }) => e,
    );
    expect(refused).toMatchObject({ code: 'quota', message: expect.stringMatching(/Storage is full/) });
    expect(engine.quotaLog.capturesRefused).toBe(1);
    expect(engine.quotaLog.reserveReleased).toBe(RESERVE_PARTS);
    expect([...(await engine.pages.all()).keys()].sort()).toEqual(before);
    expect(await verifyIndex(engine)).toMatchObject({ ok: true, problems: [] });
    // A compaction brought usage down: the next capture is stored.
    m.usage = 50_000;
    await engine.capture('https://example.com/new', { title: 'new', lang: 'en', blocks: blocks('newword') }, now + 2000);
    expect([...(await engine.pages.all()).keys()]).toContain('https://example.com/new');
    expect(await verifyIndex(engine)).toMatchObject({ ok: true, problems: [] });
  });
});
