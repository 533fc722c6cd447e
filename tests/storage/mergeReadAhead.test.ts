/**
 * A merge step reads its terms' ids and last blocks before it takes the write lock (indexMaintenance.ts
 * readAhead), so a capture arriving meanwhile waits at most for the step's writes, never for its reads
 * (issue 17: at a million sections those reads are most of a step, up to hundreds of ms). What was read
 * ahead is used only if nothing changed it in between: a forget whose purge deleted the blocks and the
 * dictionary entry it read, another step that moved the cursor, a worker stopped right after the read.
 */
import { describe, expect, it } from 'vitest';
import { verifyIndex } from '../../background/verify.js';
import type { Engine } from '../../background/engine.js';
import { BLOCK_SIZE } from '../../src/postings.js';
import { engineOn, freshDb, logicalIndex, postingStructureProblems, readAll, settle } from './helpers.js';

const page = (words: string, i: number) => ({ title: `Page ${i}`, lang: 'en', blocks: [{ kind: 'text' as const, text: `${words} word${i}x and enough ordinary words to be kept as a page of its own` }] });
const T0 = 1_700_000_000_000;

/** Holds the next merge step between its read-ahead and the write lock until `release()`. */
function holdAfterReadAhead(engine: Engine): { reached: Promise<void>; release: () => void } {
  let release!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const at = new Promise<void>((r) => (reached = r));
  engine.maintenance.afterReadAhead = async () => {
    engine.maintenance.afterReadAhead = null;
    reached();
    await gate;
  };
  return { reached: at, release };
}

const within = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms))]);

describe('merge steps read ahead of the write lock', { timeout: 60_000 }, () => {
  it('a capture is not held back while a merge step reads (however long the read takes)', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    for (let i = 0; i < 4; i++) await engine.capture(`https://a.example/${i}`, page('river stone', i), T0 + i);
    await settle(engine);
    for (let i = 4; i < 8; i++) await engine.capture(`https://a.example/${i}`, page('river stone', i), T0 + i);
    // A merge step whose reads never finish until the test says so: with the reads under the write
    // lock, the capture below would wait for them.
    const used = engine.maintenance.readAheads.used;
    const hold = holdAfterReadAhead(engine);
    const step = engine.maintenance.step(true);
    await hold.reached;
    const res = await within(engine.capture('https://b.example/new', page('ocean garden', 99), T0 + 99), 5_000, 'capture behind a merge step');
    expect(res.outcome).toBe('new');
    // Searchable at once, from the pending segment, while the merge is held.
    expect((await engine.search({ q: 'word99x' })).results.map((r) => r.url)).toEqual(['https://b.example/new']);
    hold.release();
    await step;
    expect(engine.maintenance.readAheads.used).toBe(used + 1);
    await settle(engine);
    expect((await engine.search({ q: 'word99x' })).results.map((r) => r.url)).toEqual(['https://b.example/new']);
    expect((await engine.search({ q: 'river' })).results).toHaveLength(8);
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });

  it('a forget that purges the blocks and dictionary entry a step read ahead: the step reads again, nothing dead comes back', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    // 'zebra' lives in page 0 alone once merged; page 1 brings it again, pending.
    await engine.capture('https://a.example/0', page('zebra river', 0), T0);
    await settle(engine);
    await engine.capture('https://a.example/1', page('zebra stone', 1), T0 + 1);
    const stale = engine.maintenance.readAheads.stale;
    const hold = holdAfterReadAhead(engine);
    const step = engine.maintenance.step(true);
    await hold.reached;
    // Page 0 forgotten, and its blocks purged at once (as the storage budget does near the quota):
    // zebra's only block and its dictionary entry go.
    expect(await engine.deleteUrls(['https://a.example/0'])).toBe(1);
    const purged = await engine.exclusive(() => engine.maintenance.purgeDeadLocked());
    expect(purged.terms).toBeGreaterThan(0);
    hold.release();
    await step;
    await settle(engine);
    expect((await engine.search({ q: 'zebra' })).results.map((r) => r.url)).toEqual(['https://a.example/1']);
    const all = await readAll(db);
    const live = new Set(all.pages.flatMap((p) => p.chunkIds));
    for (const b of all.postings) for (const e of b.entries) expect(live.has(e.id), `${b.term} -> ${e.id}`).toBe(true);
    expect(all.postings.every((b) => b.term !== undefined)).toBe(true);
    expect(await postingStructureProblems(db, BLOCK_SIZE)).toEqual([]);
    expect((await verifyIndex(engine)).problems).toEqual([]);
    expect(engine.maintenance.readAheads.stale).toBe(stale + 1);
  });

  it('a worker stopped between a read-ahead and its write, or between any two steps, resumes from the stored cursor and loses nothing', async () => {
    const db = await freshDb();
    let engine = engineOn(db);
    engine.maintenance.fixSteps({ terms: 2, blocks: 2 });
    for (let i = 0; i < 6; i++) await engine.capture(`https://a.example/${i}`, page('river stone', i), T0 + i);
    await settle(engine);
    for (let i = 6; i < 12; i++) await engine.capture(`https://a.example/${i}`, page(i % 2 ? 'river ocean' : 'stone garden', i), T0 + i);
    const scratchDb = await freshDb();
    const scratch = engineOn(scratchDb);
    for (let i = 0; i < 12; i++) await scratch.capture(`https://a.example/${i}`, page(i < 6 ? 'river stone' : i % 2 ? 'river ocean' : 'stone garden', i), T0 + i);
    await settle(scratch);
    let stops = 0;
    let cursors = 0;
    let lastCursor: unknown = undefined;
    for (let round = 0; round < 200 && (await readAll(db)).segments.length; round++) {
      if (round % 3 === 2) {
        // Stopped after the read-ahead: the step never writes, its engine is dropped.
        const old = engine;
        const hold = holdAfterReadAhead(old);
        void old.maintenance.step(true);
        await hold.reached;
        stops++;
      } else await engine.maintenance.step(true);
      // Each committed step moved the cursor forward, and a new worker starts from it.
      const cursor = await db.get('meta', 'merge');
      if (cursor && JSON.stringify(cursor) !== JSON.stringify(lastCursor)) cursors++;
      lastCursor = cursor;
      engine = engineOn(db);
      engine.maintenance.fixSteps({ terms: 2, blocks: 2 });
      expect((await engine.search({ q: 'ocean' })).results).toHaveLength(3);
    }
    expect(stops).toBeGreaterThan(3);
    expect(cursors).toBeGreaterThan(3);
    expect((await readAll(db)).segments).toEqual([]);
    expect(await logicalIndex(db)).toEqual(await logicalIndex(scratchDb));
    expect((await verifyIndex(engine)).problems).toEqual([]);
  });
});
