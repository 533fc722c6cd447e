import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CHUNKER_VERSION, type Block } from '../../src/chunker.js';
import { cutSections } from '../../src/sections.js';
import { normalizeBlocks } from '../../src/validate.js';
import { CHUNKER_VERSION_KEY, Recut, RECUT_KEY, type RecutMark } from '../../background/recut.js';
import { forgetAllSections, isOneStream, oneStream, packBlocks, packSections, pageSections, recordBlocks } from '../../background/sections.js';
import { verifyIndex } from '../../background/verify.js';
import type { Engine } from '../../background/engine.js';
import type { DB } from '../../background/db.js';
import { engineOn, freshDb, NEXT_CHUNKER, nextCut } from './helpers.js';

const words = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');

/**
 * A page opening with 240 words before any heading: the default chunker keeps them in one window
 * (linked to the page itself), a chunker of 80-word windows cuts them in several, each past the first
 * linked by a text fragment of its first words. Then a section under a heading.
 */
const blocksOf = (w: string): Block[] => [
  { kind: 'text', text: `${words(120, w)}.` },
  { kind: 'text', text: `${words(120, w + 'x')}.` },
  { kind: 'heading', level: 2, text: `More about ${w}`, id: 'more' },
  { kind: 'text', text: `${words(40, w + 'm')}.` },
];

/** As a content script sends it: the sections cut by the current chunker. */
async function capture(engine: Engine, url: string, w: string, now = 1_700_000_000_000) {
  const cut = await cutSections(blocksOf(w));
  return engine.capture(url, { title: `Page ${w}`, lang: 'en', blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker }, now);
}

const NEXT = NEXT_CHUNKER;

async function chunksOf(db: DB, url: string) {
  const page = (await db.get('pages', url))!;
  return (await pageSections(db, [page])).get(url) ?? [];
}

describe('re-cut after a chunker change', { timeout: 60_000 }, () => {
  it('keeps each page\'s blocks and chunker, records the version on a new database, and has nothing to do then', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    await capture(engine, 'https://a.example/1', 'heron');
    const rec = (await db.get('sections', 'https://a.example/1'))!;
    expect(rec.cv).toBe(CHUNKER_VERSION);
    // Format 2: the blocks in the record's one stream, beside the sections.
    expect(rec.b).toBeUndefined();
    expect(isOneStream(rec.z)).toBe(true);
    expect(await recordBlocks(rec)).toEqual(normalizeBlocks(blocksOf('heron')).blocks);
    expect(await engine.recut.pending()).toBe(false);
    await engine.recut.run();
    expect(await db.get('meta', CHUNKER_VERSION_KEY)).toBe(CHUNKER_VERSION);
    expect(await db.get('meta', RECUT_KEY)).toBeUndefined();
  });

  it('cuts every stored page again, and search follows the new cut; visits are left as they were', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const urls = ['https://a.example/1', 'https://a.example/2', 'https://b.example/3'];
    for (const [i, u] of urls.entries()) await capture(engine, u, ['heron', 'egret', 'stork'][i]!, 1_700_000_000_000 + i);
    await engine.recut.run();
    const before = await Promise.all(urls.map((u) => db.get('pages', u)));
    // The words of the second paragraph lie in the page's first and only window: the link is the page's.
    expect((await engine.search({ q: 'egretx100' })).results[0]!.href).toBe('https://a.example/2');

    const recut = new Recut(engine, { version: NEXT, cut: nextCut, batch: 2 });
    expect(await recut.pending()).toBe(true);
    await recut.run();
    expect(await db.get('meta', CHUNKER_VERSION_KEY)).toBe(NEXT);
    expect(await db.get('meta', RECUT_KEY)).toBeUndefined();
    for (const [i, u] of urls.entries()) {
      const chunks = await chunksOf(db, u);
      const want = (await nextCut(blocksOf(['heron', 'egret', 'stork'][i]!), { yieldToPage: async () => undefined, now: () => 0 })).sections;
      expect(chunks.map((c) => c.text)).toEqual(want.map((c) => c.text));
      expect(chunks.map((c) => c.anchor)).toEqual(want.map((c) => c.anchor));
      expect((await db.get('sections', u))!.cv).toBe(NEXT);
      const page = (await db.get('pages', u))!;
      expect([page.visitCount, page.lastVisit, page.firstVisit]).toEqual([before[i]!.visitCount, before[i]!.lastVisit, before[i]!.firstVisit]);
    }
    // The new cut: the second paragraph is in windows of its own, linked by their first words.
    const href = (await engine.search({ q: 'egretx100' })).results[0]!.href;
    expect(href).toMatch(/^https:\/\/a\.example\/2#:~:text=egretx\d+/);
    expect((await verifyIndex(engine, false)).problems).toEqual([]);
    expect(await recut.pending()).toBe(false);
  });

  it('resumes where a stopped pass left off, skips pages captured meanwhile, and leaves forgotten pages forgotten', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    for (const n of names) await capture(engine, `https://s.example/${n}`, `w${n}`);
    await engine.recut.run();
    // A pass killed after two pages: its mark says so.
    let cuts = 0;
    let stop = false;
    const killed = new Recut(engine, {
      version: NEXT,
      batch: 1,
      cut: async (b, pace) => {
        if (stop) throw new DOMException('the transaction was aborted: the worker stopped', 'AbortError');
        if (++cuts === 2) stop = true;
        return nextCut(b, pace);
      },
    });
    await expect(killed.run()).rejects.toThrow('worker stopped');
    const mark = (await db.get('meta', RECUT_KEY)) as RecutMark;
    expect(mark).toMatchObject({ version: NEXT, after: 'https://s.example/b', done: 2, total: 6, rewritten: 2 });
    // Meanwhile: one page forgotten, one captured again (by a content script of the new release, which
    // is simulated here by writing its cut with the new version).
    await engine.deleteUrls(['https://s.example/d']);
    const fresh = await nextCut(blocksOf('we'), { yieldToPage: async () => undefined, now: () => 0 });
    const { storePage } = await import('../../background/capture.js');
    await storePage(engine, { url: 'https://s.example/e', title: 'Page we', lang: 'en', blocks: fresh.blocks, chunks: fresh.sections, chunker: NEXT, now: 1_800_000_000_000 });
    const eIds = (await db.get('pages', 'https://s.example/e'))!.chunkIds;

    let resumedCuts = 0;
    const resumed = new Recut(engine, { version: NEXT, batch: 1, cut: async (b, pace) => (resumedCuts++, nextCut(b, pace)) });
    expect(await resumed.pending()).toBe(true);
    await resumed.run();
    // Only c and f were left to cut: a and b were done, d is gone, e was captured with the new chunker.
    expect(resumedCuts).toBe(2);
    expect(await db.get('pages', 'https://s.example/d')).toBeUndefined();
    expect((await db.get('pages', 'https://s.example/e'))!.chunkIds).toEqual(eIds);
    for (const n of ['a', 'b', 'c', 'f']) expect((await db.get('sections', `https://s.example/${n}`))!.cv).toBe(NEXT);
    expect((await verifyIndex(engine, false)).problems).toEqual([]);
  });

  it('only records the new version on pages the new chunker cuts the same', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    await capture(engine, 'https://a.example/1', 'heron');
    await engine.recut.run();
    const ids = (await db.get('pages', 'https://a.example/1'))!.chunkIds;
    const same = new Recut(engine, { version: NEXT, cut: (b, pace) => cutSections(b, pace) });
    await same.run();
    expect((await db.get('pages', 'https://a.example/1'))!.chunkIds).toEqual(ids);
    expect((await db.get('sections', 'https://a.example/1'))!.cv).toBe(NEXT);
    expect(same.progress).toBeNull();
  });

  it('gives the sections of a page cut before revision 3 the ids of the headings above them, without indexing it again', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const url = 'https://a.example/above';
    const blocks: Block[] = [
      { kind: 'heading', level: 1, text: 'Chapter', id: 'chap' },
      { kind: 'heading', level: 2, text: 'First', id: 'first' },
      { kind: 'text', text: `${words(40, 'f')}.` },
      { kind: 'heading', level: 2, text: 'Second', id: 'second' },
      { kind: 'text', text: `${words(40, 's')}.` },
    ];
    const cut = await cutSections(blocks);
    expect(cut.sections.map((c) => c.anchor.above)).toEqual([[{ depth: 0, id: 'chap' }], [{ depth: 0, id: 'chap' }]]);
    // As revision 2 stored it: the same sections without anchor.above.
    const before = cut.sections.map(({ anchor: { above: _, ...anchor }, ...c }) => ({ ...c, anchor }));
    await engine.capture(url, { title: 'Chapter', lang: 'en', blocks: cut.blocks, sections: before, chunker: cut.chunker }, 1_700_000_000_000);
    await engine.recut.run();
    expect((await chunksOf(db, url)).map((c) => c.anchor)).toEqual([{ id: 'first' }, { id: 'second' }]);
    const ids = (await db.get('pages', url))!.chunkIds;
    const segments = await db.count('segments');
    const recut = new Recut(engine, { version: NEXT, cut: (b, pace) => cutSections(b, pace) });
    await recut.run();
    expect((await chunksOf(db, url)).map((c) => c.anchor)).toEqual(cut.sections.map((c) => c.anchor));
    // Same sections, same ids, nothing indexed again.
    expect((await db.get('pages', url))!.chunkIds).toEqual(ids);
    expect(await db.count('segments')).toBe(segments);
    expect((await db.get('sections', url))!.cv).toBe(NEXT);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('replaces the sections of a page whose stored section text is unreadable by the new cut (a rewrite does not read the old text)', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    await capture(engine, 'https://a.example/1', 'heron');
    await capture(engine, 'https://a.example/2', 'egret');
    await engine.recut.run();
    const rec = (await db.get('sections', 'https://a.example/1'))!;
    // Its texts refer past the end of its blocks (the blocks, in the same stream, still read).
    const blob = JSON.parse(inflateRawSync(rec.z.subarray(2)).toString()) as { t: unknown[] };
    blob.t = blob.t.map(() => [0, 1e9]);
    await db.put('sections', { ...rec, z: oneStream(deflateRawSync(JSON.stringify(blob))) });
    expect((await verifyIndex(engine, false)).problems.some((p) => p.includes('cannot be read'))).toBe(true);
    const recut = new Recut(engine, { version: NEXT, cut: nextCut });
    await recut.run();
    expect((await db.get('sections', 'https://a.example/1'))!.cv).toBe(NEXT);
    expect((await db.get('sections', 'https://a.example/2'))!.cv).toBe(NEXT);
    expect((await engine.search({ q: 'heronx100' })).results[0]!.href).toMatch(/^https:\/\/a\.example\/1#:~:text=heronx\d+/);
    expect((await verifyIndex(engine, false)).problems).toEqual([]);
    expect(await db.get('meta', CHUNKER_VERSION_KEY)).toBe(NEXT);
    expect(await db.get('meta', RECUT_KEY)).toBeUndefined();
  });
});

describe('sections records of both formats in one database', { timeout: 60_000 }, () => {
  it('a format-1 page (blocks beside its texts) and format-2 pages are read, searched, verified and re-cut alike', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    await capture(engine, 'https://a.example/new', 'heron');
    await capture(engine, 'https://a.example/old', 'egret');
    await engine.recut.run(); // records this release's chunker
    // The second page as main wrote it before format 2: its texts refer to the blocks stored beside them.
    const cut = await cutSections(blocksOf('egret'));
    const rec = (await db.get('sections', 'https://a.example/old'))!;
    await db.put('sections', { url: rec.url, z: await packSections(cut.sections, cut.blocks), b: await packBlocks(cut.blocks), cv: rec.cv });
    forgetAllSections(db); // nothing decoded before the swap is kept
    const fresh = await Promise.all(['https://a.example/new', 'https://a.example/old'].map((u) => db.get('sections', u)));
    expect(fresh.map((r) => [isOneStream(r!.z), !!r!.b])).toEqual([
      [true, false],
      [false, true],
    ]);
    expect((await chunksOf(db, 'https://a.example/old')).map((s) => s.text)).toEqual(cut.sections.map((s) => s.text));
    expect((await engine.search({ q: 'egretm3' })).results[0]!.href).toMatch(/^https:\/\/a\.example\/old/);
    expect((await engine.search({ q: 'heronm3' })).results[0]!.href).toMatch(/^https:\/\/a\.example\/new/);
    expect((await verifyIndex(engine, false)).problems).toEqual([]);
    // A new chunker cuts both again from their kept blocks; the old page is then written in format 2.
    await new Recut(engine, { version: NEXT, cut: nextCut }).run();
    const after = await Promise.all(['https://a.example/new', 'https://a.example/old'].map((u) => db.get('sections', u)));
    expect(after.map((r) => [r!.cv, isOneStream(r!.z), !!r!.b])).toEqual([
      [NEXT, true, false],
      [NEXT, true, false],
    ]);
    expect((await engine.search({ q: 'egretx100' })).results[0]!.href).toMatch(/^https:\/\/a\.example\/old#:~:text=egretx\d+/);
    expect((await verifyIndex(engine, false)).problems).toEqual([]);
  });
});
