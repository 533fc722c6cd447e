/**
 * The dense lane: a durable embedding queue drained in batches, a resident compact index per model,
 * and query embeddings cached for the worker's life.
 *
 * Nothing is embedded twice or skipped: a batch's vectors are written and its queue entries removed in
 * one transaction (vectorStore.storeVectors), so a worker killed mid-batch redoes exactly that batch.
 */
import { modelInfo, type Embedder, type ModelInfo } from '../src/models.js';
import type { Settings } from '../src/settings.js';
import { quantize, type DenseIndex } from '../src/vectors.js';
import type { LaneHit } from '../src/rrf.js';
import type { DenseCalibration } from '../src/hybrid.js';
import type { DenseLane, Engine } from './engine.js';
import { indexedText } from './pageStore.js';
import { dropModelVectors, loadDenseIndex, storeVectors } from './vectorStore.js';

export interface EmbedderHost {
  /** Loads (once) an embedder for the model; rejects when it cannot be had (not downloaded, offline). */
  load(model: ModelInfo, settings: Settings): Promise<Embedder>;
  /** Called between batches: keeps an MV3 worker alive while it still has work. */
  keepAlive?(): void;
}

export const EMBED_BATCH = 16;
const QUERY_CACHE_SIZE = 256;

export class DenseService implements DenseLane {
  private index: DenseIndex | null = null;
  private indexModel: string | null = null;
  private indexLoading: Promise<DenseIndex> | null = null;
  private embedders = new Map<string, Promise<Embedder>>();
  private readonly queryCache = new Map<string, Float32Array | null>();
  private draining: Promise<void> | null = null;
  private drainAgain = false;
  private lastError: string | undefined;
  private settings: Settings | null = null;

  constructor(
    private readonly engine: Engine,
    private readonly host: EmbedderHost,
  ) {}

  private async activeModel(): Promise<ModelInfo | null> {
    const s = (this.settings = await this.engine.settings());
    if (!s.denseEnabled) return null;
    return modelInfo(s.model) ?? null;
  }

  queueModel(): string | null {
    const s = this.settings;
    if (s && !s.denseEnabled) return null;
    return s?.model ?? null;
  }

  /** Must be awaited once at start so queueModel() knows the settings. */
  async init(): Promise<void> {
    await this.activeModel();
    if ((await this.pending()) > 0) this.onChunksAdded();
  }

  status(): { model: string | null; error?: string } {
    const out: { model: string | null; error?: string } = { model: this.queueModel() };
    if (this.lastError) out.error = this.lastError;
    return out;
  }

  private embedder(model: ModelInfo): Promise<Embedder> {
    let e = this.embedders.get(model.id);
    if (!e) {
      e = this.host.load(model, this.settings!);
      this.embedders.set(model.id, e);
      e.catch(() => this.embedders.delete(model.id));
    }
    return e;
  }

  async pending(): Promise<number> {
    const db = await this.engine.db();
    return db.count('embedQueue');
  }

  private async residentIndex(model: ModelInfo): Promise<DenseIndex> {
    if (this.index && this.indexModel === model.id) return this.index;
    if (this.indexModel !== model.id) {
      this.index = null;
      this.indexLoading = null;
      this.indexModel = model.id;
    }
    this.indexLoading ??= (async () => {
      const db = await this.engine.db();
      const idx = await loadDenseIndex(db, model.id, model.dim);
      if (this.indexModel === model.id) this.index = idx;
      return idx;
    })();
    return this.indexLoading;
  }

  onChunksRemoved(ids: readonly number[]): void {
    if (!ids.length) {
      // Everything may have changed (delete all, repair): reload lazily.
      this.index = null;
      this.indexLoading = null;
      this.indexModel = null;
      return;
    }
    for (const id of ids) this.index?.remove(id);
  }

  onChunksAdded(): void {
    if (this.draining) {
      this.drainAgain = true;
      return;
    }
    this.draining = this.drain().finally(() => {
      this.draining = null;
      if (this.drainAgain) {
        this.drainAgain = false;
        this.onChunksAdded();
      }
    });
  }

  /** Resolves when the queue is empty (or the lane is off / failing). */
  async idle(): Promise<void> {
    while (this.draining) await this.draining;
  }

  private async drain(): Promise<void> {
    try {
      for (;;) {
        const model = await this.activeModel();
        if (!model) return;
        const db = await this.engine.db();
        const queued = await db.getAll('embedQueue', null, EMBED_BATCH * 4);
        if (!queued.length) return;
        // Entries queued for another model (before a switch) are stale: drop them.
        const stale = queued.filter((q) => q.model !== model.id);
        if (stale.length) {
          const tx = db.transaction('embedQueue', 'readwrite');
          await Promise.all(stale.map((q) => tx.store.delete(q.id)));
          await tx.done;
        }
        const batch = queued.filter((q) => q.model === model.id).slice(0, EMBED_BATCH);
        if (!batch.length) continue;
        const embedder = await this.embedder(model);
        const tx = db.transaction('chunks');
        const chunks = await Promise.all(batch.map((q) => tx.store.get(q.id)));
        const table = await this.engine.pages.all();
        const present = batch.map((q, i) => ({ id: q.id, chunk: chunks[i] })).filter((x) => x.chunk);
        const texts = present.map((x) => indexedText(table.get(x.chunk!.url)?.title ?? '', x.chunk!.text));
        const vectors = await embedder.embed(texts, 'passage');
        const entries = present.flatMap((x, i) => {
          const v = vectors[i];
          if (!v) return []; // no known words: absent from the dense lane
          const q = quantize(v);
          return [{ id: x.id, codes: q.codes, scale: q.scale }];
        });
        const stored = await storeVectors(db, model.id, model.dim, entries, batch.map((q) => q.id));
        if (this.index && this.indexModel === model.id) for (const e of stored) this.index.add(e.id, e.codes, e.scale);
        this.lastError = undefined;
        this.host.keepAlive?.();
      }
    } catch (e) {
      this.lastError = e instanceof Error ? e.message : String(e);
      console.warn('reread: embedding stopped:', this.lastError);
    }
  }

  onSettingsChanged(previous: Settings): void {
    this.settings = null;
    this.embedders.clear();
    void this.resync(previous).catch((e: unknown) => {
      this.lastError = e instanceof Error ? e.message : String(e);
    });
  }

  /** Queues every chunk that has no vector for the active model (after a switch, or when re-enabled). */
  async resync(previous: Settings | null): Promise<void> {
    const model = await this.activeModel();
    const db = await this.engine.db();
    if (previous && previous.model !== this.settings?.model) {
      await dropModelVectors(db, previous.model);
      this.queryCache.clear();
    }
    if (!model) return;
    const index = await this.residentIndex(model);
    const ids = await db.getAllKeys('chunks');
    const tx = db.transaction('embedQueue', 'readwrite');
    await Promise.all(ids.filter((id) => !index.has(id)).map((id) => tx.store.put({ id, model: model.id })));
    await tx.done;
    this.onChunksAdded();
  }

  private async queryVector(embedder: Embedder, text: string): Promise<Float32Array | null> {
    const key = `${embedder.model.id}\u0000${text}`;
    if (this.queryCache.has(key)) {
      const v = this.queryCache.get(key)!;
      this.queryCache.delete(key);
      this.queryCache.set(key, v);
      return v;
    }
    const [v] = await embedder.embed([text], 'query');
    this.queryCache.set(key, v ?? null);
    if (this.queryCache.size > QUERY_CACHE_SIZE) this.queryCache.delete(this.queryCache.keys().next().value!);
    return v ?? null;
  }

  async search(text: string, k: number, allowed: ReadonlySet<number> | null): Promise<{ hits: LaneHit[]; calibration: DenseCalibration } | null> {
    const model = await this.activeModel();
    if (!model || !text.trim()) return null;
    const [embedder, index] = await Promise.all([this.embedder(model), this.residentIndex(model)]);
    if (index.size === 0) return null;
    const q = await this.queryVector(embedder, text);
    if (!q) return null;
    return { hits: await index.searchAsync(q, { k, allowed }), calibration: model.calibration };
  }
}
