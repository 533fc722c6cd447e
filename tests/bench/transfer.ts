/**
 * Export and import of a whole index (Options → Export / Import) in Node over fake-indexeddb: time and
 * peak memory, this tree against another (`--against DIR`, from `git archive <commit> src background |
 * tar -x -C DIR`). One tree a process, so that neither's garbage counts against the other; the bench
 * starts itself once per tree and phase and prints one table.
 *
 * The index: the scale part's synthetic pages (tests/bench/corpus.ts), written as the product stores
 * them once captured and merged (tests/bench/bulkLoad.ts BulkIndex), with a vector a section for the
 * bundled model's 100 dimensions (vectorStore's layout). The export runs the way the Options page runs
 * it, part by part through the worker's Transfers (its text kept in a file, as the page keeps Blobs);
 * the import reads that file and sends it in parts. A tree that predates streaming is driven the way
 * it worked then: the export made as one string and cut into parts, the file read whole, its parts
 * joined in the worker and imported at once.
 *
 *   node --expose-gc --max-old-space-size=8000 --import tsx tests/bench/transfer.ts [--sections=200000] [--against=DIR]
 *
 * Peak memory: the most heap in use (process.memoryUsage().heapUsed, sampled every 20 ms and after each
 * part) above what the process held before the phase began (the index itself is in fake-indexeddb's
 * memory, in the heap); and the most RSS (the export's strings may live outside the heap).
 */
import 'fake-indexeddb/auto';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeSync, statSync, readSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openDB } from 'idb';
import { DB_VERSION, upgrade, type DB, type RereadDB } from '../../background/db.js';
import { currentIndexVersion, INDEX_VERSION_KEY } from '../../background/indexVersion.js';
import { LOG_PREFIX } from '../../background/pageLog.js';
import { vectorRecords } from '../../background/vectorStore.js';
import { normalize, quantize } from '../../src/vectors.js';
import { fileParts, textParts } from '../../src/transferParts.js';
import { BulkIndex } from './bulkLoad.js';
import { makeVocabulary, synthPageStream, type SynthPage } from './corpus.js';
import { Rng } from './rng.js';

const MODEL = 'reread/glove-100d';
const DIM = 100;
const HERE = resolve(import.meta.dirname, '../..');

const arg = (name: string, fallback: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const sections = Number(arg('sections', '200000'));
/**
 * `--live`: the export only, with a full collection before each sample (after each part; for a tree
 * from before streaming, once its whole export is made): the heap that is alive, not garbage the
 * collector has not reached yet. Its times include the collections.
 */
const live = process.argv.includes('--live');
const settle = () => {
  if (live) gc();
};

async function buildIndex(db: DB): Promise<{ pages: number; sections: number }> {
  const index = new BulkIndex();
  const vocab = makeVocabulary(11);
  const rng = new Rng(5);
  const v = new Float64Array(DIM);
  let batch: SynthPage[] = [];
  const flush = async () => {
    const b = index.add(batch);
    batch = [];
    const tx = db.transaction(['pages', 'sections', 'terms', 'postings', 'meta', 'vectors'], 'readwrite');
    for (const p of b.pages) {
      void tx.objectStore('pages').put(p);
      void tx.objectStore('meta').put(1, LOG_PREFIX + p.url);
    }
    for (const s of b.sections) void tx.objectStore('sections').put(s);
    for (const [t, id] of b.terms) void tx.objectStore('terms').put(id, t);
    for (const k of b.blocks) void tx.objectStore('postings').put(k.value, k.key);
    const entries = b.pages.flatMap((p) =>
      p.chunkIds.map((id) => {
        for (let d = 0; d < DIM; d++) v[d] = rng.normal();
        const q = quantize(normalize(v)!);
        return { id, codes: q.codes, scale: q.scale };
      }),
    );
    for (const r of vectorRecords(MODEL, DIM, entries)) void tx.objectStore('vectors').put(r);
    await tx.done;
  };
  for (const p of synthPageStream(vocab, 3, sections)) {
    batch.push(p);
    if (batch.length === 200) await flush();
  }
  if (batch.length) await flush();
  const { blocks, stats, termIdsNext } = index.finish();
  const tx = db.transaction(['postings', 'meta'], 'readwrite');
  for (const k of blocks) void tx.objectStore('postings').put(k.value, k.key);
  void tx.objectStore('meta').put(stats, 'stats');
  void tx.objectStore('meta').put({ next: termIdsNext }, 'termIds');
  void tx.objectStore('meta').put(currentIndexVersion(), INDEX_VERSION_KEY);
  await tx.done;
  return { pages: index.pages, sections: index.N };
}

/** The engine of the tree under test (its own modules: a tree's transfer code runs with its own engine). */
interface Tree {
  Engine: new (db: () => Promise<DB>) => {
    maintenance: { auto: boolean };
    dense: unknown;
  };
  transfer: Record<string, unknown>;
  Transfers: new (...a: unknown[]) => Record<string, (...a: unknown[]) => unknown>;
}

async function loadTree(dir: string): Promise<Tree> {
  const engine = (await import(join(dir, 'background/engine.ts'))) as { Engine: Tree['Engine'] };
  const transfer = (await import(join(dir, 'background/transfer.ts'))) as Tree['transfer'];
  const parts = (await import(join(dir, 'background/transferParts.ts'))) as { Transfers: Tree['Transfers'] };
  return { Engine: engine.Engine, transfer, Transfers: parts.Transfers };
}

const lane = {
  queueModel: () => MODEL,
  search: async () => null,
  onChunksRemoved: () => undefined,
  onChunksAdded: () => undefined,
  pending: async () => 0,
  onSettingsChanged: () => undefined,
  status: () => ({ model: MODEL }),
};

let counter = 0;
const open = () => openDB<RereadDB>(`bench-transfer-${++counter}`, DB_VERSION, { upgrade: (db, oldVersion, _v, tx) => upgrade(db, oldVersion, tx) });

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/** Samples memory until stopped: the peaks above the level at the start. */
function sampler() {
  gc();
  const base = process.memoryUsage();
  let heap = base.heapUsed;
  let rss = base.rss;
  const sample = () => {
    const m = process.memoryUsage();
    heap = Math.max(heap, m.heapUsed);
    rss = Math.max(rss, m.rss);
  };
  // (In --live mode only the samples after a collection count.)
  const timer = setInterval(() => live || sample(), 20);
  return {
    sample,
    stop: () => {
      sample();
      clearInterval(timer);
      gc();
      // What stays after the phase (an import's new database, in fake-indexeddb's memory): the peak less this is working memory.
      const retainedMb = (process.memoryUsage().heapUsed - base.heapUsed) / 2 ** 20;
      return { heapMb: (heap - base.heapUsed) / 2 ** 20, rssMb: (rss - base.rss) / 2 ** 20, retainedMb };
    },
  };
}

/** One phase in this process: prints a JSON line. */
async function child(dir: string, phase: 'export' | 'import', file: string): Promise<void> {
  const tree = await loadTree(dir);
  const streaming = typeof tree.transfer.JsonlExport === 'function';
  const engineOn = (db: DB) => {
    const e = new tree.Engine(() => Promise.resolve(db));
    e.maintenance.auto = false;
    e.dense = lane;
    return e;
  };
  if (phase === 'export') {
    const db = await open();
    const built = await buildIndex(db);
    const engine = engineOn(db);
    const fd = openSync(file, 'w');
    const m = sampler();
    const t0 = performance.now();
    const transfers = new tree.Transfers();
    let parts = 0;
    let chars = 0;
    if (streaming) {
      const JsonlExport = tree.transfer.JsonlExport as { start: (e: unknown, v: boolean) => Promise<{ listed: number }> };
      const { token } = transfers.offer!(await JsonlExport.start(engine, true)) as { token: string };
      for (let part: number | null = 0; part !== null; parts++) {
        const got = (await transfers.part!(token, part)) as { text: string; next: number | null };
        writeSync(fd, got.text);
        chars += got.text.length;
        settle();
        m.sample();
        part = got.next;
      }
    } else {
      const exportJsonl = tree.transfer.exportJsonl as (e: unknown, v: boolean) => Promise<{ jsonl: string }>;
      const { jsonl } = await exportJsonl(engine, true);
      settle();
      m.sample();
      const { token } = transfers.offer!(jsonl) as { token: string };
      for (let from: number | null = 0; from !== null; parts++) {
        const got = (await transfers.part!(token, from)) as { text: string; next: number | null };
        writeSync(fd, got.text);
        chars += got.text.length;
        from = got.next;
      }
    }
    const ms = performance.now() - t0;
    closeSync(fd);
    console.log(JSON.stringify({ phase, streaming, ms, ...m.stop(), parts, chars, bytes: statSync(file).size, ...built }));
    return;
  }
  const db = await open();
  const engine = engineOn(db);
  const m = sampler();
  const t0 = performance.now();
  const transfers = new tree.Transfers();
  let result: unknown;
  if (streaming) {
    const JsonlImport = tree.transfer.JsonlImport as new (e: unknown) => unknown;
    const fd = openSync(file, 'r');
    const read = async (start: number, end: number) => {
      const buf = Buffer.allocUnsafe(end - start);
      readSync(fd, buf, 0, end - start, start);
      return buf;
    };
    let token: string | null = null;
    for await (const text of fileParts(statSync(file).size, read, new TextDecoder())) {
      token = ((await transfers.receive!(token, text, () => new JsonlImport(engine))) as { token: string }).token;
      m.sample();
    }
    closeSync(fd);
    result = await transfers.finish!(token);
  } else {
    // As the Options page read a file then (File.text()), and the worker joined its parts.
    const text = readFileSync(file, 'utf8');
    m.sample();
    let token: string | null = null;
    for (const part of textParts(text)) token = ((await transfers.receive!(token, part)) as { token: string }).token;
    const importJsonl = tree.transfer.importJsonl as (e: unknown, s: string) => Promise<unknown>;
    result = await importJsonl(engine, transfers.take!(token) as string);
  }
  const ms = performance.now() - t0;
  const stored = { pages: await db.count('pages'), vectors: (await db.getAll('vectors')).filter((b) => b.m === MODEL).reduce((n, b) => n + b.ids.length, 0) };
  console.log(JSON.stringify({ phase, streaming, ms, ...m.stop(), result, stored }));
}

async function main(): Promise<void> {
  const childArgs = process.argv.find((a) => a.startsWith('--child='));
  if (childArgs) {
    const [dir, phase, file] = childArgs.slice('--child='.length).split(',') as [string, 'export' | 'import', string];
    await child(dir, phase, file);
    return;
  }
  const against = arg('against', '');
  const trees = [...(against ? [['before', resolve(against)] as const] : []), ['this tree', HERE] as const];
  const tmp = mkdtempSync(join(tmpdir(), 'reread-transfer-'));
  const rows: string[] = [];
  try {
    for (const [name, dir] of trees) {
      const file = join(tmp, `${name.replace(/\W/g, '')}.jsonl`);
      /** A phase in its own process: its JSON line, or what it failed with (a tree that cannot do it). */
      const run = (phase: string): Record<string, unknown> => {
        const r = spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8000', '--import', 'tsx', import.meta.filename, `--sections=${sections}`, ...(live ? ['--live'] : []), `--child=${dir},${phase},${file}`], { encoding: 'utf8', maxBuffer: 1 << 26 });
        const out = (r.stdout ?? '').trim().split('\n').pop() ?? '';
        if (r.status === 0 && out.startsWith('{')) return JSON.parse(out) as Record<string, unknown>;
        const why = /^\w*Error: .*$/m.exec(r.stderr ?? '')?.[0] ?? `exit ${r.status}`;
        return { failed: why };
      };
      const f = (x: unknown, d = 0) => Number(x).toFixed(d);
      const row = (phase: string, r: Record<string, unknown>, what: string) =>
        rows.push(r.failed ? `| ${name} | ${phase} | failed: ${String(r.failed)} | | | | |` : `| ${name} | ${phase} | ${what} | ${f(Number(r.ms) / 1000, 1)} s | ${f(r.heapMb)} MB | ${f(r.retainedMb)} MB | ${f(r.rssMb)} MB |`);
      const e = run('export');
      console.error(name, 'export', JSON.stringify(e));
      row('export', e, `${f(e.sections)} sections, ${f(e.pages)} pages, ${f(Number(e.chars) / 1e6)} M characters`);
      if (e.failed || live) continue;
      const i = run('import');
      console.error(name, 'import', JSON.stringify(i));
      row('import', i, JSON.stringify(i.result));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  console.log(`\n${live ? 'Export, live heap (a full collection before each sample)' : 'Export and import'}, ${sections.toLocaleString('en')} sections with vectors (fake-indexeddb, Node ${process.version}; load ${execFileSync('uptime', { encoding: 'utf8' }).trim().replace(/.*load average: /, '')})\n`);
  console.log('| tree | phase | what | time | peak heap above start | heap kept after (the new database) | peak RSS above start |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const r of rows) console.log(r);
}

await main();
