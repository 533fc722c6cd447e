/**
 * The dense lane: a durable embedding queue drained in batches, a resident compact index per model,
 * and query embeddings cached for the worker's life.
 *
 * Nothing is embedded twice or skipped: a batch's vectors are written and its queue entries removed in
 * one transaction (vectorStore.storeVectors), so a worker killed mid-batch redoes exactly that batch.
 */
import { cachedModelIds, describeModelError, DownloadTracker, isModelFile, MODELS, modelInfo, type Embedder, type FileProgress, type ModelDownload, type ModelInfo } from '../src/models.js';
import type { Settings } from '../src/settings.js';
import { quantize, type DenseIndex } from '../src/vectors.js';
import type { LaneHit } from '../src/rrf.js';
import type { DenseCalibration } from '../src/hybrid.js';
import type { DenseLoading, DenseSearchOptions } from '../src/search.js';
import { DENSE_RESYNC_KEY, type DenseLane, type Engine } from './engine.js';
import { indexedText } from '../src/indexing.js';
import { sectionsByIds } from './sections.js';
import { dropModelVectors, loadDenseIndex, storeVectors } from './vectorStore.js';
import { traced } from './bootTrace.js';

export interface EmbedderHost {
  /** Loads (once) an embedder for the model; rejects when it cannot be had (not downloaded, offline). */
  load(model: ModelInfo, settings: Settings, onProgress?: (p: FileProgress) => void): Promise<Embedder>;
  /** Lets go of a loaded model (after it was removed). */
  unload?(modelId: string): Promise<void>;
  /** Called between batches: keeps an MV3 worker alive while it still has work. */
  keepAlive?(): void;
}

export const EMBED_BATCH = 16;
const QUERY_CACHE_SIZE = 256;
/**
 * How long a search waits for a dense index still loading once its lexical lane is done, ms: enough for
 * a small index (a few thousand vectors) to be there; a larger one answers lexical-only (`denseLoading`).
 */
export const DENSE_GRACE_MS = 40;
/** transformers.js's Cache API store, where downloaded model files are kept (under their hub URLs). */
export const MODEL_CACHE = 'transformers-cache';
const BUNDLED = MODELS.find((m) => m.bundled)!;

export interface ModelStatus {
  active: string | null;
  download: ModelDownload | null;
  error?: string;
  /** Downloadable models whose files are in the browser's cache. */
  cached: string[];
  pending: number;
  chunks: number;
}

export class DenseService implements DenseLane {
  private index: DenseIndex | null = null;
  private indexModel: string | null = null;
  private indexDim = 0;
  /** Dimensions the loaded models produce (may differ from the registry when a mirror serves other files). */
  private readonly dims = new Map<string, number>();
  private download: DownloadTracker | null = null;
  private indexLoading: Promise<DenseIndex> | null = null;
  /** Loads started (or dropped): a load finishing after another started, or after a reset, is not kept. */
  private loads = 0;
  /**
   * Vectors stored and removed while the index loads (its batches are not one snapshot), applied in
   * order once it is there; null when no load runs.
   */
  private loadLog: ({ id: number; codes: Int8Array; scale: number } | number)[] | null = null;
  private embedders = new Map<string, Promise<Embedder>>();
  private readonly queryCache = new Map<string, Float32Array | null>();
  private draining: Promise<void> | null = null;
  private drainAgain = false;
  /** The resyncs of settings changes, one after another (see onSettingsChanged). */
  private resyncs: Promise<void> = Promise.resolve();
  private lastError: string | undefined;
  private settings: Settings | null = null;

  constructor(
    private readonly engine: Engine,
    private readonly host: EmbedderHost,
    /** Loads an index (tests wrap it to hold a load). */
    private readonly load: typeof loadDenseIndex = loadDenseIndex,
  ) {}

  private async activeModel(): Promise<ModelInfo | null> {
    const s = (this.settings = await this.engine.settings());
    if (!s.denseEnabled) return null;
    return modelInfo(s.model) ?? null;
  }

  /**
   * The model a write queues its sections for: the settings as the engine holds them now (a resync
   * waiting for a model must not leave a capture made meanwhile unqueued, relying on the resync).
   */
  queueModel(): string | null {
    const s = this.engine.settingsNow() ?? this.settings;
    if (s && !s.denseEnabled) return null;
    return s?.model ?? null;
  }

  /**
   * Must be awaited once at start so queueModel() knows the settings (all a search needs of it). A
   * settings change a stopped worker had not resynced yet (DENSE_RESYNC_KEY) is resynced now.
   */
  async init(): Promise<void> {
    await this.activeModel();
    const pending = (await (await this.engine.db()).get('meta', DENSE_RESYNC_KEY).catch(() => undefined)) as Settings[] | undefined;
    if (Array.isArray(pending) && pending.length) for (const previous of pending) this.resyncAfter(previous);
  }

  /**
   * Embedding goes on with a backlog a stopped worker left. Not part of init: counting the queue is a
   * read the first search need not wait for (background/main.ts runs it after the first reads).
   */
  async resumeBacklog(): Promise<void> {
    if ((await this.pending()) > 0) this.onChunksAdded();
  }

  status(): { model: string | null; error?: string } {
    const out: { model: string | null; error?: string } = { model: this.queueModel() };
    if (this.lastError) out.error = this.lastError;
    return out;
  }

  /** A model download under way (null when none). */
  downloadStatus(): ModelDownload | null {
    return this.download && !this.download.complete ? this.download.snapshot() : null;
  }

  async modelStatus(): Promise<ModelStatus> {
    const [cached, pending, stats] = await Promise.all([cachedModels().catch(() => []), this.pending(), this.engine.lexical.corpusStats()]);
    const out: ModelStatus = { active: this.queueModel(), download: this.downloadStatus(), cached, pending, chunks: stats.N };
    if (this.lastError) out.error = this.lastError;
    return out;
  }

  /**
   * Forgets a downloaded model: its vectors, its cached files, the loaded session. When it is the
   * active model, the bundled one takes over (and re-embeds what is stored).
   */
  async removeModel(modelId: string): Promise<{ files: number; model: string }> {
    const info = modelInfo(modelId);
    if (!info || info.bundled) throw new Error('the built-in model cannot be removed');
    const s = await this.engine.settings();
    // Switching drops the old model's vectors (resync) and queues everything for the bundled model.
    if (s.model === modelId) await this.engine.updateSettings({ model: BUNDLED.id });
    else await dropModelVectors(await this.engine.db(), modelId);
    this.embedders.delete(modelId);
    this.dims.delete(modelId);
    await this.host.unload?.(modelId);
    const files = await deleteCachedModel(modelId);
    return { files, model: (await this.engine.settings()).model };
  }

  private fail(e: unknown, model: ModelInfo | undefined): void {
    const raw = e instanceof Error ? e.message : String(e);
    this.lastError = describeModelError(raw, model, this.settings?.modelMirror ?? '');
    console.warn('reread: embedding stopped:', raw);
  }

  private embedder(model: ModelInfo): Promise<Embedder> {
    let e = this.embedders.get(model.id);
    if (!e) {
      const tracker = model.bundled ? null : new DownloadTracker(model.id);
      if (tracker) this.download = tracker;
      e = this.host.load(model, this.settings!, tracker ? (p) => tracker.add(p) : undefined);
      this.embedders.set(model.id, e);
      e.then(
        (x) => {
          this.dims.set(model.id, x.dim);
          if (this.download === tracker) this.download = null;
        },
        () => {
          this.embedders.delete(model.id);
          if (this.download === tracker) this.download = null;
        },
      );
    }
    return e;
  }

  async pending(): Promise<number> {
    const db = await this.engine.db();
    return db.count('embedQueue');
  }

  /** The model's dimension: what its loaded files produce, else the registry's (until it is loaded). */
  private dimOf(model: ModelInfo): number {
    return this.dims.get(model.id) ?? model.dim;
  }

  /** The index, when it is loaded for this model and dimension (null while it loads). */
  private readyIndex(model: ModelInfo, dim = this.dimOf(model)): DenseIndex | null {
    return this.index && this.indexModel === model.id && this.indexDim === dim ? this.index : null;
  }

  /** The index, loading it if needed; a load not started yet starts after `after` (a search's lexical reads). */
  private async residentIndex(model: ModelInfo, dim = this.dimOf(model), after?: Promise<void>): Promise<DenseIndex> {
    const ready = this.readyIndex(model, dim);
    if (ready) return ready;
    if (this.indexModel !== model.id || this.indexDim !== dim) {
      this.index = null;
      this.indexLoading = null;
      this.loads++;
      this.indexModel = model.id;
      this.indexDim = dim;
    }
    if (!this.indexLoading) {
      const generation = ++this.loads;
      const loading: Promise<DenseIndex> = (async () => {
        if (after) await after;
        const db = await this.engine.db();
        // Vectors of forgotten sections stay stored until the next sweep: never loaded.
        await this.engine.delta.ready();
        const dead = this.engine.delta.dead;
        const log: NonNullable<typeof this.loadLog> = [];
        this.loadLog = log;
        try {
          const idx = await traced('dense: index load', this.load(db, model.id, dim, { skip: (id) => dead.has(id) }));
          // What was stored or removed while the batches were read, in order.
          for (const op of log) {
            if (typeof op === 'number') idx.remove(op);
            else if (!dead.has(op.id)) idx.add(op.id, op.codes, op.scale);
          }
          if (this.loads === generation && this.indexModel === model.id && this.indexDim === dim) this.index = idx;
          return idx;
        } finally {
          if (this.loadLog === log) this.loadLog = null;
        }
      })();
      this.indexLoading = loading;
      // A failed load is tried again by the next search.
      loading.catch(() => {
        if (this.indexLoading === loading) this.indexLoading = null;
      });
    }
    return this.indexLoading!;
  }

  onChunksRemoved(ids: readonly number[]): void {
    if (!ids.length) {
      // Everything may have changed (delete all, repair): reload lazily.
      this.index = null;
      this.indexLoading = null;
      this.indexModel = null;
      this.loadLog = null;
      this.loads++;
      return;
    }
    for (const id of ids) this.index?.remove(id);
    this.loadLog?.push(...ids);
  }

  onVectorsStored(model: string, dim: number, stored: readonly { id: number; codes: Int8Array; scale: number }[]): void {
    if (this.indexModel !== model || this.indexDim !== dim) return;
    if (this.index) for (const e of stored) this.index.add(e.id, e.codes, e.scale);
    // (A load under way applies them once it is there.)
    else if (this.loadLog) this.loadLog.push(...stored);
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

  /** Resolves when settings changes are resynced and the queue is empty (or the lane is off / failing). */
  async idle(): Promise<void> {
    let resyncs: Promise<void>;
    do {
      resyncs = this.resyncs;
      await resyncs;
      while (this.draining) await this.draining;
    } while (resyncs !== this.resyncs);
  }

  private async drain(): Promise<void> {
    let current: ModelInfo | null = null;
    try {
      for (;;) {
        const model = (current = await this.activeModel());
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
        let batch = queued.filter((q) => q.model === model.id).slice(0, EMBED_BATCH);
        if (!batch.length) continue;
        const embedder = await this.embedder(model);
        // Queued again though embedded already (a forget's undo queues every section it restores, in its
        // own write): taken off the queue without embedding them twice, when the index is at hand.
        const resident = this.readyIndex(model, embedder.dim);
        const done = resident ? batch.filter((q) => resident.has(q.id)) : [];
        if (done.length) {
          const tx = db.transaction('embedQueue', 'readwrite');
          await Promise.all(done.map((q) => tx.store.delete(q.id)));
          await tx.done;
          batch = batch.filter((q) => !resident!.has(q.id));
          if (!batch.length) continue;
        }
        const table = await this.engine.pages.all();
        const present = await sectionsByIds(db, batch.map((q) => q.id), await this.engine.pages.owners());
        const texts = present.map((x) => indexedText(table.get(x.url)?.title ?? '', x.text));
        const vectors = await embedder.embed(texts, 'passage');
        const entries = present.flatMap((x, i) => {
          const v = vectors[i];
          if (!v) return []; // no known words: absent from the dense lane
          const q = quantize(v);
          return [{ id: x.id, codes: q.codes, scale: q.scale }];
        });
        this.onVectorsStored(model.id, embedder.dim, await storeVectors(db, model.id, embedder.dim, entries, batch.map((q) => q.id)));
        this.lastError = undefined;
        this.host.keepAlive?.();
      }
    } catch (e) {
      this.fail(e, current ?? undefined);
    }
  }

  onSettingsChanged(previous: Settings): void {
    this.settings = null;
    this.embedders.clear();
    this.lastError = undefined;
    this.resyncAfter(previous);
  }

  /** Resyncs not finished yet; at none, the stored list of pending ones is cleared. */
  private unsynced = 0;

  private resyncAfter(previous: Settings): void {
    // One after another. Two changes in a row (a mirror, then the model it serves) used to resync at
    // once: the first, still loading the old model's index, queued every section for the old model
    // after the second had queued them for the new one, and the drain then dropped them all as stale
    // (nothing embedded, nothing queued: the models e2e, 1 run in 6).
    this.unsynced++;
    this.resyncs = this.resyncs
      .then(() => this.resync(previous))
      .then(async () => {
        if (--this.unsynced === 0) await (await this.engine.db()).delete('meta', DENSE_RESYNC_KEY);
      })
      .catch((e: unknown) => {
        this.unsynced = Math.max(0, this.unsynced - 1);
        this.fail(e, modelInfo(this.settings?.model ?? ''));
      });
  }

  /** Queues every chunk that has no vector for the active model (after a switch, or when re-enabled). */
  async resync(previous: Settings | null): Promise<void> {
    const model = await this.activeModel();
    const db = await this.engine.db();
    // Another model, or the same id from another mirror (other files, maybe another dimension): its
    // vectors are of another space.
    const mirrorChanged = previous && previous.modelMirror !== this.settings?.modelMirror && !modelInfo(previous.model)?.bundled;
    const dropped = !!previous && (previous.model !== this.settings?.model || !!mirrorChanged);
    if (previous && dropped) {
      // The old model's weights stay loaded in the offscreen document (or background page) otherwise:
      // tens of MB held for a model nothing uses any more.
      await this.host.unload?.(previous.model).catch(() => undefined);
      await dropModelVectors(db, previous.model);
      this.dims.delete(previous.model);
      this.queryCache.clear();
      if (this.indexModel === previous.model) this.onChunksRemoved([]);
    }
    if (!model) return;
    const ids = [...(await this.engine.pages.all()).values()].flatMap((p) => p.chunkIds);
    // After a switch every chunk is queued at once (before any download), so the backlog shows from the start.
    await this.queueMissing(model, ids, !dropped);
  }

  /** Queues these chunks for the model (only those without a vector when `check`). */
  private async queueMissing(model: ModelInfo, ids: readonly number[], check: boolean): Promise<void> {
    const db = await this.engine.db();
    let missing = ids;
    if (check) {
      // Which chunks lack a vector is read from the index of the model's real dimension: load it first
      // (a failure is the drain's to report; the registry's dimension stands in meanwhile).
      const dim = await this.embedder(model).then(
        (e) => e.dim,
        () => model.dim,
      );
      const index = await this.residentIndex(model, dim);
      missing = ids.filter((id) => !index.has(id));
    }
    // Settings changed again while this ran: the resync queued after this one does the queueing.
    if ((await this.activeModel())?.id !== model.id) return;
    if (!missing.length) return;
    const tx = db.transaction('embedQueue', 'readwrite');
    await Promise.all(missing.map((id) => tx.store.put({ id, model: model.id })));
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

  async search(text: string, k: number, allowed: ReadonlySet<number> | null, opts: DenseSearchOptions = {}): Promise<{ hits: LaneHit[]; calibration: DenseCalibration; timings?: Record<string, number> } | DenseLoading | null> {
    const model = await this.activeModel();
    if (!model || !text.trim()) return null;
    // A query in a language the model did not learn: its answer would be dropped (src/search.ts), so
    // nothing is embedded or loaded for it.
    if (opts.accepts && !opts.accepts(model.calibration.languages)) return null;
    const embedding = traced('dense: embedder', this.embedder(model));
    let index = this.readyIndex(model);
    if (!index) {
      // Not loaded (the first search after a start): the load starts once the lexical lane has read
      // what it needs, and this search waits for it only briefly after that, unless told to wait.
      const loading = this.residentIndex(model, this.dimOf(model), opts.lexicalDone);
      if (opts.wait) index = await loading;
      else {
        const late = (opts.lexicalDone ?? Promise.resolve()).then(() => new Promise<null>((r) => setTimeout(() => r(null), DENSE_GRACE_MS)));
        index = await Promise.race([loading, late]);
        if (!index) {
          // The query's vector is ready (cached) for the search that asks again.
          void embedding.then((e) => this.queryVector(e, text)).catch(() => undefined);
          return { loading: true };
        }
      }
    }
    const embedder = await embedding;
    if (embedder.dim !== this.indexDim) index = await this.residentIndex(model, embedder.dim);
    if (index.size === 0) return null;
    const t0 = performance.now();
    const q = await traced('dense: query vector', this.queryVector(embedder, text));
    if (!q) return null;
    const t1 = performance.now();
    const hits = await traced('dense: scan', index.searchAsync(q, { k, allowed }));
    return { hits, calibration: model.calibration, timings: { embedMs: t1 - t0, scanMs: performance.now() - t1 } };
  }
}

/** The models whose files are in the browser's cache (downloaded earlier). */
export async function cachedModels(): Promise<string[]> {
  if (typeof caches === 'undefined') return [];
  const cache = await caches.open(MODEL_CACHE);
  return cachedModelIds((await cache.keys()).map((r) => r.url));
}

/** Deletes a model's downloaded files from the browser's cache; returns how many were removed. */
export async function deleteCachedModel(modelId: string): Promise<number> {
  if (typeof caches === 'undefined') return 0;
  const cache = await caches.open(MODEL_CACHE);
  let n = 0;
  for (const req of await cache.keys()) if (isModelFile(req.url, modelId) && (await cache.delete(req))) n++;
  return n;
}
