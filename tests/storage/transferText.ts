/**
 * For the export and import tests: the whole file as one string, for small profiles (the product never
 * does this: background/transfer.ts reads and writes a batch of pages at a time, the Options page sends
 * parts), both through the product's own JsonlExport and JsonlImport; the worker's side of the Options
 * page's messages over an engine; a dense lane whose vectors the test makes.
 */
import type { DB } from '../../background/db.js';
import type { DenseLane, Engine } from '../../background/engine.js';
import { JsonlExport, JsonlImport, type ExportOptions, type ImportResult } from '../../background/transfer.js';
import { Transfers } from '../../background/transferParts.js';
import { storeVectors } from '../../background/vectorStore.js';
import type { Call } from '../../popup/transfer.js';
import type { MessageType, Request, Response } from '../../src/protocol.js';
import { quantize } from '../../src/vectors.js';
import { chunkNames } from './helpers.js';

export async function exportJsonl(engine: Engine, vectors: boolean, opts?: ExportOptions): Promise<{ jsonl: string; pages: number }> {
  const source = await JsonlExport.start(engine, vectors, opts);
  const lines: string[] = [];
  for (let batch = await source.next(); batch; batch = await source.next()) lines.push(...batch);
  return { jsonl: lines.join(''), pages: source.written };
}

export async function importJsonl(engine: Engine, jsonl: string): Promise<ImportResult> {
  const session = new JsonlImport(engine);
  try {
    await session.push(jsonl);
    return await session.end();
  } finally {
    session.abandon();
  }
}

/**
 * The worker's answers to the Options page's transfer messages (background/main.ts's handlers), for
 * popup/transfer.ts to call; `restart` loses every transfer under way, as a stopped worker does.
 */
export function transferWorker(engine: Engine, opts: { partChars?: number; export?: ExportOptions } = {}) {
  let transfers = new Transfers(Date.now, opts.partChars);
  const handlers: { [K in 'export' | 'export/part' | 'import/part' | 'import']: (p: Request<K>) => Promise<Response<K>> } = {
    export: async (p) => {
      const source = await JsonlExport.start(engine, p.vectors === true, opts.export);
      return { ...transfers.offer(source), pages: source.listed };
    },
    'export/part': async (p) => transfers.part(p.token, p.part),
    'import/part': async (p) => transfers.receive(p.token, p.text, () => new JsonlImport(engine)),
    import: async (p) => transfers.finish(p.token),
  };
  const call = (<K extends MessageType>(type: K, payload: Request<K>) => {
    const h = (handlers as Record<string, (p: unknown) => Promise<unknown>>)[type];
    if (!h) throw new Error(`no handler for ${type} here`);
    return h(payload) as Promise<Response<K>>;
  }) as Call;
  return {
    call,
    get transfers() {
      return transfers;
    },
    restart: () => void (transfers = new Transfers(Date.now, opts.partChars)),
  };
}

export const MODEL = 'reread/glove-100d';

/** A dense lane that queues chunks for the bundled model; `embedQueued` embeds them. */
export const queueingLane = (removed: number[][] = [], stored: number[] = []): DenseLane => ({
  queueModel: () => MODEL,
  search: async () => null,
  onChunksRemoved: (ids) => void removed.push([...ids]),
  onChunksAdded: () => undefined,
  onVectorsStored: (_model, _dim, vectors) => void stored.push(...vectors.map((v) => v.id)),
  pending: async () => 0,
  onSettingsChanged: () => undefined,
  status: () => ({ model: MODEL }),
});

/** Deterministic vectors for whatever is queued, stored the way the dense lane stores them. */
export async function embedQueued(db: DB): Promise<void> {
  const queued = await db.getAll('embedQueue');
  const entries = queued.map((q) => {
    const v = Array.from({ length: 100 }, (_, d) => Math.sin(q.id * 7.1 + d * 1.3));
    return { id: q.id, ...quantize(v) };
  });
  await storeVectors(db, MODEL, 100, entries, queued.map((q) => q.id));
}

/** Each section's vector, keyed by page URL and section order (ids differ between profiles). */
export async function vectorsByPlace(db: DB): Promise<Map<string, string>> {
  const chunks = await chunkNames(db);
  const out = new Map<string, string>();
  for (const b of await db.getAll('vectors')) {
    if (b.m !== MODEL) continue;
    for (let i = 0; i < b.ids.length; i++) out.set(chunks.get(b.ids[i]!)!, `${b.m}:${b.scales[i]}:${Array.from(b.codes.subarray(i * b.dim, (i + 1) * b.dim)).join(',')}`);
  }
  return out;
}
