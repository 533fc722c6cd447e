/**
 * The dense lane across a model switch, in Node: the real DenseService over fake-indexeddb, embedding
 * with the bundled model's real files (transformers.js, no network). The host stands in for the
 * offscreen document: it loads what it is asked for and records what it is told to let go of.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DenseService, type EmbedderHost } from '../../background/dense.js';
import { createTransformersEmbedder } from '../../background/embedding/transformersEmbedder.js';
import { modelInfo, type Embedder } from '../../src/models.js';
import { engineOn, freshDb, pageInput, readAll } from './helpers.js';
import { writePage } from '../../background/pageStore.js';
import { TOKENIZER } from '../../src/indexing.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BUNDLED = 'reread/glove-100d';
const OTHER = 'Xenova/all-MiniLM-L6-v2';

/** Loads the bundled model's files for any id (the downloadable models are not reachable here). */
function recordingHost(): EmbedderHost & { loads: string[]; unloads: string[] } {
  const loads: string[] = [];
  const unloads: string[] = [];
  return {
    loads,
    unloads,
    async load(model): Promise<Embedder> {
      loads.push(model.id);
      const files = modelInfo(BUNDLED)!;
      const e = await createTransformersEmbedder(files, { localModelPath: path.join(ROOT, 'models') + path.sep, allowRemote: false, useBrowserCache: false });
      return { ...e, model };
    },
    async unload(id) {
      unloads.push(id);
    },
  };
}

describe('dense lane: switching models', () => {
  it('re-embeds everything for the new model, drops the old vectors, and lets go of the old model', async () => {
    const db = await freshDb();
    const engine = engineOn(db);
    const host = recordingHost();
    const dense = new DenseService(engine, host);
    engine.dense = dense;
    await dense.init();
    await writePage(db, pageInput('https://a.example/bread', 'Bread', ['knead the dough and bake the loaf in a hot oven until golden'], 1, BUNDLED), TOKENIZER);
    await writePage(db, pageInput('https://b.example/boats', 'Boats', ['the sailing boat crossed the harbour in a strong wind'], 2, BUNDLED), TOKENIZER);
    dense.onChunksAdded();
    await dense.idle();
    const before = await readAll(db);
    expect(before.queue).toHaveLength(0);
    expect(new Set(before.vectors.map((v) => v.m.split('\u0000')[0]))).toEqual(new Set([BUNDLED]));

    await engine.updateSettings({ model: OTHER, allowModelDownload: true });
    // resync runs in the background: wait until the old vectors are gone and the backlog is drained.
    for (let i = 0; i < 200 && !(host.unloads.includes(BUNDLED) && (await readAll(db)).queue.length === 0 && (await readAll(db)).vectors.some((v) => v.m === OTHER)); i++) {
      await new Promise((r) => setTimeout(r, 20));
      await dense.idle();
    }
    const after = await readAll(db);
    expect(host.unloads).toEqual([BUNDLED]);
    expect(after.queue).toHaveLength(0);
    expect(new Set(after.vectors.map((v) => v.m.split('\u0000')[0]))).toEqual(new Set([OTHER]));
    const hits = await dense.search('baking bread in the oven', 5, null, { wait: true });
    expect(hits && 'hits' in hits ? hits.hits.length : 0).toBeGreaterThan(0);
  }, 60_000);
});
