/**
 * Storage-limit handling in the engine, against fake-indexeddb with the browser's estimate given as a
 * function (fake-indexeddb has no quota: the refused-write path is proved in tests/e2e/quota.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { CEILING_KEY, EVICT_FRACTION, HEADROOM_FRACTION, RESERVE_KEY, RESERVE_PARTS, reserveBytes, reservePartKey } from '../../background/storageBudget.js';
import { verifyIndex } from '../../background/verify.js';
import { engineOn, freshDb } from './helpers.js';

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
});
