import { describe, expect, it } from 'vitest';
import { INDEX_VERSION_KEY, currentIndexVersion, ensureIndexVersion } from '../../background/indexVersion.js';
import { verifyIndex } from '../../background/verify.js';
import { engineOn, freshDb, settle } from './helpers.js';

const blocks = (w: string) => [{ kind: 'heading' as const, text: `About ${w}`, level: 1 }, { kind: 'text' as const, text: `${w} and more words about ${w} for the index, enough of them to keep.` }];

describe('index version', () => {
  it('records the version on a new database without rebuilding, and does nothing the second time', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    expect(await ensureIndexVersion(engine)).toBe(false);
    expect(await db.get('meta', INDEX_VERSION_KEY)).toBe(currentIndexVersion());
    expect(await ensureIndexVersion(engine)).toBe(false);
  });

  it('rebuilds postings built by another version, and search answers from the rebuilt ones', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    await engine.capture('https://a.example/1', { title: 'One', lang: 'en', blocks: blocks('heron') }, 1_700_000_000_000);
    await engine.capture('https://a.example/2', { title: 'Two', lang: 'en', blocks: blocks('egret') }, 1_700_000_001_000);
    // As if an older release had indexed differently: its postings for "heron" are not what this one builds.
    await db.put('meta', '{"revision":0}', INDEX_VERSION_KEY);
    await settle(engine);
    const heron = (await db.get('terms', 'heron'))!;
    await db.delete('postings', IDBKeyRange.bound([heron, 0], [heron, Infinity]));
    engine.lexical.invalidate('all');
    expect((await engine.search({ q: 'heron' })).results).toHaveLength(0);
    expect((await verifyIndex(engine, false)).problems.length).toBeGreaterThan(0);

    expect(await ensureIndexVersion(engine)).toBe(true);
    expect((await verifyIndex(engine, false)).problems).toEqual([]);
    expect((await engine.search({ q: 'heron' })).results.map((r) => r.url)).toEqual(['https://a.example/1']);
    expect(await db.get('meta', INDEX_VERSION_KEY)).toBe(currentIndexVersion());
    expect(await ensureIndexVersion(engine)).toBe(false);
  });

  it('rebuilds a database that has no version record but holds pages (built by the first release)', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    await engine.capture('https://a.example/1', { title: 'One', lang: 'en', blocks: blocks('heron') }, 1_700_000_000_000);
    await db.delete('meta', INDEX_VERSION_KEY);
    expect(await ensureIndexVersion(engine)).toBe(true);
    expect((await verifyIndex(engine, false)).problems).toEqual([]);
    expect(await ensureIndexVersion(engine)).toBe(false);
  });
});
