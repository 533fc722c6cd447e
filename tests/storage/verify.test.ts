import { beforeAll, describe, expect, it } from 'vitest';
import { bm25Search } from '../../src/bm25.js';
import { decodeBlock, encodeBlock } from '../../src/postings.js';
import type { DB } from '../../background/db.js';
import { writePage } from '../../background/pageStore.js';
import { verifyIndex } from '../../background/verify.js';
import { storeVectors } from '../../background/vectorStore.js';
import { cloneDb, engineOn, freshDb, logicalIndex, pageInput, readAll } from './helpers.js';

const WORDS = 'river stone bread yeast commit rebase kitten litter ocean garden'.split(' ');
const text = (seed: number, n = 30) => Array.from({ length: n }, (_, i) => WORDS[(seed * 7 + i * (seed % 3 + 1)) % WORDS.length]).join(' ');

/** Ten pages, 600 chunks containing `river` (so its postings span two blocks), some vectors and a queue. */
async function build(): Promise<DB> {
  const db = await freshDb();
  for (let p = 0; p < 10; p++) {
    const texts = Array.from({ length: p === 0 ? 600 : 3 }, (_, i) => `${text(p + i)} river`);
    await writePage(db, pageInput(`https://site${p % 3}.example/p${p}`, `Page ${p}`, texts, 1_700_000_000_000 + p, 'm'), {});
  }
  const queued = (await db.getAll('embedQueue')).slice(0, 40);
  const entries = queued.map((q) => ({ id: q.id, codes: Int8Array.from([q.id % 100, 1, -1, 2]), scale: 0.01 }));
  await storeVectors(db, 'm', 4, entries, queued.map((q) => q.id));
  return db;
}

let fixture: DB;
beforeAll(async () => {
  fixture = await build();
});
const populated = () => cloneDb(fixture);

async function results(db: DB): Promise<string[]> {
  const engine = engineOn(db);
  const names = new Map((await db.getAll('chunks')).map((c) => [c.id, `${c.url}#${c.ord}`]));
  const out: string[] = [];
  for (const q of [['river'], ['bread', 'yeast'], ['kitten', 'garden', 'page']]) {
    const [postings, stats] = await Promise.all([engine.lexical.postings(q), engine.lexical.corpusStats()]);
    const hits = bm25Search(q.map((term) => ({ term, postings: postings.get(term)! })), stats, { k: 10_000 });
    out.push(...hits.map((h) => `${q.join('+')} ${names.get(h.id)} ${h.score.toFixed(12)}`));
  }
  return out.sort();
}

/** Corrupts, checks verify reports it, repairs, checks verify is clean and search is as before. */
async function corruptAndRepair(corrupt: (db: DB) => Promise<void>, expectProblem: RegExp, lostChunk?: (db: DB) => Promise<string>) {
  const db = await populated();
  const engine = engineOn(db);
  expect(await verifyIndex(engine)).toMatchObject({ ok: true, problems: [] });
  let before = await results(db);
  const logical = await logicalIndex(db);
  if (lostChunk) {
    const name = await lostChunk(db);
    before = before.filter((r) => r.split(' ')[1] !== name);
  }
  await corrupt(db);
  const report = await verifyIndex(engineOn(db));
  expect(report.ok).toBe(false);
  expect(report.problems.some((p) => expectProblem.test(p)), report.problems.join('\n')).toBe(true);
  const repaired = await verifyIndex(engine, true);
  expect(repaired.ok).toBe(false); // the report is of what was found
  expect((await verifyIndex(engine)).problems).toEqual([]);
  const after = await results(db);
  if (!lostChunk) expect(after).toEqual(before);
  else {
    // Scores move a little (N and the average length changed); the documents found do not.
    const docs = (rs: string[]) => rs.map((r) => r.split(' ').slice(0, 2).join(' '));
    expect(docs(after)).toEqual(docs(before));
  }
  return { db, logical };
}

describe('verifyIndex', { timeout: 30_000 }, () => {
  it('reports ok on a healthy index and counts what it checked', async () => {
    const db = await populated();
    const report = await verifyIndex(engineOn(db));
    expect(report.ok).toBe(true);
    expect(report.checked.chunks).toBe(600 + 27);
    expect(report.checked.vectors).toBe(40);
    expect(report.checked.terms).toBeGreaterThan(10);
  });

  it('finds and repairs a wrong term frequency in a posting block', async () => {
    await corruptAndRepair(async (db) => {
      const [block] = await db.getAll('postings', IDBKeyRange.bound(['river', 0], ['river', Infinity]));
      const entries = decodeBlock({ first: block!.f, n: block!.n, data: block!.d });
      entries[3]!.tf += 1;
      const enc = encodeBlock(entries, block!.f);
      await db.put('postings', { t: 'river', f: enc.first, n: enc.n, d: enc.data });
    }, /posting river -> \d+: tf/);
  });

  it('finds and repairs a lost posting block', async () => {
    const { db, logical } = await corruptAndRepair(async (db) => {
      const keys = await db.getAllKeys('postings', IDBKeyRange.bound(['river', 0], ['river', Infinity]));
      expect(keys.length).toBeGreaterThanOrEqual(2);
      await db.delete('postings', keys[1]!);
    }, /term river: df \d+, expected 627/);
    expect(await logicalIndex(db)).toEqual(logical);
  });

  it('finds and repairs a block with a garbled header without throwing', async () => {
    await corruptAndRepair(async (db) => {
      const [block] = await db.getAll('postings', IDBKeyRange.bound(['river', 0], ['river', Infinity]));
      await db.put('postings', { ...block!, n: 2 ** 31 });
    }, /block river\/\d+ is malformed/);
  });

  it('finds and repairs blocks whose ids overlap', async () => {
    await corruptAndRepair(async (db) => {
      const blocks = await db.getAll('postings', IDBKeyRange.bound(['river', 0], ['river', Infinity]));
      const a = decodeBlock({ first: blocks[0]!.f, n: blocks[0]!.n, data: blocks[0]!.d });
      const b = decodeBlock({ first: blocks[1]!.f, n: blocks[1]!.n, data: blocks[1]!.d });
      // Move the second block's first entry to the end of the first block (which drops its own first).
      const moved = encodeBlock([...a.slice(1), b[0]!], blocks[0]!.f);
      const rest = encodeBlock(b.slice(1), blocks[1]!.f);
      await db.put('postings', { t: 'river', f: moved.first, n: moved.n, d: moved.data });
      await db.put('postings', { t: 'river', f: rest.first, n: rest.n, d: rest.data });
    }, /out of order/);
  });

  it('finds and repairs wrong statistics', async () => {
    await corruptAndRepair(async (db) => {
      const s = (await db.get('meta', 'stats')) as { N: number; totalLength: number; nextChunkId: number };
      await db.put('meta', { N: s.N + 3, totalLength: s.totalLength - 1, nextChunkId: 2 }, 'stats');
    }, /stored N/);
  });

  it('finds and repairs orphan chunks, missing chunks and a stale queue', async () => {
    const { db } = await corruptAndRepair(async (db) => {
      const [page] = await db.getAll('pages');
      // The page forgets one chunk (an orphan) and lists one that does not exist.
      await db.put('pages', { ...page!, chunkIds: [...page!.chunkIds.slice(1), 999_999] });
      await db.put('embedQueue', { id: 888_888, model: 'm' });
      const [vec] = await db.getAll('vectors');
      await db.put('embedQueue', { id: vec!.ids[0]!, model: 'm' });
    }, /orphan chunk/, async (db) => {
      const [page] = await db.getAll('pages');
      const chunk = await db.get('chunks', page!.chunkIds[0]!);
      return `${chunk!.url}#${chunk!.ord}`;
    });
    const all = await readAll(db);
    expect(all.queue.some((q) => q.id === 888_888)).toBe(false);
    expect(all.pages.some((p) => p.chunkIds.includes(999_999))).toBe(false);
  });

  it('reports vectors and queue entries without chunks', async () => {
    const db = await populated();
    await db.put('vectors', { m: 'm', f: 900_000, dim: 4, ids: Uint32Array.from([900_000]), codes: new Int8Array(4), scales: Float32Array.from([1]) });
    const report = await verifyIndex(engineOn(db));
    expect(report.problems).toContain('vector m/900000 has no chunk');
    await verifyIndex(engineOn(db), true);
    expect((await verifyIndex(engineOn(db))).ok).toBe(true);
  });
});
