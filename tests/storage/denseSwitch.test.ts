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
import { loadDenseIndex } from '../../background/vectorStore.js';
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

  it('two changes in a row (a mirror, then the model) end with every section embedded by the new model', async () => {
    // The first change's resync loads the old model's index (held here until `openIndex`) while the
    // second queues everything for the new model, whose files load slowly (held until `openModel`).
    const db = await freshDb();
    const engine = engineOn(db);
    const base = recordingHost();
    let openIndex!: () => void;
    let openModel!: () => void;
    const indexGate = new Promise<void>((r) => (openIndex = r));
    const modelGate = new Promise<void>((r) => (openModel = r));
    let held = false;
    const host: EmbedderHost = {
      ...base,
      async load(model, ...rest) {
        if (model.id === OTHER) await modelGate;
        return base.load(model, ...rest);
      },
    };
    const dense = new DenseService(engine, host, async (...args) => {
      if (held) await indexGate;
      return loadDenseIndex(...args);
    });
    engine.dense = dense;
    await dense.init();
    for (const [i, [url, title, text]] of [
      ['https://a.example/bread', 'Bread', 'knead the dough and bake the loaf in a hot oven until golden'],
      ['https://b.example/boats', 'Boats', 'the sailing boat crossed the harbour in a strong wind'],
      ['https://c.example/cats', 'Cats', 'a kitten sleeps on the warm windowsill and purrs'],
    ].entries()) await writePage(db, pageInput(url!, title!, [text!], i + 1, BUNDLED), TOKENIZER);
    dense.onChunksAdded();
    await dense.idle();
    const chunks = (await readAll(db)).vectors.filter((v) => v.m === BUNDLED).reduce((n, v) => n + v.ids.length, 0);
    expect(chunks).toBeGreaterThan(0);

    held = true;
    await engine.updateSettings({ modelMirror: 'https://mirror.example/' });
    await engine.updateSettings({ model: OTHER, allowModelDownload: true });
    await new Promise((r) => setTimeout(r, 50));
    openIndex();
    await new Promise((r) => setTimeout(r, 50));
    openModel();
    await dense.idle();
    const after = await readAll(db);
    expect(after.queue).toHaveLength(0);
    const byModel = new Map<string, number>();
    for (const v of after.vectors) if (!v.m.includes('\u0000')) byModel.set(v.m, (byModel.get(v.m) ?? 0) + v.ids.length);
    expect([...byModel]).toEqual([[OTHER, chunks]]);
  }, 60_000);
});
