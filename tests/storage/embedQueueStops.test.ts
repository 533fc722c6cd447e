/**
 * The embedding queue across a worker stop. The invariant: every live section has a vector
 * for the active model or a queue entry (the drain only ever works from the queue: nothing else finds a
 * section that lacks a vector, and verifyIndex does not look). Two writes commit a state that breaks it
 * until a second, later write puts entries in the queue; a worker stopped between the two leaves sections
 * that are never embedded.
 */
import { describe, expect, it } from 'vitest';
import { cutSections } from '../../src/sections.js';
import { DenseService, type EmbedderHost } from '../../background/dense.js';
import type { Engine } from '../../background/engine.js';
import type { DB } from '../../background/db.js';
import { MARKS_KEY } from '../../background/forget.js';
import { engineOn, freshDb } from './helpers.js';
import { blocksOf, fakeHost, MODEL, tokenOf, unembeddedUnqueued, urlOf } from './killWorkload.js';

async function capture(engine: Engine, name: string, now: number) {
  const cut = await cutSections(blocksOf(name, tokenOf(name, 1)));
  return engine.capture(urlOf(name), { title: `Page ${name}`, lang: 'en', blocks: cut.blocks, sections: cut.sections, chunker: cut.chunker }, now);
}

const lacking = unembeddedUnqueued;

/** The worker as main.ts starts it: settings, marks, and the backlog a stopped worker left. */
async function restart(db: DB): Promise<{ engine: Engine; dense: DenseService }> {
  const engine = engineOn(db);
  const dense = new DenseService(engine, fakeHost());
  engine.dense = dense;
  await dense.init();
  await engine.forget.ready();
  await dense.resumeBacklog();
  await dense.idle();
  return { engine, dense };
}

const never = <T>() => new Promise<T>(() => undefined);

describe('embedding queue across a worker stop', { timeout: 30_000 }, () => {
  it('a forget undone just before the worker stops: the restored page is embedded after the restart', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    // The first worker: its dense index load takes long (a big index) and the worker is stopped during it.
    const dense = new DenseService(engine, fakeHost(), () => never());
    engine.dense = dense;
    await dense.init();
    const drainNow = dense.onChunksAdded.bind(dense);
    dense.onChunksAdded = () => undefined;
    await capture(engine, 'p', Date.now() - 60_000);
    await capture(engine, 'q', Date.now() - 50_000);
    const url = urlOf('p');
    const mark = await engine.forget.mark({ kind: 'page', url }, Date.now());
    // The backlog drains while p is hidden: its sections are taken off the queue, not embedded (dense.ts drain).
    drainNow();
    await dense.idle();
    expect(await db.count('embedQueue')).toBe(0);
    // Undo: the mark is gone for good (committed), the re-queue waits for the index load; the worker stops.
    void engine.forget.undo(mark.id);
    for (let i = 0; i < 100 && ((await db.get('meta', MARKS_KEY)) as unknown[]).length; i++) await new Promise((r) => setTimeout(r, 5));
    expect(await db.get('meta', MARKS_KEY)).toEqual([]);

    const { engine: restarted } = await restart(db);
    expect((await restarted.search({ q: tokenOf('p', 1) })).results.map((r) => r.href.split('#')[0])).toContain(url);
    // p is searchable again, so its sections must be embedded or at least queued: they are neither.
    expect(await lacking(db, [url, urlOf('q')])).toEqual([]);
  });

  it('the dense lane turned on just before the worker stops: what is stored is embedded after the restart', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    // The model loads slowly (an offscreen document starting, files read); the worker stops meanwhile.
    const slow: EmbedderHost = { load: () => never() };
    const dense = new DenseService(engine, slow);
    engine.dense = dense;
    await engine.updateSettings({ denseEnabled: false });
    await dense.init();
    await capture(engine, 'p', Date.now() - 60_000);
    await capture(engine, 'q', Date.now() - 50_000);
    expect(await db.count('embedQueue')).toBe(0);
    await engine.updateSettings({ denseEnabled: true }); // committed; the resync then waits for the model
    await new Promise((r) => setTimeout(r, 20));

    await restart(db);
    expect(await lacking(db, [urlOf('p'), urlOf('q')])).toEqual([]);
  });

  it('a page captured while a settings resync waits for the model is queued in its own write, not left to the resync', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const slow: EmbedderHost = { load: () => never() };
    const dense = new DenseService(engine, slow);
    engine.dense = dense;
    await dense.init();
    expect(dense.queueModel()).toBe(MODEL);
    // Downloads allowed: the lane resyncs, loading the model first (a download: minutes). Another change
    // meanwhile (the mirror) forgets the lane's settings until its own resync, queued behind the first, reads them.
    await engine.updateSettings({ allowModelDownload: true });
    await new Promise((r) => setTimeout(r, 10));
    await engine.updateSettings({ modelMirror: 'https://mirror.example/' });
    // The lane's model stays known to the writes made meanwhile (it was null, and they queued nothing).
    expect(dense.queueModel()).toBe(MODEL);
    await capture(engine, 'p', Date.now() - 1000);
    // The capture committed with no queue entry; the resync that would have found it waits for the model.
    await new Promise((r) => setTimeout(r, 20));

    await restart(db);
    expect(await lacking(db, [urlOf('p')])).toEqual([]);
  });
});
