/** A re-cut pass that runs inside a forget's undo window must still re-cut the pages an undo brings back (review, session 33). */
import { describe, expect, it } from 'vitest';
import { type Block } from '../../src/chunker.js';
import { cutSections } from '../../src/sections.js';
import { CHUNKER_VERSION_KEY, Recut } from '../../background/recut.js';
import { engineOn, freshDb, NEXT_CHUNKER, nextCut } from './helpers.js';

const words = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
const blocksOf = (w: string): Block[] => [
  { kind: 'text', text: `${words(120, w)}.` },
  { kind: 'text', text: `${words(120, w + 'x')}.` },
  { kind: 'heading', level: 2, text: `More about ${w}`, id: 'more' },
  { kind: 'text', text: `${words(40, w + 'm')}.` },
];
const NEXT = NEXT_CHUNKER;

describe('forget review: re-cut inside an undo window', { timeout: 60_000 }, () => {
  it('a page brought back by undo is cut by the new chunker like every other page', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const urls = ['https://a.example/1', 'https://b.example/2'];
    for (const [i, u] of urls.entries()) {
      const cut = await cutSections(blocksOf(['heron', 'egret'][i]!));
      await engine.capture(u, { title: `Page ${i}`, lang: 'en', blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker }, 1_700_000_000_000 + i);
    }
    await engine.recut.run();
    // The user forgets a.example; while its undo window is open the new release's re-cut pass runs.
    const mark = await engine.forget.mark({ kind: 'site', site: 'a.example' }, Date.now());
    const recut = new Recut(engine, { version: NEXT, cut: nextCut, batch: 2 });
    await recut.run();
    expect((await db.get('sections', urls[1]!))!.cv).toBe(NEXT);
    // The hidden page was passed over: the pass is not recorded as done.
    expect(await db.get('meta', CHUNKER_VERSION_KEY)).not.toBe(NEXT);
    expect(await recut.pending()).toBe(true);
    await engine.forget.undo(mark.id);
    // The next pass (the next start or alarm) cuts the page brought back, and only then is the version recorded.
    await recut.run();
    expect((await db.get('sections', urls[0]!))!.cv).toBe(NEXT);
    expect(await db.get('meta', CHUNKER_VERSION_KEY)).toBe(NEXT);
    expect(await recut.pending()).toBe(false);
  });
});
